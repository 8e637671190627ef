"""Euclidean distance: vs scipy, the Gram-matrix identity, metric axioms; length bias on raw term counts."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from scipy.spatial.distance import cdist, euclidean


# --- formula ---
def euclidean_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """d_2(x, y) = sqrt(sum_i (x_i - y_i)^2) along the last axis."""
    return np.sqrt(np.sum((x - y) ** 2, axis=-1))
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(size=(6, 40)) * rng.uniform(0.1, 10.0, size=(6, 1))
y = rng.normal(size=(4, 40)) + 1.5
pairwise = euclidean_distance(x[:, None, :], y[None, :, :])

# --- in code: scipy ---
# cdist and euclidean form the differences x_i - y_i, as the card does: sums of 40 squares a few ulps
# apart, so 1e-12.
check_close("scipy cdist(X, Y): 6 x 4 pairwise distances", pairwise, cdist(x, y), rtol=1e-12)
check_close("scipy euclidean(x, y): one pair", euclidean_distance(x[0], y[0]), euclidean(x[0], y[0]),
            rtol=1e-12)
scale = rng.uniform(0.5, 3.0, size=40)
check_close("pitfall: the weights w multiply the squared differences: w = s^2 rescales coordinates by s",
            euclidean(x[0], y[0], w=scale ** 2), euclidean_distance(scale * x[0], scale * y[0]), rtol=1e-12)
# --- end in code ---
# Gram identity |x - y|^2 = |x|^2 + |y|^2 - 2 x.y (fine here: the points are far apart).
gram = np.sum(x ** 2, 1)[:, None] + np.sum(y ** 2, 1)[None, :] - 2 * x @ y.T
check_close("squared distances vs |x|^2 + |y|^2 - 2 x.y", pairwise ** 2, gram, rtol=1e-9)
check_close("3-4-5 triangle", euclidean_distance(np.array([1.0, 2.0]), np.array([4.0, 6.0])), 5.0,
            rtol=1e-15)

# Metric axioms on random triples, translation invariance and homogeneity.
a, b, c = rng.normal(size=(3, 1000, 8)) * rng.uniform(0.1, 3, size=(3, 1000, 1))
dab, dbc, dac = euclidean_distance(a, b), euclidean_distance(b, c), euclidean_distance(a, c)
check_true("triangle inequality, symmetry and d(x, x) = 0 on 1000 random triples",
           np.all(dac <= dab + dbc + 1e-12) and np.allclose(dab, euclidean_distance(b, a))
           and np.all(euclidean_distance(a, a) == 0))
check_close("translation invariance and d(3x, 3y) = 3 d(x, y)",
            [euclidean_distance(a + 5.0, b + 5.0), euclidean_distance(3 * a, 3 * b)], [dab, 3 * dab],
            rtol=1e-12)

# Toy corpus, raw term-count vectors: L2 distance to the query q1 favours short documents, because
# every term a document has and the query lacks adds to the distance.
vocab = tc.vocabulary()
counts = tc.count_matrix(vocab)
query = np.zeros(len(vocab))
for t in tc.query_tokens("q1"):
    query[vocab.index(t)] += 1
dist = euclidean_distance(counts, query[None, :])
check_close("toy corpus: distances to the q1 count vector vs scipy cdist", dist,
            cdist(counts, query[None, :])[:, 0], rtol=1e-12)
nearest = np.argsort(dist)[:4]
check_true("raw counts: the 4 nearest documents to q1 are short and none is relevant; d28 is farthest",
           int(np.argmax(dist)) == 27 and np.all(tc.doc_lengths()[nearest] < tc.avgdl())
           and not np.any(tc.grades("q1")[nearest]),
           f"nearest {[tc.DOC_IDS[i] for i in nearest]}; farthest {tc.DOC_IDS[int(np.argmax(dist))]}")

# Pitfall: the Gram form cancels catastrophically for nearby points with large norms.
far = np.full(16, 1e8)
near = far + 1e-3 * np.arange(16)
direct = euclidean_distance(far, near)
via_gram = np.sqrt(max(far @ far + near @ near - 2 * far @ near, 0.0))
check_close("nearby points at norm 4e8: the direct form is exact", direct,
            1e-3 * np.sqrt(np.sum(np.arange(16) ** 2)), rtol=1e-6)
check_true("... while the Gram form loses every digit", abs(via_gram - direct) > 0.5 * direct,
           f"direct {direct:.6f}, via Gram {via_gram:.6f}")

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import euclidean_distances  # noqa: E402

# scikit-learn uses the Gram form |x|^2 + |y|^2 - 2 x.y. Its rounding error is a few ulps of
# |x|^2 + |y|^2 (at most 4e3 here) against squared distances of at least 50: relative 1e-13 on d^2,
# so 1e-9, as for the Gram check above, holds with room.
check_close("euclidean_distances(X, Y): 6 x 4 pairwise distances", euclidean_distances(x, y), pairwise,
            rtol=1e-9)
sk_near = euclidean_distances(far[None, :], near[None, :])[0, 0]
check_true("pitfall: nearby points at norm 4e8: the Gram form returns 0 instead of the distance",
           abs(sk_near - direct) > 0.5 * direct, f"card {direct:.6f}, scikit-learn {sk_near:.6f}")
check_close("fix: subtract a common point first (distances do not change under translation)",
            euclidean_distances((far - far)[None, :], (near - far)[None, :])[0, 0], direct, rtol=1e-12)
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

X, Y = torch.tensor(x), torch.tensor(y)
check_close("torch.cdist(X, Y): 6 x 4 pairwise distances (both under 25 rows: the direct form)",
            torch.cdist(X, Y).numpy(), pairwise, rtol=1e-12)
# 26 copies of the far point: above 25 rows torch.cdist switches to the Gram form by default.
far_rows, near_rows = torch.tensor(np.tile(far, (26, 1))), torch.tensor(np.tile(near, (26, 1)))
by_mm = torch.cdist(far_rows, near_rows)[0, 0].item()
check_true("pitfall: with more than 25 rows torch.cdist uses the Gram form and loses every digit",
           abs(by_mm - direct) > 0.5 * direct, f"card {direct:.6f}, torch.cdist {by_mm:.6f}")
check_close("fix: compute_mode='donot_use_mm_for_euclid_dist' forms the differences",
            torch.cdist(far_rows, near_rows, compute_mode="donot_use_mm_for_euclid_dist")[0, 0].item(),
            direct, rtol=1e-12)
# F.pairwise_distance adds eps = 1e-6 to every difference before the norm: |x - y + eps|.
check_close("pitfall: F.pairwise_distance(x, y) is |x - y + 1e-6|, so d(x, x) = 1e-6 sqrt(D), not 0",
            F.pairwise_distance(X[:1], X[:1]).item(), 1e-6 * np.sqrt(40), rtol=1e-12)
check_close("fix: eps=0 gives the card's distance",
            F.pairwise_distance(X[:4], Y, eps=0.0).numpy(), euclidean_distance(x[:4], y), rtol=1e-12)
# --- end in code ---
