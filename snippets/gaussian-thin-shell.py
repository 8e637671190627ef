"""Gaussian thin shell: exact mean and std of ||z|| checked against scipy.stats.chi and by sampling."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import gammaln
from scipy.stats import chi


# --- formula ---
def norm_mean_std(d: int) -> tuple[float, float]:
    """Exact mean and std of ||z|| for z ~ N(0, I_d): E||z|| = sqrt(2) Γ((d+1)/2) / Γ(d/2), E||z||^2 = d."""
    mean = np.sqrt(2.0) * np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))
    return float(mean), float(np.sqrt(d - mean**2))
# --- end formula ---


dims = [1, 2, 10, 100, 1000, 10_000]
exact = np.array([norm_mean_std(d) for d in dims])
check_close("E||z|| and std||z|| vs scipy.stats.chi(d)", exact,
            np.array([[chi(d).mean(), chi(d).std()] for d in dims]), rtol=1e-9)

rng = np.random.default_rng(0)
sampled = []
for d in (10, 100, 1000):
    r = np.linalg.norm(rng.standard_normal((5000, d)), axis=1)
    sampled.append([r.mean(), r.std()])
check_close("sample mean and std of ||z|| vs exact (d = 10, 100, 1000)", np.array(sampled),
            exact[2:5], rtol=0.03)

# The approximations on the card: E||z|| ≈ sqrt(d - 1/2) ≈ sqrt(d), std -> 1/sqrt(2) ≈ 0.707.
big = norm_mean_std(10_000)
check_close("d = 10000: E||z|| ≈ sqrt(d - 1/2) and std ≈ 1/sqrt(2)", big,
            [np.sqrt(10_000 - 0.5), 1 / np.sqrt(2)], rtol=1e-4)
check_true("relative spread std/mean shrinks like 1/sqrt(2d)",
           all(abs(s / m * np.sqrt(2 * d) - 1) < 0.1 for d, (m, s) in zip(dims[2:], exact[2:], strict=True)),
           ", ".join(f"d={d}: {s / m:.4f}" for d, (m, s) in zip(dims, exact, strict=True)))

# The page's calculator is checked against norm_mean_std on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows). JavaScript has no log-gamma, so the page takes Gamma((d+1)/2) / Gamma(d/2)
# as a ratio of two Lanczos sums (g = 7, 9 terms), written so that no large terms cancel. The grid stops
# at d = 20: past it the difference of two gammaln values above, each rounded to its own size, moves the
# std (a small difference of two numbers near d) by more than the check's 1e-12 (by 5e-9 at d = 4096).
import cardcalc  # noqa: E402

cardcalc.table(lambda d: dict(zip(("E", "std"), norm_mean_std(d), strict=True)),
               cardcalc.grid(d=(1, 2, 3, 4, 5, 7, 10, 16, 20)))

fig, ax = figure("Norm of a standard Gaussian vector, centred at sqrt(d)", "‖z‖ − √d", "density")
# ||z||^2 for z ~ N(0, I_d) is a sum of d squared standard normals, chi-square with d degrees of freedom by
# definition: drawing it directly gives the histogram of 20,000 vectors' norms at 1/d of the random numbers
# (the sampled check above draws the vectors themselves).
for d in (2, 10, 100, 1000):
    r = np.sqrt(rng.chisquare(d, 20_000))
    ax.hist(r - np.sqrt(d), bins=80, density=True, histtype="step", linewidth=1.5, label=f"d = {d}")
t = np.linspace(-3, 3, 300)
ax.plot(t, np.exp(-t**2) / np.sqrt(np.pi), "k--", label="limit N(0, 1/2)")
ax.set_xlim(-3, 3)
ax.legend()
