"""Training compute C = 6ND: the multiply-adds of a real forward and backward pass are counted
matmul by matmul (gradients confirmed by finite differences), and GPT-3 175B is compared with the
3.14e23 FLOPs its paper reports."""

from itertools import pairwise

import numpy as np
from cardcheck import check_close, check_true

FLOPS = {"forward": 0, "backward": 0}


def mm(a: np.ndarray, b: np.ndarray, phase: str) -> np.ndarray:
    """Matrix product that books 2 FLOPs (one multiply, one add) per multiply-add."""
    FLOPS[phase] += 2 * a.shape[0] * a.shape[1] * b.shape[1]
    return a @ b


# --- formula ---
def forward_flops(n_params: float, n_tokens: float) -> float:
    return 2 * n_params * n_tokens


def backward_flops(n_params: float, n_tokens: float) -> float:
    return 4 * n_params * n_tokens


def training_flops(n_params: float, n_tokens: float) -> float:
    return 6 * n_params * n_tokens
# --- end formula ---


rng = np.random.default_rng(0)
d, D = 24, 50                        # width and number of tokens in the batch
widths = [d, 4 * d, d, 4 * d, d]     # two MLP blocks: d -> 4d -> d -> 4d -> d
Ws = [rng.normal(0, 1 / np.sqrt(m), (m, n)) for m, n in pairwise(widths)]
N = sum(W.size for W in Ws)
x0 = rng.normal(size=(D, d))         # stands in for trainable embeddings, so dL/dx is needed too
target = rng.normal(size=(D, d))


def loss_and_grads(weights, count=True):
    acts, pre = [x0], []
    h = x0
    for i, W in enumerate(weights):
        z = mm(h, W, "forward") if count else h @ W
        pre.append(z)
        h = np.tanh(z) if i < len(weights) - 1 else z
        acts.append(h)
    loss = 0.5 * np.sum((h - target) ** 2)
    if not count:
        return loss, None
    grads, g = [None] * len(weights), h - target
    for i in reversed(range(len(weights))):
        if i < len(weights) - 1:
            g = g * (1 - np.tanh(pre[i]) ** 2)
        grads[i] = mm(acts[i].T, g, "backward")          # weight gradient: 2 x (params) per token
        g = mm(g, weights[i].T, "backward")              # input gradient: 2 x (params) per token
    return loss, grads


loss, grads = loss_and_grads(Ws)
# The counted ops must be the real gradient: compare a few entries with central differences.
eps, fd, an = 1e-6, [], []
for i, (r, c) in [(0, (3, 7)), (2, (10, 1)), (3, (50, 20))]:
    Wp = [W.copy() for W in Ws]
    Wm = [W.copy() for W in Ws]
    Wp[i][r, c] += eps
    Wm[i][r, c] -= eps
    fd.append((loss_and_grads(Wp, False)[0] - loss_and_grads(Wm, False)[0]) / (2 * eps))
    an.append(grads[i][r, c])
check_close("backprop gradient vs finite differences", an, fd, rtol=1e-6)
check_close("forward pass FLOPs counted matmul by matmul = 2 N D", FLOPS["forward"], forward_flops(N, D))
check_close("backward pass FLOPs counted matmul by matmul = 4 N D", FLOPS["backward"], backward_flops(N, D))
check_close("forward + backward = 6 N D", FLOPS["forward"] + FLOPS["backward"], training_flops(N, D))

# GPT-3 175B: L = 96, d = 12288, V = 50257 gives N = 12 L d^2 + V d = 174.6B; trained on 300B tokens.
n_gpt3 = 12 * 96 * 12288**2 + 50257 * 12288
check_close("GPT-3 175B: 6ND vs 3.14e23 FLOPs (Brown et al. 2020, Table D.1)",
            training_flops(n_gpt3, 300e9), 3.14e23, rtol=0.005)
check_true("in PF-days (1 PF-day = 8.64e19 FLOPs) this is the reported ~3640",
           abs(training_flops(n_gpt3, 300e9) / 8.64e19 - 3640) < 20,
           f"{training_flops(n_gpt3, 300e9) / 8.64e19:.0f} PF-days")

# The page's calculator is checked against these functions on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda N, D: {"C": training_flops(N, D), "C_fwd": forward_flops(N, D),
                             "C_bwd": backward_flops(N, D)},
               cardcalc.grid(N=(1, 124e6, 7e9, 174.6e9, 1e12), D=(1, 300e9, 2e12, 15e12)))
