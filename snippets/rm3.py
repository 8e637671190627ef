"""RM1 relevance model and RM3 interpolation on the toy corpus: Lavrenko and Croft's joint-probability
route by plain loops, normalisation, scipy's softmax for very long queries, and a Monte-Carlo simulation
of the interpolated, truncated model (rejection sampling does the renormalisation independently)."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import check_frequencies
from scipy.special import softmax


# --- formula ---
def relevance_model(doc_models: np.ndarray, query_idx) -> np.ndarray:
    """RM1: P(w | R) = sum_d P(w | d) P(d | q), with P(d | q) = prod_i P(q_i | d) / sum_d' prod_i P(q_i | d')
    over the feedback documents (uniform prior). doc_models: F x V rows of P(w | d)."""
    log_lik = np.sum(np.log(doc_models[:, query_idx]), axis=1)
    w = np.exp(log_lik - np.max(log_lik))
    p_d = w / np.sum(w)
    return p_d @ doc_models


def rm3(query_model: np.ndarray, rel_model: np.ndarray, lam: float, n_terms: int | None = None) -> np.ndarray:
    """RM3: lam P_ML(w | q) + (1 - lam) P(w | R), the relevance model optionally cut to its n_terms
    strongest terms and renormalised first (Indri's fbTerms)."""
    if n_terms is not None:
        keep = np.argsort(-rel_model, kind="stable")[:n_terms]
        cut = np.zeros_like(rel_model)
        cut[keep] = rel_model[keep]
        rel_model = cut / np.sum(cut)
    return lam * query_model + (1 - lam) * rel_model
# --- end formula ---


vocab = tc.vocabulary()
col = {t: j for j, t in enumerate(vocab)}
counts = tc.count_matrix(vocab)
lengths = counts.sum(axis=1)
p_c = tc.collection_model(vocab)
MU = 50.0
doc_models = (counts + MU * p_c) / (lengths[:, None] + MU)     # Dirichlet-smoothed P(w | d)


def feedback(qid: str, n_docs: int = 8):
    """Top documents by query likelihood, the query's indices and its maximum-likelihood model."""
    q_idx = [col[t] for t in tc.query_tokens(qid)]
    top = np.argsort(-np.log(doc_models[:, q_idx]).sum(axis=1), kind="stable")[:n_docs]
    q_ml = np.bincount(q_idx, minlength=len(vocab)) / len(q_idx)
    return top, q_idx, q_ml


# 1. Lavrenko & Croft's route: the joint P(w, q_1..q_k) = sum_d P(d) P(w | d) prod_i P(q_i | d), by loops
#    over documents and query tokens, normalised over WORDS (the formula normalises over documents).
for qid in tc.QUERIES:
    top, q_idx, q_ml = feedback(qid)
    got = relevance_model(doc_models[top], q_idx)
    joint = np.zeros(len(vocab))
    for d in top:
        joint += (1 / len(top)) * doc_models[d] * math.prod(doc_models[d, j] for j in q_idx)
    check_close(f"{qid}: RM1 over the top 8 vs joint P(w, q) / P(q) by loops", got, joint / joint.sum(),
                rtol=1e-10)
    check_close(f"{qid}: RM1 and RM3 (lambda 0.5, top 10 terms) each sum to one",
                [got.sum(), rm3(q_ml, got, 0.5, 10).sum()], [1.0, 1.0], rtol=1e-12)

# 2. Limits of the interpolation: lambda = 1 is the query alone, lambda = 0 the relevance model alone.
top, q_idx, q_ml = feedback("q5")
rm = relevance_model(doc_models[top], q_idx)
check_close("lambda = 1: the maximum-likelihood query model", rm3(q_ml, rm, 1.0), q_ml, atol=1e-15)
check_close("lambda = 0, no cut: the relevance model", rm3(q_ml, rm, 0.0), rm, atol=1e-15)

# 3. A query repeated 300 times: P(d | q) = softmax(300 x log-likelihood), whose spread is far beyond
#    exp's range; the shifted form matches scipy.special.softmax, the unshifted one would give 0/0.
ll = np.log(doc_models[top][:, q_idx]).sum(axis=1)
long_q = q_idx * 300
check_close(f"q5 x 300 (log-likelihood spread {300 * np.ptp(ll):.0f} nats): vs scipy softmax route",
            relevance_model(doc_models[top], long_q), softmax(300 * ll) @ doc_models[top], rtol=1e-10)

# 4. Monte Carlo of RM3 with lambda = 0.4 and the top 10 terms: with probability 0.4 draw a query token;
#    otherwise draw a feedback document with weight prod_i P(q_i | d), then a word from it, and redraw
#    until the word is among the 10 strongest (rejection renormalises the cut relevance model).
rng = np.random.default_rng(0)
strongest = set(np.argsort(-rm)[:10].tolist())
weights = np.array([math.prod(doc_models[d, j] for j in q_idx) for d in top])
n = 60_000
draws = np.empty(n, dtype=int)
from_query = rng.random(n) < 0.4
draws[from_query] = rng.choice(q_idx, size=int(from_query.sum()))
todo = np.flatnonzero(~from_query)
while todo.size:
    d = rng.choice(top, size=todo.size, p=weights / weights.sum())
    w = np.empty(todo.size, dtype=int)
    for doc in np.unique(d):
        w[d == doc] = rng.choice(len(vocab), size=int((d == doc).sum()), p=doc_models[doc])
    ok = np.isin(w, list(strongest))
    draws[todo[ok]] = w[ok]
    todo = todo[~ok]
check_frequencies("q5, RM3 lambda 0.4, top 10 terms: simulated words vs the formula", draws,
                  rm3(q_ml, rm, 0.4, 10))

# 5. What the feedback adds on the toy corpus: the strongest new terms (longer than 3 letters) per query.
#    For q1 the keyword-stuffed d04 has by far the highest query likelihood, so its title words lead the
#    expansion: query drift from one bad feedback document.
rows = {}
for qid in tc.QUERIES:
    top, q_idx, q_ml = feedback(qid)
    rm_q = relevance_model(doc_models[top], q_idx)
    rows[qid] = [vocab[j] for j in np.argsort(-rm_q) if j not in q_idx and len(vocab[j]) > 3][:3]
top, q_idx, _ = feedback("q1")
check_true("q1: d04 ranks first, and its title words 'keyword' and 'stuffing' are the top new terms",
           tc.DOC_IDS[top[0]] == "d04" and rows["q1"][:2] == ["keyword", "stuffing"],
           "; ".join(f"{q}: {', '.join(t)}" for q, t in rows.items()))

fig, ax = figure("RM3 for q5: the 12 strongest terms", "term", "probability")
top, q_idx, q_ml = feedback("q5")
model = rm3(q_ml, relevance_model(doc_models[top], q_idx), 0.5, 10)
order = np.argsort(-model)[:12]
ax.bar(range(12), model[order])
ax.set_xticks(range(12), [vocab[j] for j in order], rotation=60)
