"""GELU: x*Phi(x) vs math.erf, scipy ndtr and quadrature; approximation errors; finite differences."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.special import expit, ndtr


# --- formula ---
def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU: x * Phi(x), with Phi written through erf."""
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """Tanh approximation from Hendrycks & Gimpel."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
# --- end formula ---


x = np.linspace(-8, 8, 4001)
check_close("exact GELU vs x * scipy.special.ndtr(x)", gelu(x), x * ndtr(x), rtol=1e-12, atol=1e-15)

# Phi by integrating the standard normal density, at a few points.
pts = np.array([-2.5, -0.7, 0.0, 0.3, 1.9])
phi_quad = np.array([quad(lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi), -np.inf, p)[0]
                     for p in pts])
check_close("exact GELU vs x * (quadrature of the normal density)", gelu(pts), pts * phi_quad,
            rtol=1e-9, atol=1e-12)

err_tanh = np.abs(gelu_tanh(x) - gelu(x))
check_true("tanh approximation: max abs error below 5e-4 but not zero",
           5e-5 < err_tanh.max() < 5e-4,
           f"max abs error {err_tanh.max():.2e} at x = {x[err_tanh.argmax()]:.2f}")
err_sigmoid = np.abs(x * expit(1.702 * x) - gelu(x))
check_close("sigmoid approximation x*sigmoid(1.702x): max error about 0.02", err_sigmoid.max(), 0.0203,
            rtol=0.02)

# Derivative Phi(x) + x phi(x) against central differences of the exact form.
h = 1e-5
fd = (gelu(pts + h) - gelu(pts - h)) / (2 * h)
analytic = ndtr(pts) + pts * np.exp(-pts**2 / 2) / np.sqrt(2 * np.pi)
check_close("GELU'(x) = Phi(x) + x phi(x) vs finite differences", fd, analytic, rtol=1e-7, atol=1e-9)

fig, ax = figure("Error of the GELU approximations", "x", "approximation minus exact GELU")
ax.plot(x, gelu_tanh(x) - gelu(x), label=r"tanh form  (max $4.7\times10^{-4}$)")
ax.plot(x, x * expit(1.702 * x) - gelu(x), "--", label=r"$x\,\sigma(1.702x)$  (max $0.02$)")
ax.set_xlim(-6, 6)
ax.set_yscale("symlog", linthresh=1e-4)
ax.set_ylim(-0.05, 0.05)
ax.legend()
