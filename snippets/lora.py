"""LoRA: merged weight vs the two-path forward, rank of the update, zero update at init, parameter count."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def lora_merge(W0: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float) -> np.ndarray:
    """W' = W0 + (alpha / r) B A, with A of shape (r, k) and B of shape (d, r)."""
    r = A.shape[0]
    return W0 + (alpha / r) * B @ A


def lora_trainable_parameters(d: int, k: int, r: int) -> int:
    """r (d + k): the entries of A (r x k) and B (d x r), against d k for a full update of W0."""
    return r * (d + k)
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

# 4. trainable parameters: r (d + k) instead of d k, against the sizes of A and B for several shapes,
#    and the card's example, a 4096 x 4096 projection at r = 16: 131,072 instead of 16,777,216.
check_true("parameter count r(d+k) << dk", A.size + B.size == lora_trainable_parameters(d, k, r) < d * k,
           f"{A.size + B.size} trainable vs {d * k} in W0")
for d_, k_, r_ in [(5, 3, 1), (7, 2, 3), (11, 13, 2)]:
    check_true(f"d = {d_}, k = {k_}, r = {r_}: r(d+k) = size of A (r x k) plus B (d x r)",
               lora_trainable_parameters(d_, k_, r_) == np.zeros((r_, k_)).size + np.zeros((d_, r_)).size)
check_true("4096 x 4096, r = 16: 131,072 trainable (card's example)",
           lora_trainable_parameters(4096, 4096, 16) == 131_072)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows): the count from lora_trainable_parameters and the scale alpha / r read off lora_merge as
# the update of a 1 x 1 weight by unit vectors (B A = 1), on square and rectangular shapes.
import cardcalc  # noqa: E402


def calculator_row(d, k, r, alpha):
    count = lora_trainable_parameters(d, k, r)
    scale = lora_merge(np.zeros((1, 1)), np.eye(r, 1), np.eye(1, r), alpha)[0, 0]
    return {"N": count, "frac": count / (d * k), "scale": scale}


cardcalc.table(calculator_row, cardcalc.grid(d=(64, 4096, 28672), k=(48, 4096), r=(1, 16, 256),
                                             alpha=(1, 16, 32)))
