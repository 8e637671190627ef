"""TD error: discounted sums of TD errors telescope to G_t - V(S_t); E[delta | s] is the Bellman residual
r_pi + gamma P_pi V - V (zero for V = V^pi); E[delta | s, a] under V^pi is the advantage Q^pi - V^pi."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, random_mdp, random_policy
from scipy.signal import lfilter


# --- formula ---
def td_errors(rewards, V, states, next_states, done, gamma):
    """delta_t = R_{t+1} + gamma V(S_{t+1}) - V(S_t), with V(S_{t+1}) taken as 0 when S_{t+1} is terminal."""
    bootstrap = np.where(done, 0.0, V[next_states])
    return rewards + gamma * bootstrap - V[states]
# --- end formula ---


rng = np.random.default_rng(0)
grid = GRIDWORLD
pi = np.full((16, 4), 0.25)
sampler = MDPSampler(grid, rng)

# 1. Telescoping (Sutton and Barto, Eq. 6.6): for ANY value table V (here random, including nonzero
#    numbers stored for the terminal states, which the done flag must ignore), the discounted sum of
#    an episode's TD errors from t on is G_t - V(S_t). Both discounted sums by scipy.signal.lfilter.
V_any = rng.normal(size=16)
worst = 0.0
for _ in range(200):
    ep = sampler.episode(pi, s0=int(rng.integers(0, 5)))
    S, S2 = ep.states[:-1], ep.states[1:]
    delta = td_errors(ep.rewards, V_any, S, S2, grid.terminal[S2], grid.gamma)
    lhs = lfilter([1.0], [1.0, -grid.gamma], delta[::-1])[::-1]
    G = lfilter([1.0], [1.0, -grid.gamma], ep.rewards[::-1])[::-1]
    worst = max(worst, np.abs(lhs - (G - V_any[S])).max())
check_true("200 episodes: sum_k gamma^k delta_{t+k} = G_t - V(S_t) for a random V", worst < 1e-12,
           f"max abs error {worst:.1e}")

# 2. Exact expectation on a random MDP: weighting every (a, s') by pi(a|s) P(s'|s, a) gives
#    E[delta_t | S_t = s] = r_pi(s) + gamma (P_pi V)(s) - V(s) for any V (here no terminal states).
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
pol = random_policy(mdp, rng)
P_pi, r_pi = mdp.policy_matrices(pol)
U = rng.normal(size=5)
s_idx, a_idx, s2_idx = np.meshgrid(np.arange(5), np.arange(3), np.arange(5), indexing="ij")
weights = pol[:, :, None] * mdp.P
d_all = td_errors(mdp.R_sas, U, s_idx, s2_idx, np.zeros_like(s2_idx, dtype=bool), mdp.gamma)
check_close("E[delta | s] = r_pi + gamma P_pi V - V (Bellman residual) for a random V",
            (weights * d_all).sum(axis=(1, 2)), r_pi + mdp.gamma * P_pi @ U - U, rtol=1e-12)

# 3. With V = V^pi the expected TD error is zero in every state, and E[delta | s, a] is the advantage.
V, Q = evaluate_policy(mdp, pol)
d_exact = td_errors(mdp.R_sas, V, s_idx, s2_idx, np.zeros_like(s2_idx, dtype=bool), mdp.gamma)
check_close("V = V^pi: E[delta | s] = 0", (weights * d_exact).sum(axis=(1, 2)), np.zeros(5), atol=1e-13)
check_close("V = V^pi: E[delta | s, a] = Q^pi(s, a) - V^pi(s)", (mdp.P * d_exact).sum(axis=2), Q - V[:, None],
            rtol=1e-12, atol=1e-14)

# 4. Sampled: on-policy gridworld transitions from every non-terminal state (20,000 each) have mean TD
#    error under V^pi within 4 standard errors of zero in each state.
Vg, _ = evaluate_policy(grid, pi)
starts = np.repeat(np.flatnonzero(~grid.terminal), 20_000)
acts = sampler.actions(pi, starts)
r, nxt, done = sampler.transitions(starts, acts)
d = td_errors(r, Vg, starts, nxt, done, grid.gamma).reshape(-1, 20_000)
check_close("gridworld, sampled: mean TD error under V^pi is 0 in every state", d.mean(axis=1),
            np.zeros(len(d)), rtol=0, atol=4 * d.std(axis=1).max() / np.sqrt(20_000))

# The page's calculator is checked against td_errors on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): one transition from state 0 to state 1, rewards and values of both signs,
# gamma from 0 (no bootstrap) to 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda R, gamma, V_next, V_s: td_errors(R, np.array([V_s, V_next]), 0, 1, False, gamma),
               cardcalc.grid(R=(-1.0, 0.0, 2.5), gamma=(0.0, 0.9, 1.0), V_next=(-3.0, 0.0, 7.25),
                             V_s=(-2.0, 0.0, 4.5)))
