"""Beta-Bernoulli Thompson sampling: the conjugate update matches Bayes' rule computed on a grid
(scipy.stats.beta pdf), each arm is chosen with probability P(arm is best | data) (numerical integration,
scipy quad), and on a Bernoulli bandit the regret grows logarithmically."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import BERNOULLI_BANDIT
from scipy import integrate, stats


# --- formula ---
def ts_update(a, b, rows, arms, rewards):
    """Conjugate Beta posterior update after Bernoulli rewards: a += r, b += 1 - r (in place)."""
    a[rows, arms] += rewards
    b[rows, arms] += 1 - rewards


def ts_choose(a, b, rng):
    """Draw mu_tilde_k ~ Beta(a_k, b_k) for every arm and play the argmax (one arm per row)."""
    mu_tilde = rng.beta(a, b)
    return np.argmax(mu_tilde, axis=-1)


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Posterior update vs Bayes' rule on a grid: prior Beta(2, 3), 37 Bernoulli(0.3) rewards.
a, b = np.array([[2.0]]), np.array([[3.0]])
data = (rng.random(37) < 0.3).astype(float)
for r in data:
    ts_update(a, b, np.array([0]), np.array([0]), np.array([r]))
x = np.linspace(1e-6, 1 - 1e-6, 20001)
unnorm = stats.beta.pdf(x, 2, 3) * x ** data.sum() * (1 - x) ** (len(data) - data.sum())
bayes = unnorm / integrate.simpson(unnorm, x=x)
check_close(
    "Beta(a, b) after the updates = prior x likelihood, normalised on a grid (scipy beta pdf)",
    stats.beta.pdf(x, a[0, 0], b[0, 0]),
    bayes,
    rtol=1e-6,
    atol=1e-9,
)
check_close(
    "... with a = 2 + successes and b = 3 + failures",
    [a[0, 0], b[0, 0]],
    [2 + data.sum(), 3 + len(data) - data.sum()],
    rtol=0,
)

# 2. Probability matching: P(choose k) = P(k is best) = int f_k(x) prod_{j != k} F_j(x) dx (scipy quad).
A = np.array([3.0, 8.0, 2.0, 5.0])
B = np.array([4.0, 9.0, 1.5, 7.0])
p_best = [
    integrate.quad(
        lambda u, k=k: (
            stats.beta.pdf(u, A[k], B[k])
            * np.prod([stats.beta.cdf(u, A[j], B[j]) for j in range(4) if j != k])
        ),
        0,
        1,
        epsabs=1e-12,
    )[0]
    for k in range(4)
]
n = 200_000
freq = np.bincount(ts_choose(np.tile(A, (n, 1)), np.tile(B, (n, 1)), rng), minlength=4) / n
check_close(
    "P(play k) = P(mu_k is the largest | posterior), 200,000 draws (4 sigma)",
    freq,
    p_best,
    rtol=0,
    atol=4 * np.sqrt(0.25 / n),
)
check_close("the integrals sum to 1", sum(p_best), 1.0, rtol=1e-8)

# 3. 300 runs x 3000 rounds on the 5-arm Bernoulli bandit, uniform Beta(1, 1) priors.
bandit = BERNOULLI_BANDIT
runs, T, K = 300, 3000, bandit.n_arms
a, b = np.ones((runs, K)), np.ones((runs, K))
rows = np.arange(runs)
regret = np.zeros(T)
for t in range(T):
    arms = ts_choose(a, b, rng)
    ts_update(a, b, rows, arms, bandit.pull(arms, rng))
    regret[t] = bandit.gaps[arms].mean()
cum = np.cumsum(regret)
ts = np.arange(1, T + 1)
slope, intercept, r_value, _, _ = stats.linregress(np.log(ts[100:]), cum[100:])
check_true(
    "regret is linear in log t (R^2 > 0.98, t = 100..3000)", r_value**2 > 0.98, f"R^2 = {r_value**2:.4f}"
)
check_true(
    "sublinear: the last 500 rounds cost under a tenth of the first 500",
    regret[-500:].sum() < 0.1 * regret[:500].sum(),
    f"{regret[-500:].sum():.2f} vs {regret[:500].sum():.2f}",
)
pulls = a + b - 2
check_close(
    "every round adds exactly one observation to one arm", pulls.sum(axis=1), np.full(runs, T), rtol=0
)
check_true(
    "the best arm gets most pulls",
    pulls.mean(0).argmax() == bandit.best_arm,
    f"{np.round(pulls.mean(0) / T, 3)}",
)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows): the posterior is built by ts_update, one reward at a time, and its mean and variance are
# scipy's; no observations (the prior itself), only successes, only failures, and both.
import cardcalc  # noqa: E402


def posterior_moments(alpha, beta, S, F):
    a, b = np.array([[alpha]]), np.array([[beta]])
    for r in [1.0] * int(S) + [0.0] * int(F):
        ts_update(a, b, np.array([0]), np.array([0]), np.array([r]))
    return {"mean": stats.beta.mean(a[0, 0], b[0, 0]), "var": stats.beta.var(a[0, 0], b[0, 0])}


cardcalc.table(posterior_moments,
               cardcalc.grid(alpha=(0.5, 1.0, 2.0), beta=(0.5, 1.0, 3.0), S=(0, 1, 7, 40), F=(0, 3, 25)))

fig, ax = figure(
    "Thompson sampling, 5-arm Bernoulli bandit (300 runs)", "round t (log scale)", "expected regret"
)
ax.semilogx(ts, cum)
