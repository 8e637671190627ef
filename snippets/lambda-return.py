"""lambda-return: the backward recursion vs the weighted sum of n-step returns, the lambda = 0 / 1 limits,
the GAE identity, exact fractions, episode ends, and offline TD(lambda) with eligibility traces."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import softmax_policy
from rl_worlds import GRIDWORLD, MDPSampler
from scipy.signal import lfilter


# --- formula ---
def lambda_returns(rewards, values, dones, gamma, lam):
    """G_t^lambda for every step of a segment by the recursion
    G_t^lambda = r_t + gamma [(1 - lam) V(s_{t+1}) + lam G_{t+1}^lambda], with G_T^lambda = V(s_T) after the
    last step. rewards[t] is the reward of the step taken at t, values has one more entry than rewards;
    dones[t] = 1 ends the episode at step t (no bootstrap, nothing carried across)."""
    T = len(rewards)
    out = [None] * T
    following = values[T]
    for t in range(T - 1, -1, -1):
        alive = 1 - dones[t]
        following = rewards[t] + gamma * alive * ((1 - lam) * values[t + 1] + lam * following)
        out[t] = following
    return np.array(out)
# --- end formula ---


rng = np.random.default_rng(0)
T = 12
rewards = rng.normal(size=T)
values = rng.normal(size=T + 1)
no_done = np.zeros(T)
gamma = 0.95


def n_step(t, n):
    """G_t^(n) by its definition: n rewards, then the discounted bootstrap value."""
    return sum(gamma**i * rewards[t + i] for i in range(n)) + gamma**n * values[t + n]


def weighted_sum(t, lam):
    """(1 - lam) sum_{n < T-t} lam^(n-1) G^(n) + lam^(T-t-1) G^(T-t) (Sutton and Barto, Eq. 12.3, with the
    longest return available in the segment in place of the Monte Carlo return)."""
    left = T - t
    head = sum((1 - lam) * lam ** (n - 1) * n_step(t, n) for n in range(1, left))
    return head + lam ** (left - 1) * n_step(t, left)


# 1. Recursion vs the weighted sum of n-step returns, for several lambda.
for lam in (0.3, 0.8, 0.95):
    check_close(f"lambda = {lam}: recursion vs weighted sum of n-step returns",
                lambda_returns(rewards, values, no_done, gamma, lam),
                [weighted_sum(t, lam) for t in range(T)], rtol=1e-12)

# 2. Limits: lambda = 0 is the one-step TD target; lambda = 1 is the discounted return of the segment,
#    bootstrapped once at its end (a backward linear filter).
check_close("lambda = 0: TD target r_t + gamma V(s_{t+1})",
            lambda_returns(rewards, values, no_done, gamma, 0.0),
            rewards + gamma * values[1:], rtol=1e-13)
mc = lfilter([1.0], [1.0, -gamma], rewards[::-1])[::-1] + gamma ** np.arange(T, 0, -1) * values[-1]
check_close("lambda = 1: Monte Carlo return bootstrapped at the segment end",
            lambda_returns(rewards, values, no_done, gamma, 1.0), mc, rtol=1e-12)

# 3. The GAE identity: G^lambda_t - V(s_t) = sum_l (gamma lambda)^l delta_{t+l}, summed directly.
delta = rewards + gamma * values[1:] - values[:-1]
lam = 0.9
gae_direct = np.array([sum((gamma * lam) ** k * delta[t + k] for k in range(T - t)) for t in range(T)])
check_close("G^lambda - V = sum_l (gamma lambda)^l delta_{t+l} (GAE)",
            lambda_returns(rewards, values, no_done, gamma, lam) - values[:-1], gae_direct, rtol=1e-11,
            atol=1e-13)

# 4. Exact: r = (1, 0, 2), V = (0, 4, 2, 8), gamma = lambda = 1/2.
#    G_2 = 2 + 1/2 (1/2 * 8 + 1/2 * 8) = 6; G_1 = 0 + 1/2 (1/2 * 2 + 1/2 * 6) = 2;
#    G_0 = 1 + 1/2 (2 + 1) = 5/2.
F = Fraction
ex = lambda_returns([F(1), F(0), F(2)], [F(0), F(4), F(2), F(8)], [0, 0, 0], F(1, 2), F(1, 2))
check_true("exact: G^lambda = (5/2, 2, 6)", list(ex) == [F(5, 2), F(2), F(6)], f"got {[str(x) for x in ex]}")

# 5. An episode ends at step 5 inside the segment: the segment's lambda-returns equal those of the two
#    episodes computed separately (the first with terminal value 0).
dones = np.zeros(T)
dones[5] = 1
joined = lambda_returns(rewards, values, dones, gamma, 0.8)
first = lambda_returns(rewards[:6], np.append(values[:6], 0.0), no_done[:6], gamma, 0.8)
second = lambda_returns(rewards[6:], values[6:], no_done[6:], gamma, 0.8)
check_close("done flag: segment = episode by episode", joined, np.concatenate([first, second]), rtol=1e-13)

# 6. Offline equivalence (Sutton 1988; Sutton and Barto Sec. 12.2): over a whole episode with the values held
#    fixed, the summed backward-view TD(lambda) updates with accumulating eligibility traces equal the summed
#    forward-view updates G^lambda_t - V(s_t). A real gridworld episode, so states repeat and traces overlap.
sampler = MDPSampler(GRIDWORLD, rng)
ep = sampler.episode(softmax_policy(rng.normal(size=(16, 4))), s0=0, max_steps=200)
check_true("the sampled episode terminates and revisits states",
           ep.terminated and len(set(ep.states)) < len(ep.states),
           f"{len(ep.rewards)} steps")
V_tab = rng.normal(size=16) * (~GRIDWORLD.terminal)
lam = 0.7
s_ep = ep.states
ends = np.r_[np.zeros(len(ep.rewards) - 1), 1.0]
G_lam = lambda_returns(ep.rewards, V_tab[s_ep], ends, GRIDWORLD.gamma, lam)
forward = np.zeros(16)
np.add.at(forward, s_ep[:-1], G_lam - V_tab[s_ep[:-1]])
backward, trace = np.zeros(16), np.zeros(16)
for t in range(len(ep.rewards)):
    trace = GRIDWORLD.gamma * lam * trace
    trace[s_ep[t]] += 1.0
    td = ep.rewards[t] + GRIDWORLD.gamma * V_tab[s_ep[t + 1]] - V_tab[s_ep[t]]
    backward += td * trace
check_close("offline TD(lambda) with eligibility traces = forward-view lambda-return updates",
            forward, backward,
            rtol=1e-10, atol=1e-12)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows) with weights read off lambda_returns itself: with gamma = 1, no rewards and a segment of
# n + 1 steps, G^(m) = V(s_m), so V = 1 at step n alone gives the weight of the n-step return and V = 1 at
# step n + 1 alone the weight of all longer ones. lambda = 0 (TD) and 1 (Monte Carlo) included.
import cardcalc  # noqa: E402


def weights_from_recursion(lam, n):
    n = int(n)
    zeros = np.zeros(n + 1)
    return {"weight": float(lambda_returns(zeros, np.eye(n + 2)[n], zeros, 1.0, lam)[0]),
            "beyond": float(lambda_returns(zeros, np.eye(n + 2)[n + 1], zeros, 1.0, lam)[0])}


cardcalc.table(weights_from_recursion, cardcalc.grid(lam=(0.0, 0.5, 0.9, 0.95, 1.0), n=(1, 2, 10, 50)))

# Figure: weight (1 - lambda) lambda^(n-1) on each n-step return.
ns = np.arange(1, 31)
fig, ax = figure("Weight of the n-step return in the λ-return", "n (steps before bootstrapping)",
                 "weight (1 − λ) λ^(n−1)")
for lam_ in (0.5, 0.8, 0.95):
    ax.plot(ns, (1 - lam_) * lam_ ** (ns - 1), marker="o", ms=3, label=f"λ = {lam_}")
ax.legend()
