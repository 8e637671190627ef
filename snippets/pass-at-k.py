"""pass@k: checked against enumeration of all k-subsets, the stable product form, and exact unbiasedness."""

from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import comb as float_comb
from scipy.stats import binom


# --- formula ---
def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased per-problem estimate 1 - C(n-c, k) / C(n, k), exact integer arithmetic."""
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_k_stable(n: int, c: int, k: int) -> float:
    """The product form used in Chen et al. (2021), Fig. 3."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
# --- end formula ---


# Brute force: label n = 10 samples, c of them correct, and enumerate every k-subset.
n = 10
got, enumerated = [], []
for c in range(n + 1):
    correct = set(range(c))
    for k in range(1, n + 1):
        subsets = list(combinations(range(n), k))
        enumerated.append(sum(bool(correct & set(s)) for s in subsets) / len(subsets))
        got.append(pass_at_k(n, c, k))
check_close("estimator vs fraction of all k-subsets with a correct sample (n = 10, all c, k)",
            got, enumerated)
check_close("estimator vs stable product form, n = 200",
            [pass_at_k(200, c, k) for c in (0, 1, 7, 60, 199) for k in (1, 10, 100)],
            [pass_at_k_stable(200, c, k) for c in (0, 1, 7, 60, 199) for k in (1, 10, 100)])
check_close("pass@1 = c / n", [pass_at_k(50, c, 1) for c in range(51)], np.arange(51) / 50)

# Unbiasedness: if each sample passes with probability p, E[estimate] = 1 - (1 - p)^k exactly.
n, p, k = 20, 0.15, 5
cs = np.arange(n + 1)
expected = sum(binom.pmf(c, n, p) * pass_at_k(n, c, k) for c in cs)
check_close("E_c[estimate] with c ~ Binomial(n, p) vs true 1 - (1 - p)^k", expected, 1 - (1 - p)**k)
naive = sum(binom.pmf(c, n, p) * (1 - (1 - c / n)**k) for c in cs)
check_true("the plug-in 1 - (1 - c/n)^k is biased low", naive < expected - 1e-3,
           f"plug-in {naive:.4f} vs unbiased {expected:.4f}")

# Large n: float binomials overflow, exact fractions and the product form do not.
n, c, k = 2000, 37, 500
exact = float(1 - Fraction(comb(n - c, k), comb(n, k)))
check_close("stable product vs exact rational at n = 2000, k = 500", pass_at_k_stable(n, c, k),
            exact, rtol=1e-12)
with np.errstate(invalid="ignore", over="ignore"):
    float_route = 1 - float_comb(n - c, k) / float_comb(n, k)
check_true("float binomials break down at that size", not np.isfinite(float_route)
           or abs(float_route - exact) > 1e-6, f"float route gives {float_route}")

ks = np.arange(1, 201)
fig, ax = figure("pass@k from n = 200 samples", "k (attempts allowed)", "pass@k")
for c in (2, 10, 50):
    ax.semilogx(ks, [pass_at_k_stable(200, c, int(k)) for k in ks], label=f"c = {c} correct")
ax.legend()

# The page's calculator is checked against pass_at_k on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows), keeping c <= n and k <= n, with n - c < k (certain success) included.
import cardcalc  # noqa: E402

cardcalc.table(lambda n, c, k: pass_at_k(int(n), int(c), int(k)),
               [row for row in cardcalc.grid(n=(1, 10, 200, 1000), c=(0, 1, 10, 200, 1000),
                                             k=(1, 2, 10, 100, 1000))
                if row["c"] <= row["n"] and row["k"] <= row["n"]])
