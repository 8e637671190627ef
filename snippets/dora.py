"""DoRA: the merged weight reproduces W0 at initialization, its per-output norms are the magnitudes, it equals
PEFT's two-path forward, it is invariant to rescaling the direction, and it decomposes any weight exactly."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def unit_norms(V):
    """||V||_c: the L2 norm of each output unit's incoming weights (rows of an (out, in) matrix)."""
    return np.sqrt(np.sum(V**2, axis=1, keepdims=True))


def dora_weight(W0, A, B, m, scale):
    """W' = m * (W0 + scale B A) / ||W0 + scale B A||_c, one magnitude m per output unit."""
    V = W0 + scale * B @ A
    return m[:, None] * V / unit_norms(V)
# --- end formula ---


rng = np.random.default_rng(0)
d_out, d_in, r, alpha = 48, 32, 4, 8.0
scale = alpha / r
W0 = rng.normal(size=(d_out, d_in)) / np.sqrt(d_in)
A = rng.normal(size=(r, d_in)) / np.sqrt(d_in)
m0 = np.linalg.norm(W0, axis=1)  # DoRA initializes the magnitude to the norms of W0

# 1. Initialization: B = 0 and m = ||W0||_c give back W0 exactly.
check_close("B = 0, m = ||W0||_c: W' = W0", dora_weight(W0, A, np.zeros((d_out, r)), m0, scale), W0,
            rtol=1e-14, atol=1e-16)

# 2. After training (B != 0, m changed): each output unit's weight vector has norm m_j.
B = rng.normal(size=(d_out, r)) * 0.3
m = m0 * rng.uniform(0.5, 1.5, size=d_out)
Wp = dora_weight(W0, A, B, m, scale)
check_close("per-output norms of W' equal the magnitudes m", np.linalg.norm(Wp, axis=1), m, rtol=1e-13)
check_close("direction of W' is that of W0 + scale B A (cosine 1 per output unit)",
            np.sum(Wp * (W0 + scale * B @ A), axis=1) / (m * np.linalg.norm(W0 + scale * B @ A, axis=1)),
            np.ones(d_out), rtol=1e-13)

# 3. PEFT computes the layer without forming W': with s = m / ||W0 + scale B A||_c,
#    y = (s - 1) * (x W0^T) + x W0^T + s * scale * (x A^T B^T). It must equal x W'^T.
X = rng.normal(size=(7, d_in))
s = m / np.linalg.norm(W0 + scale * B @ A, axis=1)
base = X @ W0.T
peft = (s - 1) * base + base + s * scale * ((X @ A.T) @ B.T)
check_close("merged weight vs PEFT's two-path forward", X @ Wp.T, peft, rtol=1e-12, atol=1e-14)

# 4. Only the direction of V matters: scaling W0 and B by the same positive factor per output unit
#    leaves W' unchanged.
c = rng.uniform(0.2, 5.0, size=(d_out, 1))
check_close("invariant to V -> c V per output unit", dora_weight(c * W0, A, c * B, m, scale), Wp, rtol=1e-12)

# 5. Any weight decomposes exactly: taking W0 = W_ft, B = 0 and m = ||W_ft||_c reproduces W_ft
#    (the weight-normalization identity W = ||W||_c (W / ||W||_c)), here for a random "fine-tuned" weight.
W_ft = W0 + rng.normal(size=(d_out, d_in)) * 0.05
check_close("W_ft = ||W_ft||_c * W_ft / ||W_ft||_c", dora_weight(W_ft, A, np.zeros((d_out, r)),
            np.linalg.norm(W_ft, axis=1), scale), W_ft, rtol=1e-13, atol=1e-16)

# 6. Trainable parameters: LoRA's r (d_in + d_out) plus one magnitude per output unit.
check_true("parameters: r (d_in + d_out) + d_out", A.size + B.size + m.size == r * (d_in + d_out) + d_out,
           f"{A.size + B.size + m.size} = {r} * ({d_in} + {d_out}) + {d_out}")

# --- in code: peft ---
import torch  # noqa: E402
from peft import LoraConfig  # noqa: E402
from peft_fixture import TARGET, adapt, load_factors, run, weight  # noqa: E402

