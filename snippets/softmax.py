"""Softmax: checked vs scipy, the naive form under a shift, and a finite-difference Jacobian."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax


# --- formula ---
def softmax(z: np.ndarray) -> np.ndarray:
    """softmax(z)_i = exp(z_i) / sum_j exp(z_j), evaluated with the maximum subtracted."""
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def softmax_jacobian(z: np.ndarray) -> np.ndarray:
    """d softmax(z)_i / d z_j = p_i (delta_ij - p_j)."""
    p = softmax(z)
    return np.diag(p) - np.outer(p, p)
# --- end formula ---


rng = np.random.default_rng(0)
V = 12
z = rng.normal(scale=3.0, size=V)
p = softmax(z)

check_close("softmax vs scipy.special.softmax", p, scipy_softmax(z), rtol=1e-12)
check_true("probabilities are positive and sum to 1",
           bool(np.all(p > 0)) and abs(p.sum() - 1) < 1e-12, f"sum = {p.sum():.15f}")

# The textbook formula, evaluated naively, does not change when every logit moves by the same c.
naive = lambda x: np.exp(x) / np.sum(np.exp(x))  # noqa: E731
check_close("shift invariance: naive softmax(z + 7) = softmax(z)", naive(z + 7.0), p, rtol=1e-12)

eps = 1e-6
fd = np.stack([(softmax(z + eps * np.eye(V)[j]) - softmax(z - eps * np.eye(V)[j])) / (2 * eps)
               for j in range(V)], axis=1)
check_close("Jacobian diag(p) - p p^T vs central differences", softmax_jacobian(z), fd,
            rtol=1e-6, atol=1e-9)

big = np.array([1000.0, 999.0, 990.0])
with np.errstate(over="ignore", invalid="ignore"):
    naive_big = naive(big)
check_true("logits near 1000: naive formula gives nan, max-shifted one does not",
           bool(np.isnan(naive_big).any()) and bool(np.all(np.isfinite(softmax(big)))),
           f"naive {naive_big}, shifted {np.round(softmax(big), 6)}")
check_close("logits near 1000 vs the same logits shifted down by 1000", softmax(big),
            scipy_softmax(big - 1000.0), rtol=1e-12)

# Logits spread over [-1000, 1000]: subtracting the maximum keeps every exp(z - m) <= 1; shifting by
# the minimum or the mean instead would overflow (exp of ~2000 or ~1000).
wide = rng.uniform(-1000.0, 1000.0, size=64)
check_close("64 logits spanning 2000 nats vs scipy.special.softmax", softmax(wide), scipy_softmax(wide),
            rtol=1e-12, atol=1e-300)

# --- in code: scipy ---
# A batch of 3 rows of logits: scipy.special.softmax normalizes over the whole array unless told.
Z = rng.normal(scale=3.0, size=(3, V))
rows = np.array([softmax(row) for row in Z])
check_close("scipy.special.softmax(Z, axis=-1) = softmax of each row", scipy_softmax(Z, axis=-1), rows,
            rtol=1e-12)
check_close("pitfall: the default axis=None is one softmax over all 3 x 12 logits",
            scipy_softmax(Z), softmax(Z.ravel()).reshape(Z.shape), rtol=1e-12)
# --- end in code ---

# --- in code: torch ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# (batch 2, positions 3, vocabulary 12): the card's softmax runs over the vocabulary, the last axis.
X = rng.normal(scale=3.0, size=(2, 3, V))
per_position = np.apply_along_axis(softmax, -1, X)
check_close("F.softmax(x, dim=-1) = softmax over the vocabulary",
            F.softmax(torch.tensor(X), dim=-1).numpy(), per_position, rtol=1e-12)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    implicit = F.softmax(torch.tensor(X)).numpy()  # no dim
check_close("pitfall: with no dim, a 3-D tensor is normalized over dim 0, the batch",
            implicit, np.apply_along_axis(softmax, 0, X), rtol=1e-12)
check_true("and torch only warns about it", any("Implicit dimension" in str(w.message) for w in caught))
# --- end in code ---

# Temperature: softmax(z / tau) sharpens towards argmax as tau -> 0 and flattens as tau grows.
logits = np.array([2.0, 1.0, 0.5, -1.0])
taus = np.geomspace(0.1, 10, 300)
probs = np.array([softmax(logits / t) for t in taus])
fig, ax = figure("Softmax of fixed logits at temperature τ", "temperature τ (log scale)",
                 "probability")
for i, zi in enumerate(logits):
    ax.plot(taus, probs[:, i], label=f"logit {zi:+.1f}")
ax.axhline(1 / len(logits), color="gray", lw=0.8, ls="--", label="uniform 1/V")
ax.set_xscale("log")
ax.legend()
