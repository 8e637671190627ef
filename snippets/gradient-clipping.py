"""Global norm clipping: vs numpy's norm of the flat gradient and projection onto the ball."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.optimize import minimize


# --- formula ---
def clip_global_norm(grads, c):
    """Scale every tensor by min(1, c / ||g||_2), the norm taken over all tensors together."""
    total = np.sqrt(sum(float(np.sum(g * g)) for g in grads))
    if total <= c:                               # inside the ball (this includes g = 0): unchanged
        return list(grads), total
    return [g * (c / total) for g in grads], total
# --- end formula ---


rng = np.random.default_rng(0)
grads = [rng.normal(size=(16, 8)), rng.normal(size=8), rng.normal(size=(4, 4, 3)) * 5]
flat = np.concatenate([g.ravel() for g in grads])
c = 1.0

clipped, norm = clip_global_norm(grads, c)
check_close("global norm vs np.linalg.norm of the flattened gradient", norm, np.linalg.norm(flat),
            rtol=1e-12)
flat_clipped = np.concatenate([g.ravel() for g in clipped])
check_close("clipped norm equals the threshold c", np.linalg.norm(flat_clipped), c, rtol=1e-12)
check_close("direction preserved (cosine = 1)",
            flat_clipped @ flat / (np.linalg.norm(flat_clipped) * np.linalg.norm(flat)), 1.0,
            rtol=1e-12)

# Clipping is the Euclidean projection onto the ball ||x|| <= c: solve that problem numerically.
g_small = rng.normal(size=5) * 3
proj = minimize(lambda x: np.sum((x - g_small) ** 2), np.zeros(5), method="SLSQP",
                constraints=[{"type": "ineq", "fun": lambda x: c**2 - x @ x}]).x
check_close("clip == projection onto the c-ball (SLSQP)", clip_global_norm([g_small], c)[0][0],
            proj, rtol=1e-4, atol=1e-6)

# Below the threshold nothing changes.
small = [g * 1e-3 for g in grads]
out, _ = clip_global_norm(small, c)
check_true("norm below c: gradient untouched",
           all(np.array_equal(a, b) for a, b in zip(out, small, strict=True)))

# A threshold below 1 with a norm between c and 1: still scaled down to exactly c.
mid = [g * 0.5 / np.linalg.norm(flat) for g in grads]          # global norm 0.5
out_mid, norm_mid = clip_global_norm(mid, 0.1)
check_close("c = 0.1, ||g|| = 0.5: clipped to norm 0.1, i.e. g / 5",
            np.concatenate([g.ravel() for g in out_mid]),
            np.concatenate([g.ravel() for g in mid]) / 5, rtol=1e-12)
zero_out, zero_norm = clip_global_norm([np.zeros(3), np.zeros((2, 2))], c)
check_true("all-zero gradient: norm 0, returned unchanged (no division by zero)",
           zero_norm == 0.0 and all(not np.any(g) for g in zero_out))

# Per-tensor clipping is a different operation: it changes the direction.
per_tensor = np.concatenate([(g * min(1.0, c / np.linalg.norm(g))).ravel() for g in grads])
cos_pt = per_tensor @ flat / (np.linalg.norm(per_tensor) * np.linalg.norm(flat))
check_true("per-tensor clipping rotates the update", cos_pt < 0.99, f"cosine {cos_pt:.3f}")

# The page's calculator is checked against clip_global_norm on a gradient of two tensors whose norms are
# 0.6 and 0.8 of the total, inside the ball, on its edge and far outside it.
import cardcalc  # noqa: E402


def clip_scale(g_norm, c):
    """The factor clip_global_norm applies and the clipped global norm, for a gradient of norm g_norm."""
    parts = [np.array([0.6 * g_norm]), np.array([0.8 * g_norm])]
    clipped, _ = clip_global_norm(parts, c)
    return {"s": clipped[1][0] / parts[1][0], "n": np.sqrt(sum(float(g @ g) for g in clipped))}


cardcalc.table(clip_scale, cardcalc.grid(g_norm=(1e-3, 0.5, 1.0, 2.5, 1e4), c=(0.1, 1.0, 5.0)))

# --- in code: torch ---
import torch  # noqa: E402

params = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
for p, g in zip(params, grads, strict=True):
    p.grad = torch.tensor(g)
total_torch = torch.nn.utils.clip_grad_norm_(params, max_norm=c).item()
torch_clipped = np.concatenate([p.grad.numpy().ravel() for p in params])
# One sum of 2^8 squares and a scaling: a few ulps, so 1e-12.
check_close("clip_grad_norm_ returns the global norm ||g||_2 before clipping", total_torch, norm,
            rtol=1e-12)
# torch scales by c / (||g|| + 1e-6), so the clipped norm is c ||g|| / (||g|| + 1e-6), just under c:
# here a relative 2e-8 off the card, far above the 1e-12 the two roundings allow.
check_close("pitfall: it divides by ||g|| + 1e-6, not ||g||: the card's g times ||g|| / (||g|| + 1e-6)",
            torch_clipped, flat_clipped * norm / (norm + 1e-6), rtol=1e-12)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy

clipper = optax.clip_by_global_norm(max_norm=c)
optax_clipped, _ = clipper.update([jax.numpy.asarray(g) for g in grads], clipper.init(None))
check_close("optax.clip_by_global_norm(c) = the card's g min(1, c / ||g||_2)",
            np.concatenate([np.asarray(g).ravel() for g in optax_clipped]), flat_clipped, rtol=1e-12)
check_close("optax.global_norm = ||g||_2 over all tensors",
            float(optax.global_norm([jax.numpy.asarray(g) for g in grads])), norm, rtol=1e-12)
# --- end in code ---
