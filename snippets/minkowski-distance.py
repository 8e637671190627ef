"""Minkowski distance: vs scipy for several p, its L1/L2/Chebyshev cases, and the p < 1 triangle failure."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist, chebyshev, cityblock, euclidean, minkowski


# --- formula ---
def minkowski_distance(x: np.ndarray, y: np.ndarray, p: float) -> np.ndarray:
    """d_p(x, y) = (sum_i |x_i - y_i|^p)^(1/p) along the last axis, p > 0."""
    return np.sum(np.abs(x - y) ** p, axis=-1) ** (1 / p)
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(size=(4, 24)) * 2.0
y = rng.normal(size=(6, 24)) + 0.5
a, b = x[0], y[0]

# --- in code: scipy ---
# Sums of 24 powers, then a 1/p-th power: a few ulps per term, amplified by at most the exponent, so 1e-11.
for p in (1.0, 1.5, 2.0, 3.0, 7.5):
    check_close(f"scipy cdist(X, Y, metric='minkowski', p={p}): 4 x 6 pairwise distances",
                cdist(x, y, metric="minkowski", p=p), minkowski_distance(x[:, None, :], y[None, :, :], p),
                rtol=1e-11)
check_close("scipy minkowski(x, y, 0.5): p < 1 is accepted (no longer a metric)", minkowski(a, b, 0.5),
            minkowski_distance(a, b, 0.5), rtol=1e-11)
check_close("pitfall: p left out is 2, the Euclidean distance", minkowski(a, b), minkowski_distance(a, b, 2),
            rtol=1e-12)
check_close("p = inf gives the Chebyshev distance max_i |x_i - y_i|", minkowski(a, b, np.inf),
            np.max(np.abs(a - b)), rtol=0)
# --- end in code ---

# --- in code: scikit-learn ---
from sklearn.metrics import pairwise_distances  # noqa: E402

check_close("pairwise_distances(X, Y, metric='minkowski', p=3): 4 x 6 pairwise distances",
            pairwise_distances(x, y, metric="minkowski", p=3),
            minkowski_distance(x[:, None, :], y[None, :, :], 3), rtol=1e-11)
check_close("pitfall: metric='minkowski' without p is p = 2 (also NearestNeighbors' default metric)",
            pairwise_distances(x, y, metric="minkowski"), minkowski_distance(x[:, None, :], y[None, :, :], 2),
            rtol=1e-11)
# --- end in code ---

check_close("p = 1 is the Manhattan distance, p = 2 the Euclidean distance (scipy)",
            [minkowski_distance(a, b, 1), minkowski_distance(a, b, 2)], [cityblock(a, b), euclidean(a, b)],
            rtol=1e-12)
check_close("hand value: (1, 2) to (4, -2) at p = 3 is (27 + 64)^(1/3)",
            minkowski_distance(np.array([1.0, 2.0]), np.array([4.0, -2.0]), 3), 91 ** (1 / 3), rtol=1e-14)

# p -> infinity: the largest coordinate gap (Chebyshev); d_p decreases in p and stays above it.
ps = np.array([1, 2, 4, 8, 16, 64, 256])
dp = np.array([minkowski_distance(a, b, p) for p in ps])
check_true("d_p decreases as p grows and stays >= the Chebyshev distance",
           np.all(np.diff(dp) < 0) and np.all(dp >= chebyshev(a, b)), f"{np.round(dp, 3)}")
check_close("p = 256 is within 2% of the Chebyshev distance max_i |x_i - y_i| (scipy)", dp[-1],
            chebyshev(a, b), rtol=0.02)

# p >= 1: triangle inequality on random triples. p < 1: it fails, e.g. (0,0) -> (1,0) -> (1,1).
u, v, w = rng.normal(size=(3, 2000, 5))
for p in (1.0, 1.7, 3.0):
    gap = minkowski_distance(u, w, p) - minkowski_distance(u, v, p) - minkowski_distance(v, w, p)
    check_true(f"p = {p}: triangle inequality on 2000 random triples", np.all(gap <= 1e-12))
o, e1, corner = np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([1.0, 1.0])
check_close("p = 0.5: d((0,0), (1,1)) = 4 > d((0,0), (1,0)) + d((1,0), (1,1)) = 2",
            [minkowski_distance(o, corner, 0.5),
             minkowski_distance(o, e1, 0.5) + minkowski_distance(e1, corner, 0.5)],
            [4.0, 2.0], rtol=1e-14)

# Toy corpus embeddings: the nearest neighbour of each document depends on p.
E = tc.doc_embeddings()
nn = {p: np.argsort(minkowski_distance(E[:, None, :], E[None, :, :], p) + np.eye(len(E)) * 9, axis=1)[:, 0]
      for p in (1.0, 2.0, 8.0)}
changed = int(np.sum(nn[1.0] != nn[8.0]))
check_true("toy corpus embeddings: the nearest neighbour changes between p = 1 and p = 8 for some documents",
           changed > 0, f"{changed} of {len(E)} documents")

# --- in code: torch ---
import torch  # noqa: E402

X, Y = torch.tensor(x), torch.tensor(y)
for p in (1.0, 3.0, 0.5):
    check_close(f"torch.cdist(X, Y, p={p}): 4 x 6 pairwise distances", torch.cdist(X, Y, p=p).numpy(),
                minkowski_distance(x[:, None, :], y[None, :, :], p), rtol=1e-11)
check_close("p=float('inf') gives the Chebyshev distance", torch.cdist(X, Y, p=float("inf")).numpy(),
            np.max(np.abs(x[:, None, :] - y[None, :, :]), axis=-1), rtol=0)
# p = 0 is no limit of the card's formula: torch counts the coordinates that differ (a Hamming count).
diff_one = y[:1].copy()
diff_one[0, :3] += 1.0
check_close("pitfall: p=0 counts the differing coordinates (3 here), not a limit of d_p",
            torch.cdist(torch.tensor(diff_one), Y[:1], p=0).item(), 3.0, rtol=0)
# --- end in code ---

# Unit balls {v : d_p(v, 0) = 1}.
fig, ax = figure("Unit circles of the Minkowski distance", "$v_1$", "$v_2$", size=(6.0, 4.2))
angles = np.linspace(0, 2 * np.pi, 721)
for p in (0.5, 1, 2, 4, np.inf):
    direction = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    if p == np.inf:
        radius = np.max(np.abs(direction), axis=1)
    else:
        radius = np.sum(np.abs(direction) ** p, axis=1) ** (1 / p)
    ring = direction / radius[:, None]
    ax.plot(ring[:, 0], ring[:, 1], label=f"p = {p:g}" if np.isfinite(p) else "p = ∞ (Chebyshev)")
ax.set_aspect("equal")
ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
