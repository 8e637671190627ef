"""Policy improvement: the greedy policy w.r.t. V^pi is never worse than pi in any state (checked exactly
with linear solves); iterating evaluation and improvement stops at the LP optimum V*, and the optimum
matches exhaustive search over all deterministic policies."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GRIDWORLD, evaluate_policy, random_mdp, random_policy, solve_optimal


# --- formula ---
def one_step_lookahead(V, P, R_sas, gamma):
    """sum_s' P(s'|s,a) [R(s,a,s') + gamma V(s')] for every (s, a); with V = V^pi this is Q^pi(s, a)."""
    return np.sum(P * (R_sas + gamma * V[None, None, :]), axis=2)


def improve(V, P, R_sas, gamma):
    """pi'(s) = argmax_a of the one-step lookahead on V, returned as a one-hot policy."""
    best = np.argmax(one_step_lookahead(V, P, R_sas, gamma), axis=1)
    return np.eye(P.shape[1])[best]
# --- end formula ---


def policy_iteration(mdp, max_iter=100):
    """Howard's loop: exact evaluation (rl_worlds linear solve), then improve; stop when stable."""
    pi = np.eye(mdp.n_actions)[np.zeros(mdp.n_states, dtype=int)]
    values = []
    for it in range(1, max_iter + 1):
        V, _ = evaluate_policy(mdp, pi)
        values.append(V)
        new = improve(V, mdp.P, mdp.R_sas, mdp.gamma)
        if np.array_equal(new, pi):
            return pi, values, it
        pi = new
    raise RuntimeError("policy iteration did not stop")


rng = np.random.default_rng(0)

# 1. Policy improvement theorem on dense random MDPs: from 30 random stochastic policies, the greedy
#    policy has V^{pi'} >= V^pi in every state (both exact linear solves), with a strict gain somewhere,
#    and it is greedy for Q^pi obtained by a separate linear solve over state-action pairs.
worst_gain, best_gain, greedy_ok = np.inf, 0.0, True
for _ in range(30):
    mdp = random_mdp(rng, n_states=6, n_actions=3, gamma=0.9)
    pi = random_policy(mdp, rng)
    V, Q = evaluate_policy(mdp, pi)
    new = improve(V, mdp.P, mdp.R_sas, mdp.gamma)
    V_new, _ = evaluate_policy(mdp, new)
    worst_gain = min(worst_gain, (V_new - V).min())
    best_gain = max(best_gain, (V_new - V).max())
    greedy_ok &= bool(np.allclose(Q[np.arange(6), new.argmax(axis=1)], Q.max(axis=1), rtol=0, atol=1e-12))
check_true("V^{pi'}(s) >= V^pi(s) in every state, 30 random MDPs and policies", worst_gain >= -1e-12,
           f"smallest gain {worst_gain:.2e}, largest {best_gain:.3f}")
check_true("pi'(s) attains max_a Q^pi(s, a) (Q^pi from the state-action linear system)", greedy_ok)
check_true("the gain is strict for a non-optimal policy", best_gain > 0.1, f"largest gain {best_gain:.3f}")
check_close("the lookahead on V^pi is Q^pi of the state-action linear system", one_step_lookahead(V, mdp.P,
            mdp.R_sas, mdp.gamma), Q, rtol=1e-10)

# 2. Policy iteration stops at the optimum: the stable policy has the V* of the linear program, values
#    never decrease from one iteration to the next, and on a small MDP the optimum equals exhaustive
#    search over all 3^4 = 81 deterministic policies (in every state at once).
for mdp in (random_mdp(rng, n_states=7, n_actions=3, gamma=0.9), GRIDWORLD):
    V_star, Q_star, _ = solve_optimal(mdp)
    pi_pi, values, iters = policy_iteration(mdp)
    check_close(f"{mdp.name}: policy iteration ({iters} iterations) reaches V* of the LP", values[-1], V_star,
                rtol=1e-10, atol=1e-12)
    steps = np.diff(np.array(values), axis=0)
    check_true(f"{mdp.name}: V^{{pi_k}} is non-decreasing in k in every state", bool(np.all(steps >= -1e-12)))
    check_true(f"{mdp.name}: improving pi* returns a policy with the same values",
               np.allclose(evaluate_policy(mdp, improve(V_star, mdp.P, mdp.R_sas, mdp.gamma))[0], V_star,
                           rtol=0, atol=1e-10))

small = random_mdp(rng, n_states=4, n_actions=3, gamma=0.8)
all_values = np.array([evaluate_policy(small, np.eye(3)[list(acts)])[0]
                       for acts in itertools.product(range(3), repeat=4)])
pi_pi, values, iters = policy_iteration(small)
check_close("4-state MDP: policy iteration = best of all 81 deterministic policies, state by state",
            values[-1], all_values.max(axis=0), rtol=1e-12)

# 3. One improvement step, by hand: a 1-state MDP with two actions paying 1 and 2 (self-loop): any V
#    gives the action paying 2.
P1 = np.ones((1, 2, 1))
R1 = np.array([[[1.0], [2.0]]])
check_close("1-state example: the better-paying action is chosen", improve(np.array([5.0]), P1, R1, 0.5),
            [[0.0, 1.0]], rtol=0)
# Two states, where the choice depends on V and gamma: from state 0, action 0 pays 1 and stays,
# action 1 pays 0 and moves to state 1 (absorbing). With V = (0, 10): lookahead 1 + gamma*0 vs gamma*10.
P2 = np.zeros((2, 2, 2))
P2[0, 0, 0] = P2[0, 1, 1] = P2[1, :, 1] = 1.0
R2 = np.zeros((2, 2, 2))
R2[0, 0, 0] = 1.0
for g, expect in ((0.05, 0), (0.2, 1)):
    check_true(f"2-state example, gamma = {g}: greedy action in state 0 is {expect}",
               int(improve(np.array([0.0, 10.0]), P2, R2, g)[0].argmax()) == expect)

# Figure: the gridworld's start-state value along policy iteration.
_, values, iters = policy_iteration(GRIDWORLD)
V_star, _, _ = solve_optimal(GRIDWORLD)
fig, ax = figure("Policy iteration on the slippery gridworld", "iteration k", "V^{pi_k}(start)")
ax.plot(range(1, iters + 1), [v[0] for v in values], marker="o")
ax.axhline(V_star[0], color="k", lw=0.6, ls="--", label="V* (LP)")
ax.legend()
