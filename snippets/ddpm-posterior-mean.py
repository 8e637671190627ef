"""DDPM posterior mean: vs Bayes' rule on a grid, regression on simulated pairs, the noise form."""

import numpy as np
from cardcheck import check_close
from scipy.stats import norm


# --- formula ---
def posterior_mean(x_t, x0, t: int, betas: np.ndarray):
    """mu~_t = sqrt(abar_{t-1}) beta_t/(1-abar_t) x_0 + sqrt(alpha_t)(1-abar_{t-1})/(1-abar_t) x_t."""
    abar = np.cumprod(1 - betas)
    abar_t, abar_prev = abar[t - 1], (abar[t - 2] if t > 1 else 1.0)
    beta_t = betas[t - 1]
    return (np.sqrt(abar_prev) * beta_t / (1 - abar_t) * x0
            + np.sqrt(1 - beta_t) * (1 - abar_prev) / (1 - abar_t) * x_t)


def posterior_mean_from_noise(x_t, eps, t: int, betas: np.ndarray):
    """The same mean via the noise that produced x_t: (x_t - beta_t/sqrt(1-abar_t) eps)/sqrt(alpha_t)."""
    abar_t = np.cumprod(1 - betas)[t - 1]
    beta_t = betas[t - 1]
    return (x_t - beta_t / np.sqrt(1 - abar_t) * eps) / np.sqrt(1 - beta_t)
# --- end formula ---


T = 1000
betas = np.linspace(1e-4, 0.02, T)
abar = np.cumprod(1 - betas)

# 1. Bayes' rule numerically: q(x_{t-1}|x_t,x_0) ∝ q(x_t|x_{t-1}) q(x_{t-1}|x_0), normalized on a grid.
for t, x0, x_t in [(2, 0.7, 0.4), (50, -1.0, 0.8), (400, 0.3, -1.2), (1000, 1.0, 0.1)]:
    abar_prev = abar[t - 2]
    grid_lo, grid_hi = -4.0, 4.0
    y = np.linspace(grid_lo, grid_hi, 200_001)  # candidate values of x_{t-1}
    w = (norm.pdf(x_t, np.sqrt(1 - betas[t - 1]) * y, np.sqrt(betas[t - 1]))
         * norm.pdf(y, np.sqrt(abar_prev) * x0, np.sqrt(1 - abar_prev)))
    bayes_mean = np.trapezoid(y * w, y) / np.trapezoid(w, y)
    check_close(f"t = {t}: mu~_t vs grid posterior mean", posterior_mean(x_t, x0, t, betas), bayes_mean,
                rtol=1e-6, atol=1e-8)

# 2. Monte-Carlo: simulate (x_{t-1}, x_t) from a fixed x_0; regressing x_{t-1} on x_t recovers
#    the posterior mean as a linear function (it is linear because everything is Gaussian).
rng = np.random.default_rng(0)
t, x0 = 300, 0.8
x_prev = np.sqrt(abar[t - 2]) * x0 + np.sqrt(1 - abar[t - 2]) * rng.standard_normal(400_000)
x_t = np.sqrt(1 - betas[t - 1]) * x_prev + np.sqrt(betas[t - 1]) * rng.standard_normal(x_prev.size)
slope, intercept = np.polyfit(x_t, x_prev, 1)
probe = np.array([-1.5, 0.0, 1.5])
check_close("t = 300: mu~_t vs least-squares fit of x_{t-1} on x_t", posterior_mean(probe, x0, t, betas),
            slope * probe + intercept, atol=3e-3)

# 3. With x_t built from (x_0, eps), the noise form of eq. (10) is the same number.
x0s, eps = rng.standard_normal(5), rng.standard_normal(5)
for t in (1, 10, 500, 1000):
    xt = np.sqrt(abar[t - 1]) * x0s + np.sqrt(1 - abar[t - 1]) * eps
    check_close(f"t = {t}: x_0 form vs noise form", posterior_mean(xt, x0s, t, betas),
                posterior_mean_from_noise(xt, eps, t, betas), rtol=1e-9, atol=1e-12)
# The page's calculator is checked against posterior_mean on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), with a two-step schedule whose first step leaves abar_{t-1}:
# t = 1 (abar_{t-1} = 1), an almost clean and an almost pure-noise step, coordinates of both signs.
import cardcalc  # noqa: E402

cardcalc.table(lambda x_t, x_0, beta_t, abar_prev:
               float(posterior_mean(x_t, x_0, 2, np.array([1 - abar_prev, beta_t]))),
               cardcalc.grid(x_t=(-2.0, 0.8), x_0=(-1.0, 0.0, 1.0), beta_t=(1e-4, 0.02, 0.5),
                             abar_prev=(0.0, 0.001, 0.5, 1.0)))


