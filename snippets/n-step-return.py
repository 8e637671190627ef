"""n-step return: A3C's backward recursion (Algorithm S3), exact fractions, the n = 1 and Monte Carlo limits,
episode ends, and the exact expectation over every trajectory (n applications of the Bellman operator)."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import enumerate_trajectories, softmax_policy
from rl_worlds import evaluate_policy, random_mdp
from scipy.signal import lfilter


# --- formula ---
def n_step_returns(rewards, values, dones, gamma, n):
    """G_t^(n) = sum_{i<k} gamma^i r_{t+i} + gamma^k V(s_{t+k}) for every step t of a rollout segment, with
    k = min(n, steps left in the segment). rewards[t] is the reward of the step taken at t, values has one
    more entry than rewards (V of the state after the last step); dones[t] = 1 ends the episode at step t,
    which stops the sum there and drops the bootstrap."""
    T = len(rewards)
    out = [None] * T
    for t in range(T):
        end = min(t + n, T)
        total = rewards[t] * 0
        discount = gamma**0
        bootstrap = True
        for k in range(t, end):
            total = total + discount * rewards[k]
            discount = discount * gamma
            if dones[k]:
                bootstrap = False
                break
        if bootstrap:
            total = total + discount * values[end]
        out[t] = total
    return np.array(out)
# --- end formula ---


rng = np.random.default_rng(0)
T = 10
rewards = rng.normal(size=T)
values = rng.normal(size=T + 1)
no_done = np.zeros(T)
gamma = 0.97

# 1. A3C (Mnih et al. 2016, Algorithm S3): R <- V(s_T) (0 if terminal), then R <- r_i + gamma R backwards;
#    each step of a t_max-step segment gets the longest return that fits, i.e. n = t_max for all.
def a3c_targets(r, v_last, terminal, g):
    R, out = (0.0 if terminal else v_last), np.zeros(len(r))
    for i in range(len(r) - 1, -1, -1):
        R = r[i] + g * R
        out[i] = R
    return out


check_close("n = segment length: A3C's backward recursion (bootstrapped end)",
            n_step_returns(rewards, values, no_done, gamma, T),
            a3c_targets(rewards, values[-1], False, gamma),
            rtol=1e-13)
ends_terminal = np.zeros(T)
ends_terminal[-1] = 1
check_close("n = segment length, segment ends in a terminal state: no bootstrap",
            n_step_returns(rewards, values, ends_terminal, gamma, T + 3),
            a3c_targets(rewards, values[-1], True, gamma), rtol=1e-13)

# 2. n = 1 is the one-step TD target r_t + gamma V(s_{t+1}).
check_close("n = 1: TD target", n_step_returns(rewards, values, no_done, gamma, 1),
            rewards + gamma * values[1:], rtol=1e-13)

# 3. Fixed n = 3 inside the segment: direct sums with powers of gamma, the last steps truncated at the end.
direct = np.array([sum(gamma**i * rewards[t + i] for i in range(min(3, T - t)))
                   + gamma ** min(3, T - t) * values[min(t + 3, T)] for t in range(T)])
check_close("n = 3: direct sums (window cut at the segment end)",
            n_step_returns(rewards, values, no_done, gamma, 3), direct, rtol=1e-13)
#    and with no bootstrap value at all (a critic of zeros) the long-n limit is the Monte Carlo return.
check_close("V = 0, n >= T: the discounted Monte Carlo return (lfilter)",
            n_step_returns(rewards, np.zeros(T + 1), no_done, gamma, 50),
            lfilter([1.0], [1.0, -gamma], rewards[::-1])[::-1], rtol=1e-12)

# 4. Exact rationals: r = (1, 2, 0, 4), V = (0, 1, 2, 3, 8), gamma = 1/2, n = 2:
#    G_0 = 1 + 1 + 1/4 * 2 = 5/2; G_1 = 2 + 0 + 1/4 * 3 = 11/4; G_2 = 0 + 2 + 1/4 * 8 = 4;
#    G_3 = 4 + 1/2 * 8 = 8 (the window is cut at the end).
F = Fraction
ex = n_step_returns([F(1), F(2), F(0), F(4)], [F(0), F(1), F(2), F(3), F(8)], [0, 0, 0, 0], F(1, 2), 2)
check_true("exact: G^(2) = (5/2, 11/4, 4, 8)", list(ex) == [F(5, 2), F(11, 4), F(4), F(8)],
           f"got {[str(x) for x in ex]}")

# 5. An episode ends at step 4 inside the segment: the returns of steps 0..4 must not see later rewards,
#    and equal those of the first episode computed on its own with a terminal end.
dones = np.zeros(T)
dones[4] = 1
joined = n_step_returns(rewards, values, dones, gamma, 3)
first = n_step_returns(rewards[:5], np.append(values[:5], 123.0), ends_terminal[-5:], gamma, 3)
second = n_step_returns(rewards[5:], values[5:], no_done[5:], gamma, 3)
check_close("done flag: segment = episode-by-episode", joined, np.concatenate([first, second]), rtol=1e-13)

# 6. Expectation over every trajectory of n steps in a random MDP under a fixed stochastic policy equals
#    n applications of the Bellman operator T_pi V = r_pi + gamma P_pi V to the critic V, for any V;
#    with V = V^pi it is V^pi, and the error contracts by gamma^n (Sutton and Barto, Eq. 7.3).
mdp = random_mdp(rng, 3, 2, 0.8)
pi = softmax_policy(rng.normal(size=(3, 2)))
P_pi, r_pi = mdp.policy_matrices(pi)
V_pi, _ = evaluate_policy(mdp, pi)
V_hat = rng.normal(size=3)
errors = []
for n in (1, 2, 3):
    S_, _, R_, prob = enumerate_trajectories(mdp, pi, n)
    G = np.array([n_step_returns(R_[i], V_hat[S_[i]], np.zeros(n), mdp.gamma, n)[0]
                  for i in range(len(prob))])
    expected = np.array([prob[S_[:, 0] == s] @ G[S_[:, 0] == s] for s in range(3)]) * 3  # uniform start
    bellman = V_hat.copy()
    for _ in range(n):
        bellman = r_pi + mdp.gamma * P_pi @ bellman
    check_close(f"n = {n}: E[G^(n) | s_0] over all trajectories = (T_pi)^n V", expected, bellman, rtol=1e-11)
    errors.append(np.abs(expected - V_pi).max())
check_true("error reduction: max|E[G^(n)] - V^pi| <= gamma^n max|V - V^pi| (Eq. 7.3)",
           all(e <= mdp.gamma ** (k + 1) * np.abs(V_hat - V_pi).max() + 1e-12 for k, e in enumerate(errors)),
           "errors " + ", ".join(f"{e:.4f}" for e in errors))

# Figure: weights on the sampled rewards and on the bootstrap value for n = 1, 3, 10 (gamma = 0.97).
fig, ax = figure("What an n-step return is made of (γ = 0.97)", "steps ahead i", "weight")
for n, c in ((1, "C0"), (3, "C1"), (10, "C2")):
    ax.plot(np.arange(n), gamma ** np.arange(n), "o-", color=c, label=f"n = {n}: rewards γ^i")
    ax.plot([n], [gamma**n], "s", color=c, ms=8)
ax.plot([], [], "s", color="gray", label="square: bootstrap weight γ^n on V(s_{t+n})")
ax.legend(fontsize=8)
