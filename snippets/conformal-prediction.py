"""Split conformal prediction: the finite-sample quantile index by hand and vs numpy's 'higher'
quantile, prediction sets, and coverage >= 1 - alpha by simulation (exactly k/(n+1) for continuous
scores), for raw scores and for a 10-class classifier."""

import math
from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def conformal_index(n: int, alpha) -> int:
    """k = ceil((n+1)(1-alpha)) in exact rational arithmetic. alpha is read as the decimal it is written
    as (0.18 means 18/100, not the binary float nearest to it), so the ceiling cannot be pushed up by a
    rounding error of (n+1)(1-alpha) in floating point."""
    a = Fraction(str(alpha))
    return math.ceil((n + 1) * (1 - a))


def conformal_quantile(scores: np.ndarray, alpha) -> float:
    """q^ = the ceil((n+1)(1-alpha))-th smallest calibration score; +inf when that index exceeds n."""
    n = len(scores)
    k = conformal_index(n, alpha)
    if k > n:
        return np.inf
    return float(np.sort(scores)[k - 1])


def conformal_coverage(n: int, alpha) -> float:
    """P(Y_test in C(X_test)) for continuous scores: exactly k / (n + 1), which is 1 when k = n + 1
    (the threshold is infinite and the set holds every label)."""
    return conformal_index(n, alpha) / (n + 1)


def prediction_sets(probs: np.ndarray, qhat: float) -> np.ndarray:
    """C(x) = {y : s(x, y) <= q^} with the score s(x, y) = 1 - p^(y | x); one boolean row per input."""
    return 1.0 - probs <= qhat
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The index k = ceil((n + 1)(1 - alpha)) by hand: n = 9, alpha = 0.1 -> k = 9 (the largest score);
#    n = 19, alpha = 0.1 -> 18; n = 99, alpha = 0.2 -> 80; n = 4, alpha = 0.1 -> ceil(4.5) = 5 > n -> inf.
s9 = np.arange(1.0, 10.0)                      # scores 1..9
check_close("n = 9, alpha = 0.1: the 9th smallest (9)", conformal_quantile(s9, 0.1), 9.0)
check_close("n = 19, alpha = 0.1: the 18th smallest", conformal_quantile(np.arange(1.0, 20.0), 0.1), 18.0)
check_close("n = 99, alpha = 0.2: the 80th smallest", conformal_quantile(np.arange(1.0, 100.0), 0.2), 80.0)
check_true("n = 4, alpha = 0.1: index 5 > n, so q^ = inf (every label is in the set)",
           conformal_quantile(np.arange(1.0, 5.0), 0.1) == np.inf)
check_close("order of the calibration scores does not matter",
            conformal_quantile(rng.permutation(np.arange(1.0, 100.0)), 0.2), 80.0)

# 1b. Exact arithmetic: n = 149, alpha = 0.18 gives (n+1)(1-alpha) = 150 * 82/100 = 123 exactly, so k = 123.
#    In floats, 150 * (1 - 0.18) comes out a hair above 123 and its ceiling is 124, one order statistic
#    too high. Hand values: 150 * 0.82 = 123; with n = 99, alpha = 0.3, 100 * 0.7 = 70 exactly, k = 70.
check_true("floats: ceil(150 * (1 - 0.18)) = 124, one too many (the case exact arithmetic must avoid)",
           int(np.ceil(150 * (1 - 0.18))) == 124)
check_close("n = 149, alpha = 0.18: k = 123 exactly, q^ = the 123rd smallest score",
            [conformal_index(149, 0.18), conformal_quantile(np.arange(1.0, 150.0), 0.18)], [123, 123.0])
check_close("n = 99, alpha = 0.3: k = 70; alpha given as Fraction(3, 10) or the string '0.3' alike",
            [conformal_index(99, 0.3), conformal_index(99, Fraction(3, 10)), conformal_index(99, "0.3")],
            [70, 70, 70])
check_close("coverage k/(n+1) by hand: n = 9, alpha = 0.1 -> 9/10; n = 149, alpha = 0.18 -> 123/150; "
            "n = 4, alpha = 0.1 -> 5/5 = 1 (infinite threshold)",
            [conformal_coverage(9, 0.1), conformal_coverage(149, 0.18), conformal_coverage(4, 0.1)],
            [0.9, 123 / 150, 1.0], rtol=1e-12)

# 2. Library route: q^ is the empirical quantile of the scores at level ceil((n+1)(1-alpha))/n in the
#    inverted-CDF sense (smallest score whose empirical CDF reaches the level): numpy's
#    method='inverted_cdf'. The common idiom method='higher' interpolates on (n - 1) positions and
#    returns the next order statistic unless (n - 1) k / n is an integer: valid but more conservative.
same = higher_ge = True
n_higher = 0
for n in (10, 37, 100, 1000):
    sc = rng.uniform(size=n)
    for alpha in (0.01, 0.05, 0.1, 0.2, 0.33):
        level = np.ceil((n + 1) * (1 - alpha)) / n
        ref = np.quantile(sc, level, method="inverted_cdf") if level <= 1 else np.inf
        hi = np.quantile(sc, level, method="higher") if level <= 1 else np.inf
        same &= conformal_quantile(sc, alpha) == ref
        higher_ge &= hi >= conformal_quantile(sc, alpha)
        n_higher += hi > conformal_quantile(sc, alpha)
