"""RAGAS context precision: hand-labelled examples, scikit-learn's average_precision_score, a brute-force
rank-by-rank route, the no-relevant-chunk branch, and the gap to plain precision@K."""

from fractions import Fraction

import numpy as np
import ragas_fixture as rf
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import average_precision_score


# --- formula ---
def context_precision(verdicts) -> float:
    """sum_k precision@k * v_k over the K retrieved chunks, divided by the number of relevant chunks
    among them; 0 when none of the K chunks is relevant (the ragas library returns 0 there too)."""
    v = np.asarray(verdicts, dtype=float)
    n_relevant = np.sum(v)
    if n_relevant == 0:
        return 0.0
    precision_at_k = np.cumsum(v) / np.arange(1, v.size + 1)
    return float(np.sum(precision_at_k * v) / n_relevant)
# --- end formula ---


def useful(doc: str, reference) -> int:
    """Stand-in for the judge: a chunk is useful if it states at least one fact of the reference answer."""
    return int(any(rf.DOC_FACTS[doc] & facts for _, facts in reference))


# 1. Hand-labelled examples (verdicts from the fact labels; values worked out by hand).
hand = {"q1": ([0, 1, 0, 1, 0], Fraction(1, 2) * (Fraction(1, 2) + Fraction(2, 4))),
        "q4": ([1, 0, 0, 0, 0], Fraction(1)),
        "q5": ([0, 1, 1, 0, 0], Fraction(1, 2) * (Fraction(1, 2) + Fraction(2, 3)))}
for qid, (expected_v, value) in hand.items():
    ex = rf.EXAMPLES[qid]
    v = [useful(d, ex["reference"]) for d in ex["retrieved"]]
    check_true(f"{qid}: judged verdicts for {ex['retrieved']} are {expected_v}", v == expected_v)
    check_close(f"{qid}: context precision = {value} (by hand)", context_precision(v), float(value),
                rtol=1e-12)

# 2. Brute force over every verdict pattern of length 1..8 vs scikit-learn, which ranks by score
#    (here: earlier rank = higher score) and averages precision over the relevant items present.
#    Also a rank-by-rank route: the mean, over relevant chunks, of (relevant at or above it) / (its rank).
worst = 0.0
n_checked = 0
for K in range(1, 9):
    for code in range(1, 2 ** K):
        v = [(code >> (K - 1 - i)) & 1 for i in range(K)]
        got = context_precision(v)
        sk = average_precision_score(v, -np.arange(K)) if 0 < sum(v) else 0.0
        ranks = [i + 1 for i in range(K) if v[i]]
        by_rank = np.mean([(j + 1) / r for j, r in enumerate(ranks)])
        worst = max(worst, abs(got - sk), abs(got - by_rank))
        n_checked += 1
check_close(f"all {n_checked} non-empty verdict patterns, K = 1..8: vs sklearn and the rank-by-rank mean",
            worst, 0.0, atol=1e-12)

# 3. Branches and limits.
check_close("no relevant chunk among K = 5: score 0 (not a division by zero)",
            context_precision([0] * 5), 0.0)
check_close("one relevant chunk at rank r scores 1 / r (r = 1..6)",
            [context_precision([0] * (r - 1) + [1] + [0] * (6 - r)) for r in range(1, 7)],
            [1 / r for r in range(1, 7)], rtol=1e-12)
check_close("trailing irrelevant chunks change nothing: [1, 0, 1] and [1, 0, 1, 0, 0, 0]",
            context_precision([1, 0, 1, 0, 0, 0]), context_precision([1, 0, 1]), rtol=1e-12)

# 4. On the toy corpus: rank by BM25, keep K = 5, judge a chunk relevant if its grade is >= 1.
#    Context precision differs from the seed's precision@K and from AP over all relevant documents.
rows = []
for qid in tc.QUERIES:
    top = np.argsort(-tc.bm25_reference(tc.query_tokens(qid)), kind="stable")[:5]
    g = tc.grades(qid)
    v = (g[top] >= 1).astype(int)
    cp = context_precision(v)
    p_at_k = v.mean()
    ap_all = np.sum(np.cumsum(v) / np.arange(1, 6) * v) / np.sum(g >= 1)
    rows.append((qid, cp, p_at_k, ap_all, v))
check_true("toy corpus, BM25 top 5: context precision >= AP@5 over all relevant docs, every query",
           all(cp >= ap - 1e-12 for _, cp, _, ap, _ in rows),
           "; ".join(f"{q} {''.join(map(str, v))}: CP {cp:.3f}, P@5 {p:.2f}, AP@5 {ap:.3f}"
                     for q, cp, p, ap, v in rows))
check_true("and it differs from precision@5 on at least one query",
           any(abs(cp - p) > 1e-9 for _, cp, p, _, _ in rows))

fig, ax = figure("Where the relevant chunk sits matters; precision@K does not see it",
                 "rank of the single relevant chunk (K = 10)", "score")
r = np.arange(1, 11)
ax.plot(r, [context_precision([0] * (k - 1) + [1] + [0] * (10 - k)) for k in r], "o-",
        label="context precision")
ax.plot(r, np.full(10, 0.1), "s--", label="precision@10 (seed's form)")
ax.legend()
