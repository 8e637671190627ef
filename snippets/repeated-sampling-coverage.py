"""Repeated-sampling coverage (Large Language Monkeys): exact coverage of k independent samples against
simulated sampling and a Beta-population closed form, and the exponentiated power-law fit c = exp(a k^b) as an
empirical fit (recovered exactly on its own curve, close but not exact on a simulated population, wrong where
problems are unsolvable)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import curve_fit
from scipy.special import betaln
from scipy.stats import binom


# --- formula ---
def coverage(p, k):
    """Expected fraction of problems solved by at least one of k independent samples:
    mean_i 1 - (1 - p_i)^k."""
    k = np.asarray(k, dtype=float)
    return np.mean(1 - (1 - p[:, None]) ** k[None, :], axis=0)


def exp_power_law(k, a, b):
    """Brown et al. Eq. (3): c ~ exp(a k^b), with a < 0 and b < 0 for a coverage rising toward 1."""
    return np.exp(a * np.asarray(k, dtype=float) ** b)


def fit_exp_power_law(k, c):
    """Least squares on log(-log c) = log(-a) + b log k; returns (a, b)."""
    b, intercept = np.polyfit(np.log(k), np.log(-np.log(c)), 1)
    return -np.exp(intercept), b
# --- end formula ---


rng = np.random.default_rng(0)
ks = np.unique(np.round(np.logspace(0, 4, 40)).astype(int))     # up to 10,000 samples, log-spaced (App. C.1)

# 1. Exact coverage against simulation: 300 problems with per-problem success rates from Beta(0.3, 2);
#    for k in {1, 10, 100} draw the number of successes among k samples, Binomial(k, p_i), 400 times per
#    problem, and count "at least one". Tolerance 4 standard errors of the simulated mean.
p = rng.beta(0.3, 2.0, 300)
for k in (1, 10, 100):
    solved = rng.binomial(k, p[:, None], size=(300, 400)) > 0
    per_rep = solved.mean(axis=0)
    check_close(f"k = {k}: mean_i 1 - (1 - p_i)^k = simulated fraction solved", coverage(p, [k])[0],
                per_rep.mean(), atol=4 * per_rep.std(ddof=1) / np.sqrt(per_rep.size))
check_close("1 - P(Binomial(k, p_i) = 0) by scipy, every k", coverage(p, ks),
            [np.mean(1 - binom.pmf(0, k, p)) for k in ks], rtol=1e-12)

# 2. A Beta(alpha, beta) population in the limit of infinitely many problems:
#    E[(1 - p)^k] = B(alpha, beta + k) / B(alpha, beta). 200,000 problems drawn from it: tolerance 4 standard
#    errors of the sampled mean.
al, be = 0.3, 2.0
pop = rng.beta(al, be, 200_000)
for k in (1, 100, 10_000):
    fail = (1 - pop) ** k
    check_close(f"Beta(0.3, 2) population, k = {k}: coverage = 1 - B(a, b + k) / B(a, b)",
                coverage(pop, [k])[0], 1 - np.exp(betaln(al, be + k) - betaln(al, be)),
                atol=4 * fail.std(ddof=1) / np.sqrt(pop.size))

# 3. The fit on its own curve: coverage that is exactly exp(a k^b) returns a and b (a log-linear least-squares
#    problem in 38 points with an exact solution: ~1e-12 relative).
a_true, b_true = -1.7, -0.35
a_hat, b_hat = fit_exp_power_law(ks, exp_power_law(ks, a_true, b_true))
check_close("exp(a k^b) fitted to itself: (a, b) recovered", [a_hat, b_hat], [a_true, b_true], rtol=1e-10)
check_close("k = 1: exp(a)", exp_power_law([1], a_true, b_true)[0], np.exp(a_true), rtol=1e-15)

# 4. On a simulated population the power law is only an empirical fit: close (within 0.03 at every k from 1
#    to 10,000) but not exact. SciPy's curve_fit on coverage itself, as in the paper, lands nearby.
c_pop = coverage(p, ks)
a_fit, b_fit = fit_exp_power_law(ks, c_pop)
err = np.max(np.abs(exp_power_law(ks, a_fit, b_fit) - c_pop))
check_true("Beta population: fit within 0.03 everywhere, yet not exact (error above 1e-3)", 1e-3 < err < 0.03,
           f"a = {a_fit:.3f}, b = {b_fit:.3f}, max error {err:.4f}")
(a_cf, b_cf), _ = curve_fit(lambda k, a, b: np.exp(a * k**b), ks.astype(float), c_pop, p0=(a_fit, b_fit))
check_true("curve_fit on coverage gives a curve within 0.03 of the log-linear fit",
           np.max(np.abs(exp_power_law(ks, a_cf, b_cf) - exp_power_law(ks, a_fit, b_fit))) < 0.03,
           f"curve_fit a = {a_cf:.3f}, b = {b_cf:.3f}")

# 5. Where it breaks: with 25% of problems unsolvable (p = 0), coverage plateaus at 0.75, but exp(a k^b) with
#    b < 0 tends to 1. Fitted on k <= 100 and extrapolated to k = 10,000 it overshoots the plateau.
p_hard = np.concatenate([p[:225], np.zeros(75)])
c_hard = coverage(p_hard, ks)
small = ks <= 100
a_h, b_h = fit_exp_power_law(ks[small], c_hard[small])
check_true("25% unsolvable: exact coverage never exceeds 0.75", bool(np.all(c_hard <= 0.75)),
           f"{c_hard[-1]:.4f}")
check_true("the fit from k <= 100 extrapolates above the 0.75 plateau at k = 10,000",
           exp_power_law([10_000], a_h, b_h)[0] > 0.75, f"{exp_power_law([10_000], a_h, b_h)[0]:.3f}")

fig, ax = figure("Coverage against samples: exact and the exponentiated power-law fit",
                 "samples per problem k", "coverage")
ax.semilogx(ks, c_pop, "o", ms=3, label="exact, Beta(0.3, 2) problems")
ax.semilogx(ks, exp_power_law(ks, a_fit, b_fit), label="fit exp(a k^b)")
ax.semilogx(ks, c_hard, "s", ms=3, label="exact, 25% unsolvable")
ax.semilogx(ks, exp_power_law(ks, a_h, b_h), "--", label="fit on k <= 100, extrapolated")
ax.axvline(100, color="gray", lw=0.5)
ax.legend(fontsize=8)

# The page's calculator (one problem's coverage, and the fitted law at given constants) is checked
# against these functions on this grid (cardcalc; the build runs the page's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda p, k, a, b: {"c_one": coverage(np.array([p]), [k])[0],
                                   "c_fit": exp_power_law([k], a, b)[0]},
               cardcalc.grid(p=(0.0, 0.1, 0.5, 1.0), k=(1, 10, 10_000), a=(-5.0, -1.955, -0.1),
                             b=(-1.0, -0.381, 0.0)))
