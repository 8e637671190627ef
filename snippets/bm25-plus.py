"""BM25+ on the toy corpus: delta = 0 is BM25, the k1 = 0 limit, the lower bound, a long-document effect."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def lv_zhai_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """IDF used by Lv and Zhai: ln((N + 1) / df)."""
    return np.log((n_docs + 1) / np.asarray(df, dtype=float))


def bm25_plus(tf: np.ndarray, doc_len: np.ndarray, avgdl: float, idf: np.ndarray, k1: float, b: float,
              delta: float) -> np.ndarray:
    """Sum over the query terms present in each document of idf * (BM25 tf factor + delta).
    tf: documents x query tokens; idf: one weight per query token."""
    norm = k1 * (1 - b + b * doc_len[:, None] / avgdl)
    saturated = np.divide(tf * (k1 + 1), norm + tf, out=np.zeros_like(tf), where=tf > 0)
    return np.sum(np.where(tf > 0, idf * (saturated + delta), 0.0), axis=1)
# --- end formula ---


def score(qid, k1=1.2, b=0.75, delta=1.0, field="text"):
    """BM25+ of every document for a query, inputs counted from the toy corpus."""
    q = tc.query_tokens(qid)
    idf = lv_zhai_idf([tc.df(t, field) for t in q], tc.N_DOCS)
    return bm25_plus(tc.count_matrix(q, field), tc.doc_lengths(field), tc.avgdl(field), idf, k1, b, delta)


def ref_idf(n, N):
    return math.log((N + 1) / n)


# delta = 0 is BM25 (same IDF), for every query and several (k1, b), including b = 0 and b = 1.
for k1, b in ((1.2, 0.75), (2.0, 0.0), (0.5, 1.0)):
    check_close(f"delta = 0, k1 = {k1}, b = {b}: equals the plain-loop BM25, all 6 queries x 32 documents",
                [score(q, k1, b, delta=0.0) for q in tc.QUERIES],
                [tc.bm25_reference(tc.query_tokens(q), k1, b, idf=ref_idf) for q in tc.QUERIES], rtol=1e-12)

# delta adds exactly delta * (sum of the idf of the query terms the document contains).
sets = [set(d) for d in tc.doc_tokens()]
for qid in ("q1", "q5"):
    q = tc.query_tokens(qid)
    matched_idf = np.array([sum(ref_idf(sum(t in s2 for s2 in sets), 32) for t in q if t in s) for s in sets])
    check_close(f"{qid}: BM25+ - BM25 = delta x summed idf of matched terms (delta = 0.7)",
                score(qid, delta=0.7) - score(qid, delta=0.0), 0.7 * matched_idf, rtol=1e-12, atol=1e-12)
# k1 = 0: the tf factor is 1 for any positive count, so the score is (1 + delta) x matched idf.
q5_matched = np.array([sum(ref_idf(sum(t in s2 for s2 in sets), 32) for t in tc.query_tokens("q5") if t in s)
                       for s in sets])
check_close("k1 = 0: score = (1 + delta) x summed idf of matched terms (q5, delta = 1)", score("q5", k1=0.0),
            2.0 * q5_matched, rtol=1e-12)

# Hand-worked: q1 in d28 (133 tokens, avgdl 1086/32 = 33.9375); each of the 4 terms occurs once.
# idf: bm25 ln(33/4), term ln(33/6), frequency ln(33/6), saturation ln(33/2);
# factor = 2.2 / (1.2 (0.25 + 0.75 * 133/33.9375) + 1) + 1 = 2.2 / 4.8270...+ 1.
norm = 1.2 * (0.25 + 0.75 * 133 / 33.9375)
by_hand = (2.2 / (norm + 1) + 1) * (math.log(33 / 4) + 2 * math.log(33 / 6) + math.log(33 / 2))
check_close("hand-worked: q1 in the long survey d28", score("q1")[27], by_hand, rtol=1e-12)

# Lower bound: however long the document, one occurrence is worth at least delta * idf; BM25's share
# vanishes. Pad a document with 10^8 filler tokens.
long_len = np.array([1e8 + 5])
one = bm25_plus(np.array([[1.0]]), long_len, tc.avgdl(), np.array([2.0]), 1.2, 0.75, 1.0)[0]
zero = bm25_plus(np.array([[1.0]]), long_len, tc.avgdl(), np.array([2.0]), 1.2, 0.75, 0.0)[0]
check_true("a 10^8-token document: BM25's contribution ~ 0, BM25+ keeps delta * idf = 2",
           zero < 1e-5 and abs(one - 2.0) < 1e-5 and one > zero, f"BM25 {zero:.2e}, BM25+ {one:.6f}")

# On the toy corpus: BM25+ lifts the long survey d28 for q1 above the short d03 it trails under BM25.
bm25_rank = list(np.argsort(-score("q1", delta=0.0), kind="stable"))
plus_rank = list(np.argsort(-score("q1"), kind="stable"))
check_true("q1: the long survey d28 moves up from BM25 to BM25+ (delta = 1)",
           plus_rank.index(27) < bm25_rank.index(27),
           f"rank of d28: BM25 {bm25_rank.index(27) + 1}, BM25+ {plus_rank.index(27) + 1}")

# rank_bm25's BM25Plus adds delta * idf for absent terms too; that is the same constant for every
# document, so its ranking is exactly BM25's and the lower bound has no effect.
q = tc.query_tokens("q1")
constant = 1.0 * sum(ref_idf(tc.df(t), 32) for t in q)
all_terms = score("q1", delta=0.0) + constant
check_true("delta on every query term (as rank_bm25 does) ranks exactly like BM25, not like BM25+",
           list(np.argsort(-all_terms, kind="stable")) == bm25_rank and bm25_rank != plus_rank)

# The page's calculator is checked against lv_zhai_idf and bm25_plus on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows), one query term at a time: absent and present terms (both sides of
# tf > 0), k1 = 0, b = 0 and 1, documents far shorter and longer than average, and delta = 0 (BM25).
import cardcalc  # noqa: E402


def one_term(tf, dl, avgdl, k1, b, delta, N, df):
    """The idf and the score of the one-term query t in one document with these statistics."""
    idf = lv_zhai_idf([df], N)
    tf_matrix, lengths = np.array([[tf]], dtype=float), np.array([dl], dtype=float)
    return {"idf": float(idf[0]), "score": float(bm25_plus(tf_matrix, lengths, avgdl, idf, k1, b, delta)[0])}


cardcalc.table(one_term, cardcalc.grid(tf=(0, 1, 5), dl=(10, 100, 10**6), avgdl=(33.9375, 100), k1=(0.0, 1.2),
                                       b=(0.0, 0.75, 1.0), delta=(0.0, 1.0), N=(32, 10**6), df=(1, 26)))

# --- in code: rank-bm25 ---
from rank_bm25 import BM25Plus  # noqa: E402

# Same IDF ln((N + 1) / df), same avgdl; sums of a few terms in another order: 1e-12.
docs = tc.doc_tokens()
library = BM25Plus(docs, k1=1.2, b=0.75, delta=1.0).get_scores(q)
idf_q = np.array([ref_idf(tc.df(t), 32) for t in q])
lacking = (tc.count_matrix(q) == 0) @ idf_q            # summed idf of the query terms each document lacks
check_close("pitfall: BM25Plus(docs, k1=1.2).get_scores(q) adds delta x idf for absent query terms too",
            library, score("q1") + 1.0 * lacking, rtol=1e-12)
check_close("fix: subtract delta x the idf of the terms a document lacks to get the card's BM25+",
            library - 1.0 * lacking, score("q1"), rtol=1e-12, atol=1e-12)
check_close("pitfall: the default k1 is 1.5, not 1.2", BM25Plus(docs).get_scores(q),
            score("q1", k1=1.5) + 1.0 * lacking, rtol=1e-12)
# --- end in code ---

# Figure: contribution of one occurrence against relative document length.
rel = np.linspace(0.1, 10, 200)
fig, ax = figure("BM25 vs BM25+ (k1 = 1.2, b = 0.75)", "|d| / avgdl",
                 "contribution / idf")
for tf_value, style in ((1, "-"), (3, "--")):
    base = tf_value * 2.2 / (1.2 * (0.25 + 0.75 * rel) + tf_value)
    ax.plot(rel, base, style, color="C0", label=f"BM25, tf = {tf_value}")
    ax.plot(rel, base + 1.0, style, color="C1", label=f"BM25+ (δ = 1), tf = {tf_value}")
ax.axhline(1.0, color="gray", linewidth=0.8)
ax.set_ylim(0, 3.5)
ax.legend(fontsize=8)
