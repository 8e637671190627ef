"""Cosine similarity: vs scipy cosine distance, a constructed angle, and random-vector spread 1/sqrt(D)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cosine as cosine_distance


# --- formula ---
def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """cos(a, b) = a.b / (|a| |b|) along the last axis, for non-zero vectors."""
    return np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
# --- end formula ---


rng = np.random.default_rng(0)
a = rng.normal(size=64)
b = rng.normal(size=64)
check_close("cos(a, b) vs 1 - scipy.spatial.distance.cosine", cosine_similarity(a, b),
            1.0 - cosine_distance(a, b))

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
