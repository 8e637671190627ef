"""R-precision on the toy corpus: scikit-learn's precision_score and recall_score of the top-R set
(precision and recall coincide at depth R), the break-even point of the PR curve, and hand values."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from sklearn.metrics import precision_recall_curve


# --- formula ---
def r_precision(ranked_grades, all_grades, min_grade: int = 1) -> float:
    """Precision of the first R results, R = number of relevant documents for the query."""
    n_rel = int(np.sum(np.asarray(all_grades) >= min_grade))
    return float(np.sum(np.asarray(ranked_grades)[:n_rel] >= min_grade) / n_rel)
# --- end formula ---


E = tc.doc_embeddings()
scores = {q: E @ tc.query_embedding(q) for q in tc.QUERIES}
orders = {q: np.argsort(-s) for q, s in scores.items()}

# --- in code: scikit-learn ---
from sklearn.metrics import precision_score, recall_score  # noqa: E402

# The top-R indicator over all documents as y_pred, relevance (grade >= threshold) as y_true, per
# query and grade threshold. Ratios of the same small integers: 1e-12 holds.
for min_grade in (1, 2, 3):
    ours, prec, rec = [], [], []
    for q in tc.QUERIES:
        g = tc.grades(q)
        n_rel = int(np.sum(g >= min_grade))
        in_top = np.zeros(tc.N_DOCS, dtype=int)
        in_top[orders[q][:n_rel]] = 1
        ours.append(r_precision(g[orders[q]], g, min_grade))
        prec.append(precision_score(g >= min_grade, in_top))
        rec.append(recall_score(g >= min_grade, in_top))
    check_close(f"precision_score(rel, top-R indicator) = R-precision of q1..q6 (grade >= {min_grade})",
                prec, ours, rtol=1e-12)
    check_close(f"recall_score of the same top R gives the same (P@R = R@R), grade >= {min_grade}",
                rec, ours, rtol=1e-12)
try:
    precision_score(tc.grades("q1"), in_top)
    refused = False
except ValueError:
    refused = True
check_true("pitfall: graded judgments (0..3) as y_true are refused as multiclass (ValueError)", refused)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import Rprec  # noqa: E402
from trec_format import by_query, trec_run  # noqa: E402


def trec_rprec(measure, run):
    return by_query(ir_measures.iter_calc([measure], tc.QRELS, run))


# Ratios of small integers: 1e-12 holds.
for min_grade in (1, 2, 3):
    check_close(f"iter_calc([Rprec(rel={min_grade})], qrels, run) = R-precision at grade >= {min_grade}: R "
                "and the hits both use the threshold", trec_rprec(Rprec(rel=min_grade), trec_run(scores)),
                [r_precision(tc.grades(q)[orders[q]], tc.grades(q), min_grade) for q in tc.QUERIES],
                rtol=1e-12)
check_close("a run of only the top 3 (shorter than every R): it still divides by R",
            trec_rprec(Rprec, trec_run(scores, depth=3)),
            [r_precision(tc.grades(q)[orders[q][:3]], tc.grades(q)) for q in tc.QUERIES], rtol=1e-12)
# Equal scores are ranked by document id, descending (d32 first), not in the order the run lists them.
tied = {q: dict.fromkeys(tc.DOC_IDS, 0.0) for q in tc.QUERIES}
check_close("pitfall: tied scores rank by document id, descending",
            trec_rprec(Rprec, tied), [r_precision(tc.grades(q)[::-1], tc.grades(q)) for q in tc.QUERIES],
            rtol=1e-12)
check_true("and that differs from the listed order d01 .. d32",
           trec_rprec(Rprec, tied) != [r_precision(tc.grades(q), tc.grades(q)) for q in tc.QUERIES])
# --- end in code ---

# 1. The break-even point: on the precision-recall curve, the point where precision equals recall
#    is the cut at depth R (sklearn's curve points, one per distinct score).
q = "q2"
p, r, _ = precision_recall_curve(tc.grades(q) >= 1, scores[q])
even = np.flatnonzero(np.isclose(p, r) & (r > 0))
check_true("q2: the PR curve has a break-even point", even.size >= 1, f"{even.size} point(s)")
check_close("q2: the PR curve's break-even point (P = R) is R-precision",
            p[even], [r_precision(tc.grades(q)[orders[q]], tc.grades(q))] * even.size, rtol=1e-12)

# 2. Hand values. q1 has R = 6; its dense top 6 is d04, d02, d01, d03, d29, d24 -> 4 relevant.
#    q3 has R = 4 (d19, d20, d22, d21); dense top 4 is d20, d10, d19, d31 -> 2 relevant.
check_close("q1: 4/6 and q3: 2/4 (hand values)",
            [r_precision(tc.grades(x)[orders[x]], tc.grades(x)) for x in ("q1", "q3")], [4 / 6, 0.5],
            rtol=1e-12)
check_close("graded: q3 with grade >= 3 has R = 2 (d19, d20); its dense top 2 holds d20 only -> 1/2",
            r_precision(tc.grades("q3")[orders["q3"]], tc.grades("q3"), min_grade=3), 0.5, rtol=1e-12)
check_close("short example: R = 3, top 3 = [rel, not, rel] -> 2/3",
            r_precision([2, 0, 1, 1, 0], [2, 0, 1, 1, 0, 0]), 2 / 3, rtol=1e-12)

check_true("a perfect ranking has R-precision 1 whatever R is",
           all(r_precision(np.sort(tc.grades(x))[::-1], tc.grades(x)) == 1.0 for x in tc.QUERIES))
