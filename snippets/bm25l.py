"""BM25L on the toy corpus: delta = 0 is BM25, b = 0 by direct count, hand value, limits, ungated variant."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def bm25l_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """IDF used by Lv and Zhai for BM25L: ln((N + 1) / (df + 0.5))."""
    return np.log((n_docs + 1) / (np.asarray(df, dtype=float) + 0.5))


def bm25l(tf: np.ndarray, doc_len: np.ndarray, avgdl: float, idf: np.ndarray, k1: float, b: float,
          delta: float) -> np.ndarray:
    """Sum over the query terms present in each document of idf * (k1 + 1)(c' + delta) / (k1 + c' + delta),
    c' = tf / (1 - b + b |d| / avgdl). tf: documents x query tokens; idf: one weight per query token."""
    shifted = tf / (1 - b + b * doc_len[:, None] / avgdl) + delta
    factor = (k1 + 1) * shifted / (k1 + shifted)
    return np.sum(np.where(tf > 0, idf * factor, 0.0), axis=1)
# --- end formula ---


def score(qid, k1=1.2, b=0.75, delta=0.5):
    q = tc.query_tokens(qid)
    idf = bm25l_idf([tc.df(t) for t in q], tc.N_DOCS)
    return bm25l(tc.count_matrix(q), tc.doc_lengths(), tc.avgdl(), idf, k1, b, delta)


def ref_idf(n, N):
    return math.log((N + 1) / (n + 0.5))


for k1, b in ((1.2, 0.75), (2.0, 0.0), (0.8, 1.0)):
    check_close(f"delta = 0, k1 = {k1}, b = {b}: equals the plain-loop BM25, all 6 queries x 32 documents",
                [score(q, k1, b, delta=0.0) for q in tc.QUERIES],
                [tc.bm25_reference(tc.query_tokens(q), k1, b, idf=ref_idf) for q in tc.QUERIES], rtol=1e-12)

# b = 0: c' is the raw count; compute (k1 + 1)(tf + delta) / (k1 + tf + delta) term by term from the tokens.
docs = tc.doc_tokens()
q5 = tc.query_tokens("q5")
direct = []
for d in docs:
    total = 0.0
    for t in q5:
        f = d.count(t)
        if f:
            total += ref_idf(sum(t in other for other in docs), 32) * 2.2 * (f + 0.5) / (1.2 + f + 0.5)
    direct.append(total)
check_close("b = 0, delta = 0.5: q5 scores vs a direct term-by-term count", score("q5", b=0.0), direct,
            rtol=1e-12)

# Hand-worked: q1 in d28 (133 tokens, avgdl 1086/32); each of the 4 terms once, so c' = 1 / norm.
norm = 0.25 + 0.75 * 133 / 33.9375
shift = 1 / norm + 0.5
by_hand = 2.2 * shift / (1.2 + shift) * (math.log(33 / 4.5) + 2 * math.log(33 / 6.5) + math.log(33 / 2.5))
check_close("hand-worked: q1 in the long survey d28 (delta = 0.5)", score("q1")[27], by_hand, rtol=1e-12)

# Limits of one matched term (idf = 1): length -> infinity keeps (k1 + 1) delta / (k1 + delta);
# tf -> infinity saturates at k1 + 1; absent terms give 0.
huge = bm25l(np.array([[1.0]]), np.array([1e9]), 30.0, np.array([1.0]), 1.2, 0.75, 0.5)[0]
many = bm25l(np.array([[1e9]]), np.array([30.0]), 30.0, np.array([1.0]), 1.2, 0.75, 0.5)[0]
absent = bm25l(np.array([[0.0]]), np.array([30.0]), 30.0, np.array([1.0]), 1.2, 0.75, 0.5)[0]
check_close("limits: |d| -> inf gives 2.2 x 0.5 / 1.7; tf -> inf gives 2.2; absent term gives 0",
            [huge, many, absent], [2.2 * 0.5 / 1.7, 2.2, 0.0], rtol=1e-6, atol=1e-12)

# Long documents: the survey d28 moves up for q1 compared with BM25.
bm25_rank = list(np.argsort(-score("q1", delta=0.0), kind="stable"))
l_rank = list(np.argsort(-score("q1"), kind="stable"))
check_true("q1: the long survey d28 ranks higher under BM25L (delta = 0.5) than under BM25",
           l_rank.index(27) < bm25_rank.index(27),
           f"rank of d28: BM25 {bm25_rank.index(27) + 1}, BM25L {l_rank.index(27) + 1}")

