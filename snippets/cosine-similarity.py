"""Cosine similarity: a constructed angle, random-vector spread 1/sqrt(D); scipy, scikit-learn and torch."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a, b) = a.b / (|a| |b|) along the last axis, for non-zero vectors."""
    return np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
# --- end formula ---


rng = np.random.default_rng(0)
a = rng.normal(size=64)
b = rng.normal(size=64)

# Two vectors with a known angle: build an orthonormal pair (u, w) in R^64, then put b at angle theta.
u = a / np.linalg.norm(a)
w = b - (b @ u) * u
w /= np.linalg.norm(w)
theta = 1.1
b_theta = np.cos(theta) * u + np.sin(theta) * w
check_close("cos of a constructed angle, vectors rescaled by 3.7 and 0.02",
            cosine_similarity(3.7 * u, 0.02 * b_theta), np.cos(theta))
check_true("scale-invariant, flips sign under negation",
           np.isclose(cosine_similarity(5 * a, b), cosine_similarity(a, b))
           and np.isclose(cosine_similarity(-a, b), -cosine_similarity(a, b)))

# --- in code: scipy ---
from scipy.spatial.distance import cosine as cosine_distance  # noqa: E402

# scipy's cosine is a distance, 1 - cos(a, b): a dot product and two norms of 64 terms, a few ulps.
check_close("pitfall: scipy.spatial.distance.cosine(a, b) is 1 - cos(a, b), not cos",
            1.0 - cosine_distance(a, b), cosine_similarity(a, b), rtol=1e-12)
# --- end in code ---

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import cosine_similarity as sk_cosine  # noqa: E402

# It takes two matrices of row vectors and returns every pair's cosine.
rows_a = np.random.default_rng(1).normal(size=(3, 64))   # generators of their own: the card's rng
rows_b = np.random.default_rng(2).normal(size=(4, 64))   # stream below stays as it was
check_close("sklearn cosine_similarity(A, B)[i, j] = cos(a_i, b_j), all 3 x 4 pairs",
            sk_cosine(rows_a, rows_b), cosine_similarity(rows_a[:, None, :], rows_b[None, :, :]), rtol=1e-12)
# A zero vector has no direction, so the card's cosine is 0/0; scikit-learn returns 0 for it.
check_true("pitfall: a zero row scores 0, where the card's cosine is undefined",
           sk_cosine(np.zeros((1, 64)), rows_b).tolist() == [[0.0] * 4])
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

check_close("F.cosine_similarity(a, b, dim=-1) = cos(a, b)",
            F.cosine_similarity(torch.tensor(a), torch.tensor(b), dim=-1).item(), cosine_similarity(a, b),
            rtol=1e-12)
# It divides by max(|a|, eps) max(|b|, eps) with eps = 1e-8: vectors shorter than 1e-8 are not
# scale-invariant any more. At scale 1e-9 both norms (about 8e-9) are clamped.
tiny_a, tiny_b = 1e-9 * a, 1e-9 * b
check_close("pitfall: norms below eps = 1e-8 are clamped to it: a.b / (max(|a|, eps) max(|b|, eps))",
            F.cosine_similarity(torch.tensor(tiny_a), torch.tensor(tiny_b), dim=-1).item(),
            tiny_a @ tiny_b / (max(np.linalg.norm(tiny_a), 1e-8) * max(np.linalg.norm(tiny_b), 1e-8)),
            rtol=1e-12)
check_true("so it is not the card's cosine of those vectors",
           abs(F.cosine_similarity(torch.tensor(tiny_a), torch.tensor(tiny_b), dim=-1).item()
               - cosine_similarity(tiny_a, tiny_b)) > 1e-3)
# --- end in code ---

# Random Gaussian vectors: cos has mean 0 and standard deviation 1/sqrt(D).
fig, ax = figure("Cosine between independent random vectors", "cosine similarity", "density")
for dim in (16, 128, 1024):
    x = rng.normal(size=(4000, dim))
    y = rng.normal(size=(4000, dim))
    cos = cosine_similarity(x, y)
    check_close(f"std of random cosines at D = {dim} vs 1/sqrt(D) (Monte-Carlo)", cos.std(),
                1 / np.sqrt(dim), rtol=0.05)
    ax.hist(cos, bins=80, range=(-0.8, 0.8), density=True, histtype="step", label=f"D = {dim}")
ax.legend()
