"""MRR on the toy corpus: scikit-learn's label_ranking_average_precision_score when each query has one
relevant document, the first-hit rank found by brute force, the cut-off convention, and hand values."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import label_ranking_average_precision_score


# --- formula ---
def reciprocal_rank(ranked_grades, k: int | None = None, min_grade: int = 1) -> float:
    """1 / (rank of the first relevant item within the first k), or 0 if there is none."""
    hits = np.flatnonzero(np.asarray(ranked_grades)[:k] >= min_grade)
    return 1.0 / (hits[0] + 1) if hits.size else 0.0


def mean_reciprocal_rank(rankings_grades, k: int | None = None, min_grade: int = 1) -> float:
    return float(np.mean([reciprocal_rank(g, k, min_grade) for g in rankings_grades]))
# --- end formula ---


E = tc.doc_embeddings()

# 1. Graded toy queries: brute force, walking down each ranking until the first relevant document.
def first_hit_rank(order, qrels, min_grade):
    for position, doc in enumerate(order, start=1):
        if qrels.get(tc.DOC_IDS[doc], 0) >= min_grade:
            return position
    return None


rankings = {q: np.argsort(-(E @ tc.query_embedding(q))) for q in tc.QUERIES}
for min_grade in (1, 2, 3):
    brute = np.mean([1 / first_hit_rank(o, tc.QRELS[q], min_grade) for q, o in rankings.items()])
    check_close(f"toy queries, MRR with grade >= {min_grade} as relevant vs walking each ranking",
                mean_reciprocal_rank([tc.grades(q)[o] for q, o in rankings.items()], min_grade=min_grade),
                brute, rtol=1e-12)

# 2. Hand values. Dense first hits: q1 rank 2 (d04 is first), q2..q6 rank 1: MRR = (1/2 + 5)/6.
#    With grade >= 3, q6's first highly relevant document (d17) is at rank 4 and q1's at rank 2.
check_close("dense MRR over q1..q6 = (1/2 + 5)/6 (hand value)",
            mean_reciprocal_rank([tc.grades(q)[o] for q, o in rankings.items()]), 5.5 / 6, rtol=1e-12)
check_close("grade >= 3: reciprocal ranks of q1..q6 = 1/2, 1, 1, 1, 1, 1/4 (hand values)",
            [reciprocal_rank(tc.grades(q)[o], min_grade=3) for q, o in rankings.items()],
            [0.5, 1, 1, 1, 1, 0.25], rtol=1e-12)

# 3. The cut-off: MRR@k scores 0 for a query whose first relevant item lies below rank k.
lists = [[0, 0, 1], [0, 0, 0, 0, 2], [3], [0] * 12 + [1]]
check_close("MRR@10 of first hits at ranks 3, 5, 1, 13: (1/3 + 1/5 + 1 + 0)/4",
            mean_reciprocal_rank(lists, k=10), (1 / 3 + 1 / 5 + 1) / 4, rtol=1e-12)
check_close("no cut-off: the fourth query adds 1/13", mean_reciprocal_rank(lists),
            (1 / 3 + 1 / 5 + 1 + 1 / 13) / 4, rtol=1e-12)
check_close("MRR@5 keeps the hit at rank 5, MRR@4 drops it",
            [mean_reciprocal_rank(lists, k=5), mean_reciprocal_rank(lists, k=4)],
            [(1 / 3 + 1 / 5 + 1) / 4, (1 / 3 + 1) / 4], rtol=1e-12)

# 4. Only the first hit matters: moving relevant items other than the first changes nothing.
check_true("relevant items after the first hit do not change the reciprocal rank",
           reciprocal_rank([0, 1, 0, 0, 0]) == reciprocal_rank([0, 1, 3, 2, 1]) == 0.5)

# --- in code: scikit-learn ---
# scikit-learn has no MRR; label_ranking_average_precision_score is MRR when each query has exactly one
# relevant document. Known-item search: each document's title is the query, the document the only
# relevant one.
titles = np.stack([tc.embed(d.title) for d in tc.DOCS])
S = titles @ E.T
labels = np.eye(tc.N_DOCS, dtype=int)
ranked = [labels[i][np.argsort(-S[i])] for i in range(tc.N_DOCS)]
# A mean of 32 reciprocals, summed in another order: a few ulps, so 1e-12.
check_close("label_ranking_average_precision_score = MRR with one relevant document per query",
            label_ranking_average_precision_score(labels, S), mean_reciprocal_rank(ranked), rtol=1e-12)
# With several relevant documents it averages the precision at every relevant rank (MAP), while
# MRR stops at the first: on the six graded toy queries the two differ.
Y = np.stack([tc.grades(q) >= 1 for q in tc.QUERIES]).astype(int)
dense = np.stack([E @ tc.query_embedding(q) for q in tc.QUERIES])
lrap = label_ranking_average_precision_score(Y, dense)
mrr = mean_reciprocal_rank([tc.grades(q)[np.argsort(-s)] for q, s in zip(tc.QUERIES, dense, strict=True)])
check_true("pitfall: with several relevant documents per query it is MAP, not MRR", abs(lrap - mrr) > 0.05,
           f"label-ranking AP {lrap:.4f} vs MRR {mrr:.4f}")
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import RR  # noqa: E402
from trec_format import by_query, trec_run  # noqa: E402

run = trec_run({q: E @ tc.query_embedding(q) for q in tc.QUERIES})
graded = [tc.grades(q)[o] for q, o in rankings.items()]


def trec_rr(measure, run=run):
    return by_query(ir_measures.iter_calc([measure], tc.QRELS, run))


# A reciprocal of a small integer per query, a mean of six: 1e-12 holds.
check_close("iter_calc([RR], qrels, run) = the card's reciprocal rank, every query",
            trec_rr(RR), [reciprocal_rank(g) for g in graded], rtol=1e-12)
check_close("calc_aggregate([RR@1], ...) = MRR@1: a first hit below the cut-off scores 0",
            ir_measures.calc_aggregate([RR@1], tc.QRELS, run)[RR@1], mean_reciprocal_rank(graded, k=1),
            rtol=1e-12)
check_close("pitfall: any grade >= 1 is relevant; RR(rel=3) gives the hand values 1/2, 1, 1, 1, 1, 1/4",
            trec_rr(RR(rel=3)), [reciprocal_rank(g, min_grade=3) for g in graded], rtol=1e-12)
# Equal scores are ranked by document id, descending (d32 first), not in the order the run lists them.
tied = {q: dict.fromkeys(tc.DOC_IDS, 0.0) for q in tc.QUERIES}
check_close("pitfall: tied scores rank by document id, descending",
            trec_rr(RR, tied), [reciprocal_rank(tc.grades(q)[::-1]) for q in tc.QUERIES], rtol=1e-12)
check_true("and that differs from the listed order d01 .. d32",
           trec_rr(RR, tied) != [reciprocal_rank(tc.grades(q)) for q in tc.QUERIES])
# --- end in code ---

ranks = np.arange(1, 21)
fig, ax = figure("Credit for the first relevant hit", "rank of the first relevant item",
                 "score of one query")
ax.plot(ranks, 1 / ranks, "o-", ms=3, label="reciprocal rank 1/rank (MRR)")
ax.step(ranks, (ranks <= 10).astype(float), where="post", label="hit@10")
ax.plot(ranks, 1 / np.log2(ranks + 1), "s:", ms=3, label="nDCG discount 1/log2(rank+1)")
ax.legend()
