"""Query likelihood on the toy corpus: vs an explicit product over query tokens, and Zhai-Lafferty's split."""

import math
from collections import Counter

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
# few mutants: a sum of c(t, q) log P(t | d): the product, the log, the sum and its axis
def query_log_likelihood(query_counts: np.ndarray, term_probs: np.ndarray) -> np.ndarray:
    """log P(q | theta_d) = sum over distinct query terms t of c(t, q) log P(t | theta_d).
    query_counts: one count per distinct query term; term_probs: documents x those terms."""
    return np.sum(query_counts * np.log(term_probs), axis=1)
# --- end formula ---


docs = tc.doc_tokens()
p_c = dict(zip(tc.vocabulary(), tc.collection_model(), strict=True))
MU, LAM = 50.0, 0.5


def dirichlet(term, doc):
    return (doc.count(term) + MU * p_c[term]) / (len(doc) + MU)


def jm(term, doc):
    return (1 - LAM) * doc.count(term) / len(doc) + LAM * p_c[term]


def ql_scores(query_tokens, model):
    """Score of every document, through the card's formula."""
    counts = Counter(query_tokens)
    terms = sorted(counts)
    probs = np.array([[model(t, d) for t in terms] for d in docs])
    return query_log_likelihood(np.array([counts[t] for t in terms], dtype=float), probs)


# Explicit product over the query's tokens, repeated tokens included, then one log at the end.
queries = {**{q: tc.query_tokens(q) for q in tc.QUERIES},
           "repeat": ["nearest", "neighbour", "nearest", "index", "nearest"]}
for name, model in (("Dirichlet mu = 50", dirichlet), ("Jelinek-Mercer lambda = 0.5", jm)):
    got = [ql_scores(q, model) for q in queries.values()]
    product = [[math.log(math.prod(model(t, d) for t in q)) for d in docs] for q in queries.values()]
    check_close(f"{name}: 7 queries (one with a term repeated 3 times) x 32 documents vs log of the product",
                got, product, rtol=1e-12)

# Zhai and Lafferty's decomposition (Dirichlet): log P(q|d) = sum over matched terms of
# c(t,q) log(1 + c(t,d) / (mu P(t|C))) + |q| log(mu / (|d| + mu)) + sum_t c(t,q) log P(t|C).
for qid in tc.QUERIES:
    q = tc.query_tokens(qid)
    matched = np.array([sum(math.log1p(d.count(t) / (MU * p_c[t])) for t in q if t in d) for d in docs])
    length_term = len(q) * np.log(MU / (tc.doc_lengths() + MU))
    query_constant = sum(math.log(p_c[t]) for t in q)
    check_close(f"{qid}: matched-term sum + |q| log alpha_d + document-independent constant",
                ql_scores(q, dirichlet), matched + length_term + query_constant, rtol=1e-12)

# Without smoothing a single missing query term zeroes the likelihood.
with np.errstate(divide="ignore"):
    mle = ql_scores(tc.query_tokens("q4"), lambda t, d: d.count(t) / len(d))
check_true("maximum likelihood, 8-term q4: only d12, which holds all 8 terms, escapes log 0 = -inf",
           np.isfinite(mle[11]) and np.isneginf(np.delete(mle, 11)).all(),
           f"{int(np.isneginf(mle).sum())} of 32 documents at -inf")

# Ranking on the toy corpus (Dirichlet, mu = 50).
tops = {qid: int(np.argmax(ql_scores(tc.query_tokens(qid), dirichlet))) for qid in tc.QUERIES}
check_true("q2-q6: the highest query likelihood goes to a document judged 3; q1 to the stuffed d04",
           all(tc.grades(q)[tops[q]] == 3 for q in ("q2", "q3", "q4", "q5", "q6")) and tops["q1"] == 3,
           f"{ {q: tc.DOC_IDS[i] for q, i in tops.items()} }")
# A proper model: summed over the vocabulary, the one-token query probabilities are 1 for each document.
check_close("one-token queries: sum over the vocabulary of P(t | d) = 1 (documents d01 and d28)",
            [sum(math.exp(ql_scores([t], dirichlet)[i]) for t in p_c) for i in (0, 27)], [1.0, 1.0],
            rtol=1e-10)
