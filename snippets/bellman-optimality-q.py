"""Bellman optimality equation for Q*: the exact Q* (from the LP) is its fixed point; Q-value iteration
converges to it; max_a Q* = V*; its greedy policy is optimal; the backup is a gamma-contraction."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, evaluate_policy, greedy_policy, random_mdp, solve_optimal


# --- formula ---
def q_optimality_backup(Q, P, R_sas, gamma):
    """(T* Q)(s, a) = sum_s' P(s'|s,a) [R(s,a,s') + gamma max_a' Q(s', a')]."""
    best_next = np.max(Q, axis=1)
    return np.sum(P * (R_sas + gamma * best_next[None, None, :]), axis=2)
# --- end formula ---


rng = np.random.default_rng(0)
for mdp in (random_mdp(rng, n_states=7, n_actions=3, gamma=0.9), GRIDWORLD):
    name = mdp.name
    # V* from the LP min sum V s.t. V >= r + gamma P V; Q* from an exact evaluation of its greedy policy.
    V_star, Q_star, pi_star = solve_optimal(mdp)
    check_close(f"{name}: T* Q* = Q*", q_optimality_backup(Q_star, mdp.P, mdp.R_sas, mdp.gamma), Q_star,
                rtol=1e-12, atol=1e-15)
    check_close(f"{name}: max_a Q*(s, a) = V*(s) from the LP", Q_star.max(axis=1), V_star, rtol=1e-12,
                atol=1e-15)
    # Q-value iteration from Q = 0.
    Qk = np.zeros((mdp.n_states, mdp.n_actions))
    for _ in range(400):
        Qk = q_optimality_backup(Qk, mdp.P, mdp.R_sas, mdp.gamma)
    check_close(f"{name}: 400 sweeps of Q-value iteration = Q*", Qk, Q_star, rtol=1e-11, atol=1e-14)
    # Acting greedily on the iterate is optimal: its exact value is V*.
    V_greedy, _ = evaluate_policy(mdp, greedy_policy(Qk))
    check_close(f"{name}: the greedy policy of the iterate has value V*", V_greedy, V_star, rtol=1e-11,
                atol=1e-14)

# First sweep from Q = 0 is the expected reward r(s, a); from there Q_2 = r + gamma P max_a r.
mdp = random_mdp(rng, n_states=5, n_actions=4, gamma=0.8)
Q1 = q_optimality_backup(np.zeros((5, 4)), mdp.P, mdp.R_sas, mdp.gamma)
check_close("one sweep from 0 = r(s, a)", Q1, mdp.R, rtol=1e-12)
check_close("two sweeps = r + gamma P (max_a r)", q_optimality_backup(Q1, mdp.P, mdp.R_sas, mdp.gamma),
            mdp.R + mdp.gamma * mdp.P @ mdp.R.max(axis=1), rtol=1e-12)

# Contraction: for 500 random pairs of Q-tables, ||T*Q1 - T*Q2||_inf <= gamma ||Q1 - Q2||_inf; a constant
# shift c comes back as gamma c, so the bound is attained.
ratios = []
for _ in range(500):
    A, B = rng.normal(scale=5, size=(2, 5, 4))
    ratios.append(np.abs(q_optimality_backup(A, mdp.P, mdp.R_sas, mdp.gamma)
                         - q_optimality_backup(B, mdp.P, mdp.R_sas, mdp.gamma)).max() / np.abs(A - B).max())
check_true("sup-norm ratio <= gamma over 500 random pairs", max(ratios) <= mdp.gamma + 1e-12,
           f"largest ratio {max(ratios):.4f}, gamma = {mdp.gamma}")
A = rng.normal(size=(5, 4))
check_close("T*(Q + c) = T*Q + gamma c", q_optimality_backup(A - 2.0, mdp.P, mdp.R_sas, mdp.gamma),
            q_optimality_backup(A, mdp.P, mdp.R_sas, mdp.gamma) - mdp.gamma * 2.0, rtol=1e-12)