check_true("q^ == np.quantile(scores, ceil((n+1)(1-alpha))/n, method='inverted_cdf'), 20 cases", same)
check_true("method='higher' is never lower, and strictly higher in most of the 20 cases",
           higher_ge and n_higher >= 10, f"{n_higher} of 20 strictly higher")

# 3. Prediction sets: probabilities (0.6, 0.3, 0.1) have scores (0.4, 0.7, 0.9); q^ = 0.75 keeps the
#    first two labels; q^ = 0.4 keeps the first only (<= is inclusive); q^ = inf keeps all.
pr = np.array([[0.6, 0.3, 0.1]])
check_true("sets for q^ = 0.75, 0.4, 0.39, inf: {0, 1}, {0}, {}, {0, 1, 2}",
           [prediction_sets(pr, q)[0].nonzero()[0].tolist() for q in (0.75, 0.4, 0.39, np.inf)]
           == [[0, 1], [0], [], [0, 1, 2]])

# 4. Coverage by simulation. With exchangeable continuous scores, P(test score <= q^) = k / (n + 1)
#    exactly (the rank of the test score among n + 1 is uniform), which lies in
#    [1 - alpha, 1 - alpha + 1/(n + 1)). 40,000 trials of n = 50 calibration scores + 1 test score.
trials, n, alpha = 40_000, 50, 0.1
k = int(np.ceil((n + 1) * (1 - alpha)))
sc = rng.standard_normal((trials, n + 1))
covered = np.array([sc[t, n] <= conformal_quantile(sc[t, :n], alpha) for t in range(trials)])
exact = conformal_coverage(n, alpha)
se = np.sqrt(exact * (1 - exact) / trials)
check_close(f"n = 50, alpha = 0.1: coverage vs k/(n+1) = {k}/51 (4 s.e. = {4 * se:.4f})", covered.mean(),
            exact, atol=4 * se)
check_true("coverage >= 1 - alpha (minus 4 s.e.) and < 1 - alpha + 1/(n+1) (plus 4 s.e.)",
           1 - alpha - 4 * se <= covered.mean() < 1 - alpha + 1 / (n + 1) + 4 * se)

# 5. A real classifier: 10 classes, a deliberately miscalibrated model (logits 3x too large).
#    Calibrate on n = 200 examples, test on 2,000, repeat 60 times: mean coverage vs k/(n+1).
def softmax_rows(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def draw(m):
    u = rng.normal(scale=2.5, size=(m, 10))
    cdf = np.cumsum(softmax_rows(u), axis=1)
    y = np.minimum((rng.random((m, 1)) > cdf).sum(1), 9)
    return softmax_rows(3.0 * u), y


n, alpha, cov, sizes = 200, 0.1, [], []
for _ in range(60):
    p_cal, y_cal = draw(n)
    p_test, y_test = draw(2000)
    qhat = conformal_quantile(1.0 - p_cal[np.arange(n), y_cal], alpha)
    sets = prediction_sets(p_test, qhat)
    cov.append(sets[np.arange(2000), y_test].mean())
    sizes.append(sets.sum(1).mean())
k = int(np.ceil((n + 1) * (1 - alpha)))
check_close(f"classifier: mean coverage over 60 splits vs {k}/{n + 1} (4 s.e.)", np.mean(cov),
            conformal_coverage(n, alpha), atol=4 * np.std(cov) / np.sqrt(60))
check_true("sets are informative: mean size well below 10 (under 4)", np.mean(sizes) < 4,
           f"mean size {np.mean(sizes):.2f}")

# The page's calculator is checked against conformal_index and conformal_coverage on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows), with the products (n + 1)(1 - alpha) that land
# exactly on an integer (150 x 0.82, 100 x 0.7), where a float ceiling is one too high, and alpha so small
# that k = n + 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda n, alpha: {"k": conformal_index(n, alpha), "coverage": conformal_coverage(n, alpha)},
               cardcalc.grid(n=(1, 4, 9, 99, 149, 1000, 999_999), alpha=(0.0, 0.001, 0.1, 0.18, 0.3, 0.9)))

# Figure: coverage vs alpha for n = 20 (exact k/(n+1) staircase) and the bounds.
alphas = np.linspace(0.02, 0.5, 49)
n = 20
sim = rng.standard_normal((20_000, n + 1))
srt = np.sort(sim[:, :n], axis=1)
emp = []
for a in alphas:
    kk = int(np.ceil((n + 1) * (1 - a)))
    emp.append(1.0 if kk > n else np.mean(sim[:, n] <= srt[:, kk - 1]))
fig, ax = figure("Split conformal coverage, n = 20 calibration points", r"$\alpha$", "coverage")
ax.plot(alphas, emp, "o", ms=3, label="simulated coverage")
ax.plot(alphas, 1 - alphas, "k--", label=r"$1 - \alpha$ (guaranteed lower bound)")
ax.plot(alphas, 1 - alphas + 1 / (n + 1), "k:", label=r"$1 - \alpha + 1/(n+1)$")
ax.legend()
