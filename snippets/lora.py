"""LoRA: merged weight vs the two-path forward, rank of the update, zero update at init, parameter count."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def lora_merge(W0: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float) -> np.ndarray:
    """W' = W0 + (alpha / r) B A, with A of shape (r, k) and B of shape (d, r)."""
    r = A.shape[0]
    return W0 + (alpha / r) * B @ A
# --- end formula ---


rng = np.random.default_rng(0)
d, k, r, alpha = 64, 48, 4, 16.0
W0 = rng.normal(size=(d, k)) / np.sqrt(k)
A = rng.normal(size=(r, k)) / np.sqrt(k)  # Gaussian init
B = np.zeros((d, r))  # zero init
X = rng.normal(size=(32, k))  # a batch of inputs, one per row

# 1. at initialization B = 0, so the adapted layer is exactly the pretrained one.
check_close("B = 0 at init: W' = W0", lora_merge(W0, A, B, alpha), W0)

# 2. after some training B is non-zero; the merged weight must reproduce the two-path forward
#    h = W0 x + (alpha / r) B (A x) used during training.
B = rng.normal(size=(d, r)) * 0.1
two_path = X @ W0.T + (alpha / r) * ((X @ A.T) @ B.T)
check_close("merged forward vs two-path forward", X @ lora_merge(W0, A, B, alpha).T, two_path)

# 3. the update has rank at most r (exactly r for generic A, B).
delta = lora_merge(W0, A, B, alpha) - W0
check_true("rank of the update is r", np.linalg.matrix_rank(delta) == r,
           f"rank {np.linalg.matrix_rank(delta)} for r = {r}, full rank would be {min(d, k)}")
sv = np.linalg.svd(delta, compute_uv=False)
check_true("singular values beyond r vanish", bool(sv[r:].max() < 1e-12 * sv[0]))

# 3b. The alpha / r scale, by hand: r = 2, alpha = 16, A and B the first two unit vectors, so B A is
#     the identity on the top-left 2 x 2 block and the update is 16 / 2 = 8 there, 0 elsewhere.
A2, B2 = np.eye(2, k), np.eye(d, 2)
expected_delta = np.zeros((d, k))
expected_delta[0, 0] = expected_delta[1, 1] = 8.0
check_close("hand case r = 2, alpha = 16: update is 8 on the block", lora_merge(W0, A2, B2, 16.0) - W0,
            expected_delta, atol=1e-12)

# 4. trainable parameters: r (d + k) instead of d k.
check_true("parameter count r(d+k) << dk", A.size + B.size == r * (d + k) and r * (d + k) < d * k,
           f"{A.size + B.size} trainable vs {d * k} in W0")
