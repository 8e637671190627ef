"""Manhattan distance: vs scipy cityblock, total variation on the toy corpus, Hamming on bits, norm bounds."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from scipy.spatial.distance import cdist, cityblock, euclidean, hamming


# --- formula ---
# few mutants: a sum of absolute differences: the difference, abs, the sum and its axis
def manhattan_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d_1(x, y) = sum_i |x_i - y_i| along the last axis."""
    return np.sum(np.abs(x - y), axis=-1)
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(size=(5, 30)) * 3.0
y = rng.normal(size=(7, 30)) - 0.4
pairwise = manhattan_distance(x[:, None, :], y[None, :, :])
counts_a, counts_b = np.array([1, 0, 3], dtype=np.uint8), np.array([0, 2, 1], dtype=np.uint8)

# --- in code: scipy ---
# Sums of 30 absolute differences, in another order: a few ulps apart, so 1e-12.
check_close("scipy cdist(X, Y, metric='cityblock'): 5 x 7 pairwise distances", pairwise,
            cdist(x, y, metric="cityblock"), rtol=1e-12)
check_close("scipy cityblock(x, y): one pair", manhattan_distance(x[1], y[2]), cityblock(x[1], y[2]),
            rtol=1e-12)
# Unsigned integers (byte counts, uint8 codes): u - v wraps around modulo 256 before the abs.
card_counts = manhattan_distance(counts_a.astype(float), counts_b.astype(float))
check_close("pitfall: on uint8 vectors cityblock wraps 0 - 2 to 254: 1 + 254 + 2 = 257, not 5",
            [cityblock(counts_a, counts_b), card_counts], [257.0, 5.0], rtol=0)
check_close("fix: cast to a signed or float type first",
            cityblock(counts_a.astype(int), counts_b.astype(int)), card_counts, rtol=0)
# --- end in code ---

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import manhattan_distances  # noqa: E402

check_close("manhattan_distances(X, Y): 5 x 7 pairwise distances", manhattan_distances(x, y), pairwise,
            rtol=1e-12)
check_close("it converts uint8 input to float first, so no wraparound: 5",
            manhattan_distances(counts_a[None, :], counts_b[None, :])[0, 0], card_counts, rtol=0)
# --- end in code ---
check_close("taxicab walk from (1, 2) to (4, -2): 3 + 4 blocks",
            manhattan_distance(np.array([1.0, 2.0]), np.array([4.0, -2.0])), 7.0, rtol=1e-15)

# Norm bounds: |v|_2 <= |v|_1 <= sqrt(D) |v|_2 for every difference vector v.
l2 = np.array([[euclidean(a, b) for b in y] for a in x])
check_true("|x - y|_2 <= |x - y|_1 <= sqrt(D) |x - y|_2 for all 35 pairs",
           np.all(l2 <= pairwise) and np.all(pairwise <= np.sqrt(30) * l2))

# On 0/1 vectors the L1 distance counts the differing positions: Hamming distance (scipy returns a fraction).
bits = rng.integers(0, 2, size=(2, 64)).astype(float)
check_close("0/1 vectors: L1 = number of differing bits (64 x scipy hamming)",
            manhattan_distance(bits[0], bits[1]), 64 * hamming(bits[0], bits[1]), rtol=1e-12)

# Toy corpus: L1 between two term distributions is twice their total variation distance,
# computed independently as the sum of positive parts, sum_t max(p_t - q_t, 0).
counts = tc.count_matrix()
p = counts / counts.sum(axis=1, keepdims=True)
d1 = manhattan_distance(p[:, None, :], p[None, :, :])
positive_part = np.array([[np.clip(a - b, 0, None).sum() for b in p] for a in p])
check_close("toy corpus, 32 x 32 term distributions: L1 = 2 x total variation", d1, 2 * positive_part,
            rtol=1e-12, atol=1e-15)
off = d1[~np.eye(len(p), dtype=bool)]
check_true("term distributions: 0 on the diagonal, at most 2 off it", np.all(np.diag(d1) == 0)
           and np.all(off <= 2 + 1e-12), f"closest pair {off.min():.3f}, farthest {off.max():.3f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

X, Y = torch.tensor(x), torch.tensor(y)
check_close("torch.cdist(X, Y, p=1): 5 x 7 pairwise distances", torch.cdist(X, Y, p=1).numpy(), pairwise,
            rtol=1e-12)
# F.pairwise_distance adds eps = 1e-6 to every difference before the norm: sum_i |x_i - y_i + eps|.
check_close("pitfall: F.pairwise_distance(x, x, p=1) is D eps = 30e-6, not 0",
            F.pairwise_distance(X[:1], X[:1], p=1).item(), 30 * 1e-6, rtol=1e-12)
check_close("fix: eps=0 gives the card's distance", F.pairwise_distance(X, Y[:5], p=1, eps=0.0).numpy(),
            manhattan_distance(x, y[:5]), rtol=1e-12)
# --- end in code ---
