"""State value V^pi(s) = E[G_t | S_t = s]: the series sum_k gamma^k P_pi^k r_pi vs the linear solve and
its exact finite-horizon form, and first-visit Monte Carlo averages of sampled returns vs V^pi."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, random_mdp, random_policy, solve_optimal
from scipy.signal import lfilter


# --- formula ---
def value_from_expected_rewards(P_pi, r_pi, gamma, horizon):
    """V(s) = E[sum_{k<H} gamma^k R_{t+k+1} | S_t = s] = sum_{k<H} gamma^k (P_pi^k r_pi)(s), by linearity
    of expectation: P_pi^k r_pi is the expected reward k steps after leaving s."""
    value = np.zeros_like(r_pi)
    expected_reward = r_pi
    for k in range(horizon):
        value = value + gamma**k * expected_reward
        expected_reward = P_pi @ expected_reward
    return value


def first_visit_monte_carlo(states, returns, n_states):
    """V(s) ~ mean over episodes that visit s of the return that follows the first visit to s.
    states[i, t] = S_t and returns[i, t] = G_t of episode i."""
    value = np.zeros(n_states)
    for s in np.unique(states):
        visited = states == s
        seen = visited.any(axis=1)
        first = np.argmax(visited, axis=1)
        value[s] = np.mean(returns[seen, first[seen]])
    return value
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Random MDP, random stochastic policy: the series (400 terms, 0.9^400 ~ 5e-19) equals the exact
#    V^pi = (I - gamma P_pi)^{-1} r_pi; a short series (H = 5) equals the exact finite-horizon value
#    (I - (gamma P_pi)^5) (I - gamma P_pi)^{-1} r_pi.
mdp = random_mdp(rng, n_states=6, n_actions=3, gamma=0.9)
pi = random_policy(mdp, rng)
P_pi, r_pi = mdp.policy_matrices(pi)
V, _ = evaluate_policy(mdp, pi)
check_close("sum_k gamma^k P_pi^k r_pi (400 terms) vs linear solve", value_from_expected_rewards(
    P_pi, r_pi, mdp.gamma, 400), V, rtol=1e-11)
finite = (np.eye(6) - np.linalg.matrix_power(mdp.gamma * P_pi, 5)) @ V
check_close("5-step horizon vs (I - (gamma P_pi)^5) V^pi",
            value_from_expected_rewards(P_pi, r_pi, mdp.gamma, 5), finite, rtol=1e-12)

# 2. The gridworld under the uniform random policy: Monte Carlo from 8000 episodes started in random
#    non-terminal states (150 steps each, 0.9^150 < 2e-7), first-visit returns. The tolerance is 4
#    standard errors, computed from the sample of first-visit returns of each state.
grid = GRIDWORLD
pi_u = np.full((16, 4), 0.25)
Vu, _ = evaluate_policy(grid, pi_u)
Pu, ru = grid.policy_matrices(pi_u)
check_close("gridworld: series vs linear solve", value_from_expected_rewards(Pu, ru, grid.gamma, 400), Vu,
            rtol=1e-11, atol=1e-15)
starts = rng.choice(np.flatnonzero(~grid.terminal), 8000)
St, _, Rt = MDPSampler(grid, rng).rollouts(pi_u, 8000, 150, s0=starts)
Gt = lfilter([1.0], [1.0, -grid.gamma], Rt[:, ::-1], axis=1)[:, ::-1]
V_mc = first_visit_monte_carlo(St[:, :-1], Gt, 16)
se = np.zeros(16)
for s in np.flatnonzero(~grid.terminal):
    hit = (St[:, :-1] == s).any(axis=1)
    se[s] = Gt[hit, np.argmax(St[hit, :-1] == s, axis=1)].std() / np.sqrt(hit.sum())
check_close("first-visit Monte Carlo V^pi vs linear solve (4 standard errors per state)",
            V_mc[~grid.terminal], Vu[~grid.terminal], rtol=0, atol=4 * se.max())
check_true("terminal states have value 0 (no reward after entering them)",
           bool(np.all(np.abs(Vu[grid.terminal]) < 1e-12) and np.all(V_mc[grid.terminal] == 0.0)),
           f"linear solve {np.abs(Vu[grid.terminal]).max():.1e}, "
           f"Monte Carlo {np.abs(V_mc[grid.terminal]).max():.1e}")

# 3. The value depends on the policy: the optimal policy's values dominate the uniform policy's in
#    every state (checked on the series computed for both).
_, _, pi_star = solve_optimal(grid)
Ps, rs = grid.policy_matrices(pi_star)
V_star = value_from_expected_rewards(Ps, rs, grid.gamma, 400)
gap = (V_star - Vu)[~grid.terminal]
check_true("V^{pi*}(s) > V^{uniform}(s) in every non-terminal state", bool(np.all(gap > 0)),
           f"smallest gap {gap.min():.3f}")

# Figure: the two value functions on the grid.
fig, ax = figure("Gridworld V(s): uniform random policy (left), optimal (right)", "column",
                 "row", size=(7.0, 3.6))
ax.grid(False)
panel = np.full((4, 9), np.nan)
panel[:, :4], panel[:, 5:] = Vu.reshape(4, 4), V_star.reshape(4, 4)
im = ax.imshow(panel, cmap="viridis")
for s in range(16):
    r, c = divmod(s, 4)
    for off, val in ((0, Vu[s]), (5, V_star[s])):
        label = {15: "G", 5: "pit", 11: "pit"}.get(s, f"{val:.2f}")
        ax.text(c + off, r, label, ha="center", va="center", color="w" if val < 0.3 else "k", fontsize=8)
ax.set_xticks([0, 1, 2, 3, 5, 6, 7, 8], ["0", "1", "2", "3", "0", "1", "2", "3"])
ax.set_yticks(range(4))
fig.colorbar(im, ax=ax, label="V(s)")
