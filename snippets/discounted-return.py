"""Discounted return: backward recursion G_t = R_{t+1} + gamma G_{t+1} vs the direct sum, a linear filter,
exact fractions, the geometric series 1/(1 - gamma), and the mean sampled return vs V^pi(s_0)."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy
from scipy.signal import lfilter


# --- formula ---
def discounted_returns(rewards, gamma):
    """G_t = sum_k gamma^k R_{t+k+1} for every t of finished episodes (time on the last axis);
    rewards[..., t] is R_{t+1}. Computed backwards with G_t = R_{t+1} + gamma G_{t+1} and G_T = 0."""
    rewards = np.asarray(rewards)
    returns = np.zeros_like(rewards)
    running = 0
    for t in range(rewards.shape[-1] - 1, -1, -1):
        running = rewards[..., t] + gamma * running
        returns[..., t] = running
    return returns
# --- end formula ---


rng = np.random.default_rng(0)
rewards = rng.normal(size=40)
gamma = 0.93

# 1. The direct sum sum_k gamma^k R_{t+k+1} for every t, as a dot product with the powers of gamma.
direct = np.array([rewards[t:] @ gamma ** np.arange(40 - t) for t in range(40)])
check_close("backward recursion vs direct discounted sums", discounted_returns(rewards, gamma), direct,
            rtol=1e-12)

# 2. The same sums as a linear filter run on the reversed rewards (scipy.signal.lfilter).
check_close("vs scipy.signal.lfilter([1], [1, -gamma]) on reversed rewards",
            discounted_returns(rewards, 0.99), lfilter([1.0], [1.0, -0.99], rewards[::-1])[::-1], rtol=1e-12)

# 3. Exact rationals: R = (1, 0, 2, -1), gamma = 1/2 -> G_3 = -1, G_2 = 2 - 1/2 = 3/2,
#    G_1 = 0 + 3/4 = 3/4, G_0 = 1 + 3/8 = 11/8.
F = Fraction
G_exact = discounted_returns(np.array([F(1), F(0), F(2), F(-1)], dtype=object), F(1, 2))
check_true("exact: G = (11/8, 3/4, 3/2, -1)", list(G_exact) == [F(11, 8), F(3, 4), F(3, 2), F(-1)],
           f"got {[str(g) for g in G_exact]}")

# 4. gamma = 1: the undiscounted return is the sum of the remaining rewards.
check_close("gamma = 1: G_t = sum of the remaining rewards", discounted_returns(rewards, 1.0),
            np.cumsum(rewards[::-1])[::-1], rtol=1e-12, atol=1e-13)

# 5. A reward of +1 forever (Sutton and Barto, Eq. 3.10): G_0 = 1 / (1 - gamma); 3000 steps at
#    gamma = 0.99 leave a tail of 0.99^3000 / 0.01 < 1e-11.
check_close("constant reward 1: G_0 -> 1 / (1 - gamma)", discounted_returns(np.ones(3000), 0.99)[0],
            1 / (1 - 0.99), rtol=1e-12)

# 6. Averaged over sampled episodes the return from the start state is V^pi(s_0): 10,000 gridworld
#    episodes under the uniform random policy (run for 150 steps; terminal states pay nothing more and
#    0.9^150 < 2e-7), mean G_0 within 4 standard errors of the linear solve V^pi = (I - gamma P_pi)^-1 r_pi.
grid = GRIDWORLD
pi = np.full((16, 4), 0.25)
V, _ = evaluate_policy(grid, pi)
_, _, episode_rewards = MDPSampler(grid, rng).rollouts(pi, 10_000, 150, s0=0)
G = discounted_returns(episode_rewards, grid.gamma)
check_close("mean G_0 of 10,000 episodes vs V^pi(start) from the linear solve", G[:, 0].mean(), V[0],
            rtol=0, atol=4 * G[:, 0].std() / np.sqrt(len(G)))
check_close("batched episodes: every G_t of episode 7 vs lfilter", G[7],
            lfilter([1.0], [1.0, -grid.gamma], episode_rewards[7, ::-1])[::-1], rtol=1e-12, atol=1e-15)

# Figure: the weight gamma^k of the reward k steps ahead, and the effective horizon 1/(1 - gamma).
ks = np.arange(200)
fig, ax = figure("Weight of the reward k steps ahead in the return", "steps ahead k", "weight γ^k")
for g in (0.9, 0.95, 0.99):
    ax.plot(ks, g ** ks, label=f"γ = {g}  (1/(1-γ) = {1 / (1 - g):.0f})")
ax.legend()

# The page's calculator, the geometric sum R (1 - gamma^n) / (1 - gamma) of a constant reward over n steps
# (R n at gamma = 1), is checked against the backward recursion of discounted_returns on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): both sides of gamma = 1, gamma = 0
# (only the first reward counts), one step and enough steps at 0.99 to near R / (1 - gamma).
import cardcalc  # noqa: E402

cardcalc.table(lambda R, gamma, n: discounted_returns(np.full(int(n), R), gamma)[0],
               cardcalc.grid(R=(-1.0, 1.0, 2.5), gamma=(0.0, 0.5, 0.9, 0.99, 1.0), n=(1, 10, 100, 3000)))
