"""Log-softmax: checked against scipy, exact values at a 1000-nat gap, and finite differences."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax as scipy_log_softmax


# --- formula ---
def log_softmax(z: np.ndarray) -> np.ndarray:
    """log softmax(z)_i = z_i - log sum_j exp(z_j), with the log-sum-exp shifted by max(z)."""
    m = np.max(z)
    return z - (m + np.log(np.sum(np.exp(z - m))))
# --- end formula ---


rng = np.random.default_rng(0)
V = 50
z = rng.normal(scale=4.0, size=V)
logp = log_softmax(z)

check_close("log-softmax vs scipy.special.log_softmax", logp, scipy_log_softmax(z), rtol=1e-12)
check_close("exp(log-softmax) sums to 1", np.exp(logp).sum(), 1.0, rtol=1e-12)

# A 1000-nat logit gap: softmax underflows to exactly 0, so log(softmax) is -inf. The exact values
# are z_i - 1000 - log(1 + e^-1000 + e^-1005), i.e. z_i - 1000 up to about e^-1000.
wide = np.array([1000.0, 0.0, -5.0])
with np.errstate(divide="ignore"):
    naive = np.log(np.exp(wide - wide.max()) / np.exp(wide - wide.max()).sum())
check_true("naive log(softmax) returns -inf for the 1000-nat gap", bool(np.isneginf(naive[1])),
           f"naive {naive}")
check_close("log-softmax at a 1000-nat gap vs exact [0, -1000, -1005]", log_softmax(wide),
            np.array([0.0, -1000.0, -1005.0]), rtol=1e-15, atol=1e-300)

# Random logits spread over [-1000, 1000]: only the maximum as the shift keeps exp(z - m) finite.
wide_random = rng.uniform(-1000.0, 1000.0, size=200)
check_close("200 logits spanning 2000 nats vs scipy.special.log_softmax", log_softmax(wide_random),
            scipy_log_softmax(wide_random), rtol=1e-13)

# Gradient of the token loss -log softmax(z)_y with respect to the logits is softmax(z) - onehot(y).
y = 7
eps = 1e-6
fd = np.array([(-log_softmax(z + eps * e)[y] + log_softmax(z - eps * e)[y]) / (2 * eps)
               for e in np.eye(V)])
check_close("d(-log p_y)/dz = softmax(z) - onehot(y) vs central differences",
            np.exp(logp) - np.eye(V)[y], fd, rtol=1e-6, atol=1e-9)

# A batch of 4 rows of logits, normalized over the vocabulary one row at a time by the card's formula.
batch = rng.normal(scale=4.0, size=(4, V))
card_rows = np.array([log_softmax(row) for row in batch])

# --- in code: scipy ---
# scipy.special.log_softmax shifts by the maximum as the card does; over 50 float64 terms: 1e-12.
check_close("scipy.special.log_softmax(z, axis=-1) = log-softmax of each row",
            scipy_log_softmax(batch, axis=-1), card_rows, rtol=1e-12)
# Its default axis=None normalizes over every entry of the array at once: each row then differs
# from the card's by the row's share of the whole batch's mass, log sum_j exp(z_j) - log sum exp(Z).
row_mass = np.array([np.log(np.sum(np.exp(row))) for row in batch])
check_close("pitfall: the default axis=None normalizes the whole batch, off by log(row mass / total)",
            scipy_log_softmax(batch), card_rows + row_mass[:, None] - np.log(np.exp(batch).sum()),
            rtol=1e-12)
# --- end in code ---

# --- in code: torch ---
import warnings  # noqa: E402

import torch  # noqa: E402

# torch.log_softmax(z, dim=-1); float64, the same max-shifted sum of 50 terms: 1e-12.
check_close("torch.log_softmax(z, dim=-1) = log-softmax of each row",
            torch.log_softmax(torch.tensor(batch), dim=-1).numpy(), card_rows, rtol=1e-12)
# Without dim, F.log_softmax picks dim=0 for 1-D and 3-D inputs and dim=1 otherwise (with a
# warning): for a (batch, time, vocab) tensor it normalizes over the batch, not the vocabulary.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    implicit = torch.nn.functional.log_softmax(torch.tensor(batch.reshape(2, 2, V))).numpy()
check_close("pitfall: no dim on a (2, 2, V) tensor normalizes over dim 0, the batch",
            implicit[:, 0, 7], log_softmax(batch.reshape(2, 2, V)[:, 0, 7]), rtol=1e-12)
check_true("pitfall: ... so its rows over the vocabulary do not sum to 1",
           not np.allclose(np.exp(implicit).sum(axis=-1), 1.0),
           f"sums {np.exp(implicit).sum(axis=-1).ravel().round(3)}")
# --- end in code ---
