"""Optimal GAN discriminator: pointwise numerical maximization and a sigmoid of the log density ratio."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar
from scipy.special import expit, xlogy
from scipy.stats import norm


# --- formula ---
# few mutants: p_data / (p_data + p_g): one ratio and one sum
def optimal_discriminator(p_data: np.ndarray, p_g: np.ndarray) -> np.ndarray:
    """D*(x) = p_data(x) / (p_data(x) + p_g(x))."""
    return p_data / (p_data + p_g)
# --- end formula ---


def value(d: np.ndarray, p_data: np.ndarray, p_g: np.ndarray) -> float:
    """V(D, G) on a discrete space: sum_x p_data log D + p_g log(1 - D)."""
    return float(np.sum(xlogy(p_data, d) + xlogy(p_g, 1 - d)))


rng = np.random.default_rng(0)
p_data, p_g = rng.dirichlet(np.ones(10)), rng.dirichlet(np.ones(10))
d_star = optimal_discriminator(p_data, p_g)

# Independent route: maximize a log y + b log(1 - y) over y in (0, 1) separately at every x.
numeric = [minimize_scalar(lambda y, a=a, b=b: -(a * np.log(y) + b * np.log(1 - y)),
                           bounds=(1e-12, 1 - 1e-12), method="bounded", options={"xatol": 1e-12}).x
           for a, b in zip(p_data, p_g, strict=True)]
check_close("D* vs pointwise numerical maximizer of V", d_star, numeric, rtol=1e-6)

perturbed = [np.clip(d_star + 0.05 * rng.standard_normal(10), 1e-6, 1 - 1e-6) for _ in range(200)]
check_true("no perturbed discriminator beats D*",
           all(value(d, p_data, p_g) < value(d_star, p_data, p_g) for d in perturbed))

# Continuous case: D* = sigmoid(log p_data - log p_g); for two Gaussians the log-ratio is quadratic in x.
x = np.linspace(-4, 6, 501)
mu_d, sd_d, mu_g, sd_g = 0.0, 1.0, 2.0, 1.5
log_ratio = (np.log(sd_g / sd_d) - (x - mu_d) ** 2 / (2 * sd_d**2) + (x - mu_g) ** 2 / (2 * sd_g**2))
check_close("D* = sigmoid(log density ratio) for two Gaussians",
            optimal_discriminator(norm.pdf(x, mu_d, sd_d), norm.pdf(x, mu_g, sd_g)), expit(log_ratio),
            rtol=1e-12)

# The page's calculator is checked against optimal_discriminator on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): either density zero, equal densities, and ratios far from 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda p_data, p_g: float(optimal_discriminator(np.float64(p_data), np.float64(p_g))),
               cardcalc.grid(p_data=(0.0, 1e-9, 0.1, 0.5, 3.0), p_g=(1e-9, 0.1, 0.5, 2.0)))


fig, ax = figure("Optimal discriminator between two Gaussians", "x", "density / probability")
ax.plot(x, norm.pdf(x, mu_d, sd_d), label="$p_{data}$ = N(0, 1)")
ax.plot(x, norm.pdf(x, mu_g, sd_g), label="$p_g$ = N(2, 1.5²)")
ax.plot(x, optimal_discriminator(norm.pdf(x, mu_d, sd_d), norm.pdf(x, mu_g, sd_g)), "k",
        label="$D^*(x)$")
ax.axhline(0.5, color="gray", lw=0.8, ls=":")
ax.legend()
