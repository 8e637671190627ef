"""HyDE on the toy corpus: the averaged query-plus-hypotheses vector scored by inner product, checked by
linearity (mean of per-text scores), the N = 0 case, cosine-rank equivalence and brute-force argmax."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def hyde_vector(e_query: np.ndarray, e_hypotheses: np.ndarray) -> np.ndarray:
    """v = (f(q) + sum_k f(d_k)) / (N + 1): the query's embedding averaged with those of the N
    hypothetical documents an LLM wrote for it."""
    hyp = np.atleast_2d(e_hypotheses)
    return (e_query + np.sum(hyp, axis=0)) / (hyp.shape[0] + 1)


def hyde_retrieve(e_query: np.ndarray, e_hypotheses: np.ndarray, doc_matrix: np.ndarray, k: int):
    """Inner-product scores of every document with the HyDE vector and the top k (best first)."""
    scores = doc_matrix @ hyde_vector(e_query, e_hypotheses)
    return scores, np.argsort(-scores, kind="stable")[:k]
# --- end formula ---


# Hypothetical documents an instruction-following LLM might write (written for this project; they need
# not be true, only look like an answer).
HYPOTHESES = {
    "q2": ["A dense retriever maps queries and passages to embeddings and ranks by similarity, so "
           "semantic search finds passages that use different words.",
           "Embedding models trained for semantic search place paraphrases close together in vector space."],
    "q3": ["The agent plans a sequence of steps and calls tools such as a search API, then reads the tool "
           "output before deciding the next action.",
           "Planning agents break the task into tool calls and revise the plan when a call fails."],
    "q4": ["Retrieved passages placed in the prompt let the model ground its answer in real sources, which "
           "reduces hallucinated facts.",
           "Hallucination drops when answers must cite retrieved passages that support each claim."],
    "q6": ["Graded relevance judgments let metrics such as nDCG reward ranking highly relevant documents "
           "first; ranking quality depends on the order.",
           "Evaluation of ranking uses graded labels from assessors and discounts gains by rank."],
}
D = tc.doc_embeddings()                        # unit rows
rng = np.random.default_rng(0)

for qid, hyps in HYPOTHESES.items():
    e_q = tc.query_embedding(qid)
    E_h = np.stack([tc.embed(h) for h in hyps])
    scores, top = hyde_retrieve(e_q, E_h, D, 5)
    # 1. Linearity: the inner product with the average is the average of the N + 1 inner products.
    per_text = np.stack([D @ e_q] + [D @ e for e in E_h])
    check_close(f"{qid}: scores = mean over query and {len(hyps)} hypotheses of per-text inner products",
                scores, per_text.mean(axis=0), rtol=1e-12)
    # 2. Brute force: the top 5 by a full pairwise comparison of scores.
    brute = sorted(range(tc.N_DOCS), key=lambda i: (-scores[i], i))[:5]
    check_true(f"{qid}: top 5 equals a brute-force sort of all 32 scores", list(top) == brute,
               f"{[tc.DOC_IDS[i] for i in top]}")

# 3. N = 0 is plain dense retrieval with the query; one hypothesis weighs as much as the query.
e_q = tc.query_embedding("q4")
h = tc.embed(HYPOTHESES["q4"][0])
check_close("N = 0: the HyDE vector is the query embedding", hyde_vector(e_q, np.empty((0, e_q.size))), e_q,
            rtol=1e-12)
check_close("N = 1: the midpoint of query and hypothesis", hyde_vector(e_q, h), (e_q + h) / 2, rtol=1e-12)
check_close("N = 3 hypotheses all equal to the query: the query again (an average, not a sum)",
            hyde_vector(e_q, np.stack([e_q, e_q, e_q])), e_q, rtol=1e-12)

# 4. With unit document vectors, ranking by inner product with the averaged vector and by its cosine
#    agree (the norm of the HyDE vector is one positive factor per query).
for qid, hyps in HYPOTHESES.items():
    v = hyde_vector(tc.query_embedding(qid), np.stack([tc.embed(t) for t in hyps]))
    cos = (D @ v) / (np.linalg.norm(D, axis=1) * np.linalg.norm(v))
    _, top = hyde_retrieve(tc.query_embedding(qid), np.stack([tc.embed(t) for t in hyps]), D, 32)
    check_true(f"{qid}: inner-product order = cosine order over all 32 documents",
               list(top) == list(np.argsort(-cos, kind="stable")))


# 5. Effect on the toy corpus: nDCG@5 of the query alone vs HyDE, on the four queries (not a benchmark:
#    the toy encoder hashes character trigrams; for q2, d26 on quantization enters the HyDE top 5).
def ndcg5(order, qid):
    g = tc.grades(qid)
    disc = 1 / np.log2(np.arange(2, 7))
    ideal = np.sort(g)[::-1][:5]
    return float(np.sum((2.0 ** g[order[:5]] - 1) * disc) / np.sum((2.0 ** ideal - 1) * disc))


base, hyde = [], []
for qid, hyps in HYPOTHESES.items():
    e_q = tc.query_embedding(qid)
    base.append(ndcg5(np.argsort(-(D @ e_q), kind="stable"), qid))
    hyde.append(ndcg5(hyde_retrieve(e_q, np.stack([tc.embed(t) for t in hyps]), D, 5)[1], qid))
check_true("with this crude encoder the effect is mixed: nDCG@5 up on q3, q4, q6 and down on q2",
           [h > b for h, b in zip(hyde, base, strict=True)] == [False, True, True, True],
           f"query only {np.round(base, 3)}, HyDE {np.round(hyde, 3)}")

fig, ax = figure("HyDE vs the query embedding alone (toy encoder)", "query", "nDCG@5")
x = np.arange(len(base))
ax.bar(x - 0.2, base, 0.4, label="query embedding")
ax.bar(x + 0.2, hyde, 0.4, label="HyDE (query + 2 hypotheses)")
ax.set_xticks(x, list(HYPOTHESES))
ax.legend()
