"""UCB1 (Auer, Cesa-Bianchi and Fischer 2002, Fig. 1): the bonus sqrt(2 ln n / n_j) is the Hoeffding radius
whose failure probability is n^-4 (scipy root finding, exact binomial tails); each arm is played once first;
on a Bernoulli bandit the simulated regret grows like log n and stays under the paper's Theorem 1 bound."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import BERNOULLI_BANDIT
from scipy import optimize, stats


# --- formula ---
def ucb1_index(mean, count, n):
    """x_bar_j + sqrt(2 ln n / n_j): empirical mean plus the exploration bonus."""
    return mean + np.sqrt(2.0 * np.log(n) / count)


def ucb1_choose(mean, count):
    """One arm per row (a run): an arm never played first (lowest index), else the largest UCB1 index,
    n being the total number of plays so far in that run."""
    n = count.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        index = ucb1_index(mean, count, n)
    return np.argmax(np.where(count == 0, np.inf, index), axis=1)


# --- end formula ---


rng = np.random.default_rng(0)

# 1. The constant: the bonus eps solves exp(-2 n_j eps^2) = n^-4 (Hoeffding's bound equal to n^-4).
for n_j, n in [(1, 2), (3, 10), (40, 1000), (500, 10**6)]:
    root = optimize.brentq(lambda e, m=n_j, t=n: np.exp(-2 * m * e * e) - float(t) ** -4, 1e-9, 50)
    check_close(
        f"bonus at n_j = {n_j}, n = {n}: Hoeffding radius with failure probability n^-4 (brentq)",
        ucb1_index(0.0, n_j, n),
        root,
        rtol=1e-9,
    )
# ... and the exact binomial upper tail at that radius is below n^-4 (Bernoulli(0.5) rewards).
for n_j, n in [(60, 20), (200, 1000)]:
    k = np.ceil(n_j * ucb1_index(0.5, n_j, n) - 1e-12)
    tail = stats.binom.sf(k - 1, n_j, 0.5)
    check_true(
        f"P(mean of {n_j} Bernoulli(1/2) >= 1/2 + bonus) <= n^-4 (scipy binom)",
        tail <= n**-4.0,
        f"{tail:.2e} <= {n**-4.0:.2e}",
    )

# 2. Initialisation and the choice: every arm once in order, then the argmax of the index.
count = np.array([[0.0, 0, 0], [1, 0, 3], [3, 5, 2]])
mean = np.array([[0.0, 0, 0], [0.9, 0, 0.2], [0.6, 0.7, 0.35]])
chosen = ucb1_choose(mean, count)
check_true("untried arms first, lowest index first", chosen[0] == 0 and chosen[1] == 1, f"{chosen[:2]}")
check_true(
    "n is the run's total plays: counts (2, 200), means (0, 0.9) -> the neglected arm 0 wins (2.30 vs 1.13)",
    ucb1_choose(np.array([[0.0, 0.9]]), np.array([[2.0, 200.0]]))[0] == 0,
)
idx = ucb1_index(mean[2], count[2], 10)
check_true(
    "all tried: the arm with the largest index (arm 2 here, despite the lowest mean)",
    chosen[2] == 2 == int(np.argmax(idx)),
    f"indices {np.round(idx, 3)}",
)

# 3. 300 runs x 5000 plays on the 5-arm Bernoulli bandit.
bandit = BERNOULLI_BANDIT
runs, T, K = 300, 5000, bandit.n_arms
S = np.zeros((runs, K))
N = np.zeros((runs, K))
regret = np.zeros(T)
rows = np.arange(runs)
for t in range(T):
    arms = ucb1_choose(S / np.maximum(N, 1), N)
    S[rows, arms] += bandit.pull(arms, rng)
    N[rows, arms] += 1
    regret[t] = bandit.gaps[arms].mean()
cum = np.cumsum(regret)
gaps = bandit.gaps[bandit.gaps > 0]
ts = np.arange(1, T + 1)
bound = 8 * np.log(ts)[:, None] / gaps[None, :]
bound = bound.sum(axis=1) + (1 + np.pi**2 / 3) * bandit.gaps.sum()
check_true(
    "expected regret (mean of 300 runs) <= Theorem 1 bound at every n >= K",
    np.all(cum[K:] <= bound[K:]),
    f"at n = {T}: {cum[-1]:.1f} <= {bound[-1]:.1f}",
)
fit_t = ts[1000:]
slope, intercept, r_value, _, _ = stats.linregress(np.log(fit_t), cum[1000:])
check_true(
    "regret is linear in log n (linregress R^2 > 0.99 on n = 1000..5000)",
    r_value**2 > 0.99,
    f"R^2 = {r_value**2:.4f}, slope {slope:.1f} per unit of ln n",
)
inc1, inc2 = cum[2499] - cum[1249], cum[4999] - cum[2499]
check_true(
    "not linear: doubling n from 2500 to 5000 adds less than 1.5x what 1250 -> 2500 added (linear: 2x)",
    inc2 < 1.5 * inc1,
    f"{inc2:.1f} vs {inc1:.1f}",
)
pulls = N.mean(axis=0)
sub = bandit.gaps > 0
check_true(
    "E[N_j(n)] <= 8 ln n / Delta_j^2 + 1 + pi^2/3 for every suboptimal arm (Theorem 1 proof)",
    np.all(pulls[sub] <= 8 * np.log(T) / bandit.gaps[sub] ** 2 + 1 + np.pi**2 / 3),
    f"pulls {np.round(pulls, 1)}",
)
check_true("the best arm takes most plays", pulls.argmax() == bandit.best_arm, f"{np.round(pulls / T, 3)}")

fig, ax = figure("UCB1 on a 5-arm Bernoulli bandit (300 runs)", "plays n (log scale)", "expected regret")
ax.semilogx(ts, cum, label="UCB1 (simulated)")
ax.semilogx(ts, intercept + slope * np.log(ts), "k--", lw=0.8, label="a + b ln n fit")
ax.legend()

# The page's calculator is checked against ucb1_index on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): n = 1 (ln n = 0, no bonus), an arm played once and one played often,
# means at both ends of [0, 1], and only rows with n >= n_j, as in any run.
import cardcalc  # noqa: E402

cardcalc.table(lambda xbar, n_j, n: {"bonus": ucb1_index(0.0, n_j, n), "index": ucb1_index(xbar, n_j, n)},
               [row for row in cardcalc.grid(xbar=(0.0, 0.37, 1.0), n_j=(1, 7, 1000), n=(1, 10, 1000, 10**6))
                if row["n"] >= row["n_j"]])
