"""Sum of independent Gaussians: checked against a numerical convolution of densities and by sampling."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import kstest, norm


# --- formula ---
# few mutants: means add and variances add: two sums and nothing else
def sum_of_independent(mu1: float, var1: float, mu2: float, var2: float) -> tuple[float, float]:
    """Mean and variance of X1 + X2 for independent X1 ~ N(mu1, var1), X2 ~ N(mu2, var2)."""
    return mu1 + mu2, var1 + var2
# --- end formula ---


mu1, var1, mu2, var2 = 1.0, 0.5**2, -3.0, 1.2**2
mu_s, var_s = sum_of_independent(mu1, var1, mu2, var2)

# Route 1: the density of a sum of independent variables is the convolution of their densities.
x = np.linspace(-15, 15, 6001)
dx = x[1] - x[0]
conv = np.convolve(norm(mu1, np.sqrt(var1)).pdf(x), norm(mu2, np.sqrt(var2)).pdf(x), mode="same") * dx
check_close("N(mu1+mu2, var1+var2) density vs numerical convolution",
            norm(mu_s, np.sqrt(var_s)).pdf(x), conv, atol=1e-9)

# Route 2: sample, add, and compare moments and the whole distribution (Kolmogorov-Smirnov).
rng = np.random.default_rng(0)
n = 200_000
s = rng.normal(mu1, np.sqrt(var1), n) + rng.normal(mu2, np.sqrt(var2), n)
check_close("sample mean vs mu1 + mu2", s.mean(), mu_s, atol=0.02)
check_close("sample variance vs var1 + var2", s.var(), var_s, rtol=0.01)
ks = kstest(s, norm(mu_s, np.sqrt(var_s)).cdf)
check_true("KS test does not reject N(mu1+mu2, var1+var2)", ks.pvalue > 0.01,
           f"KS statistic {ks.statistic:.4f}, p = {ks.pvalue:.2f}")
# Standard deviations do not add: sigma_1 + sigma_2 = 1.7 would overstate the spread.
check_true("std of the sum is sqrt(var1 + var2), not sigma1 + sigma2",
           abs(s.std() - np.sqrt(var_s)) < 0.01 < abs(s.std() - (np.sqrt(var1) + np.sqrt(var2))),
           f"sample std {s.std():.3f}, sqrt(var1+var2) = {np.sqrt(var_s):.3f}")

# The page's calculator is checked against sum_of_independent on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows); it shows the standard deviation, the square root of the variance.
import cardcalc  # noqa: E402


def mean_and_std(mu_1, sigma_1, mu_2, sigma_2):
    mean, var = sum_of_independent(mu_1, sigma_1**2, mu_2, sigma_2**2)
    return {"mu": mean, "sigma": float(np.sqrt(var))}


cardcalc.table(mean_and_std, cardcalc.grid(mu_1=(-5.0, 0.0, 1.0), sigma_1=(0.0, 0.5, 3.0), mu_2=(-3.0, 1.0e6),
                                           sigma_2=(0.0, 1.2, 1.0e4)))


fig, ax = figure("Adding independent Gaussians", "x", "density")
grid = np.linspace(-8, 4, 500)
ax.plot(grid, norm(mu1, np.sqrt(var1)).pdf(grid), label="$X_1 \\sim N(1, 0.5^2)$")
ax.plot(grid, norm(mu2, np.sqrt(var2)).pdf(grid), label="$X_2 \\sim N(-3, 1.2^2)$")
ax.hist(s, bins=120, density=True, color="0.75", label="samples of $X_1 + X_2$")
ax.plot(grid, norm(mu_s, np.sqrt(var_s)).pdf(grid), "k--", label="$N(-2, 0.5^2 + 1.2^2)$")
ax.legend(fontsize=8)
