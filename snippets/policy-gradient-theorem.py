"""Policy gradient theorem: sum_s d(s) sum_a pi(a|s) Q(s,a) grad log pi(a|s) vs finite differences of the
exactly evaluated J(theta), for tabular and linear-feature softmax policies on two MDPs."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import fd_gradient, objective, softmax_policy, tabular_score
from rl_worlds import GRIDWORLD, evaluate_policy, random_mdp


# --- formula ---
def policy_gradient(mdp, pi, score):
    """grad J = sum_s d(s) sum_a pi(a|s) Q(s, a) grad log pi(a|s), with the discounted occupancy
    d(s) = sum_t gamma^t Pr(S_t = s) from the start distribution. score[s, a, k] is
    d log pi(a|s) / d theta_k; the result has one entry per parameter k."""
    P_pi = np.sum(pi[:, :, None] * mdp.P, axis=1)  # P_pi[s, s'] = sum_a pi(a|s) P(s'|s, a)
    d = np.linalg.solve((np.eye(mdp.n_states) - mdp.gamma * P_pi).T, mdp.start)
    _, Q = evaluate_policy(mdp, pi)
    weight = d[:, None] * pi * Q
    return np.sum(weight[:, :, None] * score, axis=(0, 1))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. A dense random MDP (5 states, 3 actions, gamma = 0.9, uniform start), tabular softmax with logits
#    spread over several units so that the policy is far from uniform.
mdp = random_mdp(rng, 5, 3, 0.9)
theta = 2.0 * rng.normal(size=(5, 3))
pi = softmax_policy(theta)
g = policy_gradient(mdp, pi, tabular_score(pi)).reshape(5, 3)
g_fd = fd_gradient(lambda th: objective(mdp, softmax_policy(th)), theta)
check_close("random MDP, tabular softmax: theorem vs finite differences of exact J", g, g_fd, rtol=1e-6,
            atol=1e-9)

# 2. The slippery gridworld (one start state, terminal goal and pits, gamma = 0.9): 64 logits.
theta_g = rng.normal(size=(16, 4))
pi_g = softmax_policy(theta_g)
g_grid = policy_gradient(GRIDWORLD, pi_g, tabular_score(pi_g)).reshape(16, 4)
g_grid_fd = fd_gradient(lambda th: objective(GRIDWORLD, softmax_policy(th)), theta_g)
check_close("gridworld, tabular softmax: theorem vs finite differences", g_grid, g_grid_fd, rtol=1e-6,
            atol=1e-9)

# 3. Function approximation: one parameter vector w of length 4 shared by all states, logits
#    phi(s, a) . w with random features. Score = phi(s, a) - sum_b pi(b|s) phi(s, b).
phi = rng.normal(size=(5, 3, 4))
w = rng.normal(size=4)


def linear_pi(w_):
    return softmax_policy(phi @ w_)


pi_lin = linear_pi(w)
score_lin = phi - np.einsum("sb,sbk->sk", pi_lin, phi)[:, None, :]
check_close("random MDP, linear-feature softmax (shared w): theorem vs finite differences",
            policy_gradient(mdp, pi_lin, score_lin), fd_gradient(lambda w_: objective(mdp, linear_pi(w_)), w),
            rtol=1e-6, atol=1e-9)

# 4. A discount of 0.5 (short horizon) and a start distribution on one state: the occupancy weights
#    matter and differ strongly from state to state.
mdp_half = random_mdp(rng, 4, 2, 0.5)
mdp_half = type(mdp_half)(mdp_half.P, mdp_half.R_sas, 0.5, np.eye(4)[2], mdp_half.terminal)
theta_h = 3.0 * rng.normal(size=(4, 2))
pi_h = softmax_policy(theta_h)
check_close("gamma = 0.5, start in state 2: theorem vs finite differences",
            policy_gradient(mdp_half, pi_h, tabular_score(pi_h)).reshape(4, 2),
            fd_gradient(lambda th: objective(mdp_half, softmax_policy(th)), theta_h), rtol=1e-6, atol=1e-10)

# 5. What the theorem says is *not* the gradient: weighting states by the normalized on-policy
#    distribution without the gamma^t factor (what sampled implementations do when they drop gamma^t).
#    On the gridworld the undiscounted weights give a visibly different direction.
P_pi = np.einsum("sa,sat->st", pi_g, GRIDWORLD.P)
visits = np.zeros(16)
dist = GRIDWORLD.start.copy()
for _t in range(200):
    visits += dist * (~GRIDWORLD.terminal)
    dist = dist @ P_pi
_, Q_g = evaluate_policy(GRIDWORLD, pi_g)
V_g = (pi_g * Q_g).sum(axis=1)
undiscounted = visits[:, None] * pi_g * (Q_g - V_g[:, None])
cos = (undiscounted * g_grid_fd).sum() / np.linalg.norm(undiscounted) / np.linalg.norm(g_grid_fd)
check_true("dropping gamma^t from the state weighting changes the direction", cos < 0.99,
           f"cosine with the true gradient {cos:.3f}")

# Figure: exact gradient ascent on the gridworld from uniform logits, J(theta) after each step.
theta_run = np.zeros((16, 4))
Js = []
for _it in range(150):
    p = softmax_policy(theta_run)
    Js.append(objective(GRIDWORLD, p))
    theta_run = theta_run + 5.0 * policy_gradient(GRIDWORLD, p, tabular_score(p)).reshape(16, 4)
check_true("exact gradient ascent improves J on the gridworld", Js[-1] > Js[0] + 0.3,
           f"J from {Js[0]:.3f} to {Js[-1]:.3f}")
fig, ax = figure("Exact policy-gradient ascent on the 4 × 4 gridworld", "step", "J(θ) = V^π(start)")
ax.plot(Js)
