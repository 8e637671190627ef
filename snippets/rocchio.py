"""Rocchio relevance feedback on toy-corpus TF-IDF vectors: scikit-learn's NearestCentroid centroids, the
optimal-query property found by scipy.optimize, empty-set and clipping branches, and the effect on ranking."""

import warnings

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from sklearn.neighbors import NearestCentroid


# --- formula ---
def rocchio(q0: np.ndarray, relevant: np.ndarray, nonrelevant: np.ndarray, alpha: float, beta: float,
            gamma: float, clip: bool = True) -> np.ndarray:
    """q_m = alpha q0 + beta centroid(D_r) - gamma centroid(D_nr); an empty set contributes nothing.
    With clip=True negative term weights are set to 0, as IIR recommends."""
    q = alpha * q0
    if len(relevant) > 0:
        q = q + beta * np.mean(relevant, axis=0)
    if len(nonrelevant) > 0:
        q = q - gamma * np.mean(nonrelevant, axis=0)
    if clip:
        q = np.maximum(q, 0.0)
    return q
# --- end formula ---


# TF-IDF vectors (1 + log tf) x log(N / df), unit length, for documents and queries.
vocab = tc.vocabulary()
counts = tc.count_matrix(vocab)
idf = np.log(tc.N_DOCS / (counts > 0).sum(axis=0))


def tfidf(c: np.ndarray) -> np.ndarray:
    w = np.where(c > 0, 1 + np.log(np.maximum(c, 1)), 0.0) * idf
    return w / np.linalg.norm(w, axis=-1, keepdims=True)


D = tfidf(counts)
Q = {qid: tfidf(np.array([tc.query_tokens(qid).count(t) for t in vocab], dtype=float))
     for qid in tc.QUERIES}
A, B, G = 1.0, 0.75, 0.15           # the values IIR suggests (Sec. 9.1.1)

# 1. Feedback on q1 from its judged documents: grade >= 2 relevant, grade 0 non-relevant. The centroids
#    come independently from scikit-learn's NearestCentroid fitted on the labelled documents.
g = tc.grades("q1")
judged = np.array([i for i, d in enumerate(tc.DOC_IDS) if d in tc.QRELS["q1"]])
rel_idx = judged[g[judged] >= 2]
non_idx = judged[g[judged] == 0]
labels = np.r_[np.ones(len(rel_idx)), np.zeros(len(non_idx))]
with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
    warnings.simplefilter("ignore")          # a one-document class has zero spread; only centroids_ is used
    nc = NearestCentroid().fit(D[np.r_[rel_idx, non_idx]], labels)
c_non, c_rel = nc.centroids_
check_close("q1 (2 relevant, 1 non-relevant), no clipping: vs alpha q0 + beta c_r - gamma c_nr from sklearn",
            rocchio(Q["q1"], D[rel_idx], D[non_idx], A, B, G, clip=False),
            A * Q["q1"] + B * c_rel - G * c_non, rtol=1e-12, atol=1e-15)

# 2. Branches. Empty non-relevant set: positive feedback only. Empty relevant set: pure negative feedback.
check_close("no non-relevant documents: alpha q0 + beta c_r",
            rocchio(Q["q1"], D[rel_idx], D[:0], A, B, G, clip=False),
            A * Q["q1"] + B * c_rel, rtol=1e-12, atol=1e-15)
check_close("no relevant documents: alpha q0 - gamma c_nr",
            rocchio(Q["q1"], D[:0], D[non_idx], A, B, G, clip=False),
            A * Q["q1"] - G * c_non, rtol=1e-12, atol=1e-15)
check_close("one relevant and one non-relevant document: the centroids are the documents themselves",
            rocchio(Q["q1"], D[rel_idx[:1]], D[non_idx[:1]], A, B, G, clip=False),
            A * Q["q1"] + B * D[rel_idx[0]] - G * D[non_idx[0]], rtol=1e-12, atol=1e-15)
raw = rocchio(Q["q1"], D[rel_idx], D[non_idx], A, B, 1.0, clip=False)
clipped = rocchio(Q["q1"], D[rel_idx], D[non_idx], A, B, 1.0)
check_true("gamma = 1: clipping zeroes exactly the negative weights and keeps the others",
           bool((raw < 0).any()) and np.array_equal(clipped, np.where(raw > 0, raw, 0.0)),
           f"{int((raw < 0).sum())} negative weights before clipping")

