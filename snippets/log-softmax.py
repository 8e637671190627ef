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
