"""Q-learning: the expected update is alpha (T*Q - Q) exactly; run off-policy on the gridworld with a
uniformly random behaviour policy, it converges to Q* (linear program) and its greedy policy is optimal."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, greedy_policy, random_mdp, solve_optimal


# --- formula ---
def q_learning_update(Q, s, a, r, s_next, done, alpha, gamma):
    """In place: Q(s,a) <- Q(s,a) + alpha [r + gamma max_a' Q(s',a') - Q(s,a)], no bootstrap after a
    terminal s'. s, a, ... may be arrays of distinct (s, a) pairs."""
    target = r + gamma * np.where(done, 0.0, np.max(Q[s_next], axis=-1))
    Q[s, a] += alpha * (target - Q[s, a])
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Expected update on a random MDP (5 states, 3 actions): apply the update to every (s, a) pair for
#    each possible next state s', weight the increments by P(s'|s, a) and compare with
#    alpha (T*Q - Q), T*Q = r + gamma P max_a' Q (expected rewards, matrix form).
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
Q0 = rng.normal(size=(5, 3))
s_all, a_all = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
expected_inc = np.zeros((5, 3))
for s2 in range(5):
    Qc = Q0.copy()
    q_learning_update(Qc, s_all, a_all, mdp.R_sas[:, :, s2], np.full((5, 3), s2),
                      np.zeros((5, 3), dtype=bool), 0.25, mdp.gamma)
    expected_inc += mdp.P[:, :, s2] * (Qc - Q0)
check_close("E[increment | s, a] = alpha (T*Q - Q)(s, a)", expected_inc,
            0.25 * (mdp.R + mdp.gamma * mdp.P @ Q0.max(axis=1) - Q0), rtol=1e-12)
Qt = Q0.copy()
q_learning_update(Qt, 1, 2, -0.7, 3, True, 1.0, mdp.gamma)
check_close("terminal next state, alpha = 1: Q(s, a) becomes the reward", Qt[1, 2], -0.7, rtol=1e-12)
check_close("... and no other entry changes", np.delete(Qt.ravel(), 1 * 3 + 2), np.delete(Q0.ravel(), 5),
            rtol=0)

# 2. Off-policy control on the gridworld: behaviour is uniformly random (it never improves), episodes
#    start in random non-terminal cells, step size alpha = n(s, a)^-0.8. Q-learning still learns Q*,
#    the optimal values, to within 0.1 after 6000 episodes (about 52,000 updates).
grid = GRIDWORLD
V_star, Q_star, pi_star = solve_optimal(grid)
sampler = MDPSampler(grid, rng)
nonterminal = np.flatnonzero(~grid.terminal)
Q = np.zeros((16, 4))
n_sa = np.zeros((16, 4))
curve, steps = [], 0
# The behaviour never looks at Q, so the 6000 episodes (at most 30 steps each) are drawn up front by the
# batch sampler; the updates then run through them in order, one transition at a time, as before.
starts = rng.choice(nonterminal, 6000)
episodes = sampler.rollouts(np.full((16, 4), 0.25), 6000, 30, s0=starts)
for states, actions, rewards in zip(*(x.tolist() for x in episodes), strict=True):
    for t, (s, a, r) in enumerate(zip(states, actions, rewards, strict=False)):
        s2 = states[t + 1]
        done = bool(grid.terminal[s2])
        n_sa[s, a] += 1
        q_learning_update(Q, s, a, r, s2, done, n_sa[s, a] ** -0.8, grid.gamma)
        steps += 1
        if steps % 500 == 0:
            curve.append((steps, np.abs(Q - Q_star).max()))
        if done:
            break
check_close(f"Q-learning after {steps} updates vs Q* from the LP (tolerance 0.1)", Q[nonterminal],
            Q_star[nonterminal], rtol=0, atol=0.1)
V_learned, _ = evaluate_policy(grid, greedy_policy(Q))
check_close("the greedy policy of the learned Q is near-optimal: exact value within 0.05 of V*", V_learned,
            V_star, rtol=0, atol=0.05)
uniform_V, _ = evaluate_policy(grid, np.full((16, 4), 0.25))
check_true("the behaviour policy itself is far from optimal", (V_star - uniform_V).max() > 0.5,
           f"V* - V^behaviour up to {(V_star - uniform_V).max():.2f}")

# Figure: sup-norm distance to Q* along the run.
steps_axis, err_axis = np.array(curve).T
fig, ax = figure("Q-learning, slippery gridworld, random behaviour", "updates",
                 "max |Q - Q*|")
ax.semilogy(steps_axis, err_axis)
ax.axhline(0.1, color="k", lw=0.6, ls="--")

# The page's calculator is checked against q_learning_update on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): state 0 moves to state 1, whose two actions are worth max_Q_next
# and one less, so the update's max picks the right one; values of both signs, gamma and alpha from 0 to 1.
# The target is the value after an update with alpha = 1.
import cardcalc  # noqa: E402


def q_learning_row(Q_sa, R, gamma, max_Q_next, alpha):
    after = {}
    for name, step in (("target", 1.0), ("Q_new", alpha)):
        Q = np.array([[Q_sa, 0.0], [max_Q_next - 1.0, max_Q_next]])
        q_learning_update(Q, 0, 0, R, 1, False, step, gamma)
        after[name] = Q[0, 0]
    return after


cardcalc.table(q_learning_row, cardcalc.grid(Q_sa=(-2.0, 0.0, 4.5), R=(-1.0, 2.5), gamma=(0.0, 0.9, 1.0),
                                             max_Q_next=(-3.0, 7.25), alpha=(0.0, 0.1, 1.0)))
