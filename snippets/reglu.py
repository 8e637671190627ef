"""ReGLU feed-forward block: (max(0, x W_gate) * x W_up) W_down. Checked against a scalar loop with an
explicit if, for exact degree-2 positive homogeneity, for the exact zeros of the hidden layer, for
the squared-ReLU MLP it becomes with tied gate and up weights, for the fused [W_gate | W_up]
layout, and for its gradient against finite differences."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def ffn_reglu(x: np.ndarray, w_gate: np.ndarray, w_up: np.ndarray, w_down: np.ndarray) -> np.ndarray:
    """FFN_ReGLU(x) = (max(0, x W_gate) (x) x W_up) W_down (Shazeer 2020), no biases."""
    return (np.maximum(x @ w_gate, 0.0) * (x @ w_up)) @ w_down
# --- end formula ---


rng = np.random.default_rng(0)
T, d, d_ff = 5, 6, 10
x = rng.normal(size=(T, d))
Wg, Wu, Wd = rng.normal(size=(d, d_ff)), rng.normal(size=(d, d_ff)), rng.normal(size=(d_ff, d))
out = ffn_reglu(x, Wg, Wu, Wd)

# 1. Scalar reference: an explicit branch on the sign of each gate pre-activation.
ref = np.zeros((T, d))
for t in range(T):
    for j in range(d_ff):
        g = sum(x[t, i] * Wg[i, j] for i in range(d))
        u = sum(x[t, i] * Wu[i, j] for i in range(d))
        if g > 0:
            ref[t] += g * u * Wd[j]
check_close("FFN_ReGLU vs scalar loop with 'if gate > 0'", out, ref, rtol=1e-12, atol=1e-13)

# 2. Degree-2 positive homogeneity: f(c x) = c^2 f(x) for c > 0 (a quadratic, not linear, unit).
check_close("f(2.5 x) = 6.25 f(x)", ffn_reglu(2.5 * x, Wg, Wu, Wd), 6.25 * out, rtol=1e-12, atol=1e-13)
check_true("but f(-x) != f(x) and != -f(x): the gate sees the sign",
           np.abs(ffn_reglu(-x, Wg, Wu, Wd) - out).max() > 0.1
           and np.abs(ffn_reglu(-x, Wg, Wu, Wd) + out).max() > 0.1,
           "sign matters")

# 3. Exact zeros: hidden unit j is exactly 0 whenever its gate pre-activation is <= 0.
hidden = ffn_reglu(x, Wg, Wu, np.eye(d_ff))
gate_pre = x @ Wg
check_true("hidden zeros exactly where the gate is <= 0 (about half of them)",
           np.array_equal(hidden == 0, gate_pre <= 0), f"{np.mean(hidden == 0):.2f} of hidden units are 0")

# 4. Tied weights: W_up = W_gate turns ReGLU into the squared-ReLU MLP (Primer): relu(u)^2 W_down.
check_close("W_up = W_gate: (relu(xW))^2 W_down", ffn_reglu(x, Wg, Wg, Wd),
            np.square(np.maximum(x @ Wg, 0)) @ Wd, rtol=1e-12, atol=1e-13)

# 5. Fused layout: one matmul with [W_gate | W_up], then split.
fused = x @ np.concatenate([Wg, Wu], axis=1)
check_close("fused [W_gate | W_up] then split", (np.maximum(fused[:, :d_ff], 0) * fused[:, d_ff:]) @ Wd, out,
            rtol=1e-12, atol=1e-13)

# 6. Gradient w.r.t. x vs the hand-derived Jacobian, by central finite differences.
t = 2
h = 1e-6
fd = np.array([(ffn_reglu(x[t] + h * e, Wg, Wu, Wd) - ffn_reglu(x[t] - h * e, Wg, Wu, Wd)) / (2 * h)
               for e in np.eye(d)]).T
g, u = x[t] @ Wg, x[t] @ Wu
jac = Wd.T @ (np.diag((g > 0) * u) @ Wg.T + np.diag(np.maximum(g, 0)) @ Wu.T)
check_close("Jacobian d f / d x vs finite differences", fd, jac, rtol=1e-7, atol=1e-8)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

xt, Wgt, Wut, Wdt = (torch.tensor(a) for a in (x, Wg, Wu, Wd))
# Products of 6- and 10-term float64 sums, a few ulps each: 1e-12, as check 1.
check_close("(F.relu(x @ W_gate) * (x @ W_up)) @ W_down = FFN_ReGLU",
            ((F.relu(xt @ Wgt) * (xt @ Wut)) @ Wdt).numpy(), out, rtol=1e-12, atol=1e-13)
# F.glu is the sigmoid-gated GLU, not ReGLU, whichever half holds the gate.
glu_out = (F.glu(torch.cat([xt @ Wut, xt @ Wgt], dim=-1)) @ Wdt).numpy()
check_close("pitfall: F.glu([x W_up | x W_gate]) gates with a sigmoid: (x W_up * sigmoid(x W_gate)) W_down",
            glu_out, ((x @ Wu) / (1 + np.exp(-(x @ Wg)))) @ Wd, rtol=1e-12, atol=1e-13)
check_true("... which is not ReGLU", np.abs(glu_out - out).max() > 0.1,
           f"max difference {np.abs(glu_out - out).max():.2f}")
# --- end in code ---

fig, ax = figure("One ReGLU unit: max(0, g) u", "gate pre-activation  g", "value pre-activation  u")
gg, uu = np.meshgrid(np.linspace(-3, 3, 121), np.linspace(-3, 3, 121))
unit = ffn_reglu(np.stack([gg.ravel(), uu.ravel()], axis=1), np.array([[1.0], [0.0]]),
                 np.array([[0.0], [1.0]]), np.array([[1.0]])).reshape(gg.shape)
im = ax.contourf(gg, uu, unit, levels=21, cmap="RdBu_r", vmin=-9, vmax=9)
fig.colorbar(im, ax=ax, label="unit output")
