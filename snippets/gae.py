"""GAE: backward recursion vs the lambda-return of n-step returns, lambda = 0 / 1 limits, episode ends."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.signal import lfilter


# --- formula ---
def gae(rewards, values, dones, gamma, lam):
    """A_t = sum_l (gamma lam)^l delta_{t+l}, run backwards; values has one more entry than rewards
    (the value of the state reached after the last step); dones[t] = 1 ends the episode at step t."""
    alive = 1 - dones
    delta = rewards + gamma * values[1:] * alive - values[:-1]
    adv = np.zeros_like(delta)
    running = delta[-1] * 0
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + gamma * lam * alive[t] * running
        adv[t] = running
    return adv
# --- end formula ---


rng = np.random.default_rng(0)
T = 12
rewards = rng.normal(size=T)
values = rng.normal(size=T + 1)  # an arbitrary (imperfect) critic, bootstrap value at the end
no_done = np.zeros(T)
gamma, lam = 0.99, 0.95


def n_step_return(t, n):
    """G_t^(n) = r_t + ... + gamma^(n-1) r_{t+n-1} + gamma^n V(s_{t+n}), with t + n <= T."""
    return sum(gamma**i * rewards[t + i] for i in range(n)) + gamma**n * values[t + n]


def lambda_return(t, lam_):
    """(1 - lam) sum_n lam^(n-1) G^(n), the weight of the longer returns collected on the last one."""
    horizon = T - t
    head = sum((1 - lam_) * lam_ ** (n - 1) * n_step_return(t, n) for n in range(1, horizon))
    return head + lam_ ** (horizon - 1) * n_step_return(t, horizon)


# 1. GAE is the lambda-return minus the baseline (Schulman et al., Eq. 16 read as an average of
#    k-step advantages), built here from n-step returns without any TD residual.
ref = np.array([lambda_return(t, lam) - values[t] for t in range(T)])
check_close("GAE(0.99, 0.95) vs lambda-return of n-step returns minus V", gae(rewards, values, no_done,
            gamma, lam), ref, rtol=1e-11)
for lam_ in (0.3, 0.7):
    ref_l = np.array([lambda_return(t, lam_) - values[t] for t in range(T)])
    check_close(f"GAE(0.99, {lam_}) vs lambda-return minus V", gae(rewards, values, no_done, gamma, lam_),
                ref_l, rtol=1e-11)

# 2. lambda = 1: the Monte Carlo return (bootstrapped once at the end) minus V. The discounted
#    suffix sums come from a linear filter run backwards (scipy.signal.lfilter).
mc = lfilter([1.0], [1.0, -gamma], rewards[::-1])[::-1] + gamma ** np.arange(T, 0, -1) * values[-1]
check_close("lambda = 1: Monte Carlo return minus V (lfilter)", gae(rewards, values, no_done, gamma, 1.0),
            mc - values[:-1], rtol=1e-11)

# 3. lambda = 0: the one-step advantage r_t + gamma V(s_{t+1}) - V(s_t), = 1-step return minus V.
one_step = np.array([n_step_return(t, 1) - values[t] for t in range(T)])
check_close("lambda = 0: one-step TD error", gae(rewards, values, no_done, gamma, 0.0), one_step,
            rtol=1e-12)

# 4. Exact small trajectory in rational arithmetic: gamma = 1/2, lambda = 1/2, three steps.
#    delta = (1 + 1/2*2 - 0, 0 + 1/2*4 - 2, 3 + 1/2*0 - 4) = (2, 0, -1);
#    A_2 = -1, A_1 = 0 + 1/4 * (-1) = -1/4, A_0 = 2 + 1/4 * (-1/4) = 31/16.
F = Fraction
r3 = np.array([F(1), F(0), F(3)], dtype=object)
v3 = np.array([F(0), F(2), F(4), F(0)], dtype=object)
exact = gae(r3, v3, np.array([0, 0, 0], dtype=object), F(1, 2), F(1, 2))
check_true("exact trajectory: A = (31/16, -1/4, -1)", list(exact) == [F(31, 16), F(-1, 4), F(-1)],
           f"got {[str(a) for a in exact]}")

# 5. Episode ends inside the batch: steps 0..4 end an episode (terminal, no bootstrap), steps 5..11
#    start a new one. GAE over the batch equals GAE run on each episode on its own, the first with
#    a terminal value of 0.
dones = np.zeros(T)
dones[4] = 1.0
joined = gae(rewards, values, dones, gamma, lam)
first = gae(rewards[:5], np.append(values[:5], 0.0), np.zeros(5), gamma, lam)
second = gae(rewards[5:], values[5:], np.zeros(T - 5), gamma, lam)
check_close("done flag: batch GAE = per-episode GAE, terminal value 0", joined,
            np.concatenate([first, second]), rtol=1e-12)
lam_ret0 = lambda_return(0, lam) - values[0]
check_true("ignoring the done flag would leak the next episode's rewards", abs(joined[0] - lam_ret0) > 1e-3,
           f"{joined[0]:.4f} with the flag vs {lam_ret0:.4f} without")

# 6. A perfect critic makes the TD errors zero-mean: on a 3-state Markov reward process with the
#    exact V = (I - gamma P)^{-1} r, the expected GAE from each state is zero for any lambda.
P = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.4, 0.4, 0.2]])
r_state = np.array([1.0, -0.5, 2.0])
V = np.linalg.solve(np.eye(3) - gamma * P, r_state)
# Exact expectation over the next state: E[delta | s] = r(s) + gamma P V - V; GAE is a discounted sum
# of such terms, so its expectation from any start distribution is zero too.
expected_delta = np.array([gae(np.array([r_state[s]]), np.array([V[s], V[s2]]), np.zeros(1), gamma, lam)[0]
                           for s in range(3) for s2 in range(3)]).reshape(3, 3)
check_close("exact critic: E[delta_t | s_t] = 0 for every state", (P * expected_delta).sum(axis=1),
            np.zeros(3), atol=1e-12)

lags = np.arange(40)
fig, ax = figure("Weight of the TD error l steps ahead in GAE (γ = 0.99)", "lag l (steps)",
                 "weight (γλ)^l")
for lam_ in (0.0, 0.9, 0.95, 1.0):
    ax.plot(lags, (gamma * lam_) ** lags, marker="o", ms=2, label=f"λ = {lam_}")
ax.legend()
