"""ColBERT MaxSim on the toy corpus with per-token embeddings: against explicit loops over token pairs,
the squared-L2 form of the same score (scipy cdist), exact matches scoring 1 per query token, the
single-vector limit, and the asymmetry between query and document."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist


# --- formula ---
def l2_normalize(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def maxsim(Eq, Ed):
    """sum over query tokens of the largest dot product with any document token."""
    return float(np.sum(np.max(Eq @ Ed.T, axis=1)))
# --- end formula ---


# Token embeddings: every token through the corpus's trigram encoder, one vector per token, scaled
# by a per-token factor so that the normalization step matters.
rng = np.random.default_rng(0)
vocab = {t: tc.embed(t) * rng.uniform(0.5, 2.0) for t in tc.vocabulary() + [t for q in tc.QUERIES
                                                                            for t in tc.query_tokens(q)]}
docs = [l2_normalize(np.stack([vocab[t] for t in toks])) for toks in tc.doc_tokens()]
queries = {q: l2_normalize(np.stack([vocab[t] for t in tc.query_tokens(q)])) for q in tc.QUERIES}

check_close("normalized token vectors have unit length", np.linalg.norm(docs[27], axis=1),
            np.ones(len(docs[27])),
            rtol=1e-12)

# 1. Against explicit loops over all token pairs, 6 queries x 32 documents.
ours, loops = [], []
for Eq in queries.values():
    for Ed in docs:
        ours.append(maxsim(Eq, Ed))
        total = 0.0
        for i in range(len(Eq)):
            best = -np.inf
            for j in range(len(Ed)):
                best = max(best, float(np.dot(Eq[i], Ed[j])))
            total += best
        loops.append(total)
check_close("MaxSim of 6 x 32 query-document pairs vs explicit loops", ours, loops, rtol=1e-12)

# 2. For unit vectors, q . d = 1 - |q - d|^2 / 2: the same score from the nearest document token in L2.
Eq, Ed = queries["q5"], docs[7]
check_close("MaxSim = sum_i (1 - min_j |q_i - d_j|^2 / 2) (scipy cdist)", maxsim(Eq, Ed),
            np.sum(1 - cdist(Eq, Ed, "sqeuclidean").min(axis=1) / 2), rtol=1e-12)

# 3. Exact matches: d28 contains every token of q1 ("bm25 term frequency saturation"), so each of the
#    4 query tokens finds itself (similarity 1) and the score is the maximum possible, 4.
check_close("q1 vs d28 (all 4 query tokens present): MaxSim = 4", maxsim(queries["q1"], docs[27]), 4.0,
            rtol=1e-12)
scores_q1 = np.array([maxsim(queries["q1"], Ed) for Ed in docs])
check_true("every other document scores below 4 on q1", bool(np.all(np.delete(scores_q1, 27) < 4 - 1e-9)),
           f"next best {np.sort(scores_q1)[-2]:.3f}")

# 4. One vector on each side: MaxSim is the plain dot product of the normalized vectors (a bi-encoder).
a, b = rng.normal(size=(1, 32)), rng.normal(size=(1, 32))
check_close("single-vector limit: MaxSim = cosine of the two vectors",
            maxsim(l2_normalize(a), l2_normalize(b)),
            (a @ b.T).item() / np.linalg.norm(a) / np.linalg.norm(b), rtol=1e-12)

# 5. A sum over query tokens, not a mean or a symmetric match: repeating the query doubles the score,
#    and swapping the roles of query and document changes it.
check_close("query repeated twice: score doubles", maxsim(np.vstack([Eq, Eq]), Ed), 2 * maxsim(Eq, Ed),
            rtol=1e-12)
check_true("asymmetric: MaxSim(q, d) != MaxSim(d, q)", abs(maxsim(Eq, Ed) - maxsim(Ed, Eq)) > 1e-3,
           f"{maxsim(Eq, Ed):.3f} vs {maxsim(Ed, Eq):.3f}")

q, d = "q1", 0
S = queries[q] @ docs[d].T
fig, ax = figure("MaxSim: q1 × d01 token similarities (× = row maximum)",
                 "document token", "query token", size=(7.0, 2.8))
ax.imshow(S, aspect="auto", cmap="Greys", vmin=-0.2, vmax=1)
ax.plot(S.argmax(axis=1), np.arange(len(S)), "x", color="tab:red", ms=8)
ax.set_yticks(range(len(S)), tc.query_tokens(q))
ax.set_xticks(range(S.shape[1]), tc.doc_tokens()[d], rotation=90, fontsize=6)
ax.grid(False)
