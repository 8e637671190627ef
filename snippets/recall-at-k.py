"""Recall@k on the toy corpus: scikit-learn's recall_score, set counting, the bound min(1, k/R), and its
mean under random orderings (k/N, by enumerating every top-k set of a small pool)."""

from itertools import combinations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import recall_score


# --- formula ---
def recall_at_k(ranked_grades, all_grades, k: int, min_grade: int = 1) -> float:
    """Relevant items in the first k ranks over ALL relevant items for the query (retrieved or not)."""
    found = np.sum(np.asarray(ranked_grades)[:k] >= min_grade)
    return float(found / np.sum(np.asarray(all_grades) >= min_grade))
# --- end formula ---


E = tc.doc_embeddings()
rankings = {q: np.argsort(-(E @ tc.query_embedding(q))) for q in tc.QUERIES}

# 1. The denominator counts every relevant document, also those the system never returned:
#    a system that returns only its top 5 for q2 has found 4 of the 6 relevant documents.
q = "q2"
returned = rankings[q][:5]
check_close("q2, only 5 results returned: R@5 = |top-5 ∩ relevant| / |relevant| = 4/6",
            recall_at_k(tc.grades(q)[returned], tc.grades(q), 5),
            len(set(returned) & tc.relevant(q)) / len(tc.relevant(q)), rtol=1e-12)
check_close("q2, top 3 (d30, d07, d05), grade >= 2: 3 of the 4 documents graded 2 or 3",
            recall_at_k(tc.grades(q)[returned[:3]], tc.grades(q), 3, min_grade=2), 0.75, rtol=1e-12)

# 2. Hand values on q1 (6 relevant): dense ranking d04 (0), d02 (3), d01 (3), d03 (1), d29 (1), ...
g1 = tc.grades("q1")
check_close("q1 dense ranking: R@1 = 0, R@3 = 2/6, R@5 = 4/6 (hand values)",
            [recall_at_k(g1[rankings["q1"]], g1, k) for k in (1, 3, 5)], [0.0, 1 / 3, 2 / 3], rtol=1e-12)

# 3. Bounds: recall@k <= min(1, k/R), non-decreasing in k, and 1 once the whole collection is ranked.
curves = np.array([[recall_at_k(tc.grades(q)[o], tc.grades(q), k) for k in range(1, tc.N_DOCS + 1)]
                   for q, o in rankings.items()])
n_rel = np.array([len(tc.relevant(q)) for q in rankings])
ks = np.arange(1, tc.N_DOCS + 1)
check_true("R@k <= min(1, k / R) and non-decreasing in k",
           bool(np.all(curves <= np.minimum(1, ks / n_rel[:, None]) + 1e-12)
                and np.all(np.diff(curves, axis=1) >= 0)))
check_close("R@N = 1 for every query", curves[:, -1], np.ones(len(rankings)), rtol=1e-12)

# 4. Averaged over every top-k set of a pool of N = 10 with R = 4 relevant, recall@k is k/N.
pool = np.array([2, 0, 1, 0, 0, 3, 0, 1, 0, 0])
for k in (1, 4, 7):
    mean_r = np.mean([recall_at_k(pool[list(s)], pool, k) for s in combinations(range(10), k)])
    check_close(f"mean R@{k} over all C(10, {k}) top-{k} sets = k/N = {k / 10}", mean_r, k / 10, rtol=1e-12)

# --- in code: scikit-learn ---
# recall_score of the top-k indicator (1 for the first k documents, 0 for the rest) against the
# binarized judgments of the whole collection is R@k: every query, every depth.
ref = []
for query, order in rankings.items():
    in_top = np.zeros(tc.N_DOCS, dtype=int)
    for k in range(1, tc.N_DOCS + 1):
        in_top[order[k - 1]] = 1
        ref.append(recall_score(tc.grades(query) >= 1, in_top))
# One division of two counts each: exact up to the last ulp, so 1e-12.
check_close("recall_score(rel >= 1, top-k indicator), 6 queries x k = 1..32 = R@k", ref, curves.ravel(),
            rtol=1e-12)
# Its denominator is the relevant documents among those passed: given only the 5 that q2's system
# returned, it finds all it can see, 1.0, where R@5 is 4/6.
check_close("pitfall: on the returned documents alone it gives 1, not R@5 = 4/6",
            [recall_score(tc.grades("q2")[returned] >= 1, np.ones(5, dtype=int)),
             recall_at_k(tc.grades("q2")[returned], tc.grades("q2"), 5)], [1.0, 4 / 6], rtol=1e-12)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import R  # noqa: E402
from trec_format import by_query, trec_run  # noqa: E402

dense = {q: E @ tc.query_embedding(q) for q in tc.QUERIES}


def trec_r(measure, run):
    return by_query(ir_measures.iter_calc([measure], tc.QRELS, run))


# One division of two counts each: exact up to the last ulp, so 1e-12.
for k in (1, 5, 10):
    check_close(f"iter_calc([R@{k}], qrels, run) = the card's R@{k}, every query",
                trec_r(R@k, trec_run(dense)), curves[:, k - 1], rtol=1e-12)
check_close("a run of only the top 5: R@5 still divides by all R relevant documents in the qrels",
            trec_r(R@5, trec_run(dense, depth=5)), curves[:, 4], rtol=1e-12)
check_close("pitfall: any grade >= 1 is relevant; R(rel=2)@5 is the card's R@5 at grade >= 2",
            trec_r(R(rel=2)@5, trec_run(dense)),
            [recall_at_k(tc.grades(q)[o], tc.grades(q), 5, min_grade=2) for q, o in rankings.items()],
            rtol=1e-12)
check_true("and the two thresholds differ", trec_r(R(rel=2)@5, trec_run(dense)) != list(curves[:, 4]))
# --- end in code ---

fig, ax = figure("Recall@k on the toy corpus (mean over 6 queries)", "cut-off k", "recall@k")
bm25_rank = {q: np.argsort(-tc.bm25_reference(tc.query_tokens(q)), kind="stable") for q in tc.QUERIES}
depths = np.arange(1, 21)
for name, ranks in (("dense (trigram embedding)", rankings), ("BM25", bm25_rank)):
    ax.plot(depths, [np.mean([recall_at_k(tc.grades(q)[o], tc.grades(q), k) for q, o in ranks.items()])
                     for k in depths], "o-", ms=3, label=name)
ax.plot(depths, depths / tc.N_DOCS, ":", color="gray", label="random ranking (k/N)")
ax.set_ylim(0, 1.02)
ax.legend()
