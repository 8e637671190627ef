"""Random cosine similarity: std 1/sqrt(d) checked against the exact Beta law and by sampling."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import beta, kstest


# --- formula ---
# few mutants: 1 / sqrt(d): one constant, one ratio and one square root
def random_cosine_std(d: int) -> float:
    """Std of cos(x, y) for independent x, y ~ N(0, I_d): E[cos] = 0 and E[cos^2] = 1/d exactly."""
    return 1.0 / np.sqrt(d)
# --- end formula ---


def cosine(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.sum(x * y, axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))


# Exact law: (1 + cos) / 2 ~ Beta((d-1)/2, (d-1)/2), so Var(cos) = 4 Var(Beta) = 1/d.
dims = [2, 3, 10, 128, 768, 4096]
check_close("std 1/sqrt(d) vs exact Beta((d-1)/2, (d-1)/2) law",
            [random_cosine_std(d) for d in dims],
            [2 * beta((d - 1) / 2, (d - 1) / 2).std() for d in dims], rtol=1e-12)

# Sampling: x ~ N(0, I_d) is rotation invariant, so cos(x, y) has the same law for every fixed y != 0.
# One y per d and n independent x's therefore give n independent draws of cos(x, y) with exactly
# the law of two independent Gaussian vectors, at half the random numbers of drawing a y per pair.
rng = np.random.default_rng(0)
n = 20_000
stats = []
for d in (3, 128, 768):
    c = cosine(rng.standard_normal((n, d)), rng.standard_normal((1, d)))
    stats.append((d, c))
check_close("sample std vs 1/sqrt(d) (d = 3, 128, 768)", [c.std() for _, c in stats],
            [random_cosine_std(d) for d, _ in stats], rtol=0.02)
check_close("sample mean vs 0", [c.mean() for _, c in stats], [0.0] * 3,
            atol=5 / np.sqrt(3 * n))  # 5 standard errors of the mean at the smallest d
d128, c128 = stats[1]
ks = kstest((1 + c128) / 2, beta((d128 - 1) / 2, (d128 - 1) / 2).cdf)
check_true("d = 128: KS test does not reject the Beta law", ks.pvalue > 0.01,
           f"KS statistic {ks.statistic:.4f}, p = {ks.pvalue:.2f}")
check_true("d = 768: |cos| > 0.15 is rare for unrelated vectors",
           np.mean(np.abs(stats[2][1]) > 0.15) < 1e-3,
           f"fraction {np.mean(np.abs(stats[2][1]) > 0.15):.1e}, 0.15 ≈ {0.15 * np.sqrt(768):.1f} std")

# The page's calculator is checked against random_cosine_std on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), from a plane to embedding sizes and beyond.
import cardcalc  # noqa: E402

cardcalc.table(lambda d: float(random_cosine_std(d)), cardcalc.grid(d=(1, 2, 3, 128, 768, 4096, 10**7)))

fig, ax = figure("Cosine similarity of two independent Gaussian vectors", "cos(x, y)", "density")
for d, c in stats:
    ax.hist(c, bins=80, density=True, histtype="step", linewidth=1.5,
            label=f"d = {d}  (std {1 / np.sqrt(d):.3f})")
ax.set_xlim(-1, 1)
ax.legend()