# float64 sums of <= 32 products and one norm per row, in another order than numpy's: a few ulps of
# the largest terms, so rtol 1e-12 with an atol of 1e-12 times the largest entry.
near = {"rtol": 1e-12, "atol": 1e-12 * np.abs(X @ Wp.T).max()}
model, layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, use_dora=True, target_modules=[TARGET]))
magnitude = layer.lora_magnitude_vector["default"].weight
check_close("LoraConfig(use_dora=True): the magnitude starts at ||W0||_c, one per output unit",
            weight(magnitude), m0, rtol=1e-12)
check_close("use_dora=True at init (B = 0): the layer's forward is W0 x", run(model, X), X @ W0.T, **near)
load_factors(layer, A, B)
with torch.no_grad():
    magnitude.copy_(torch.from_numpy(m))
check_close("the DoRA layer's forward = x W'^T, W' = m (W0 + (alpha/r) B A) / ||.||_c", run(model, X),
            X @ Wp.T, **near)

# Sec. 4.3 of the paper: the norm ||W0 + (alpha/r) B A||_c is detached, a constant for backprop.
# The forward value is the card's, but the gradient is that of W' with the norm frozen at its value.
v = rng.normal(size=(X.shape[0], d_out))
model(torch.from_numpy(X)).mul(torch.from_numpy(v)).sum().backward()
peft_grad = layer.lora_B["default"].weight.grad.numpy()
frozen_norm = unit_norms(W0 + scale * B @ A)


def loss(B_, norm=None):
    """L = sum(v * (X W'^T)) with the card's W' at B_; with the norm held at `norm` when given."""
    W_ = dora_weight(W0, A, B_, m, scale) if norm is None else m[:, None] * (W0 + scale * B_ @ A) / norm
    return np.sum(v * (X @ W_.T))


def fd_grad(f, h=1e-6):
    """Central differences of f in each entry of B."""
    grad = np.zeros_like(B)
    for index in np.ndindex(*B.shape):
        step = np.zeros_like(B)
        step[index] = h
        grad[index] = (f(B + step) - f(B - step)) / (2 * h)
    return grad


# Finite differences at h = 1e-6 of an L computed to a few dozen ulps: atol 64 eps |L| / h (Tolerances
# in CONTRIBUTING); the detached and the full gradient differ by far more.
fd_atol = 64 * np.finfo(float).eps * abs(loss(B)) / 1e-6
full = fd_grad(loss)
check_close("PEFT's gradient of lora_B = the card's W' with ||.||_c held constant",
            peft_grad, fd_grad(lambda B_: loss(B_, frozen_norm)), atol=fd_atol)
check_true("pitfall: it is not the gradient of the card's W' (the norm's own derivative is dropped)",
           np.abs(peft_grad - full).max() > 100 * fd_atol,
           f"largest difference {np.abs(peft_grad - full).max():.3g}, tolerance {fd_atol:.1g}")

merged = model.merge_and_unload()
check_close("merge_and_unload(): weight = W'", weight(merged.proj.weight), Wp,
            rtol=1e-12, atol=1e-12 * np.abs(Wp).max())
# --- end in code ---

# Magnitude vs direction change of each output unit as the LoRA factor B grows, at fixed m (DoRA) and
# for plain LoRA (whose norm changes along with its direction).
fig, ax = figure("Change of one output unit's weight as B grows", "size of B (multiple of the trained B)",
                 "relative change")
ts = np.linspace(0, 3, 61)
lora_norm = [np.linalg.norm(W0[0] + t * scale * (B @ A)[0]) / m0[0] - 1 for t in ts]
dora_norm = [np.linalg.norm(dora_weight(W0, A, t * B, m0, scale)[0]) / m0[0] - 1 for t in ts]
cosd = [1 - (W0[0] @ dora_weight(W0, A, t * B, m0, scale)[0]) / m0[0] ** 2 for t in ts]
ax.plot(ts, lora_norm, label="LoRA: norm change")
ax.plot(ts, dora_norm, "--", label="DoRA (m fixed): norm change")
ax.plot(ts, cosd, ":", label="both: 1 − cos(direction change)")
ax.legend()