# 3. Rocchio's optimal query (IIR Eqs. 9.1-9.2): over unit vectors q, the difference of mean cosines to the
#    relevant and the non-relevant documents is maximised by the centroid difference, which is the
#    update with alpha = 0, beta = gamma = 1. scipy.optimize finds the maximiser on its own.
rng = np.random.default_rng(0)
rel6 = D[sorted(tc.relevant("q6", 2))]
non6 = D[[i for i in range(tc.N_DOCS) if tc.grades("q6")[i] == 0][:12]]
used = np.flatnonzero((np.abs(rel6).sum(axis=0) + np.abs(non6).sum(axis=0)) > 0)   # terms of these docs


def neg_objective(v):
    u = v / np.linalg.norm(v)
    return -(np.mean(rel6[:, used] @ u) - np.mean(non6[:, used] @ u))


def neg_gradient(v):
    """Chain rule through u = v / |v|, one document at a time: d(x.u)/dv = (x - (x.u) u) / |v|."""
    n = np.linalg.norm(v)
    u = v / n
    g_rel = np.mean([(x - (x @ u) * u) / n for x in rel6[:, used]], axis=0)
    g_non = np.mean([(x - (x @ u) * u) / n for x in non6[:, used]], axis=0)
    return -(g_rel - g_non)


best = minimize(neg_objective, rng.standard_normal(used.size), jac=neg_gradient, method="L-BFGS-B",
                options={"gtol": 1e-12, "ftol": 1e-15})
q_opt = rocchio(np.zeros(D.shape[1]), rel6, non6, 0.0, 1.0, 1.0, clip=False)
u_opt = q_opt[used] / np.linalg.norm(q_opt[used])
check_true("the centroid difference has no weight outside the terms of the judged documents",
           bool(np.all(np.delete(q_opt, used) == 0)), f"{used.size} of {D.shape[1]} terms used")
check_close("q6: objective at the normalised centroid difference = numerical maximum (scipy L-BFGS-B)",
            -neg_objective(q_opt[used]), -best.fun, rtol=1e-6)
check_close("and the two directions coincide (cosine 1)", float(u_opt @ best.x / np.linalg.norm(best.x)), 1.0,
            rtol=1e-6)
rand = rng.standard_normal((2000, used.size))
check_true("no random direction among 2000 does better",
           bool(np.all(-np.array([neg_objective(r) for r in rand]) < -neg_objective(q_opt[used]))))


# 4. On the toy corpus: feedback from the top 10 of the first ranking (judged grade >= 1 relevant, the rest
#    non-relevant); the new query ranks the relevant documents higher on average.
def ap(scores, qid):
    rel = tc.grades(qid)[np.argsort(-scores, kind="stable")] >= 1
    return np.sum(np.cumsum(rel) / np.arange(1, rel.size + 1) * rel) / rel.sum()


before, after = [], []
for qid in tc.QUERIES:
    top = np.argsort(-(D @ Q[qid]), kind="stable")[:10]
    is_rel = tc.grades(qid)[top] >= 1
    q_new = rocchio(Q[qid], D[top[is_rel]], D[top[~is_rel]], A, B, G)
    before.append(ap(D @ Q[qid], qid))
    after.append(ap(D @ q_new, qid))
check_true("feedback from the top 10 raises mean AP over q1..q6 and lowers it on no query",
           np.mean(after) > np.mean(before)
           and all(a >= b - 1e-12 for a, b in zip(after, before, strict=True)),
           f"mean AP {np.mean(before):.3f} -> {np.mean(after):.3f}")

fig, ax = figure("Rocchio feedback on the toy corpus (alpha 1, beta 0.75, gamma 0.15)", "query",
                 "average precision")
x = np.arange(len(before))
ax.bar(x - 0.2, before, 0.4, label="original query")
ax.bar(x + 0.2, after, 0.4, label="after feedback from the top 10")
ax.set_xticks(x, list(tc.QUERIES))
ax.legend()
