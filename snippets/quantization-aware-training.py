"""Quantization-aware training with the straight-through estimator: forward fake quantization against the
grid, the STE gradient against finite differences in the quantized weights, zero gradient where clipped,
and QAT on a small regression against round-to-nearest and the brute-force best grid point."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def fake_quant(w, s, q_min, q_max):
    """Forward pass: Q(w) = s clip(round(w / s), q_min, q_max), kept in floating point."""
    return s * np.clip(np.round(w / s), q_min, q_max)


def ste_grad(w, grad_q, s, q_min, q_max):
    """Backward pass: dL/dw ~ dL/dQ(w) where w lies inside the clipping range, 0 outside (the clamp)."""
    inside = (w >= s * q_min) & (w <= s * q_max)
    return grad_q * inside
# --- end formula ---


rng = np.random.default_rng(0)
n, d = 200, 3
X = rng.normal(size=(n, d)) @ np.array([[1.0, 0.8, 0.0], [0.0, 0.6, 0.5], [0.0, 0.0, 0.9]])
w_true = np.array([0.62, -0.37, 0.18])
y = X @ w_true + 0.05 * rng.normal(size=n)
s, q_min, q_max = 0.25, -3, 3                              # 3-bit signed, restricted grid: -0.75 .. 0.75


def loss_at(v):
    """Task loss of the model with (already quantized) weights v: mean squared error."""
    return np.mean((X @ v - y) ** 2)


def grad_at(v):
    return 2 * X.T @ (X @ v - y) / n


# 1. Forward: fake quantization is the nearest point of the 7-point grid (brute force).
w_test = rng.uniform(-1.2, 1.2, size=500)
grid = s * np.arange(q_min, q_max + 1)
check_close("Q(w) == nearest grid point (clipped outside [-0.75, 0.75])", fake_quant(w_test, s, q_min, q_max),
            grid[np.argmin(np.abs(w_test[:, None] - grid[None, :]), axis=1)], rtol=1e-12)

# 2. Backward: the STE passes the gradient taken at the quantized weights straight to the latent weights;
#    compare with central finite differences of the loss in the quantized weights themselves.
w = np.array([0.41, -0.93, 0.07])                          # second weight outside the range
wq = fake_quant(w, s, q_min, q_max)
h = 1e-6
fd = np.array([(loss_at(wq + h * e) - loss_at(wq - h * e)) / (2 * h) for e in np.eye(d)])
g = ste_grad(w, grad_at(wq), s, q_min, q_max)
check_close("STE gradient == finite differences in Q(w), inside the range", g[[0, 2]], fd[[0, 2]], rtol=1e-6)
check_close("STE gradient == 0 for the clipped weight (-0.93 < -0.75)", g[1], 0.0, atol=0)
check_true("the clipped weight's loss gradient itself is not 0 (the clamp, not the loss, zeroes it)",
           abs(fd[1]) > 1e-3)
check_close("range ends count as inside: w = +-0.75 keep their gradient",
            ste_grad(np.array([0.75, -0.75]), np.array([1.0, 2.0]), s, q_min, q_max), [1.0, 2.0], rtol=0)

# 3. Why an estimator is needed: the true derivative of L(Q(w)) in w is 0 almost everywhere (Q is a
#    staircase), so plain backpropagation would never move the weights.
true_fd = (loss_at(fake_quant(w + h * np.eye(d)[0], s, q_min, q_max))
           - loss_at(fake_quant(w - h * np.eye(d)[0], s, q_min, q_max))) / (2 * h)
check_close("exact derivative through round() is 0 (between grid steps)", true_fd, 0.0, atol=0)

# 4. QAT: gradient descent on latent weights with the STE, against post-training rounding of the
#    full-precision solution and against the best of all 7^3 grid points.
w_fp = np.linalg.lstsq(X, y, rcond=None)[0]
ptq = loss_at(fake_quant(w_fp, s, q_min, q_max))
best = min(loss_at(np.array(c)) for c in itertools.product(grid, repeat=d))
w_lat = w_fp.copy()
history = []
for _ in range(300):
    wq = fake_quant(w_lat, s, q_min, q_max)
    history.append(loss_at(wq))
    w_lat -= 0.05 * ste_grad(w_lat, grad_at(wq), s, q_min, q_max)
qat = min(history)                                         # best checkpoint: the latent weights oscillate
check_close("best QAT checkpoint == brute-force minimum over the 343 grid points", qat, best, rtol=1e-12)
check_true("rounding the float solution (PTQ) is much worse than QAT here", ptq > 3 * qat,
           f"PTQ {ptq:.4f} vs QAT {qat:.4f}")
check_true("the quantized weights keep oscillating between grid points (a known QAT effect)",
           len(set(np.round(history[-100:], 10))) > 1)

fig, ax = figure("QAT with the straight-through estimator (3-bit weights)", "step",
                 "task loss of the quantized model")
ax.plot(history, label="QAT (STE)")
ax.axhline(ptq, color="tab:red", ls="--", label="round the float solution (PTQ)")
ax.axhline(best, color="gray", ls=":", label="best grid point (brute force)")
ax.legend()
