"""BM25F on the toy corpus (title, body): one field is BM25, a weight is field repetition, one saturation."""

import math
from collections import Counter

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
def bm25f(tf: np.ndarray, lengths: np.ndarray, avg: np.ndarray, weights: np.ndarray, bs: np.ndarray,
          idf: np.ndarray, k1: float) -> np.ndarray:
    """Robertson-Zaragoza BM25F. tf: fields x documents x query tokens; lengths: fields x documents;
    avg, weights, bs: one per field; idf: one per query token. Returns one score per document."""
    norm = 1 - bs[:, None] + bs[:, None] * lengths / avg[:, None]           # B_f(d)
    pseudo = np.sum(weights[:, None, None] * tf / norm[:, :, None], axis=0)  # combined tf per term
    return np.sum(idf * pseudo / (k1 + pseudo), axis=1)
# --- end formula ---


def field_inputs(qid, fields, docs_by_field=None):
    """Counts, lengths and average lengths per field, counted directly with Counter."""
    q = tc.query_tokens(qid)
    docs_by_field = docs_by_field or {f: tc.doc_tokens(f) for f in fields}
    tf = np.array([[[Counter(d)[t] for t in q] for d in docs_by_field[f]] for f in fields], dtype=float)
    lengths = np.array([[len(d) for d in docs_by_field[f]] for f in fields], dtype=float)
    return tf, lengths, lengths.mean(axis=1)


def rsj(qid):
    """RSJ IDF of each query token, document frequency over whole documents (title + body)."""
    sets = [set(d) for d in tc.doc_tokens("text")]
    return np.array([tc.rsj_idf(sum(t in s for s in sets), len(sets)) for t in tc.query_tokens(qid)])


one = np.ones(1)
# One field with weight 1 is BM25 (up to BM25F's missing factor k1 + 1, which changes no ranking).
for k1, b in ((1.2, 0.75), (2.0, 0.0), (0.9, 1.0)):
    got = [(k1 + 1) * bm25f(*field_inputs(q, ["text"]), one, np.array([b]), rsj(q), k1) for q in tc.QUERIES]
    check_close(f"single field, k1 = {k1}, b = {b}: (k1 + 1) x BM25F = plain-loop BM25, 6 queries",
                got, [tc.bm25_reference(tc.query_tokens(q), k1, b) for q in tc.QUERIES], rtol=1e-12)
# Two fields with weight 1 and no length normalization: the combined count is the whole-document count.
tf2, len2, avg2 = field_inputs("q5", ["title", "body"])
check_close("title + body, weights 1, b_f = 0: (k1 + 1) x BM25F = BM25 with b = 0 on the whole text",
            2.2 * bm25f(tf2, len2, avg2, np.ones(2), np.zeros(2), rsj("q5"), 1.2),
            tc.bm25_reference(tc.query_tokens("q5"), 1.2, 0.0), rtol=1e-12)

# Field weight = field repetition: weight 3 on the title equals weight 1 on a corpus whose titles are
# written out three times (their lengths and the average length triple, so B_f is unchanged).
weights, bs = np.array([3.0, 1.0]), np.array([0.6, 0.75])
tripled = {"title": [d * 3 for d in tc.doc_tokens("title")], "body": tc.doc_tokens("body")}
for qid in ("q2", "q5"):
    weighted = bm25f(*field_inputs(qid, ["title", "body"]), weights, bs, rsj(qid), 1.2)
    repeated = bm25f(*field_inputs(qid, ["title", "body"], tripled), np.ones(2), bs, rsj(qid), 1.2)
    check_close(f"{qid}: title weight 3 = title repeated three times with weight 1", weighted, repeated,
                rtol=1e-12)

# Counts of q5 in d08: title "Approximate nearest neighbour search" (4 tokens) and a 30-token body.
tf8, len8, avg8 = field_inputs("q5", ["title", "body"])
q5 = tc.query_tokens("q5")
idf5 = rsj("q5")
check_close("d08 counts: title (approximate, nearest, neighbour) once each; body approximate 1, nearest 2",
            [tf8[0, 7, q5.index("nearest")], tf8[1, 7, q5.index("nearest")],
             tf8[1, 7, q5.index("approximate")]],
            [1, 2, 1], rtol=0)

# One saturation over the combined count: adding per-field BM25 scores instead double-counts a term
# that appears in both title and body.
per_field = sum(bm25f(tf8[[f]], len8[[f]], avg8[[f]], weights[[f]], bs[[f]], idf5, 1.2) for f in range(2))
combined = bm25f(tf8, len8, avg8, weights, bs, idf5, 1.2)
both = np.all(tf8 > 0, axis=0).any(axis=1)
check_true("documents with a query term in both fields: BM25F < sum of per-field BM25 scores",
           np.all(combined[both] < per_field[both]) and both.sum() > 0, f"{int(both.sum())} such documents")

# Up-weighting titles helps documents whose title names the topic: d08's title holds three q5 terms,
# d09's ("Product quantization") none.
flat = bm25f(tf8, len8, avg8, np.ones(2), bs, idf5, 1.2)
gain = combined - flat
check_true("q5: title weight 3 instead of 1 raises d08's score; d09's stays the same",
           gain[7] > 0.1 and abs(gain[8]) < 1e-12, f"gain d08 {gain[7]:.3f}, d09 {gain[8]:.3f}")
check_true("BM25F scores stay below the summed idf of the query (the saturation ceiling)",
           np.all(combined < np.clip(idf5, 0, None).sum() + 1e-12) and math.isfinite(combined.sum()))
