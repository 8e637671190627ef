"""RRF: list-based fusion checked against a rank-matrix route via scipy, a hand value, and the Borda limit."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import rankdata


# --- formula ---
def rrf(rankings: list[list[str]], k: float = 60.0) -> dict[str, float]:
    """Fuse ranked lists of document ids (best first); absent documents get no term."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for position, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (k + position)
    return fused
# --- end formula ---


# By hand: "a" is 1st in list one, 3rd in list two and absent from list three.
# 1/61 + 1/63 = 0.0163934426 + 0.0158730159 = 0.0322664585
lists = [["a", "b", "c"], ["c", "b", "a"], ["b", "d"]]
check_close("hand value 1/61 + 1/63 for a document in two of three lists", rrf(lists)["a"],
            0.0322664585, rtol=1e-8)

# Three retrievers score the same 40 documents; scipy ranks the score matrix independently.
rng = np.random.default_rng(0)
n_docs = 40
scores = rng.normal(size=(3, n_docs)) + np.linspace(2, 0, n_docs)  # shared signal plus noise
doc_ids = [f"doc{i}" for i in range(n_docs)]
lists = [[doc_ids[i] for i in np.argsort(-s)] for s in scores]
fused = rrf(lists)
ranks = rankdata(-scores, axis=1, method="ordinal")  # 1-based ranks, one row per retriever
check_close("list-based RRF vs rank matrix from scipy.stats.rankdata",
            [fused[d] for d in doc_ids], np.sum(1.0 / (60 + ranks), axis=0))

# Only ranks matter: a monotone transform of one retriever's scores leaves RRF unchanged,
# while summing raw scores (CombSUM) changes its top 10.
warped = scores.copy()
warped[0] = np.exp(3 * warped[0])
fused_warped = rrf([[doc_ids[i] for i in np.argsort(-s)] for s in warped])
combsum_top = np.argsort(-scores.sum(axis=0))[:10]
combsum_warped_top = np.argsort(-warped.sum(axis=0))[:10]
check_true("RRF invariant to a monotone rescaling of one retriever; raw-score sum is not",
           all(np.isclose(fused[d], fused_warped[d]) for d in doc_ids)
           and not np.array_equal(combsum_top, combsum_warped_top))

# Large k: 1/(k + r) ~ 1/k - r/k^2, so RRF orders documents by their total rank (Borda count).
big_k = rrf(lists, k=1e6)
rank_sum = ranks.sum(axis=0)
order_ok = all(big_k[doc_ids[i]] > big_k[doc_ids[j]]
               for i in range(n_docs) for j in range(n_docs) if rank_sum[i] < rank_sum[j])
check_true("k -> infinity: fused order agrees with the sum-of-ranks order on every pair", order_ok)

# The page's calculator is checked against rrf on this grid (cardcalc; the build runs the card's JavaScript
# on the same rows): three lists with d at the given 1-based positions, or absent from a list (rank 0),
# for k = 0, the paper's 60 and a large k.
import cardcalc  # noqa: E402


def lists_placing(*ranks):
    """One ranked list per rank: d at that position behind other documents, or absent where it is 0."""
    return [[f"list{j}-doc{i}" for i in range(max(r - 1, 0))] + ["d"] * (r > 0) + [f"list{j}-last"]
            for j, r in enumerate(ranks)]


cardcalc.table(lambda r1, r2, r3, k: rrf(lists_placing(int(r1), int(r2), int(r3)), k).get("d", 0.0),
               cardcalc.grid(r1=(0, 1, 60, 1000), r2=(0, 1, 7), r3=(0, 2, 500), k=(0.0, 60.0, 1e6)))

position = np.arange(1, 101)
fig, ax = figure("Weight of each rank relative to rank 1", "rank in one list", "(k + 1) / (k + rank)")
for k in (0, 10, 60, 200):
    ax.plot(position, (k + 1) / (k + position), label=f"k = {k}")
ax.set_ylim(0, 1.02)
ax.legend()
