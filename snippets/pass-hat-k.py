"""pass^k: the all-k-succeed estimator against the fraction of all k-subsets that are all successes, its
unbiasedness for p^k by exact enumeration over the binomial count and by simulation, and its place beside
pass@k."""

from itertools import combinations
from math import comb

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import binom


# --- formula ---
# few mutants: one ratio of two binomial coefficients and a mean over tasks; no constant or index to shift
def pass_hat_k(n, c, k):
    """Per-task estimate C(c, k) / C(n, k): the chance that k trials drawn from the n without replacement
    all passed."""
    return comb(c, k) / comb(n, k)


def benchmark_pass_hat_k(successes, n, k):
    """The average of the per-task estimates over tasks."""
    return float(np.mean([pass_hat_k(n, int(c), k) for c in successes]))
# --- end formula ---


# 1. Brute force: n = 8 trials with c successes; every k-subset, all successes or not. Ratios of small
#    integers.
n = 8
got, enumerated = [], []
for c in range(n + 1):
    ok = set(range(c))
    for k in range(1, n + 1):
        subsets = list(combinations(range(n), k))
        enumerated.append(sum(set(s) <= ok for s in subsets) / len(subsets))
        got.append(pass_hat_k(n, c, k))
check_close("C(c, k)/C(n, k) = share of k-subsets that are all successes (n = 8, every c and k)", got,
            enumerated, rtol=1e-14)
check_close("pass^1 = c / n", [pass_hat_k(20, c, 1) for c in range(21)], np.arange(21) / 20, rtol=1e-14)

# 2. Unbiased: if each trial succeeds with probability p, E[C(c, k)/C(n, k)] over c ~ Binomial(n, p) is p^k.
n, k = 12, 4
for p in (0.3, 0.75, 0.95):
    expect = sum(binom.pmf(c, n, p) * pass_hat_k(n, c, k) for c in range(n + 1))
    check_close(f"E[estimate] = p^k exactly (n = 12, k = 4, p = {p})", expect, p**k, rtol=1e-12)
plug_in = sum(binom.pmf(c, n, 0.75) * (c / n) ** k for c in range(n + 1))
check_true("the plug-in (c/n)^k is biased high", plug_in > 0.75**k + 1e-3, f"{plug_in:.4f} vs {0.75**k:.4f}")

# 3. Simulation over a benchmark of 200 tasks with different success rates: the estimate averaged over
#    300 repeated evaluations matches mean_task p_task^k within 4 standard errors of the mean.
rng = np.random.default_rng(0)
p_task = rng.beta(2, 1, size=200)
truth = np.mean(p_task**k)
runs = np.array([benchmark_pass_hat_k(rng.binomial(n, p_task), n, k) for _ in range(300)])
se = runs.std(ddof=1) / np.sqrt(len(runs))
check_true("simulated benchmark: mean estimate within 4 standard errors of mean_task p^k",
           abs(runs.mean() - truth) < 4 * se, f"{runs.mean():.4f} vs {truth:.4f} (se {se:.1e})")
# The truth is what k fresh trials per task would show: simulate them directly.
fresh = np.mean(rng.binomial(k, p_task[:, None], size=(200, 1000)) == k)
se_fresh = np.sqrt(truth * (1 - truth) / 200000)
check_true("k fresh trials per task all succeed at rate mean_task p^k (4 standard errors)",
           abs(fresh - truth) < 4 * se_fresh, f"{fresh:.4f} vs {truth:.4f}")

# 4. Beside pass@k: both count k-subsets; pass^k <= pass@1 <= pass@k, and with successes and failures
#    swapped, "all k succeed" becomes "none of the k succeeds", the complement of pass@k.
for c in range(0, 9):
    at = 1 - comb(8 - c, 3) / comb(8, 3)
    check_true(f"c = {c} of 8: pass^3 <= c/n <= pass@3", pass_hat_k(8, c, 3) <= c / 8 + 1e-15 <= at + 2e-15)
check_close("pass^k with successes and failures swapped = 1 - pass@k",
            [pass_hat_k(10, 10 - c, 3) for c in range(11)],
            [1 - (1 - comb(10 - c, 3) / comb(10, 3)) for c in range(11)], rtol=1e-14, atol=1e-15)

ks = np.arange(1, 17)
fig, ax = figure("pass^k and pass@k from n = 16 trials", "k", "estimate")
for c in (8, 12, 15):
    ax.plot(ks, [pass_hat_k(16, c, int(j)) for j in ks], marker="o", label=f"pass^k, c = {c}")
    ax.plot(ks, [1 - comb(16 - c, int(j)) / comb(16, int(j)) for j in ks], linestyle="--",
            label=f"pass@k, c = {c}")
ax.legend(fontsize=7)

# The page's calculator is checked against pass_hat_k on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows), keeping c <= n and k <= n, with c < k (no k-subset all passed) included.
import cardcalc  # noqa: E402

cardcalc.table(lambda n, c, k: pass_hat_k(int(n), int(c), int(k)),
               [row for row in cardcalc.grid(n=(1, 8, 200, 1000), c=(0, 1, 6, 200, 1000),
                                             k=(1, 2, 4, 100, 1000))
                if row["c"] <= row["n"] and row["k"] <= row["n"]])
