"""AP and MAP on the toy corpus: scikit-learn's average_precision_score per query, its
label_ranking_average_precision_score for MAP, the area under the step precision-recall curve, and
hand values, including the trec_eval convention for relevant documents never retrieved."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import (
    average_precision_score,
    label_ranking_average_precision_score,
    precision_recall_curve,
)


# --- formula ---
def average_precision(ranked_grades, all_grades, k: int | None = None, min_grade: int = 1) -> float:
    """Sum of precision@i at the ranks i of relevant items (within the first k), over ALL R relevant."""
    rel = np.asarray(ranked_grades)[:k] >= min_grade
    precision_at_i = np.cumsum(rel) / np.arange(1, rel.size + 1)
    return float(np.sum(precision_at_i * rel) / np.sum(np.asarray(all_grades) >= min_grade))


def mean_average_precision(runs, k: int | None = None, min_grade: int = 1) -> float:
    """runs: (ranked grades, all grades) per query."""
    return float(np.mean([average_precision(r, g, k, min_grade) for r, g in runs]))
# --- end formula ---


E = tc.doc_embeddings()
scores = {q: E @ tc.query_embedding(q) for q in tc.QUERIES}        # every document scored, no ties
orders = {q: np.argsort(-s) for q, s in scores.items()}
runs = [(tc.grades(q)[orders[q]], tc.grades(q)) for q in tc.QUERIES]

# 1. Per query, at three grade thresholds, against scikit-learn (which ranks by the scores itself).
for min_grade in (1, 2, 3):
    check_close(f"AP of q1..q6 (grade >= {min_grade}) vs sklearn average_precision_score",
                [average_precision(tc.grades(q)[orders[q]], tc.grades(q), min_grade=min_grade)
                 for q in tc.QUERIES],
                [average_precision_score(tc.grades(q) >= min_grade, scores[q]) for q in tc.QUERIES],
                rtol=1e-12)

# 2. MAP: with every document ranked and no ties, the label-ranking average precision of the
#    query x document relevance matrix is the mean of the per-query APs.
Y = np.stack([tc.grades(q) >= 1 for q in tc.QUERIES]).astype(int)
Sm = np.stack([scores[q] for q in tc.QUERIES])
check_close("MAP over q1..q6 vs sklearn label_ranking_average_precision_score",
            mean_average_precision(runs), label_ranking_average_precision_score(Y, Sm), rtol=1e-12)

# 3. AP is the area under the step precision-recall curve: sum of precision x recall increments.
precision, recall, _ = precision_recall_curve(tc.grades("q6") >= 1, scores["q6"])
check_close("q6: AP = sum over the PR curve of (R_n - R_(n-1)) P_n (sklearn's curve points)",
            average_precision(tc.grades("q6")[orders["q6"]], tc.grades("q6")),
            -np.sum(np.diff(recall) * precision[:-1]), rtol=1e-12)

# 4. Hand value, q1 (6 relevant). Dense ranking: ranks 2, 3, 4, 5 relevant, then d28 at rank 7 and
#    d07 far down. Take the top 7 only (AP@7): relevant at 2, 3, 4, 5, 7 with precisions
#    1/2, 2/3, 3/4, 4/5, 5/7; trec_eval divides by all R = 6, so the missing d07 counts as 0.
hand = (1 / 2 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 7) / 6
check_close("q1 dense AP@7 = (1/2 + 2/3 + 3/4 + 4/5 + 5/7) / 6 (hand value)",
            average_precision(runs[0][0], runs[0][1], k=7), hand, rtol=1e-12)
check_close("a list holding all R relevant items in its top R has AP = 1",
            average_precision([3, 1, 2, 1, 0, 0, 0], [0, 3, 1, 2, 0, 0, 1, 0, 0]), 1.0, rtol=1e-12)
check_close("one relevant item, at rank 4, out of R = 2: AP = (1/4) / 2",
            average_precision([0, 0, 0, 1, 0], [0, 0, 0, 1, 0, 2]), 0.125, rtol=1e-12)
check_close("MAP of two hand-worked runs: (AP 1 + AP 1/8) / 2",
            mean_average_precision([([2, 1], [2, 1, 0]), ([0, 0, 0, 1], [0, 0, 0, 1, 0, 2])]),
            (1 + 0.125) / 2, rtol=1e-12)

check_true("AP lies in [0, 1] and rewards moving a relevant item up",
           average_precision([1, 0, 0, 0], [1, 0, 0, 0]) > average_precision([0, 1, 0, 0], [1, 0, 0, 0])
           and all(0 <= average_precision(r, g) <= 1 for r, g in runs))

# --- in code: scikit-learn ---
# average_precision_score ranks the documents passed by y_score; with every judged document passed
# it is the card's AP (check 1 runs it on every query). Passing only the retrieved top 7 of q1, it
# divides by the 5 relevant documents it was shown, not q1's R = 6: trec_eval's AP@7 times 6/5.
g1, top7 = tc.grades("q1"), orders["q1"][:7]
sk_retrieved = average_precision_score(g1[top7] >= 1, scores["q1"][top7])
# Sums of at most 7 terms in another order: a few ulps, so 1e-12.
check_close("pitfall: passing only the retrieved 7 divides by their 5 relevant, not R = 6",
            sk_retrieved * 5 / 6, average_precision(g1[orders["q1"]], g1, k=7), rtol=1e-12)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import AP  # noqa: E402
from trec_format import by_query, trec_run  # noqa: E402


def trec_ap(measure, run):
    return by_query(ir_measures.iter_calc([measure], tc.QRELS, run))


full = trec_run(scores)
# Sums of at most 7 precisions in C in another order: a few ulps apart, so 1e-12 holds.
check_close("iter_calc([AP], qrels, run): every query = the card's AP (grade >= 1)",
            trec_ap(AP, full), [average_precision(r, g) for r, g in runs], rtol=1e-12)
check_close("calc_aggregate([AP], ...) = the card's MAP",
            ir_measures.calc_aggregate([AP], tc.QRELS, full)[AP], mean_average_precision(runs), rtol=1e-12)
# A run of the top 7 only: trec_eval still divides by all R relevant documents in the qrels.
check_close("a run of the top 7: AP divides by R, so it is the card's AP@7",
            trec_ap(AP, trec_run(scores, depth=7)), [average_precision(r, g, k=7) for r, g in runs],
            rtol=1e-12)
check_close("pitfall: any grade >= 1 counts as relevant; AP(rel=2) is the card's AP at grade >= 2",
            trec_ap(AP(rel=2), full), [average_precision(r, g, min_grade=2) for r, g in runs], rtol=1e-12)
check_true("and the two thresholds give different MAPs",
           abs(np.mean(trec_ap(AP(rel=2), full)) - np.mean(trec_ap(AP, full))) > 0.01)
# Equal scores are ranked by document id, descending: with every score tied, q1's ranking is d32 .. d01.
tied = {q: dict.fromkeys(tc.DOC_IDS, 0.0) for q in tc.QUERIES}
check_close("pitfall: tied scores rank by document id, descending, not as the run lists them",
            trec_ap(AP, tied), [average_precision(tc.grades(q)[::-1], tc.grades(q)) for q in tc.QUERIES],
            rtol=1e-12)
check_true("and that differs from the listed order d01 .. d32",
           any(abs(v - average_precision(tc.grades(q), tc.grades(q))) > 1e-3
               for v, q in zip(trec_ap(AP, tied), tc.QUERIES, strict=True)))
# --- end in code ---

fig, ax = figure("Precision–recall curves on the toy corpus", "recall", "precision")
bm25 = {q: tc.bm25_reference(tc.query_tokens(q)) + 1e-9 * scores[q] for q in tc.QUERIES}  # ties by dense
for q, style in (("q1", "-"), ("q6", "--")):
    for name, s in (("dense", scores[q]), ("BM25", bm25[q])):
        p, r, _ = precision_recall_curve(tc.grades(q) >= 1, s)
        ap = average_precision(tc.grades(q)[np.argsort(-s)], tc.grades(q))
        ax.step(r, p, style, where="post", label=f"{q} {name} (AP {ap:.2f})")
ax.set_xlim(0, 1.02)
ax.set_ylim(0, 1.05)
ax.legend(fontsize=8)
