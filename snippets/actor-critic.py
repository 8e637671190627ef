"""One-step actor-critic: with the exact critic the expected actor update (TD error times score, states
weighted by the discounted occupancy) is the finite-difference policy gradient and the expected critic update
is zero; a constant critic error acts as a baseline, a state-dependent one biases the update."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import fd_gradient, objective, softmax_policy
from rl_worlds import GRIDWORLD, evaluate_policy, occupancy, random_mdp


# --- formula ---
def actor_critic_directions(pi, V, s, a, r, s2, done, gamma):
    """For a batch of transitions (s, a, r, s2, done): the advantage estimate A = r + gamma V(s2) - V(s)
    (no bootstrap after a terminal step), the actor's update direction A grad log pi(a|s) for a softmax
    over a table of logits (shape (N, S, A)) and the tabular critic's direction A grad V(s) (shape (N, S))."""
    n = len(s)
    adv = r + gamma * V[s2] * (1 - done) - V[s]
    actor = np.zeros((n, *pi.shape))
    actor[np.arange(n), s] = adv[:, None] * (np.eye(pi.shape[1])[a] - pi[s])
    critic = np.zeros((n, len(V)))
    critic[np.arange(n), s] = adv
    return adv, actor, critic
# --- end formula ---


def all_transitions(mdp, pi):
    """Every (s, a, s') with weight d(s) pi(a|s) P(s'|s, a), d the discounted occupancy from the start."""
    S, A = mdp.n_states, mdp.n_actions
    s, a, s2 = (x.ravel() for x in np.meshgrid(np.arange(S), np.arange(A), np.arange(S), indexing="ij"))
    weight = occupancy(mdp, pi)[s] * pi[s, a] * mdp.P[s, a, s2]
    return s, a, mdp.R_sas[s, a, s2], s2, mdp.terminal[s2].astype(float), weight


def expected_actor(mdp, pi, V):
    s, a, r, s2, done, weight = all_transitions(mdp, pi)
    _, actor, _ = actor_critic_directions(pi, V, s, a, r, s2, done, mdp.gamma)
    return np.einsum("n,nsa->sa", weight, actor)


rng = np.random.default_rng(0)

# 1. Random MDP (5 states, 3 actions, gamma = 0.9): with the exact critic V^pi the expected actor update is
#    the gradient of J, checked against central finite differences of the exactly evaluated J.
mdp = random_mdp(rng, 5, 3, 0.9)
theta = 2.0 * rng.normal(size=(5, 3))
pi = softmax_policy(theta)
V, Q = evaluate_policy(mdp, pi)
grad = fd_gradient(lambda th: objective(mdp, softmax_policy(th)), theta)
check_close("exact critic: E[TD error x score] vs finite-difference gradient", expected_actor(mdp, pi, V),
            grad, rtol=1e-6, atol=1e-10)

# 2. The TD error is then an unbiased advantage estimate: its mean over s' given (s, a) is Q - V.
s, a, r, s2, done, _ = all_transitions(mdp, pi)
adv, _, critic = actor_critic_directions(pi, V, s, a, r, s2, done, mdp.gamma)
mean_adv = np.einsum("n,n->n", mdp.P[s, a, s2], adv).reshape(5, 3, 5).sum(axis=2)
check_close("E[TD error | s, a] = Q^pi(s, a) - V^pi(s)", mean_adv, Q - V[:, None], rtol=1e-10, atol=1e-12)
# ... and the critic's expected step at the fixed point is zero in every state.
w_sa = (pi[s, a] * mdp.P[s, a, s2])
check_close("exact critic: expected critic update is zero", np.einsum("n,ns->s", w_sa, critic), np.zeros(5),
            atol=1e-12)

# 3. Gridworld with terminal states: the done flag stops the bootstrap, so a critic that outputs garbage on
#    terminal states changes nothing.
theta_g = rng.normal(size=(16, 4))
pi_g = softmax_policy(theta_g)
V_g, _ = evaluate_policy(GRIDWORLD, pi_g)
V_garbage = V_g + 3.0 * GRIDWORLD.terminal
grad_g = fd_gradient(lambda th: objective(GRIDWORLD, softmax_policy(th)), theta_g)
check_close("gridworld, critic wrong only on terminal states: still the gradient",
            expected_actor(GRIDWORLD, pi_g, V_garbage), grad_g, rtol=1e-6, atol=1e-9)

# 4. Critic errors: a constant offset c turns into a constant baseline -(1 - gamma) c and leaves the expected
#    update unbiased; a state-dependent error biases it.
check_close("critic off by a constant: unbiased (acts as a baseline)", expected_actor(mdp, pi, V + 2.5), grad,
            rtol=1e-6, atol=1e-10)
noise = rng.normal(size=5)
bias = np.abs(expected_actor(mdp, pi, V + noise) - grad).max()
check_true("critic off by a state-dependent error: biased", bias > 1e-2, f"max deviation {bias:.3f}")
# ... and with terminal states even a constant offset biases it: the masked bootstrap drops the offset only on
#    transitions that end the episode, and the chance of ending depends on the action.
bias_g = np.abs(expected_actor(GRIDWORLD, pi_g, V_g + 2.5) - grad_g).max()
check_true("gridworld, critic off by a constant: biased (termination depends on the action)", bias_g > 1e-2,
           f"max deviation {bias_g:.3f}")

# 5. A hand-computed transition: pi(.|0) = (0.5, 0.5) (zero logits), V = (1, 2), r = 1, gamma = 0.5,
#    s = 0 -> s' = 1 with action 1: A = 1 + 0.5 * 2 - 1 = 1, actor row 0 = 1 * ((0, 1) - (0.5, 0.5)).
one = dict(s=np.array([0]), a=np.array([1]), r=np.array([1.0]), s2=np.array([1]), done=np.array([0.0]))
adv1, act1, crit1 = actor_critic_directions(np.full((2, 2), 0.5), np.array([1.0, 2.0]), gamma=0.5, **one)
check_close("hand example: advantage, actor and critic directions",
            np.concatenate([adv1, act1.ravel(), crit1.ravel()]),
            [1.0, -0.5, 0.5, 0.0, 0.0, 1.0, 0.0], rtol=1e-15)

# Figure: deviation of the expected update from the true gradient as the critic error grows.
scales = np.linspace(0, 2, 21)
fig, ax = figure("Bias of the one-step actor-critic update vs critic error", "critic error scale",
                 "‖E[update] − ∇J‖")
ax.plot(scales, [np.linalg.norm(expected_actor(mdp, pi, V + c * noise) - grad) for c in scales],
        label="state-dependent error")
ax.plot(scales, [np.linalg.norm(expected_actor(mdp, pi, V + c) - grad) for c in scales],
        label="constant error (a baseline)")
ax.legend()
