"""Mish: x tanh(softplus(x)) with a stable softplus (np.logaddexp). Checked against a 60-digit decimal
evaluation of the closed form x (e^2x + 2e^x) / (e^2x + 2e^x + 2) on inputs from -1000 to 1000, the
derivative against the paper's closed form e^x omega / delta^2 (also in 60 digits) and against
finite differences, and the minimum (about -0.3088 at x = -1.19) against a decimal root search."""

from decimal import Decimal, getcontext

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar
from scipy.special import expit, ndtr

getcontext().prec = 60


# --- formula ---
def softplus(x: np.ndarray) -> np.ndarray:
    """log(1 + e^x) without overflow (x > 709) or loss of the tiny values (x < -37)."""
    return np.logaddexp(0.0, x)


def mish(x: np.ndarray) -> np.ndarray:
    return x * np.tanh(softplus(x))


def mish_grad(x: np.ndarray) -> np.ndarray:
    """d/dx [x tanh(sp(x))] = tanh(sp(x)) + x sigmoid(x) sech^2(sp(x)), since sp'(x) = sigmoid(x)."""
    t = np.tanh(softplus(x))
    return t + x * expit(x) * (1 - t * t)
# --- end formula ---


def mish_decimal(v: float) -> float:
    x = Decimal(v)
    e = x.exp()
    return float(x * (e * e + 2 * e) / (e * e + 2 * e + 2))


def mish_grad_decimal(v: float) -> float:
    """Misra (2019): f'(x) = e^x omega / delta^2, omega = 4(x+1) + 4e^2x + e^3x + e^x (4x+6),
    delta = 2e^x + e^2x + 2."""
    x = Decimal(v)
    e = x.exp()
    omega = 4 * (x + 1) + 4 * e * e + e * e * e + e * (4 * x + 6)
    delta = 2 * e + e * e + 2
    return float(e * omega / (delta * delta))


rng = np.random.default_rng(0)
xs = np.concatenate([rng.normal(scale=3.0, size=100), np.linspace(-700, 700, 57),
                     [-1000.0, -745.0, -100.0, -40.0, -1.0, 0.0, 1e-8, 1.0, 20.0, 40.0, 1000.0]])

# 1. Values, relative accuracy everywhere the result is a normal float, including x = -40 .. -700
#    where log(1 + exp(x)) computed naively is exactly 0.
ref = np.array([mish_decimal(v) for v in xs])
normal = np.abs(ref) > 1e-300
check_close("Mish vs 60-digit x(e^2x + 2e^x)/(e^2x + 2e^x + 2), |x| <= 1000", mish(xs)[normal], ref[normal],
            rtol=1e-12)
check_close("...where the exact value is below 1e-300 (x <= -700) Mish agrees to 1e-300", mish(xs)[~normal],
            ref[~normal], rtol=0, atol=1e-300)
with np.errstate(over="ignore"):
    naive = -40.0 * np.tanh(np.log(1 + np.exp(-40.0)))
check_true("naive log(1 + exp(x)) at x = -40 gives 0; the stable form keeps -1.7e-16",
           naive == 0 and np.isclose(mish(np.array(-40.0)), mish_decimal(-40.0), rtol=1e-12),
           f"naive {naive}, stable {float(mish(np.array(-40.0))):.3e}")

# 2. Derivative: the paper's closed form and central finite differences.
gref = np.array([mish_grad_decimal(v) for v in xs])
gnormal = np.abs(gref) > 1e-300
check_close("Mish' vs e^x omega / delta^2 (Misra 2019), 60 digits, |x| <= 1000", mish_grad(xs)[gnormal],
            gref[gnormal], rtol=1e-10)
h = 1e-5
xm = xs[np.abs(xs) < 30]
check_close("Mish' vs central finite differences (|x| < 30)", mish_grad(xm),
            (mish(xm + h) - mish(xm - h)) / (2 * h), rtol=1e-7, atol=1e-9)
check_close("Mish'(0) = tanh(ln 2) = 0.6", mish_grad(np.array(0.0)), 0.6, rtol=1e-14)

# 3. The minimum: omega(x) = 0, found by bisection in 60 digits, vs scipy's minimizer on mish itself.
lo, hi = Decimal(-2), Decimal(-1)
for _ in range(150):
    mid = (lo + hi) / 2
    e = mid.exp()
    omega = 4 * (mid + 1) + 4 * e * e + e * e * e + e * (4 * mid + 6)
    lo, hi = (mid, hi) if omega < 0 else (lo, mid)
x_star = float(lo)
res = minimize_scalar(lambda v: float(mish(np.array(v))), bounds=(-3, 0), method="bounded",
                      options={"xatol": 1e-10})
check_close("argmin of Mish (about -1.1924) vs root of omega", res.x, x_star, rtol=1e-7)
check_close("min of Mish (about -0.30884; the paper: 'about -0.31')", res.fun, mish_decimal(x_star),
            rtol=1e-12)

fig, ax = figure("Mish against Swish and GELU", "pre-activation  x", "activation")
g = np.linspace(-5, 3, 400)
ax.plot(g, mish(g), label=r"Mish  $x\,\tanh(\mathrm{softplus}(x))$")
ax.plot(g, g * expit(g), "--", label=r"Swish / SiLU  $x\,\sigma(x)$")
ax.plot(g, g * ndtr(g), ":", label=r"GELU  $x\,\Phi(x)$")
ax.plot(g, mish_grad(g), color="gray", lw=1, label="Mish'(x)")
ax.axhline(mish_decimal(x_star), color="gray", ls=":", lw=0.8)
ax.set_ylim(-1, 3)
ax.legend()

# The page's calculator is checked against mish and mish_grad, from where e^x underflows to where it
# overflows, through the minimum near x = -1.19 and 0.
import cardcalc  # noqa: E402

cardcalc.table(lambda x: {"y": float(mish(np.float64(x))), "dy": float(mish_grad(np.float64(x)))},
               cardcalc.grid(x=(-800.0, -40.0, -5.0, -1.19, -0.5, 0.0, 0.5, 2.0, 20.0, 800.0)))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# F.mish in float64: a softplus (which returns x itself above 20, off by log1p(e^-x) < 3e-9 there,
# a change tanh flattens to below 1e-16), a tanh and a product, each to a few ulps: 1e-12
# relative where the value is a normal float, 1e-300 absolute below.
xt = torch.tensor(xs, requires_grad=True)
mish_torch = F.mish(xt)
mish_torch.sum().backward()
mish_values = mish_torch.detach().numpy()
check_close("F.mish(x) = x tanh(softplus(x))", mish_values[normal], mish(xs)[normal], rtol=1e-12)
check_close("... and below 1e-300", mish_values[~normal], mish(xs)[~normal], rtol=0, atol=1e-300)
# The gradient goes through the same few operations; 1e-10 as for the card's closed form.
check_close("autograd of F.mish = the card's Mish'", xt.grad.numpy()[gnormal], mish_grad(xs)[gnormal],
            rtol=1e-10)
# --- end in code ---
