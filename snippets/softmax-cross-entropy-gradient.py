"""Softmax cross-entropy gradient p - y: finite differences, chain rule, unnormalized targets."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax, softmax


def loss(z: np.ndarray, y: np.ndarray) -> float:
    """L = -sum_i y_i log softmax(z)_i (nats), via scipy's log_softmax."""
    return float(-np.sum(y * log_softmax(z)))


# --- formula ---
# few mutants: p - y with p = softmax(z) (scipy's): one difference
def grad(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """dL/dz = p - y, valid when y sums to 1."""
    return softmax(z) - y
# --- end formula ---


def finite_difference(f, z: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(z)
    for i in range(len(z)):
        e = np.zeros_like(z)
        e[i] = h
        g[i] = (f(z + e) - f(z - e)) / (2 * h)
    return g


rng = np.random.default_rng(0)
V = 10
z = rng.normal(scale=2.0, size=V)
y_hard = np.eye(V)[3]
y_soft = rng.dirichlet(np.ones(V))

check_close("one-hot target: p - y vs central differences", grad(z, y_hard),
            finite_difference(lambda v: loss(v, y_hard), z), rtol=1e-6, atol=1e-9)
check_close("soft target (sums to 1): p - y vs central differences", grad(z, y_soft),
            finite_difference(lambda v: loss(v, y_soft), z), rtol=1e-6, atol=1e-9)

# Chain rule: Jacobian of softmax (diag p - p p^T) applied to dL/dp = -y/p.
p = softmax(z)
jacobian = np.diag(p) - np.outer(p, p)
check_close("chain rule through the softmax Jacobian", jacobian.T @ (-y_soft / p), grad(z, y_soft),
            rtol=1e-10, atol=1e-14)
check_close("gradient components sum to 0", np.sum(grad(z, y_soft)), 0.0, atol=1e-14)

# Targets that do not sum to 1: the general gradient is (sum y) p - y, and p - y is wrong.
y_raw = 2.5 * y_soft
fd_raw = finite_difference(lambda v: loss(v, y_raw), z)
check_close("unnormalized target: gradient is (sum y) p - y", y_raw.sum() * p - y_raw, fd_raw,
            rtol=1e-6, atol=1e-9)
check_true("unnormalized target: p - y does not match", np.abs(grad(z, y_raw) - fd_raw).max() > 0.1,
           f"max mismatch {np.abs(grad(z, y_raw) - fd_raw).max():.2f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def torch_logit_grad(logit_rows, target, **options):
    """Autograd of F.cross_entropy with respect to the logits, as a numpy array."""
    logits = torch.tensor(logit_rows, requires_grad=True)
    F.cross_entropy(logits, torch.tensor(target), **options).backward()
    return logits.grad.numpy()


# float64 softmax over 10 logits minus the target: a few ulps of entries <= 1, so 1e-12 relative
# with atol 1e-15 for the near-zero entries.
check_close("autograd of F.cross_entropy(z, class 3, reduction='sum') = p - y",
            torch_logit_grad(z[None, :], np.array([3]), reduction="sum")[0], grad(z, y_hard),
            rtol=1e-12, atol=1e-15)
check_close("... and with target probabilities y (summing to 1)",
            torch_logit_grad(z[None, :], y_soft[None, :], reduction="sum")[0], grad(z, y_soft),
            rtol=1e-12, atol=1e-15)
check_close("pitfall: target weights summing to 2.5 give (sum y) p - y, not p - y",
            torch_logit_grad(z[None, :], y_raw[None, :], reduction="sum")[0], y_raw.sum() * p - y_raw,
            rtol=1e-12, atol=1e-15)
batch_z = np.stack([z, -z, 0.5 * z, 2 * z])
check_close("pitfall: the default reduction='mean' divides each row's gradient by the batch size 4",
            4 * torch_logit_grad(batch_z, np.array([3, 0, 7, 3])),
            [grad(row, np.eye(V)[k]) for row, k in zip(batch_z, [3, 0, 7, 3], strict=True)],
            rtol=1e-12, atol=1e-15)
# --- end in code ---
