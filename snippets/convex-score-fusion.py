"""Convex (weighted) fusion of normalized scores on the toy corpus: against explicit per-document sums
built with scikit-learn's minmax_scale and scale over the union of two top-10 lists (documents missing
from one list), invariance to affine rescaling of a retriever, and the rankings at alpha = 0 and 1."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import ndcg_score
from sklearn.preprocessing import minmax_scale, scale


# --- formula ---
def min_max(s, lower=None):
    """(s - min) / (max - min) over one result list; with `lower` given, theoretical min-max (TMM)."""
    low = np.min(s) if lower is None else lower
    return (s - low) / (np.max(s) - low)


def z_score(s):
    """(s - mean) / standard deviation over one result list (population standard deviation)."""
    return (s - np.mean(s)) / np.std(s)


def fuse(runs, weights, normalize=min_max):
    """sum_m w_m * phi(s_m(q, d)) over the runs (dicts doc -> score) that contain d; a run that does
    not contain d contributes nothing."""
    fused = {}
    for run, w in zip(runs, weights, strict=True):
        docs = list(run)
        normed = normalize(np.array([run[d] for d in docs]))
        for d, v in zip(docs, normed, strict=True):
            fused[d] = fused.get(d, 0.0) + w * v
    return fused
# --- end formula ---


E = tc.doc_embeddings()
K = 10


def top_k(scores, k=K):
    order = np.argsort(-scores, kind="stable")[:k]
    return {tc.DOC_IDS[i]: float(scores[i]) for i in order}


dense = {q: top_k(E @ tc.query_embedding(q)) for q in tc.QUERIES}
bm25 = {q: top_k(tc.bm25_reference(tc.query_tokens(q))) for q in tc.QUERIES}

# 1. Two-way convex combination, alpha = 0.6 on dense, over the union of both top-10 lists, against an
#    explicit documents x runs matrix normalized per run with scikit-learn (missing entries = 0).
alpha = 0.6
for name, norm, sk in (("min-max", min_max, minmax_scale), ("z-score", z_score, scale)):
    ours, ref = [], []
    for q in tc.QUERIES:
        union = sorted(set(dense[q]) | set(bm25[q]))
        table = np.zeros((len(union), 2))
        for col, run in enumerate((dense[q], bm25[q])):
            docs = list(run)
            normed = sk(np.array([run[d] for d in docs]))
            for d, v in zip(docs, normed, strict=True):
                table[union.index(d), col] = v
        fused = fuse([dense[q], bm25[q]], [alpha, 1 - alpha], norm)
        ours += [fused[d] for d in union]
        ref += list(table @ [alpha, 1 - alpha])
    check_close(f"{name}: fused score of every document in the union (6 queries) vs explicit sums",
                ours, ref, rtol=1e-12, atol=1e-15)

missing = {q: len(set(dense[q]) ^ set(bm25[q])) for q in tc.QUERIES}
check_true("the unions include documents missing from one of the two lists", min(missing.values()) > 0,
           f"documents in only one list per query: {missing}")

# 2. Hand value. Run A: x 2.0, y 1.0, z 0.0; run B: y 10, w 5, x 0. Min-max: A -> 1, 0.5, 0;
#    B -> 1, 0.5, 0. alpha = 0.25: x = .25*1 + .75*0 = .25; y = .25*.5 + .75*1 = .875; z = 0; w = .375.
check_close("hand example, min-max, alpha = 0.25: x, y, z, w = 0.25, 0.875, 0, 0.375",
            [fuse([{"x": 2.0, "y": 1.0, "z": 0.0}, {"y": 10.0, "w": 5.0, "x": 0.0}], [0.25, 0.75])[d]
             for d in "xyzw"], [0.25, 0.875, 0.0, 0.375], rtol=1e-12, atol=1e-15)

# 3. Theoretical min-max: the lower bound is the retriever's own (0 for BM25, -1 for cosine).
s = np.array(list(dense["q2"].values()))
check_close("TMM with lower bound -1 (cosine): (s + 1) / (max + 1)", min_max(s, -1.0),
            (s + 1) / (s.max() + 1),
            rtol=1e-12)
check_close("TMM with lower = the list's minimum is min-max", min_max(s, s.min()), minmax_scale(s),
            rtol=1e-12)

# 4. Why normalize: min-max and z-score fusion ignore a positive affine rescaling of one retriever's
#    scores (BM25 x 7 + 3); a raw-score convex combination changes its ranking.
q = "q4"
scaled = {d: 7 * v + 3 for d, v in bm25[q].items()}
for name, norm in (("min-max", min_max), ("z-score", z_score)):
    a = fuse([dense[q], bm25[q]], [alpha, 1 - alpha], norm)
    b = fuse([dense[q], scaled], [alpha, 1 - alpha], norm)
    check_close(f"{name} fusion unchanged by BM25 -> 7 BM25 + 3", [a[d] for d in sorted(a)],
                [b[d] for d in sorted(a)], rtol=1e-12, atol=1e-15)
raw = fuse([dense[q], bm25[q]], [alpha, 1 - alpha], lambda v: v)
raw_scaled = fuse([dense[q], scaled], [alpha, 1 - alpha], lambda v: v)
check_true("raw scores: the same rescaling changes the fused top 5",
           sorted(raw, key=raw.get)[-5:] != sorted(raw_scaled, key=raw_scaled.get)[-5:])

# 5. More than two rankers with weights that do not sum to 1: multiplying all weights by a constant
#    rescales every fused score and so keeps the ranking.
title = {q: top_k(np.array([len(set(tc.tokenize(d.title)) & set(tc.query_tokens(q))) + 0.01 * i
                            for i, d in enumerate(tc.DOCS)])) for q in tc.QUERIES}
three = fuse([dense["q6"], bm25["q6"], title["q6"]], [0.5, 0.3, 0.2], z_score)
three_x = fuse([dense["q6"], bm25["q6"], title["q6"]], [2.5, 1.5, 1.0], z_score)
check_close("three z-scored runs: weights (2.5, 1.5, 1) = 5 x (0.5, 0.3, 0.2) scale every score by 5",
            [three_x[d] for d in sorted(three)], [5 * three[d] for d in sorted(three)], rtol=1e-12)


# 6. The end points: alpha = 1 keeps the dense order, alpha = 0 the BM25 order (min-max).
def order(fused, docs):
    return sorted(docs, key=lambda d: -fused[d])


f1 = fuse([dense["q2"], bm25["q2"]], [1.0, 0.0])
f0 = fuse([dense["q2"], bm25["q2"]], [0.0, 1.0])
check_true("alpha = 1 reproduces the dense ranking, alpha = 0 the BM25 ranking",
           order(f1, dense["q2"]) == list(dense["q2"]) and order(f0, bm25["q2"]) == list(bm25["q2"]))

alphas = np.linspace(0, 1, 21)
fig, ax = figure("Convex fusion of BM25 and dense top-10 lists (toy corpus)", "weight α on the dense score",
                 "mean nDCG@10 over 6 queries")
for name, norm in (("min-max", min_max), ("z-score", z_score)):
    means = []
    for a in alphas:
        vals = []
        for q in tc.QUERIES:
            f = fuse([dense[q], bm25[q]], [a, 1 - a], norm)
            s_all = np.array([f.get(d, -1e9) for d in tc.DOC_IDS])
            vals.append(ndcg_score([tc.grades(q)], [s_all], k=10))
        means.append(np.mean(vals))
    ax.plot(alphas, means, "o-", ms=3, label=name)
ax.legend()
