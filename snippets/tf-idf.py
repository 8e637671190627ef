"""TF-IDF on the toy corpus: vs direct counts and hand values, cosine ranking of 6 queries, scikit-learn's
TfidfTransformer (plain and default conventions)."""

import math
from collections import Counter

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
def tfidf(counts: np.ndarray, df: np.ndarray, n_docs: int) -> np.ndarray:
    """w(t, d) = tf(t, d) * ln(N / df(t)); counts is documents x terms."""
    # few mutants: the whole formula is one product of tf and a log ratio, and every site in it is mutated
    return counts * np.log(n_docs / df)
# --- end formula ---


vocab = tc.vocabulary()
counts = tc.count_matrix(vocab)
df = (counts > 0).sum(axis=0)
W = tfidf(counts, df, tc.N_DOCS)

# Direct count: every weight from Counter over the tokens and a scan of the token sets.
docs = tc.doc_tokens()
sets = [set(d) for d in docs]
direct = np.array([[Counter(d)[t] * math.log(len(docs) / sum(t in s for s in sets)) for t in vocab]
                   for d in docs])
check_close(f"32 x {len(vocab)} weights vs Counter counts and scanned document frequencies", W, direct,
            rtol=1e-12)
j = {t: vocab.index(t) for t in ("bm25", "term", "the")}
check_close("hand values in d04: bm25 3 ln(32/4), term 5 ln(32/6); d01: the 5 ln(32/26)",
            [W[3, j["bm25"]], W[3, j["term"]], W[0, j["the"]]],
            [3 * math.log(8), 5 * math.log(32 / 6), 5 * math.log(32 / 26)], rtol=1e-13)
check_true("absent terms weigh 0, and a term in every document weighs 0 whatever its count",
           np.all(W[counts == 0] == 0) and np.all(tfidf(np.array([[3.0], [1.0]]), np.array([2]), 2) == 0))

# Vector-space retrieval: cosine between the query's and each document's tf-idf vectors.
def query_vector(qid):
    v = np.zeros(len(vocab))
    for t in tc.query_tokens(qid):
        v[vocab.index(t)] += 1
    return tfidf(v, df, tc.N_DOCS)


top1 = {}
for qid in tc.QUERIES:
    qv = query_vector(qid)
    cos = W @ qv / (np.linalg.norm(W, axis=1) * np.linalg.norm(qv))
    top1[qid] = int(np.argmax(cos))
check_true("queries q2-q6: the top cosine match is judged highly relevant (grade 3)",
           all(tc.grades(q)[top1[q]] == 3 for q in ("q2", "q3", "q4", "q5", "q6")),
           f"{ {q: tc.DOC_IDS[i] for q, i in top1.items()} }")
check_true("q1: the keyword-stuffed d04 (judged 0) wins, since raw tf rewards repetition",
           top1["q1"] == 3)

# The page's calculator is checked against tfidf on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): absent and repeated terms, rare terms, and a term in every document.
import cardcalc  # noqa: E402

cardcalc.table(lambda tf, N, df: float(tfidf(np.float64(tf), np.float64(df), N)),
               cardcalc.grid(tf=(0, 1, 5), N=(32, 1_000_000), df=(1, 4, 32)))


# --- in code: scikit-learn ---
from sklearn.feature_extraction.text import TfidfTransformer  # noqa: E402

# TfidfTransformer on the same count matrix. With smooth_idf=False, norm=None its idf is ln(N/df) + 1,
# so its weights are the card's plus the raw counts. Its default (smooth_idf=True, norm="l2") adds one
# document containing every term, idf = ln((1 + N)/(1 + df)) + 1, i.e. the card's formula with N + 1
# documents and df + 1, plus the counts, and then scales each row to unit Euclidean length.
# A log, a product and a sum per weight (and a norm of at most a few hundred terms): 1e-12.
sk_plain = TfidfTransformer(smooth_idf=False, norm=None).fit_transform(counts).toarray()
check_close("pitfall: its idf is ln(N/df) + 1: smooth_idf=False, norm=None gives the card's weights + tf",
            sk_plain - counts, W, rtol=1e-12, atol=1e-12)
plain = TfidfTransformer(smooth_idf=False, norm=None).fit(counts)
check_close("fix: counts * (idf_ - 1) of a smooth_idf=False transformer = the card's weights",
            counts * (plain.idf_ - 1), W, rtol=1e-12, atol=1e-12)
sk_default = TfidfTransformer().fit_transform(counts).toarray()
smoothed = tfidf(counts, df + 1, tc.N_DOCS + 1) + counts
check_close("pitfall: defaults (smooth_idf=True, norm='l2'): (the card at N+1, df+1) + tf, unit rows",
            sk_default, smoothed / np.linalg.norm(smoothed, axis=1, keepdims=True), rtol=1e-12, atol=1e-13)
# --- end in code ---
