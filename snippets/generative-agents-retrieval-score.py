"""Generative Agents retrieval score: min-max normalised recency + importance + relevance vs scikit-learn."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.preprocessing import MinMaxScaler


# --- formula ---
def minmax(x: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant component maps to the midpoint 0.5 (as in the released code)."""
    spread = np.max(x) - np.min(x)
    if spread == 0:
        return np.full(len(x), 0.5)
    return (x - np.min(x)) / spread


def retrieval_score(hours_since_access, importance, query, memories, alpha=(1.0, 1.0, 1.0), decay=0.995):
    """score_i = a_rec * mm(decay^hours_i) + a_imp * mm(importance_i) + a_rel * mm(cos(query, m_i))."""
    recency = decay ** hours_since_access
    q_unit = query / np.linalg.norm(query)  # equivalent: min-max undoes any positive rescaling of relevance
    relevance = memories @ q_unit / np.linalg.norm(memories, axis=1)
    return (alpha[0] * minmax(recency) + alpha[1] * minmax(importance)
            + alpha[2] * minmax(relevance))
# --- end formula ---


rng = np.random.default_rng(0)
n_mem, dim = 40, 12
hours = rng.uniform(0, 500, n_mem)                   # game hours since each memory was last retrieved
importance = rng.integers(1, 11, n_mem).astype(float)  # LLM poignancy rating, 1 (mundane) to 10
emb = rng.normal(size=(n_mem, dim))
q = rng.normal(size=dim)


def sk_minmax(x):
    return MinMaxScaler().fit_transform(np.asarray(x, dtype=float)[:, None])[:, 0]


# 1. Reference from scikit-learn: MinMaxScaler per component, cosine_similarity, and the paper's decay
#    factor 0.995 per game hour written as exp(hours * log 0.995).
ref = (sk_minmax(np.exp(hours * np.log(0.995))) + sk_minmax(importance)
       + sk_minmax(cosine_similarity(emb, q[None, :])[:, 0]))
score = retrieval_score(hours, importance, q, emb)
check_close("score vs scikit-learn MinMaxScaler + cosine_similarity (alpha = 1, decay 0.995)", score, ref,
            rtol=1e-12)

# 2. Hand example, three memories: hours [0, 100, 200] -> recency [1, 0.995^100, 0.995^200];
#    importance [2, 10, 6] -> [0, 1, 0.5]; embeddings at cos [1, 0, -1] -> [1, 0.5, 0].
r = 0.995 ** np.array([0.0, 100.0, 200.0])
rec_mm = (r - r[2]) / (r[0] - r[2])
hand = rec_mm + np.array([0.0, 1.0, 0.5]) + np.array([1.0, 0.5, 0.0])
got = retrieval_score(np.array([0.0, 100.0, 200.0]), np.array([2.0, 10.0, 6.0]), np.array([1.0, 0.0]),
                      np.array([[3.0, 0.0], [0.0, 2.0], [-1.0, 0.0]]))
check_close("hand example", got, hand, rtol=1e-12)

# 3. A component with no spread (all importance equal) contributes the midpoint 0.5 to every memory.
flat = retrieval_score(hours, np.full(n_mem, 7.0), q, emb, alpha=(0.0, 1.0, 0.0))
check_close("constant importance -> 0.5 for every memory", flat, np.full(n_mem, 0.5))

# 4. Each weight switches its own component on: alone, the score ranks by that raw quantity.
only_rec = retrieval_score(hours, importance, q, emb, alpha=(1.0, 0.0, 0.0))
only_rel = retrieval_score(hours, importance, q, emb, alpha=(0.0, 0.0, 1.0))
check_true("recency alone ranks the most recently accessed memory first",
           int(np.argmax(only_rec)) == int(np.argmin(hours)))
check_true("relevance alone ranks by cosine similarity", bool(np.array_equal(np.argsort(-only_rel),
           np.argsort(-cosine_similarity(emb, q[None, :])[:, 0]))))
check_close("weights act linearly: alpha = (2, 0.5, 3)",
            retrieval_score(hours, importance, q, emb, alpha=(2.0, 0.5, 3.0)),
            2 * sk_minmax(0.995 ** hours) + 0.5 * sk_minmax(importance)
            + 3 * sk_minmax(cosine_similarity(emb, q[None, :])[:, 0]), rtol=1e-12)
top3 = np.argsort(-score)[:3]
print("top-3 memories (hours, importance):", [(round(float(hours[i]), 1), int(importance[i])) for i in top3])

fig, ax = figure("Components of the score for 40 memories", "hours since last retrieval", "normalised value")
ax.plot(hours, sk_minmax(0.995 ** hours), ".", label="recency")
ax.plot(hours, score / 3, "o", mfc="none", label="score / 3")
ax.legend()
