"""Hit rate@k on the toy corpus: scikit-learn's top_k_accuracy_score on known-item search (one relevant
document per query), the first-relevant-rank form, and its mean under random orderings (hypergeometric)."""

from itertools import combinations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import hypergeom


# --- formula ---
def hit_at_k(ranked_grades, k: int, min_grade: int = 1) -> float:
    """1 if at least one of the first k ranked items is relevant, else 0."""
    return float(np.any(np.asarray(ranked_grades)[:k] >= min_grade))


def hit_rate_at_k(rankings_grades, k: int, min_grade: int = 1) -> float:
    """Mean of hit@k over queries."""
    return float(np.mean([hit_at_k(g, k, min_grade) for g in rankings_grades]))
# --- end formula ---


E = tc.doc_embeddings()

# 1. Known-item search: each document's title is a query whose only relevant document is that
#    document; its ranking sorts the documents by score (the In code section checks scikit-learn here).
titles = np.stack([tc.embed(d.title) for d in tc.DOCS])
S = titles @ E.T                        # 32 title-queries x 32 documents
truth = np.arange(tc.N_DOCS)
ranked = [np.eye(tc.N_DOCS, dtype=int)[i][np.argsort(-S[i])] for i in truth]
ks = [1, 2, 3, 5, 10]
rank_of_truth = [1 + int(np.count_nonzero(S[i] > S[i, i])) for i in truth]
check_close("known-item search, k = 1, 2, 3, 5, 10: hit rate = share of queries with rank <= k",
            [hit_rate_at_k(ranked, k) for k in ks],
            [np.mean(np.array(rank_of_truth) <= k) for k in ks], rtol=1e-12)

# 2. Graded toy queries (several relevant documents): hit@k = 1[rank of the first relevant <= k].
rankings = {q: np.argsort(-(E @ tc.query_embedding(q))) for q in tc.QUERIES}
first = {q: 1 + int(np.flatnonzero(tc.grades(q)[o] >= 1)[0]) for q, o in rankings.items()}
first3 = {q: 1 + int(np.flatnonzero(tc.grades(q)[o] >= 3)[0]) for q, o in rankings.items()}
for k in (1, 2, 4):
    check_close(f"toy queries, hit@{k} per query vs 1[first relevant rank <= {k}] (grades >= 1, >= 3)",
                [[hit_at_k(tc.grades(q)[o], k), hit_at_k(tc.grades(q)[o], k, min_grade=3)]
                 for q, o in rankings.items()],
                [[first[q] <= k, first3[q] <= k] for q in rankings], rtol=1e-12)
check_close("toy queries, hit rate@1 = 5/6 (q1's dense top hit is the stuffed d04)",
            hit_rate_at_k([tc.grades(q)[o] for q, o in rankings.items()], 1), 5 / 6, rtol=1e-12)

# 3. Under a random ordering of N = 10 items with R = 3 relevant, the chance of a hit in the top k is
#    1 - C(N - R, k) / C(N, k): enumerate every top-k set and compare with scipy's hypergeometric law.
pool = np.array([0, 2, 0, 0, 1, 0, 0, 3, 0, 0])
for k in (1, 3, 5):
    mean_hit = hit_rate_at_k([pool[list(s)] for s in combinations(range(10), k)], k)
    check_close(f"mean hit@{k} over all C(10, {k}) top-{k} sets vs 1 - hypergeom.pmf(0; 10, 3, {k})",
                mean_hit, 1 - hypergeom.pmf(0, 10, 3, k), rtol=1e-12)

check_true("an empty top k (no relevant item) scores 0, one relevant item at rank k scores 1",
           hit_at_k([0, 0, 0, 2], 3) == 0.0 and hit_at_k([0, 0, 1], 3) == 1.0)

# --- in code: scikit-learn ---
from sklearn.metrics import top_k_accuracy_score  # noqa: E402

# One row of scores per query, one column per document, y_true the relevant document's column:
# known-item search only (one relevant document per query). Means of 32 zeros and ones: exact.
check_close("top_k_accuracy_score(truth, S, k=k) = HR@k, k = 1, 2, 3, 5, 10",
            [top_k_accuracy_score(truth, S, k=k, labels=truth) for k in ks],
            [hit_rate_at_k(ranked, k) for k in ks], rtol=1e-12)
check_close("pitfall: normalize=False returns the number of hits, HR@3 times the 32 queries",
            top_k_accuracy_score(truth, S, k=3, labels=truth, normalize=False),
            hit_rate_at_k(ranked, 3) * tc.N_DOCS, rtol=1e-12)
# Ties: the relevant document 0 ties document 2 for the top score. A ranking that keeps the tied
# documents in index order (a stable sort) puts document 0 first, a hit at k = 1; scikit-learn
# takes the higher column first, so it counts a miss.
tied = np.array([[0.9, 0.1, 0.9, 0.3]])
stable_rank = np.eye(4, dtype=int)[0][np.argsort(-tied[0], kind="stable")]
check_true("pitfall: on a tie scikit-learn ranks the higher column first (miss), a stable sort the "
           "lower (hit)", top_k_accuracy_score([0], tied, k=1, labels=range(4)) == 0.0
           and hit_at_k(stable_rank, 1) == 1.0)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import Success  # noqa: E402
from trec_format import trec_run  # noqa: E402

# Success@k is trec_eval's success_k: 1 if a relevant document is in the top k. On the six graded
# toy queries (several relevant documents each), at a strict threshold so that some queries miss.
run = trec_run({q: E @ tc.query_embedding(q) for q in tc.QUERIES})
graded = [tc.grades(q)[o] for q, o in rankings.items()]
for k in (1, 3):
    # A mean of six zeros and ones: exact.
    check_close(f"calc_aggregate([Success(rel=3)@{k}], qrels, run) = HR@{k} at grade >= 3",
                ir_measures.calc_aggregate([Success(rel=3)@k], tc.QRELS, run)[Success(rel=3)@k],
                hit_rate_at_k(graded, k, min_grade=3), rtol=1e-12)
check_close("pitfall: the default rel=1 counts any grade >= 1 as a hit",
            ir_measures.calc_aggregate([Success@1], tc.QRELS, run)[Success@1], hit_rate_at_k(graded, 1),
            rtol=1e-12)
check_true("and the two thresholds differ at k = 1",
           hit_rate_at_k(graded, 1) != hit_rate_at_k(graded, 1, min_grade=3))
# --- end in code ---

depths = np.arange(1, 21)
fig, ax = figure("Hit rate@k, known-item search by title (32 queries)", "cut-off k", "hit rate@k")
ax.plot(depths, [hit_rate_at_k(ranked, k) for k in depths], "o-", ms=3, label="dense (trigram embedding)")
ax.plot(depths, depths / tc.N_DOCS, ":", color="gray", label="random ranking (k/N)")
ax.set_ylim(0, 1.02)
ax.legend()
