"""RSJ weight and its IDF form on the toy corpus: direct counts, the BIM log-odds route, sign and limits."""

import math

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
def rsj_weight(n: np.ndarray, N: int, r: np.ndarray, R: int) -> np.ndarray:
    """Robertson-Spärck Jones relevance weight with the 0.5 corrections: n of N documents contain the
    term, r of the R known relevant documents do."""
    n, r = np.asarray(n, dtype=float), np.asarray(r, dtype=float)
    return np.log((r + 0.5) * (N - n - R + r + 0.5) / ((n - r + 0.5) * (R - r + 0.5)))


def rsj_idf(n: np.ndarray, N: int) -> np.ndarray:
    """No relevance information (r = R = 0): log((N - n + 0.5) / (n + 0.5))."""
    return rsj_weight(n, N, 0, 0)
# --- end formula ---


token_sets = [set(d) for d in tc.doc_tokens()]
N = len(token_sets)
terms = sorted({t for q in tc.QUERIES for t in tc.query_tokens(q)})
n = np.array([sum(t in s for s in token_sets) for t in terms])           # direct document counts
w = rsj_idf(n, N)

check_close("hand values: 'bm25' (in 4 of 32) -> ln(28.5 / 4.5); 'search' (in 6) -> ln(26.5 / 6.5)",
            [w[terms.index("bm25")], w[terms.index("search")]], [math.log(28.5 / 4.5), math.log(26.5 / 6.5)],
            rtol=1e-14)
# Route through the Binary Independence Model: with p = 1/2 for relevant documents and the smoothed
# estimate u = (n + 0.5) / (N + 1) for the rest, log[p (1 - u) / (u (1 - p))] is the RSJ IDF.
u = (n + 0.5) / (N + 1)
check_close(f"all {len(terms)} query terms: BIM log-odds with p = 1/2, u = (n + 0.5)/(N + 1)", w,
            np.log(0.5 * (1 - u) / (u * 0.5)), rtol=1e-12)
check_close("sign change exactly at n = N/2: weights at n = 15, 16, 17 of 32",
            rsj_idf(np.array([15, 16, 17]), 32), [math.log(17.5 / 15.5), 0.0, math.log(15.5 / 17.5)],
            rtol=1e-13, atol=1e-15)
the = rsj_idf(sum("the" in s for s in token_sets), N)
check_true("'the' (26 of 32 documents) gets a negative weight; ln(N/n) would give +0.21",
           the < 0, f"RSJ {float(the):.3f}, ln(N/n) {math.log(32 / 26):.3f}")
check_close("rare terms in a large collection: RSJ IDF ~ ln(N/n) (N = 10^7, n = 100, 1000, 10^4)",
            rsj_idf(np.array([100, 1000, 10**4]), 10**7), np.log(10**7 / np.array([100, 1000, 10**4])),
            rtol=1e-3)

# With relevance information: query q1, relevant = judged >= 1. The weight is the log odds ratio of the
# 2 x 2 table (contains t?  x  relevant?), each cell + 0.5; build the table by brute force.
rel = tc.relevant("q1")
R = len(rel)
q1 = tc.query_tokens("q1")
table_weights = []
for t in q1:
    cells = np.full((2, 2), 0.5)
    for i, s in enumerate(token_sets):
        cells[int(t in s), int(i in rel)] += 1
    table_weights.append(math.log(cells[1, 1] * cells[0, 0] / (cells[1, 0] * cells[0, 1])))
r = np.array([sum(t in token_sets[i] for i in rel) for t in q1])
n_q1 = np.array([sum(t in s for s in token_sets) for t in q1])
check_close("q1 with its 6 relevant documents: RSJ weight = log odds ratio of the 0.5-smoothed 2 x 2 table",
            rsj_weight(n_q1, N, r, R), table_weights, rtol=1e-12)
check_true("relevance information raises the weight of terms concentrated in relevant documents",
           np.all(rsj_weight(n_q1, N, r, R) > rsj_idf(n_q1, N)),
           f"r/n per term {dict(zip(q1, [f'{a}/{b}' for a, b in zip(r, n_q1, strict=True)], strict=True))}")

# The page's calculator is checked against rsj_weight and rsj_idf on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), kept to consistent counts (r_t <= R, r_t <= n_t, n_t - r_t <= N - R):
# empty cells, a term in every document, no relevance information, and terms only in relevant documents.
import cardcalc  # noqa: E402

cardcalc.table(lambda N, n, R, r: {"w": float(rsj_weight(n, N, r, R)), "idf": float(rsj_idf(n, N))},
               [row for row in cardcalc.grid(N=(32, 10**7), n=(0, 4, 16, 26, 32), R=(0, 6, 20), r=(0, 3, 6))
                if row["r"] <= min(row["R"], row["n"]) and row["n"] - row["r"] <= row["N"] - row["R"]])
