"""SwiGLU: scalar loop, fused gate|up matmul, Swish limits and the Lambert-W minimum of SiLU."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar
from scipy.special import expit, lambertw, ndtr


# --- formula ---
def swish(u: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Swish_beta(u) = u * sigmoid(beta * u), with scipy's overflow-safe logistic."""
    return u * expit(beta * u)


def ffn_swiglu(x, w_gate, w_up, w_down):
    """(Swish_1(x W_gate) * (x W_up)) W_down, no biases."""
    return (swish(x @ w_gate) * (x @ w_up)) @ w_down


def ffn_weights(d, d_ff):
    """Weights of one SwiGLU FFN: W_gate and W_up (d x d_ff) and W_down (d_ff x d), no biases."""
    return 3 * d * d_ff
# --- end formula ---


rng = np.random.default_rng(0)
T, d, d_ff = 4, 8, 12
x = rng.normal(size=(T, d))
Wg, Wu = rng.normal(size=(d, d_ff)), rng.normal(size=(d, d_ff))
Wd = rng.normal(size=(d_ff, d))
out = ffn_swiglu(x, Wg, Wu, Wd)

# Scalar reference with math.exp and explicit sums.
ref = np.zeros((T, d))
for t in range(T):
    for j in range(d_ff):
        g = sum(x[t, i] * Wg[i, j] for i in range(d))
        u = sum(x[t, i] * Wu[i, j] for i in range(d))
        ref[t] += g / (1 + math.exp(-g)) * u * Wd[j]
check_close("FFN_SwiGLU vs scalar loop", out, ref, rtol=1e-10, atol=1e-12)

# The fused layout used by many checkpoints: one matmul with [W_gate | W_up], then split.
fused = x @ np.concatenate([Wg, Wu], axis=1)
gate, up = fused[:, :d_ff], fused[:, d_ff:]
check_close("fused [W_gate | W_up] matmul then split", (swish(gate) * up) @ Wd, out, rtol=1e-12)

# Swish limits: large beta approaches ReLU, beta = 0 is u/2.
u = np.linspace(-4, 4, 81)
check_close("Swish_beta -> ReLU for beta = 200", swish(u, 200.0), np.maximum(u, 0.0), atol=2e-3)
check_close("Swish_0(u) = u/2", swish(u, 0.0), u / 2, rtol=1e-12)

# SiLU's minimum: setting the derivative to zero gives u* = -1 - W(1/e) and value -W(1/e).
res = minimize_scalar(lambda v: float(swish(np.array(v))), bounds=(-5, 0), method="bounded",
                      options={"xatol": 1e-10})
w = float(lambertw(1 / math.e).real)
check_close("argmin of SiLU = -1 - W(1/e)", res.x, -1 - w, rtol=1e-6)
check_close("min of SiLU = -W(1/e) ~ -0.2785", res.fun, -w, rtol=1e-9)

# Weights: the three matrices above, and Shazeer's budget match (d = 768: SwiGLU at d_ff = 2048 holds as
# many weights as the two-matrix ReLU baseline at 3072), and 8 d^2 at d_ff = 8d/3.
check_close("weights of W_gate, W_up, W_down = 3 d d_ff", ffn_weights(d, d_ff), Wg.size + Wu.size + Wd.size,
            rtol=0)
check_close("Shazeer: SwiGLU at d_ff = 2048 = ReLU FFN at 3072 (2 d x 3072)", ffn_weights(768, 2048),
            2 * 768 * 3072, rtol=0)
check_close("d_ff = 8d/3 gives a plain 4d MLP's 8 d^2", ffn_weights(4096, 8 * 4096 / 3), 8 * 4096**2,
            rtol=1e-15)

# The page's calculator is checked against ffn_weights, from tiny widths to d_ff = 4d and 8d/3.
import cardcalc  # noqa: E402

cardcalc.table(lambda d, d_ff: {"P": ffn_weights(d, d_ff), "r": ffn_weights(d, d_ff) / (8 * d**2)},
               cardcalc.grid(d=(1, 768, 4096, 8192), d_ff=(1, 2048, 11008, 28672, 32768)))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Swish_1 is F.silu; the layer is written out, as in LLaMA-style code. float64 products of 8- and
# 12-term sums, a few ulps each: 1e-12 relative, with atol 1e-12 for entries near zero.
xt, Wgt, Wut, Wdt = (torch.tensor(m) for m in (x, Wg, Wu, Wd))
check_close("(F.silu(x @ W_gate) * (x @ W_up)) @ W_down = FFN_SwiGLU",
            ((F.silu(xt @ Wgt) * (xt @ Wut)) @ Wdt).numpy(), out, rtol=1e-12, atol=1e-12)
# F.glu(h) splits h's last dimension into halves (a, b) and returns a * sigmoid(b): the first half
# is the value, the second the gate, and the gate gets a sigmoid, not Swish.
halves = torch.cat([xt @ Wut, xt @ Wgt], dim=-1)
check_close("pitfall: F.glu([x W_up | x W_gate]) gates with sigmoid: (sigmoid(x W_gate) * x W_up) W_down",
            (F.glu(halves, dim=-1) @ Wdt).numpy(), (expit(x @ Wg) * (x @ Wu)) @ Wd, rtol=1e-12, atol=1e-12)
check_true("pitfall: ... which is GLU, not SwiGLU",
           np.abs((F.glu(halves, dim=-1) @ Wdt).numpy() - out).max() > 0.1,
           f"max difference {np.abs((F.glu(halves, dim=-1) @ Wdt).numpy() - out).max():.2f}")
# --- end in code ---

fig, ax = figure("Gate activations", "pre-activation  u", "activation")
grid = np.linspace(-4, 3, 300)
ax.plot(grid, np.maximum(grid, 0), label="ReLU")
ax.plot(grid, grid * ndtr(grid), "--", label=r"GELU  $u\,\Phi(u)$")
ax.plot(grid, swish(grid), label=r"Swish$_1$ = SiLU  $u\,\sigma(u)$")
ax.plot(grid, swish(grid, 0.0), ":", label=r"Swish$_0$ = $u/2$")
ax.set_ylim(-1, 3)
ax.legend()
