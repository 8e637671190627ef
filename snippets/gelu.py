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

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Both sides form 1 + erf (or 1 + tanh) near -1 at x = -8, which cancels to an absolute error of a few
# ulps of 1 times |x| / 2: atol = 4 * 8 * eps (7e-15), far below the tanh form's 4.7e-4 gap.
cancel = 4 * 8 * np.finfo(float).eps
check_close("F.gelu(x), default approximate='none', = x Phi(x)", F.gelu(torch.tensor(x)).numpy(), gelu(x),
            rtol=1e-12, atol=cancel)
check_close("F.gelu(x, approximate='tanh') = the tanh form",
            F.gelu(torch.tensor(x), approximate="tanh").numpy(), gelu_tanh(x), rtol=1e-12, atol=cancel)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
default = np.asarray(jax.nn.gelu(x))
check_close("pitfall: jax.nn.gelu(x) defaults to approximate=True, the tanh form", default, gelu_tanh(x),
            rtol=1e-12, atol=cancel)
check_true("so its default is off the exact GELU by up to 4.7e-4", np.abs(default - gelu(x)).max() > 4e-4)
check_close("jax.nn.gelu(x, approximate=False) = x Phi(x)", np.asarray(jax.nn.gelu(x, approximate=False)),
            gelu(x), rtol=1e-12, atol=cancel)
# --- end in code ---

fig, ax = figure("Error of the GELU approximations", "x", "approximation minus exact GELU")
ax.plot(x, gelu_tanh(x) - gelu(x), label=r"tanh form  (max $4.7\times10^{-4}$)")
ax.plot(x, x * expit(1.702 * x) - gelu(x), "--", label=r"$x\,\sigma(1.702x)$  (max $0.02$)")
ax.set_xlim(-6, 6)
ax.set_yscale("symlog", linthresh=1e-4)
ax.set_ylim(-0.05, 0.05)
ax.legend()
