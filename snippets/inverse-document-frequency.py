"""IDF on the toy corpus: vs a direct document count, hand values, limits; idf-weighted matching on q4."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: log(N / df): one ratio and one logarithm
def idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """ln(N / df(t)) for terms present in at least one document."""
    return np.log(n_docs / np.asarray(df, dtype=float))
# --- end formula ---


# Direct count, independent of the corpus helpers' statistics: how many token sets contain the term.
token_sets = [set(d) for d in tc.doc_tokens()]
vocab = sorted(set().union(*token_sets))
n_docs = len(token_sets)
direct_df = np.array([sum(t in s for s in token_sets) for t in vocab])
weights = idf(direct_df, n_docs)
check_close(f"all {len(vocab)} terms: N exp(-idf) recovers the direct document count",
            n_docs * np.exp(-weights),
            direct_df, rtol=1e-12)
check_close("vs the corpus helper's df: same weights", weights, idf([tc.df(t) for t in vocab], tc.N_DOCS),
            rtol=0)
check_close("hand values: 'bm25' in 4 of 32 documents -> ln 8; 'the' in 26 -> ln(32/26); 'hnsw' in 2",
            [weights[vocab.index(t)] for t in ("bm25", "the", "hnsw")],
            [math.log(8), math.log(32 / 26), math.log(16)], rtol=1e-14)
check_true("limits: 0 for a term in every document, ln N for a term in one, decreasing in df",
           idf(32, 32) == 0 and math.isclose(idf(1, 32), math.log(32))
           and np.all(np.diff(idf(np.arange(1, 33), 32)) < 0))
with np.errstate(divide="ignore"):
    check_true("a term absent from the collection (df = 0) has no finite idf", not np.isfinite(idf(0.0, 32)))

# The page's calculator is checked against idf on this grid (cardcalc; the build runs the card's JavaScript
# on the same rows): a term in one document, in some, in every one, in small and large collections.
import cardcalc  # noqa: E402

cardcalc.table(lambda N, df: float(idf(df, N)),
               [row for row in cardcalc.grid(N=(1, 32, 10**6, 10**12), df=(1, 4, 26, 32, 1000, 10**6))
                if row["df"] <= row["N"]])

# --- in code: scikit-learn ---
from sklearn.feature_extraction.text import TfidfTransformer  # noqa: E402

# idf_ is ln(N / df) + 1 computed from the document-term counts: a log and an add, an ulp or two apart.
counts = tc.count_matrix(vocab)
plain = TfidfTransformer(smooth_idf=False).fit(counts).idf_
check_close("TfidfTransformer(smooth_idf=False).fit(counts).idf_ - 1 = ln(N / df), every term", plain - 1,
            weights, rtol=1e-12, atol=1e-15)
check_close("pitfall: the default smooth_idf=True counts one more document holding every term, "
            "idf_ = ln((N + 1) / (df + 1)) + 1", TfidfTransformer().fit(counts).idf_ - 1,
            idf(direct_df + 1, n_docs + 1), rtol=1e-12, atol=1e-15)
# --- end in code ---

# Spärck Jones's use: score a document by the summed idf of the query terms it contains, against plain
# coordination-level matching (the number of query terms it contains). Query q4, top 4.
q = sorted(set(tc.query_tokens("q4")))
w_q = idf([sum(t in s for s in token_sets) for t in q], n_docs)
weighted = np.array([sum(w for t, w in zip(q, w_q, strict=True) if t in s) for s in token_sets])
coordination = np.array([sum(t in s for t in q) for s in token_sets])
top_w = np.argsort(-weighted, kind="stable")[:4]
top_c = np.argsort(-coordination, kind="stable")[:4]
g = tc.grades("q4")
check_true("q4: idf-weighted matching puts only judged-relevant documents in the top 4; plain matching "
           "does not", np.all(g[top_w] > 0) and np.any(g[top_c] == 0),
           f"idf {[tc.DOC_IDS[i] for i in top_w]}, coordination {[tc.DOC_IDS[i] for i in top_c]}")

# Figure: IDF against document frequency for N = 32, with the collection's terms and other variants.
df_grid = np.arange(1, n_docs + 1)
fig, ax = figure("IDF variants against document frequency (N = 32)", "document frequency df(t)", "weight")
ax.plot(df_grid, idf(df_grid, n_docs), label="ln(N / df)")
ax.plot(df_grid, np.log((n_docs - df_grid + 0.5) / (df_grid + 0.5)), "--",
        label="RSJ ln((N − df + 0.5)/(df + 0.5))")
ax.plot(df_grid, np.log(1 + (n_docs - df_grid + 0.5) / (df_grid + 0.5)), ":", label="Lucene ln(1 + ...)")
ax.plot(df_grid, np.log((1 + n_docs) / (1 + df_grid)) + 1, "-.", label="scikit-learn smooth_idf")
ax.scatter(direct_df, weights, s=10, color="black", zorder=3, label="toy-corpus terms")
ax.axhline(0, color="gray", linewidth=0.8)
ax.legend(fontsize=7)
