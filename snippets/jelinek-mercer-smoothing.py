"""Jelinek-Mercer smoothing on the toy corpus: two-urn sampling, limits, the rank-equivalent QL form."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
def jelinek_mercer(counts: np.ndarray, doc_len: np.ndarray, p_collection: np.ndarray,
                   lam: float) -> np.ndarray:
    """P(t | d) = (1 - lambda) c(t, d) / |d| + lambda P(t | C); counts is documents x vocabulary."""
    return (1 - lam) * counts / doc_len[:, None] + lam * p_collection
# --- end formula ---


vocab = tc.vocabulary()
counts = tc.count_matrix(vocab)
lengths = tc.doc_lengths()
p_c = tc.collection_model(vocab)
P = jelinek_mercer(counts, lengths, p_c, 0.3)

check_close("every document's smoothed model sums to 1", P.sum(axis=1), np.ones(len(lengths)), rtol=1e-12)
i_bm25 = vocab.index("bm25")
check_close("hand value: P(bm25 | d04) = 0.7 x 3/15 + 0.3 x 7/1086", P[3, i_bm25],
            0.7 * 3 / 15 + 0.3 * 7 / 1086, rtol=1e-13)
check_close("lambda = 0 is the ML estimate, lambda = 1 the collection model",
            [jelinek_mercer(counts, lengths, p_c, 0.0), jelinek_mercer(counts, lengths, p_c, 1.0)],
            [counts / lengths[:, None], np.tile(p_c, (len(lengths), 1))], rtol=1e-14)

# Generative reading, simulated: to emit a word, with probability lambda pick a random token of the
# whole collection, otherwise a random token of the document. Word frequencies converge to P(t | d).
rng = np.random.default_rng(0)
docs = tc.doc_tokens()
collection = [t for d in docs for t in d]
index = {t: i for i, t in enumerate(vocab)}
for doc, lam in ((1, 0.3), (27, 0.8)):
    n = 200_000
    from_collection = rng.random(n) < lam
    picks = np.where(from_collection, rng.integers(0, len(collection), n), rng.integers(0, len(docs[doc]), n))
    words = [collection[p] if c else docs[doc][p] for p, c in zip(picks, from_collection, strict=True)]
    freq = np.bincount([index[w] for w in words], minlength=len(vocab)) / n
    expected = jelinek_mercer(counts, lengths, p_c, lam)[doc]
    se = np.sqrt(expected * (1 - expected) / n)
    check_true(f"d{doc + 1:02d}, lambda = {lam}: sampled word frequencies (200 000 draws) within 4.5 "
               "standard errors of P(t | d), all terms", np.all(np.abs(freq - expected) <= 4.5 * se + 1e-12),
               f"largest |error| / se {np.max(np.abs(freq - expected) / (se + 1e-300)):.2f}")

# Query likelihood with JM: since alpha_d = lambda for every document, the rank-equivalent score is a
# sum over matched terms only, sum c(t,q) log(1 + (1 - lambda) c(t,d) / (lambda |d| P(t|C))).
for qid in tc.QUERIES:
    q = tc.query_tokens(qid)
    cols = [index[t] for t in q]
    full = np.log(P[:, cols]).sum(axis=1)
    matched = np.array([sum(math.log1p(0.7 * d.count(t) / (0.3 * len(d) * p_c[index[t]]))
                            for t in q if t in d) for d in docs])
    constant = sum(math.log(0.3 * p_c[index[t]]) for t in q)
    check_close(f"{qid}: log P(q | d) = matched-term sum + a document-independent constant", full,
                matched + constant, rtol=1e-12)

# Small lambda punishes every missing query term hard, so the winner covers the whole query.
q5_cols = [index[t] for t in tc.query_tokens("q5")]
top_small = int(np.argmax(np.log(jelinek_mercer(counts, lengths, p_c, 0.1)[:, q5_cols]).sum(axis=1)))
check_true("q5 with lambda = 0.1: the top document d08 contains all five query terms",
           top_small == 7 and all(t in docs[7] for t in tc.query_tokens("q5")))

# The page's calculator is checked against jelinek_mercer on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): unseen and seen terms, short and long documents, lambda from 0 (the
# maximum-likelihood estimate) to 1 (the collection model).
import cardcalc  # noqa: E402

cardcalc.table(lambda c, dl, pC, lam: float(jelinek_mercer(np.array([[c]]), np.array([dl]), pC, lam)[0, 0]),
               cardcalc.grid(c=(0, 1, 3), dl=(3, 15, 300), pC=(0.0, 1e-4, 0.01), lam=(0.0, 0.1, 0.7, 1.0)))
