"""v-prediction: x_0 and eps reconstruction, v = dx_t/dphi by finite differences, implied loss weights."""

import numpy as np
from cardcheck import check_close
from cardplot import figure


# --- formula ---
def v_target(x0, eps, abar_t):
    """v = sqrt(abar_t) eps - sqrt(1 - abar_t) x_0."""
    return np.sqrt(abar_t) * eps - np.sqrt(1 - abar_t) * x0


def x0_from_v(x_t, v, abar_t):
    return np.sqrt(abar_t) * x_t - np.sqrt(1 - abar_t) * v


def eps_from_v(x_t, v, abar_t):
    return np.sqrt(1 - abar_t) * x_t + np.sqrt(abar_t) * v
# --- end formula ---


rng = np.random.default_rng(0)
x0, eps = rng.normal(size=(2, 6, 5))
abar_t = np.array([0.9999, 0.95, 0.6, 0.2, 0.01, 1e-5])[:, None]
x_t = np.sqrt(abar_t) * x0 + np.sqrt(1 - abar_t) * eps
v = v_target(x0, eps, abar_t)

# 1. Given x_t, the v target determines both the clean sample and the noise.
check_close("x_0 = sqrt(abar) x_t - sqrt(1-abar) v", x0_from_v(x_t, v, abar_t), x0, rtol=1e-9, atol=1e-12)
check_close("eps = sqrt(1-abar) x_t + sqrt(abar) v", eps_from_v(x_t, v, abar_t), eps, rtol=1e-9, atol=1e-12)

# 2. With sqrt(abar) = cos(phi) and sqrt(1-abar) = sin(phi), x_phi = cos(phi) x_0 + sin(phi) eps and
#    v = d x_phi / d phi (Salimans & Ho, App. D). Central finite differences in phi.
phi, h = np.arccos(np.sqrt(abar_t)), 1e-6
deriv = ((np.cos(phi + h) * x0 + np.sin(phi + h) * eps)
         - (np.cos(phi - h) * x0 + np.sin(phi - h) * eps)) / (2 * h)
check_close("v vs finite-difference d x_t / d phi", v, deriv, rtol=1e-6, atol=1e-8)

# 3. Loss weights: for a prediction x0_hat at fixed x_t, convert to v_hat and eps_hat; then
#    ||v - v_hat||^2 = (1 + SNR) ||x0 - x0_hat||^2 and ||eps - eps_hat||^2 = SNR ||x0 - x0_hat||^2.
x0_hat = x0 + 0.3 * rng.normal(size=x0.shape)
v_hat = v_target(x0_hat, (x_t - np.sqrt(abar_t) * x0_hat) / np.sqrt(1 - abar_t), abar_t)
eps_hat = (x_t - np.sqrt(abar_t) * x0_hat) / np.sqrt(1 - abar_t)
snr = (abar_t / (1 - abar_t))[:, 0]
x_err = np.sum((x0 - x0_hat) ** 2, axis=1)
check_close("v-loss = (1 + SNR) x-loss", np.sum((v - v_hat) ** 2, axis=1), (1 + snr) * x_err, rtol=1e-8)
check_close("eps-loss = SNR x-loss", np.sum((eps - eps_hat) ** 2, axis=1), snr * x_err, rtol=1e-8)

# 4. Monte-Carlo: for unit-variance data and noise, the v target has unit variance at every noise level.
big_x0, big_eps = rng.standard_normal((2, 400_000))
var_v = [v_target(big_x0, big_eps, a).var() for a in (0.999, 0.5, 0.001)]
check_close("Var(v) = 1 for unit-variance x_0 at abar = 0.999, 0.5, 0.001", var_v, np.ones(3), rtol=0.01)

fig, ax = figure("Implied weight on the x_0 error", r"$\log \mathrm{SNR}$", "weight (log scale)")
lam = np.linspace(-8, 8, 400)
ax.semilogy(lam, np.exp(lam), label=r"$\epsilon$-prediction: SNR")
ax.semilogy(lam, 1 + np.exp(lam), "--", label=r"$v$-prediction: 1 + SNR")
ax.semilogy(lam, np.ones_like(lam), ":", label=r"$x_0$-prediction: 1")
ax.legend()

# The page's calculator is checked against v_target on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): one coordinate, from pure noise (abar = 0) to clean data (abar = 1).
import cardcalc  # noqa: E402

cardcalc.table(lambda x0, eps, abar: {"v": float(v_target(x0, eps, abar))},
               cardcalc.grid(x0=(-1.0, 0.0, 0.8), eps=(-1.5, 0.0, 2.0), abar=(0.0, 0.01, 0.5, 0.9999, 1.0)))
