"""GEGLU feed-forward block: (GELU(x W_gate) * x W_up) W_down, with exact (erf) or tanh GELU. Checked
against a scalar loop with math.erf, GELU against x Phi(x) (scipy.special.ndtr), the tanh form
against its sigmoid rewriting and its published maximum error, the bilinear limit for large
gates, the diffusers-style fused layout, and the gradient against finite differences."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import erf, erfc, expit, ndtr


# --- formula ---
def gelu(u: np.ndarray) -> np.ndarray:
    """x Phi(x) = x/2 (1 + erf(x / sqrt 2)) = x/2 erfc(-x / sqrt 2); erfc keeps full relative precision
    for very negative x, where 1 + erf(.) cancels."""
    return 0.5 * u * erfc(-u / np.sqrt(2))


def gelu_tanh(u: np.ndarray) -> np.ndarray:
    """x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), Hendrycks & Gimpel's approximation."""
    return 0.5 * u * (1 + np.tanh(np.sqrt(2 / np.pi) * (u + 0.044715 * u**3)))


def ffn_geglu(x, w_gate, w_up, w_down, approximate: bool = False):
    """FFN_GEGLU(x) = (GELU(x W_gate) (x) x W_up) W_down (Shazeer 2020), no biases."""
    g = x @ w_gate
    act = gelu_tanh(g) if approximate else gelu(g)
    return (act * (x @ w_up)) @ w_down
# --- end formula ---


rng = np.random.default_rng(0)
T, d, d_ff = 5, 6, 10
x = rng.normal(size=(T, d))
Wg, Wu, Wd = rng.normal(size=(d, d_ff)), rng.normal(size=(d, d_ff)), rng.normal(size=(d_ff, d))
out = ffn_geglu(x, Wg, Wu, Wd)

# 1. Scalar loop with math.erf.
ref = np.zeros((T, d))
for t in range(T):
    for j in range(d_ff):
        g = sum(x[t, i] * Wg[i, j] for i in range(d))
        u = sum(x[t, i] * Wu[i, j] for i in range(d))
        ref[t] += g * 0.5 * (1 + math.erf(g / math.sqrt(2))) * u * Wd[j]
check_close("FFN_GEGLU (exact GELU) vs scalar loop with math.erf", out, ref, rtol=1e-12, atol=1e-13)

# 2. The two GELUs: exact = x Phi(x); tanh form = x sigmoid(2 sqrt(2/pi)(x + 0.044715 x^3)).
grid = np.linspace(-10, 10, 200001)
check_close("GELU(x) = x Phi(x) (scipy ndtr), x in [-10, 10]", gelu(grid), grid * ndtr(grid),
            rtol=1e-12, atol=1e-300)
check_close("tanh GELU = x sigmoid(1.5957691216 (x + 0.044715 x^3)) (0.5(1 + tanh z) = sigmoid(2z))",
            gelu_tanh(grid), grid * expit(1.5957691216057308 * (grid + 0.044715 * grid**3)),
            rtol=1e-12, atol=1e-14)
neg = grid[grid < -6]
cancel = np.abs(0.5 * neg * (1 + erf(neg / np.sqrt(2))) / (neg * ndtr(neg)) - 1).max()
check_true("the 1 + erf form loses relative precision below x = -6 (cancellation), erfc does not",
           cancel > 1e-6, f"relative error of 1 + erf for x < -6: up to {cancel:.1e}")
gap = np.abs(gelu_tanh(grid) - gelu(grid)).max()
check_true("max |tanh GELU - GELU| = 4.73e-4 (near x = -2.70)", 4.72e-4 < gap < 4.74e-4, f"{gap:.4e}")
approx = ffn_geglu(x, Wg, Wu, Wd, approximate=True)
check_true("GEGLU with tanh GELU differs from exact GEGLU, slightly",
           0 < np.abs(approx - out).max() < 1e-2, f"max difference {np.abs(approx - out).max():.1e}")

# 3. Large positive gate pre-activations: GELU(g) = g to double precision, GEGLU becomes bilinear.
xb = np.hstack([x, np.ones((T, 1))])
Wgb = np.vstack([Wg, np.full((1, d_ff), 40.0)])  # a bias row of 40 pushes every gate far positive
Wub = np.vstack([Wu, np.zeros((1, d_ff))])
check_close("gates >= 30: GEGLU = bilinear (x W_gate (x) x W_up) W_down", ffn_geglu(xb, Wgb, Wub, Wd),
            ((xb @ Wgb) * (xb @ Wub)) @ Wd, rtol=1e-12)

