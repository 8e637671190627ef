"""Semantic chunk boundaries: cosine distances vs scipy, the percentile threshold vs sorting, strict '>',
topic switches found on synthetic sentence embeddings, and segments rebuilt from boundaries."""

from itertools import pairwise

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cosine


# --- formula ---
def boundary_distances(emb):
    """d_i = 1 - cos(e_i, e_{i+1}) for neighbouring sentences i = 0 .. n-2."""
    e = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    return 1.0 - np.sum(e[:-1] * e[1:], axis=1)


def boundaries(emb, tau=None, percentile=95.0):
    """b_i = 1[d_i > tau]; by default tau is the given percentile of the distances (LangChain's rule)."""
    d = boundary_distances(emb)
    if tau is None:
        tau = np.percentile(d, percentile)
    return d > tau


def segments(n_sentences, b):
    """Chunks as (start, end) sentence spans: a boundary after sentence i starts a new chunk at i + 1."""
    cuts = [0] + [i + 1 for i in np.flatnonzero(b)] + [n_sentences]
    return list(pairwise(cuts))
# --- end formula ---


rng = np.random.default_rng(0)

# Synthetic document: 24 sentences on 4 topics (orthogonal directions in 64 dims plus noise),
# topic switches after sentences 5, 11 and 17.
topics = np.linalg.qr(rng.normal(size=(64, 4)))[0].T
labels = np.repeat([0, 1, 2, 3], 6)
emb = topics[labels] * 3.0 + rng.normal(0, 0.15, (24, 64))

# 1. Distances against scipy's cosine distance, pair by pair (raw, unnormalized embeddings).
d = boundary_distances(emb)
check_close("1 - cos(e_i, e_{i+1}) vs scipy.spatial.distance.cosine", d,
            [cosine(emb[i], emb[i + 1]) for i in range(23)], rtol=1e-10)

# 2. A fixed threshold finds exactly the three topic switches, and the segments are the topics.
b = boundaries(emb, tau=0.5)
check_true("tau = 0.5: boundaries after sentences 5, 11, 17", list(np.flatnonzero(b)) == [5, 11, 17])
check_true("segments rebuilt from boundaries are the four topics",
           segments(24, b) == [(0, 6), (6, 12), (12, 18), (18, 24)])
check_true("no boundary means one chunk covering everything", segments(24, np.zeros(23, bool)) == [(0, 24)])

# 3. Percentile rule: with 23 distinct distances, the 87th percentile leaves the 3 largest above it
#    (np.percentile interpolates; 0.87 * 22 = 19.14 lies between the 20th and 21st smallest).
bp = boundaries(emb, percentile=87.0)
check_true("87th percentile keeps exactly the 3 largest distances (by sorting)",
           set(np.flatnonzero(bp)) == set(np.argsort(d)[-3:]))
check_true("default 95th percentile (0.95 * 22 = 20.9) cuts at the 2 largest distances",
           set(np.flatnonzero(boundaries(emb))) == set(np.argsort(d)[-2:]))

# 4. Strict inequality: a distance equal to tau is not a boundary.
two = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # distances 1 and 0
check_true("distance exactly tau = 1 is not a boundary; just above is",
           (not boundaries(two, tau=1.0)[0]) and bool(boundaries(two, tau=0.999)[0]))

fig, ax = figure("Distance between neighbouring sentences (4 synthetic topics)", "sentence gap i",
                 "1 - cos(e_i, e_{i+1})")
ax.plot(np.arange(23), d, marker="o")
ax.axhline(0.5, linestyle="--", label="tau = 0.5")
ax.axhline(np.percentile(d, 87.0), linestyle=":", label="87th percentile")
ax.legend()
