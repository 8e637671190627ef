"""SARSA: the expected update is alpha (T^pi Q - Q) exactly; on the gridworld with a fixed epsilon-greedy
policy it converges to Q^pi of that policy (linear solve), not to Q*."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import (
    GRIDWORLD,
    MDPSampler,
    epsilon_greedy_policy,
    evaluate_policy,
    random_mdp,
    random_policy,
    solve_optimal,
)


# --- formula ---
def sarsa_update(Q, s, a, r, s_next, a_next, done, alpha, gamma):
    """In place: Q(s,a) <- Q(s,a) + alpha [r + gamma Q(s',a') - Q(s,a)], a' the action actually taken
    next (no bootstrap after a terminal s'). Arguments may be arrays of distinct (s, a) pairs."""
    target = r + gamma * np.where(done, 0.0, Q[s_next, a_next])
    Q[s, a] += alpha * (target - Q[s, a])
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Expected update on a random MDP: weight each (s', a') by P(s'|s,a) pi(a'|s'); the average increment
#    is alpha (T^pi Q - Q) with T^pi Q = r + gamma P (sum_a' pi Q), in matrix form with expected rewards.
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
pi = random_policy(mdp, rng)
Q0 = rng.normal(size=(5, 3))
s_all, a_all = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
expected_inc = np.zeros((5, 3))
for s2 in range(5):
    for a2 in range(3):
        Qc = Q0.copy()
        sarsa_update(Qc, s_all, a_all, mdp.R_sas[:, :, s2], np.full((5, 3), s2), np.full((5, 3), a2),
                     np.zeros((5, 3), dtype=bool), 0.4, mdp.gamma)
        expected_inc += mdp.P[:, :, s2] * pi[s2, a2] * (Qc - Q0)
check_close("E[increment | s, a] = alpha (T^pi Q - Q)(s, a)", expected_inc,
            0.4 * (mdp.R + mdp.gamma * mdp.P @ (pi * Q0).sum(axis=1) - Q0), rtol=1e-12)
V_pi, Q_pi = evaluate_policy(mdp, pi)
Qc = Q_pi.copy()
sarsa_update(Qc, 0, 1, mdp.R_sas[0, 1, 3], 3, 2, False, 1.0, mdp.gamma)
check_close("alpha = 1 replaces Q(s, a) by the sampled target r + gamma Q(s', a')", Qc[0, 1],
            mdp.R_sas[0, 1, 3] + mdp.gamma * Q_pi[3, 2], rtol=1e-12)
Qt = Q0.copy()
sarsa_update(Qt, 2, 0, 0.8, 4, 1, True, 0.5, mdp.gamma)
check_close("terminal next state: the target is the reward alone", Qt[2, 0], 0.5 * Q0[2, 0] + 0.5 * 0.8,
            rtol=1e-12)

# 2. On-policy prediction on the gridworld: behave with pi = epsilon-greedy(Q*, epsilon = 0.3) and learn
#    with SARSA (step size n(s, a)^-0.8, episodes from random non-terminal cells). The fixed point is
#    Q^pi of the exploring policy, from rl_worlds' linear solve, not Q*.
grid = GRIDWORLD
_, Q_star, _ = solve_optimal(grid)
pi_eps = epsilon_greedy_policy(Q_star, 0.3)
_, Q_eps = evaluate_policy(grid, pi_eps)
sampler = MDPSampler(grid, rng)
nonterminal = np.flatnonzero(~grid.terminal)
Q = np.zeros((16, 4))
n_sa = np.zeros((16, 4))
# pi is fixed (greedy on Q*, not on the Q being learned), so the 10,000 episodes are drawn up front by the
# batch sampler, 41 steps long since the 40th update needs the action after it; the updates then run
# through each episode in order, one transition at a time, until it ends.
paths = sampler.rollouts(pi_eps, 10_000, 41, s0=rng.choice(nonterminal, 10_000))
for states, actions, rewards in zip(*(x.tolist() for x in paths), strict=True):
    for t in range(40):
        s, a, s2 = states[t], actions[t], states[t + 1]
        n_sa[s, a] += 1
        ended = bool(grid.terminal[s2])
        sarsa_update(Q, s, a, rewards[t], s2, actions[t + 1], ended, n_sa[s, a] ** -0.8, grid.gamma)
        if ended:
            break
rms = np.sqrt(np.mean((Q - Q_eps)[nonterminal] ** 2))
check_close(f"SARSA ({int(n_sa.sum())} updates) vs Q^pi of the 0.3-greedy policy, every entry (tol 0.12)",
            Q[nonterminal], Q_eps[nonterminal], rtol=0, atol=0.12)
check_true("root-mean-square error over the 56 entries below 0.04", rms < 0.04, f"RMS error {rms:.4f}")
rms_star = np.sqrt(np.mean((Q - Q_star)[nonterminal] ** 2))
check_true("... and clearly not Q*: RMS distance to Q* above 0.15 (the exploring policy's values are lower)",
           rms_star > 0.15, f"RMS distance to Q* = {rms_star:.3f}")

# The page's calculator is checked against sarsa_update on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): state 0 moves to state 1 and takes its action 1, worth Q_next (its other
# action is worth more, so the update must use the action taken); values of both signs, gamma and alpha
# from 0 to 1. The target is the value after an update with alpha = 1.
import cardcalc  # noqa: E402


def sarsa_row(Q_sa, R, gamma, Q_next, alpha):
    after = {}
    for name, step in (("target", 1.0), ("Q_new", alpha)):
        Q = np.array([[Q_sa, 0.0], [Q_next + 1.0, Q_next]])
        sarsa_update(Q, 0, 0, R, 1, 1, False, step, gamma)
        after[name] = Q[0, 0]
    return after


cardcalc.table(sarsa_row, cardcalc.grid(Q_sa=(-2.0, 0.0, 4.5), R=(-1.0, 2.5), gamma=(0.0, 0.9, 1.0),
                                        Q_next=(-3.0, 7.25), alpha=(0.0, 0.1, 1.0)))
