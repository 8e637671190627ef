"""RMSNorm: checked against sqrt(d) x/||x||, LayerNorm on zero-mean input, scale invariance."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def rms_norm(x: np.ndarray, gamma: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """gamma * x / sqrt(mean(x^2) + eps), statistics over the last axis."""
    return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
# --- end formula ---


rng = np.random.default_rng(0)
T, d = 5, 64
x = rng.normal(loc=0.7, scale=3.0, size=(T, d))
gamma = rng.normal(size=d)

# Independent route: RMS(x) = ||x||_2 / sqrt(d), so RMSNorm(x) = gamma * sqrt(d) * x / ||x||_2.
norm_form = gamma * np.sqrt(d) * x / np.linalg.norm(x, axis=-1, keepdims=True)
check_close("RMSNorm(eps=0) vs gamma sqrt(d) x / ||x||_2", rms_norm(x, gamma, eps=0.0), norm_form,
            rtol=1e-12)

# On zero-mean tokens, RMS is the standard deviation and RMSNorm equals LayerNorm without bias.
xc = x - x.mean(axis=-1, keepdims=True)
eps = 1e-6
layer_norm = gamma * (xc - xc.mean(-1, keepdims=True)) / np.sqrt(xc.var(-1, keepdims=True) + eps)
check_close("zero-mean input: RMSNorm = LayerNorm (beta = 0)", rms_norm(xc, gamma, eps), layer_norm,
            rtol=1e-10, atol=1e-12)

# The default eps is 1e-6 (T5's and LLaMA-1's value). Test it where it matters: tokens scaled down
# to a mean square of ~1e-5, comparable to eps, against the norm route with eps added.
x_small = 1e-3 * x
check_close("default eps = 1e-6 on small tokens vs gamma x / sqrt(||x||^2/d + 1e-6)",
            rms_norm(x_small, gamma),
            gamma * x_small / np.sqrt(np.linalg.norm(x_small, axis=-1, keepdims=True) ** 2 / d + 1e-6),
            rtol=1e-12)

y = rms_norm(x, 1.0, eps=0.0)
check_close("unit gain: output has root mean square 1", np.sqrt(np.mean(y**2, axis=-1)), np.ones(T),
            rtol=1e-12)
check_close("invariant to x -> 3 x (eps = 0)", rms_norm(3.0 * x, gamma, 0.0), rms_norm(x, gamma, 0.0),
            rtol=1e-12, atol=1e-14)
shift_gap = np.abs(rms_norm(x + 2.0, gamma, 0.0) - rms_norm(x, gamma, 0.0)).max()
check_true("not invariant to x -> x + 2 (no re-centering)", shift_gap > 0.1,
           f"max change {shift_gap:.2f}")

# --- in code: torch ---
import torch  # noqa: E402

xt, gt = torch.tensor(x_small), torch.tensor(gamma)
check_close("torch.nn.functional.rms_norm(x, (d,), gamma, eps=1e-6) = RMSNorm, eps inside the root",
            torch.nn.functional.rms_norm(xt, (d,), gt, eps=1e-6).numpy(), rms_norm(x_small, gamma),
            rtol=1e-12)
default = torch.nn.RMSNorm(d, dtype=torch.float64)
with torch.no_grad():
    default.weight.copy_(gt)
tiny = np.finfo(np.float64).eps
check_close("pitfall: nn.RMSNorm's default eps is the dtype's machine epsilon (2.2e-16 in float64), not 1e-6",
            default(xt).detach().numpy(), rms_norm(x_small, gamma, eps=tiny), rtol=1e-12)
check_true("which changes small tokens (mean square ~1e-5) by far more than rounding",
           np.abs(default(xt).detach().numpy() - rms_norm(x_small, gamma)).max() > 1e-3)
# --- end in code ---
