"""SPLADE term weights and score on the toy corpus: log(1 + ReLU) with max (SPLADE v2) or sum (SPLADE)
pooling against explicit loops over positions, the score as a sparse dot product through scipy.sparse
(an inverted index in effect), sparsity from the ReLU, and the saturation of large logits."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.sparse import csr_matrix


# --- formula ---
def splade_weights(logits, pooling: str = "max"):
    """w_j = pool over positions i of log(1 + ReLU(z_ij)); logits: positions x vocabulary."""
    act = np.log1p(np.maximum(logits, 0.0))
    return act.max(axis=0) if pooling == "max" else act.sum(axis=0)


def splade_score(w_query, w_doc):
    """s(q, d) = sum over the vocabulary of w_q,j * w_d,j."""
    return float(np.sum(w_query * w_doc))
# --- end formula ---


# Stand-in for the MLM head: the logit of vocabulary term j at position i grows with the trigram
# similarity of the token there and term j (so "retriever" also lights up "retrieval": expansion),
# minus a bias that keeps most logits negative, plus noise.
rng = np.random.default_rng(0)
vocab = tc.vocabulary()
V_emb = np.stack([tc.embed(t) for t in vocab])


def mlm_logits(tokens):
    T = np.stack([tc.embed(t) for t in tokens])
    return 9.0 * (T @ V_emb.T) - 5.0 + rng.normal(0, 0.5, (len(tokens), len(vocab)))


doc_logits = [mlm_logits(toks) for toks in tc.doc_tokens()]
query_logits = {q: mlm_logits(tc.query_tokens(q)) for q in tc.QUERIES}

# 1. Weights against explicit loops with math.log and max(0, z), both poolings, on three documents.
for d in (0, 13, 27):
    Z = doc_logits[d]
    loop_max = [max(math.log(1 + max(0.0, Z[i, j])) for i in range(Z.shape[0])) for j in range(Z.shape[1])]
    loop_sum = [sum(math.log(1 + max(0.0, Z[i, j])) for i in range(Z.shape[0])) for j in range(Z.shape[1])]
    check_close(f"{tc.DOC_IDS[d]}: max pooling vs loops over positions", splade_weights(Z), loop_max,
                rtol=1e-12)
    check_close(f"{tc.DOC_IDS[d]}: sum pooling (original SPLADE) vs loops", splade_weights(Z, "sum"),
                loop_sum,
                rtol=1e-12)

# 2. Scores as sparse dot products: a CSR document-term matrix times the query's sparse vector only
#    touches the terms both share, as an inverted index would.
W_docs = np.stack([splade_weights(Z) for Z in doc_logits])
index = csr_matrix(W_docs)
for q, Zq in query_logits.items():
    wq = splade_weights(Zq)
    check_close(f"{q}: scores of 32 documents vs scipy.sparse index @ query vector",
                [splade_score(wq, wd) for wd in W_docs], index @ wq, rtol=1e-12)

# 3. Sparsity: a term gets weight 0 exactly when all its logits are <= 0.
density = float(np.mean(W_docs > 0))
check_true("zero weight <=> no positive logit for the term (all 32 documents)",
           all(np.array_equal(splade_weights(Z) > 0, (Z > 0).any(axis=0)) for Z in doc_logits),
           f"{density:.1%} of document-term weights are non-zero")

# 4. Saturation: a logit of 1000 gives log(1001) ~ 6.9; pooling: sum >= max, equal for one position.
check_close("logits (1000, -3, 0, e - 1) -> weights (log 1001, 0, 0, 1)",
            splade_weights(np.array([[1000.0, -3.0, 0.0, np.e - 1]])), [np.log(1001), 0, 0, 1], rtol=1e-12)
check_true("sum pooling >= max pooling, term by term",
           all(np.all(splade_weights(Z, "sum") >= splade_weights(Z) - 1e-15) for Z in doc_logits))

# 5. Expansion: q2 asks for a "retriever"; d11 (retrieval-augmented generation) never uses that word
#    but gets weight on it through "retrieval", "retrieves", "retrieved".
j = vocab.index("retriever")
check_true("expansion: d11 has weight on 'retriever' although the word is absent from it",
           W_docs[10, j] > 0 and "retriever" not in tc.doc_tokens()[10], f"w = {W_docs[10, j]:.3f}")

z = np.linspace(-2, 8, 201)
fig, ax = figure("SPLADE activation of one logit", "MLM logit  z", "term weight")
ax.plot(z, np.maximum(z, 0), "--", label="ReLU(z)")
ax.plot(z, np.log1p(np.maximum(z, 0)), label="log(1 + ReLU(z))")
ax.legend()
