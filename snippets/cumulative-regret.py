"""Cumulative (pseudo-)regret R_T = T mu* - sum_t mu_{a_t}: matches rl_worlds' Bandit.pseudo_regret, equals
sum_a Delta_a N_a(T) run by run, its mean matches the realised regret T mu* - sum_t X_t (Monte-Carlo), and for
explore-then-commit on two Gaussian arms it matches the closed form
m Delta + (T - 2m) Delta Phi(-Delta sqrt(m/2)/sigma)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import BERNOULLI_BANDIT, Bandit
from scipy import stats


# --- formula ---
def cumulative_regret(means, arms):
    """R_t = t mu* - sum_{s <= t} mu_{a_s} for t = 1..T; arms has shape (..., T)."""
    mu_star = np.max(means)
    t = np.arange(1, arms.shape[-1] + 1)
    return t * mu_star - np.cumsum(means[arms], axis=-1)


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Against the fixture's independent implementation (cumulative sum of gaps), on random arm sequences.
bandit = BERNOULLI_BANDIT
arms = rng.integers(bandit.n_arms, size=(50, 300))
R = cumulative_regret(bandit.means, arms)
check_close(
    "R_t = pseudo-regret of rl_worlds.Bandit, every run and every t",
    R,
    np.array([bandit.pseudo_regret(a) for a in arms]),
    rtol=1e-12,
    atol=1e-12,
)

# A single sequence (1-D arms) works the same way.
check_close(
    "one run as a 1-D array",
    cumulative_regret(bandit.means, arms[3]),
    bandit.pseudo_regret(arms[3]),
    rtol=1e-12,
    atol=1e-12,
)

# 2. Decomposition run by run: R_T = sum_a Delta_a N_a(T), N_a(T) the number of pulls of a.
N = np.stack([np.bincount(a, minlength=bandit.n_arms) for a in arms])
check_close("R_T = sum_a Delta_a N_a(T) (counts by bincount)", R[:, -1], N @ bandit.gaps, rtol=1e-12)

# 3. Expectation: a uniformly random policy has E[R_T] = T * mean(Delta); realised regret
#    T mu* - sum_t X_t has the same mean as the pseudo-regret (Monte-Carlo over 4000 runs).
runs, T = 4000, 200
arms = rng.integers(bandit.n_arms, size=(runs, T))
rewards = bandit.pull(arms, rng)
R = cumulative_regret(bandit.means, arms)
realised = T * bandit.best_mean - rewards.sum(axis=1)
se = realised.std() / np.sqrt(runs)
check_close(
    "uniform policy: mean R_T = T * mean gap (4 standard errors)",
    R[:, -1].mean(),
    T * bandit.gaps.mean(),
    rtol=0,
    atol=4 * R[:, -1].std() / np.sqrt(runs),
)
check_close(
    "mean realised regret = mean pseudo-regret (4 standard errors)",
    realised.mean(),
    R[:, -1].mean(),
    rtol=0,
    atol=4 * se,
)
check_close(
    "E[R_t] = t * mean gap at every t (MC)",
    R.mean(axis=0),
    np.arange(1, T + 1) * bandit.gaps.mean(),
    rtol=0.05,
)

# 4. Explore-then-commit on two Gaussian arms (means 0.5, 0.2, sigma 1): pull each arm m = 20 times, then
#    commit to the better average for the rest. Wrong commit has probability Phi(-Delta sqrt(m / 2) / sigma).
two = Bandit(np.array([0.5, 0.2]), "gaussian", sigma=1.0)
m, T, runs, delta = 20, 300, 6000, 0.3
diff = two.pull(np.zeros((runs, m), dtype=int), rng).mean(1) - two.pull(
    np.ones((runs, m), dtype=int), rng
).mean(1)
commit = (diff < 0).astype(int)
arms = np.concatenate(
    [np.tile(np.repeat([0, 1], m), (runs, 1)), np.repeat(commit[:, None], T - 2 * m, axis=1)], axis=1
)
R = cumulative_regret(two.means, arms)
p_wrong = stats.norm.cdf(-delta * np.sqrt(m / 2))
exact = m * delta + (T - 2 * m) * delta * p_wrong
check_close(
    "ETC: mean R_T vs m Delta + (T - 2m) Delta Phi(-Delta sqrt(m/2)/sigma) (MC, 4 s.e.)",
    R[:, -1].mean(),
    exact,
    rtol=0,
    atol=4 * R[:, -1].std() / np.sqrt(runs),
)
check_close(
    "ETC: R_2m = m Delta after exploration, in every run",
    R[:, 2 * m - 1],
    np.full(runs, m * delta),
    rtol=1e-12,
)
check_true("regret never decreases (every term mu* - mu_a >= 0)", np.all(np.diff(R, axis=1) >= -1e-12))

fig, ax = figure("Cumulative regret, explore-then-commit (m = 20)", "t", "R_t")
ax.plot(np.arange(1, T + 1), R[:200].T, color="0.8", lw=0.5)
ax.plot(np.arange(1, T + 1), R.mean(axis=0), color="k", label="mean over runs")
ax.legend()