# Without the gate, absent terms get the shifted factor too (c' = 0 still gets delta). That credits
# each document (k1 + 1) delta / (k1 + delta) x idf for every query term it LACKS.
q = tc.query_tokens("q1")
idf_q = np.array([ref_idf(tc.df(t), 32) for t in q])
missing = (tc.count_matrix(q) == 0) @ idf_q
ungated = score("q1") + 2.2 * 0.5 / 1.7 * missing
check_true("the ungated variant is not BM25L plus a constant: the bonus differs between documents",
           np.ptp(ungated - score("q1")) > 0.5, f"bonus ranges over {np.ptp(ungated - score('q1')):.2f}")

# The page's calculator is checked against bm25l_idf and bm25l on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows), one query term at a time: absent and present terms (both sides of
# tf > 0), k1 = 0, b = 0 and 1, documents far shorter and longer than average, and delta = 0 (BM25).
import cardcalc  # noqa: E402


def one_term(tf, dl, avgdl, k1, b, delta, N, df):
    """The idf and the score of the one-term query t in one document with these statistics."""
    idf = bm25l_idf([df], N)
    tf_matrix, lengths = np.array([[tf]], dtype=float), np.array([dl], dtype=float)
    return {"idf": float(idf[0]), "score": float(bm25l(tf_matrix, lengths, avgdl, idf, k1, b, delta)[0])}


# An absent term with k1 = delta = 0 computes 0/0, which bm25l's tf > 0 gate then discards.
with np.errstate(invalid="ignore"):
    cardcalc.table(one_term, cardcalc.grid(tf=(0, 1, 5), dl=(10, 100, 10**6), avgdl=(33.9375, 100),
                                           k1=(0.0, 1.2), b=(0.0, 0.75, 1.0), delta=(0.0, 0.5), N=(32, 10**6),
                                           df=(1, 26)))

# --- in code: rank-bm25 ---
from rank_bm25 import BM25L  # noqa: E402

# Same IDF ln(N + 1) - ln(df + 0.5), same avgdl; sums of a few terms in another order: 1e-12.
okapi_l = BM25L(docs, k1=1.2, b=0.75, delta=0.5)
library = okapi_l.get_scores(q)
tf_q1 = tc.count_matrix(q)
per_term = [bm25l(tf_q1[:, [j]], tc.doc_lengths(), tc.avgdl(), idf_q[[j]], 1.2, 0.75, 0.5)
            for j in range(len(q))]
check_close("pitfall: BM25L(docs, k1=1.2).get_scores(q) multiplies each term's contribution by its count tf",
            library, sum(tf_q1[:, j] * per_term[j] for j in range(len(q))), rtol=1e-12)
once = np.all(tf_q1 <= 1, axis=1)
check_true("so it equals the card where each query term occurs at most once, and exceeds it elsewhere "
           "(d04: counts 3, 5, 5)", np.allclose(library[once], score("q1")[once], rtol=1e-12)
           and library[3] > 3 * score("q1")[3], f"d04: rank-bm25 {library[3]:.2f}, card {score('q1')[3]:.2f}")
check_close("pitfall: the default k1 is 1.5, not 1.2", BM25L(docs).get_scores(q)[once],
            score("q1", k1=1.5)[once], rtol=1e-12)
# The fix: the card's sum from the model's own statistics (its idf, term counts and lengths).
own_tf = np.array([[doc.get(t, 0) for t in q] for doc in okapi_l.doc_freqs], dtype=float)
check_close("fix: bm25l() on the model's idf, doc_freqs, doc_len and avgdl is the card's BM25L",
            bm25l(own_tf, np.array(okapi_l.doc_len, dtype=float), okapi_l.avgdl,
                  np.array([okapi_l.idf[t] for t in q]), 1.2, 0.75, 0.5), score("q1"), rtol=1e-12)
# --- end in code ---

# Figure: tf factor against the length-normalized count c'.
c = np.linspace(0, 8, 400)
fig, ax = figure("BM25L shifts the normalized count by δ (k1 = 1.2)",
                 "normalized count c' = tf / (1 − b + b|d|/avgdl)",
                 "tf factor")
ax.plot(c, 2.2 * c / (1.2 + c), label="BM25: (k1+1) c' / (k1 + c')")
for d in (0.5, 1.0):
    ax.plot(c[c > 0], 2.2 * (c[c > 0] + d) / (1.2 + c[c > 0] + d), label=f"BM25L, δ = {d} (0 at c' = 0)")
ax.axhline(2.2, color="gray", linewidth=0.8)
ax.legend(fontsize=8)
