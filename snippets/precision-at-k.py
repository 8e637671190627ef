"""Precision@k on the toy corpus: scikit-learn's precision_score, set counting, and its mean under
random orderings (R/N, by enumerating every top-k set of a small pool)."""

from itertools import combinations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import precision_score


# --- formula ---
def precision_at_k(ranked_grades, k: int, min_grade: int = 1) -> float:
    """Fraction of the first k ranked items whose grade is at least min_grade; missing ranks
    (a list shorter than k) count as not relevant, as in trec_eval."""
    top = np.asarray(ranked_grades)[:k]
    return float(np.sum(top >= min_grade) / k)
# --- end formula ---


E = tc.doc_embeddings()
rankings = {q: np.argsort(-(E @ tc.query_embedding(q))) for q in tc.QUERIES}

# 1. A stricter grade threshold, against counting the retrieved set by hand (document ids).
q = "q1"
for k in (3, 5, 10):
    top_ids = {tc.DOC_IDS[i] for i in rankings[q][:k]}
    highly = {d for d, grade in tc.QRELS[q].items() if grade >= 3}
    check_close(f"q1, P@{k} with grade >= 3 as relevant vs |top-{k} ∩ highly relevant| / {k}",
                precision_at_k(tc.grades(q)[rankings[q]], k, min_grade=3), len(top_ids & highly) / k,
                rtol=1e-12)

# 2. Hand value. Dense ranking of q1: d04 (0), d02 (3), d01 (3), d03 (1), d29 (1), d24 (0), ...
check_close("q1 dense ranking: P@1 = 0, P@3 = 2/3, P@5 = 4/5 (hand values)",
            [precision_at_k(tc.grades(q)[rankings[q]], k) for k in (1, 3, 5)], [0.0, 2 / 3, 0.8],
            rtol=1e-12)

# 3. A list shorter than k: trec_eval divides by k, not by the number returned.
check_close("3 results, 2 relevant, k = 10: P@10 = 2/10", precision_at_k([1, 0, 2], 10), 0.2, rtol=1e-12)

# 4. Averaged over every possible top-k set of a pool of N = 10 items with R = 4 relevant, P@k is R/N.
pool = np.array([2, 0, 1, 0, 0, 3, 0, 1, 0, 0])
for k in (1, 3, 6):
    mean_p = np.mean([precision_at_k(pool[list(s)], k) for s in combinations(range(10), k)])
    check_close(f"mean P@{k} over all C(10, {k}) top-{k} sets = R/N = 0.4", mean_p, 0.4, rtol=1e-12)

p_at_r = [precision_at_k(tc.grades(q)[o], len(tc.relevant(q))) for q, o in rankings.items()]
every_p = [precision_at_k(tc.grades(q)[o], k) for q, o in rankings.items() for k in range(1, tc.N_DOCS + 1)]
check_true("P@k never exceeds 1 and equals 1 only if the whole top k is relevant",
           all(0 <= v <= 1 for v in every_p), f"P@R per query: {np.round(p_at_r, 3).tolist()}")

# --- in code: scikit-learn ---
# precision_score of the top-k indicator (1 for the first k documents, 0 for the rest) against
# the binarized judgments is P@k: every query, every depth.
ours, ref = [], []
for query, order in rankings.items():
    g = tc.grades(query)
    for k in range(1, tc.N_DOCS + 1):
        in_top = np.zeros(tc.N_DOCS, dtype=int)
        in_top[order[:k]] = 1
        ours.append(precision_at_k(g[order], k))
        ref.append(precision_score(g >= 1, in_top))
# One division of two counts each: exact up to the last ulp, so 1e-12.
check_close("precision_score(rel >= 1, top-k indicator), 6 queries x k = 1..32 = P@k", ref, ours,
            rtol=1e-12)
# It divides by the documents marked retrieved, not by k: a system that returned only 3 documents
# gets found / 3 where P@10 is found / 10.
order = rankings["q1"]
returned = np.zeros(tc.N_DOCS, dtype=int)
returned[order[:3]] = 1
check_close("pitfall: for a list of 3 it gives found/3; times 3/10 it is P@10",
            precision_score(tc.grades("q1") >= 1, returned) * 3 / 10,
            precision_at_k(tc.grades("q1")[order[:3]], 10), rtol=1e-12)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import P  # noqa: E402
from trec_format import by_query, trec_run  # noqa: E402

dense = {q: E @ tc.query_embedding(q) for q in tc.QUERIES}
full = trec_run(dense)


def trec_p(measure, run=full):
    return by_query(ir_measures.iter_calc([measure], tc.QRELS, run))


# One division of two counts each: exact up to the last ulp, so 1e-12.
for k in (1, 5, 10):
    check_close(f"iter_calc([P@{k}], qrels, run) = the card's P@{k}, every query", trec_p(P@k),
                [precision_at_k(tc.grades(q)[o], k) for q, o in rankings.items()], rtol=1e-12)
check_close("a run of only 3 documents: P@10 still divides by 10, as the card does",
            trec_p(P@10, trec_run(dense, depth=3)),
            [precision_at_k(tc.grades(q)[o[:3]], 10) for q, o in rankings.items()], rtol=1e-12)
check_close("pitfall: any grade >= 1 is relevant; P(rel=3)@5 is the card's P@5 at grade >= 3",
            trec_p(P(rel=3)@5),
            [precision_at_k(tc.grades(q)[o], 5, min_grade=3) for q, o in rankings.items()], rtol=1e-12)
# Equal scores are ranked by document id, descending: with every score tied the top 5 is d32 .. d28.
tied = {q: dict.fromkeys(tc.DOC_IDS, 0.0) for q in tc.QUERIES}
check_close("pitfall: tied scores rank by document id, descending, not as the run lists them",
            trec_p(P@5, tied), [precision_at_k(tc.grades(q)[::-1], 5) for q in tc.QUERIES], rtol=1e-12)
check_true("and that differs from the listed order d01 .. d32",
           trec_p(P@5, tied) != [precision_at_k(tc.grades(q), 5) for q in tc.QUERIES])
# --- end in code ---

depths = np.arange(1, 21)
fig, ax = figure("Precision@k on the toy corpus (mean over 6 queries)", "cut-off k", "precision@k")
bm25_rank = {q: np.argsort(-tc.bm25_reference(tc.query_tokens(q)), kind="stable") for q in tc.QUERIES}
for name, ranks in (("dense (trigram embedding)", rankings), ("BM25", bm25_rank)):
    ax.plot(depths, [np.mean([precision_at_k(tc.grades(q)[o], k) for q, o in ranks.items()])
                     for k in depths], "o-", ms=3, label=name)
ax.set_ylim(0, 1.02)
ax.legend()