# 4. diffusers' GEGLU: one projection to 2 d_ff, chunk into [hidden | gate], return hidden * gelu(gate):
#    the SECOND half is the gate. T5 v1.1 instead names them wi_0 (gate) and wi_1 (value).
proj = x @ np.concatenate([Wu, Wg], axis=1)
hidden_half, gate_half = proj[:, :d_ff], proj[:, d_ff:]
check_close("diffusers layout [W_up | W_gate], gate = second half",
            (hidden_half * (gate_half * ndtr(gate_half))) @ Wd, out, rtol=1e-12, atol=1e-13)

# 5. Gradient with respect to x: GELU'(g) = Phi(g) + g phi(g), by finite differences.
t, h = 3, 1e-6
fd = np.array([(ffn_geglu(x[t] + h * e, Wg, Wu, Wd) - ffn_geglu(x[t] - h * e, Wg, Wu, Wd)) / (2 * h)
               for e in np.eye(d)]).T
g, u = x[t] @ Wg, x[t] @ Wu
dgelu = ndtr(g) + g * np.exp(-g**2 / 2) / np.sqrt(2 * np.pi)
jac = Wd.T @ (np.diag(dgelu * u) @ Wg.T + np.diag(g * ndtr(g)) @ Wu.T)
check_close("Jacobian d f / d x vs finite differences", fd, jac, rtol=1e-7, atol=1e-8)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

xt, Wgt, Wut, Wdt = (torch.tensor(a) for a in (x, Wg, Wu, Wd))
# Products of 6- and 10-term float64 sums and one erf, a few ulps each: 1e-12, as check 1.
check_close("(F.gelu(x @ W_gate) * (x @ W_up)) @ W_down, default approximate='none', = exact GEGLU",
            ((F.gelu(xt @ Wgt) * (xt @ Wut)) @ Wdt).numpy(), out, rtol=1e-12, atol=1e-13)
check_close("F.gelu(..., approximate='tanh') = GEGLU with the tanh GELU (T5 v1.1, Gemma)",
            ((F.gelu(xt @ Wgt, approximate="tanh") * (xt @ Wut)) @ Wdt).numpy(), approx,
            rtol=1e-12, atol=1e-13)
# F.glu is not GEGLU: it gates the first half by the sigmoid of the second, whatever the order.
glu_out = (F.glu(torch.cat([xt @ Wut, xt @ Wgt], dim=-1)) @ Wdt).numpy()
check_close("pitfall: F.glu([x W_up | x W_gate]) is the sigmoid-gated GLU", glu_out,
            ((x @ Wu) * expit(x @ Wg)) @ Wd, rtol=1e-12, atol=1e-13)
check_true("... not GEGLU", np.abs(glu_out - out).max() > 0.1,
           f"max difference {np.abs(glu_out - out).max():.2f}")
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
jx, jWg, jWu, jWd = (jax.numpy.asarray(a) for a in (x, Wg, Wu, Wd))
default = np.asarray((jax.nn.gelu(jx @ jWg) * (jx @ jWu)) @ jWd)
check_close("pitfall: jax.nn.gelu defaults to approximate=True: GEGLU with the tanh GELU", default, approx,
            rtol=1e-12, atol=1e-13)
check_true("... off the exact GEGLU by more than rounding", np.abs(default - out).max() > 1e-6,
           f"max difference {np.abs(default - out).max():.1e}")
check_close("fix: jax.nn.gelu(x @ W_gate, approximate=False) gives the exact GEGLU",
            np.asarray((jax.nn.gelu(jx @ jWg, approximate=False) * (jx @ jWu)) @ jWd), out,
            rtol=1e-12, atol=1e-13)
# --- end in code ---

fig, ax = figure("One GEGLU unit: GELU(g) u", "gate pre-activation  g", "value pre-activation  u")
gg, uu = np.meshgrid(np.linspace(-3, 3, 121), np.linspace(-3, 3, 121))
unit = ffn_geglu(np.stack([gg.ravel(), uu.ravel()], axis=1), np.array([[1.0], [0.0]]),
                 np.array([[0.0], [1.0]]), np.array([[1.0]])).reshape(gg.shape)
im = ax.contourf(gg, uu, unit, levels=21, cmap="RdBu_r", vmin=-9, vmax=9)
fig.colorbar(im, ax=ax, label="unit output")
