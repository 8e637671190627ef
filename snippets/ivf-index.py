"""IVF on the toy corpus's token embeddings: assignment against scipy.cluster.vq.vq, Lloyd's k-means
against scipy's kmeans2 from the same start (objective never increasing), IVF search exact at
nprobe = nlist against brute force, and recall@10 rising with nprobe."""

import warnings

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.cluster.vq import kmeans2, vq
from scipy.spatial.distance import cdist


# --- formula ---
def sq_dists(X, C):
    """Squared Euclidean distances, rows of X against rows of C."""
    return np.sum(X**2, axis=1)[:, None] - 2 * X @ C.T + np.sum(C**2, axis=1)[None, :]


def assign(X, C):
    """IVF assignment a(x) = argmin_k |x - c_k|."""
    return np.argmin(sq_dists(X, C), axis=1)


def kmeans_objective(X, C):
    """sum_i min_k |x_i - c_k|^2."""
    return float(np.sum(np.min(sq_dists(X, C), axis=1)))


def lloyd(X, C, iters: int):
    """Lloyd's algorithm: assign, then move each centroid to the mean of its points (empty: stays)."""
    for _ in range(iters):
        a = assign(X, C)
        counts = np.bincount(a, minlength=len(C))
        sums = np.zeros_like(C)
        np.add.at(sums, a, X)
        C = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], C)
    return C


def ivf_search(q, X, C, lists, nprobe: int, k: int):
    """Scan the inverted lists of the nprobe centroids nearest to q; return the ids of the k nearest."""
    probe = np.argsort(sq_dists(q[None, :], C)[0])[:nprobe]
    cand = np.concatenate([lists[c] for c in probe])
    return cand[np.argsort(sq_dists(q[None, :], X[cand])[0])[:k]]
# --- end formula ---


X = np.stack([tc.embed(t) for t in tc.vocabulary()])          # 449 token vectors, 32 dimensions
rng = np.random.default_rng(0)
nlist = 16
C0 = X[rng.choice(len(X), nlist, replace=False)]

# 1. Assignment and objective against scipy's vector quantizer.
codes, dist = vq(X, C0)
check_true("assignment = scipy.cluster.vq.vq codes (449 vectors, 16 centroids)",
           np.array_equal(assign(X, C0), codes))
check_close("k-means objective = sum of squared vq distances", kmeans_objective(X, C0), np.sum(dist**2),
            rtol=1e-10)

# 2. Lloyd's iterations from the same start as scipy's kmeans2 (minit='matrix'), and the objective
#    never increases from one iteration to the next.
for t in (1, 3, 10):
    ref, _ = kmeans2(X, C0.copy(), iter=t, minit="matrix")
    check_close(f"centroids after {t} Lloyd iteration(s) vs scipy kmeans2 from the same start",
                lloyd(X, C0, t), ref, rtol=1e-10, atol=1e-12)
C10 = lloyd(X, C0, 10)
start = C0.copy()
start[0] = 100.0                          # a centroid far from all data: its cluster is empty
with warnings.catch_warnings():
    warnings.simplefilter("ignore")             # scipy warns about the empty cluster, as it should
    ref_empty = kmeans2(X, start.copy(), iter=2, minit="matrix", missing="warn")[0]
check_close("an empty cluster keeps its centroid; the others move as in scipy kmeans2",
            lloyd(X, start, 2), ref_empty, rtol=1e-10, atol=1e-12)
X_out = np.vstack([X, np.full(32, 3.0)])    # one outlier, alone in its cluster
start = C0.copy()
start[1] = 2.9
check_close("a one-point cluster: its centroid moves onto the point (vs scipy kmeans2)",
            lloyd(X_out, start, 2), kmeans2(X_out, start.copy(), iter=2, minit="matrix")[0],
            rtol=1e-10, atol=1e-12)
objective = [kmeans_objective(X, lloyd(X, C0, t)) for t in range(12)]
check_true("objective non-increasing over iterations", bool(np.all(np.diff(objective) <= 1e-12)),
           f"{objective[0]:.2f} -> {objective[-1]:.2f}")
check_true("every vector is assigned to its nearest centroid (brute-force cdist)",
           np.array_equal(assign(X, C10), np.argmin(cdist(X, C10), axis=1)))

# 3. IVF search. Queries: each document's title; ground truth: the 10 nearest tokens by brute force.
lists = [np.flatnonzero(assign(X, C10) == c) for c in range(nlist)]
Q = np.stack([tc.embed(d.title) for d in tc.DOCS])
truth = np.argsort(cdist(Q, X, "sqeuclidean"), axis=1)[:, :10]
exact = [ivf_search(q, X, C10, lists, nlist, 10) for q in Q]
check_true("nprobe = nlist: IVF returns the exact 10 nearest neighbours for all 32 queries",
           all(np.array_equal(e, t) for e, t in zip(exact, truth, strict=True)))
cells = np.argsort(cdist(Q, C10), axis=1)
codes10, _ = vq(X, C10)
for p in (1, 2, 5):
    restricted = [np.flatnonzero(np.isin(codes10, cells[i, :p])) for i in range(len(Q))]
    by_hand = [r[np.argsort(cdist(Q[i:i + 1], X[r])[0])[:10]] for i, r in enumerate(restricted)]
    check_true(f"nprobe = {p}: results = brute force over the vectors in the query's {p} nearest cells",
               all(np.array_equal(ivf_search(Q[i], X, C10, lists, p, 10), by_hand[i]) for i in range(len(Q))))
recall = [np.mean([len(set(ivf_search(q, X, C10, lists, p, 10)) & set(t)) / 10
                   for q, t in zip(Q, truth, strict=True)]) for p in range(1, nlist + 1)]
check_true("recall@10 is non-decreasing in nprobe and below 1 at nprobe = 1",
           bool(np.all(np.diff(recall) >= 0)) and recall[0] < 1,
           f"nprobe 1: {recall[0]:.2f}, 4: {recall[3]:.2f}")
scanned = [np.mean([sum(len(lists[c]) for c in np.argsort(sq_dists(q[None, :], C10)[0])[:p]) for q in Q])
           for p in range(1, nlist + 1)]
check_close("nprobe = nlist scans all 449 vectors", scanned[-1], len(X), rtol=1e-12)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows) with counts from ivf_search itself: n / K copies of each of K far-apart centroids, so every
# list holds n / K vectors, and asking for all n neighbours returns every vector scanned. nprobe below,
# at and above K (FAISS scans at most every list).
import cardcalc  # noqa: E402


def vectors_scanned(n, K, nprobe):
    centroids = 10.0 * np.eye(int(K))
    data = np.repeat(centroids, int(n) // int(K), axis=0)
    equal_lists = [np.flatnonzero(assign(data, centroids) == c) for c in range(int(K))]
    found = ivf_search(np.zeros(int(K)), data, centroids, equal_lists, int(nprobe), int(n))
    return {"scanned": len(found), "share": len(found) / n}


cardcalc.table(vectors_scanned, cardcalc.grid(n=(64, 1200), K=(1, 4, 16), nprobe=(1, 3, 16, 32)))

fig, ax = figure("IVF on 449 token embeddings (nlist = 16)", "nprobe (inverted lists scanned)", "recall@10")
ax.plot(range(1, nlist + 1), recall, "o-", ms=3, label="recall@10")
ax.plot(range(1, nlist + 1), np.array(scanned) / len(X), "s--", ms=3, label="fraction of vectors scanned")
ax.set_ylim(0, 1.02)
ax.legend()
