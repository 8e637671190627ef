"""nDCG: checked against a hand-computed DCG and against brute-force search over all orderings for IDCG."""

from itertools import permutations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def dcg(rels: np.ndarray, k: int, gain: str = "linear") -> float:
    """DCG@k of relevance grades listed in ranked order (best first)."""
    r = np.asarray(rels, dtype=float)[:k]
    g = r if gain == "linear" else 2.0**r - 1.0
    return float(np.sum(g / np.log2(np.arange(2, len(r) + 2))))


def ndcg(ranked: np.ndarray, judged: np.ndarray, k: int, gain: str = "linear") -> float:
    """nDCG@k; the ideal ordering sorts every judged grade for the query, retrieved or not."""
    return dcg(ranked, k, gain) / dcg(np.sort(judged)[::-1], k, gain)
# --- end formula ---


ranked = np.array([3, 2, 3, 0, 1, 2])
# By hand: 3/1 + 2/log2(3) + 3/2 + 0/log2(5) + 1/log2(6) + 2/log2(7)
#        = 3 + 1.2618595 + 1.5 + 0 + 0.3868528 + 0.7124143 = 6.8611267
check_close("DCG@6 of [3, 2, 3, 0, 1, 2] vs hand value", dcg(ranked, 6), 6.8611267, rtol=1e-7)

check_close("DCG@4 (cut-off inside the list) of [3, 2, 3, 0]: 3 + 1.2618595 + 1.5 + 0",
            dcg(ranked, 4), 5.7618595, rtol=1e-7)

# Exponential gain 2^r - 1 with graded labels (gains 0, 1, 3, 7, 15 for r = 0..4), by hand:
# [3, 2, 3, 0, 1, 2]: 7/1 + 3/log2(3) + 7/2 + 0 + 1/log2(6) + 3/log2(7)
#                   = 7 + 1.8927893 + 3.5 + 0 + 0.3868528 + 1.0686215 = 13.8482636
check_close("DCG@6, gain 2^r - 1, of [3, 2, 3, 0, 1, 2] vs hand value",
            dcg(ranked, 6, "exp"), 13.8482636, rtol=1e-8)
# nDCG@4 of the ranking [1, 4, 0, 2] when the judged pool is {4, 3, 2, 1, 0}:
#   DCG  = 1/1 + 15/log2(3) + 0/2 + 3/log2(5) = 1 + 9.4639463 + 0 + 1.2920296 = 11.7559760
#   IDCG = 15/1 + 7/log2(3) + 3/2 + 1/log2(5) = 15 + 4.4165083 + 1.5 + 0.4306766 = 21.3471849
check_close("nDCG@4, gain 2^r - 1, grades up to 4, vs hand value 11.7559760 / 21.3471849",
            ndcg(np.array([1, 4, 0, 2]), np.array([4, 2, 1, 0, 3]), 4, "exp"), 0.55070381, rtol=1e-7)

rng = np.random.default_rng(0)
judged = rng.integers(0, 4, size=8)
# Orderings that swap two equal grades are the same list: the distinct ones hold every value DCG can take.
orderings = [np.array(p) for p in sorted(set(permutations(judged.tolist())))]
for gain in ("linear", "exp"):
    for k in (3, 8):
        best = max(dcg(p, k, gain) for p in orderings)
        check_close(f"IDCG@{k} ({gain} gain): sorted order vs max over all 8! orderings",
                    dcg(np.sort(judged)[::-1], k, gain), best)

binary = rng.integers(0, 2, size=10)
check_close("binary labels: linear and 2^r - 1 gains give the same DCG",
            dcg(binary, 10, "linear"), dcg(binary, 10, "exp"))

scores = [ndcg(rng.permutation(judged), judged, 5) for _ in range(200)]
check_true("nDCG@5 lies in [0, 1] for random orderings and is 1 for the ideal one",
           min(scores) >= 0 and max(scores) <= 1 + 1e-12
           and np.isclose(ndcg(np.sort(judged)[::-1], judged, 5), 1.0))

# Pitfall: normalizing by the retrieved list alone hides two relevant documents it missed.
pool = np.concatenate([ranked, [3, 2]])
right, wrong = ndcg(ranked, pool, 6), ndcg(ranked, ranked, 6)
check_true("IDCG from the retrieved list alone overstates nDCG", wrong > right,
           f"judged pool: {right:.4f}, retrieved list only: {wrong:.4f}")

# --- in code: scikit-learn ---
from sklearn.metrics import ndcg_score  # noqa: E402

# ndcg_score ranks the documents by y_score and takes the ideal order from the same documents'
# y_true; here the eight judged documents, ranked by a shuffled score.
order = np.random.default_rng(1).permutation(len(judged))
y_score = np.empty(len(judged))
y_score[order] = np.arange(len(judged), 0, -1)  # document order[0] scores highest
sk = ndcg_score(judged[None, :], y_score[None, :], k=5)
# Sums of five terms taken in another order: a few ulps apart, so 1e-12 holds.
check_close("ndcg_score(y_true=rel, y_score, k=5) = nDCG@5 with linear gains",
            sk, ndcg(judged[order], judged, 5), rtol=1e-12)
check_true("pitfall: its gains are rel, not Burges' 2^rel - 1",
           abs(sk - ndcg(judged[order], judged, 5, "exp")) > 1e-3,
           f"linear {sk:.4f} vs exponential {ndcg(judged[order], judged, 5, 'exp'):.4f}")
check_close("fix: y_true = 2^rel - 1 gives the exponential-gain nDCG@5",
            ndcg_score((2.0 ** judged - 1)[None, :], y_score[None, :], k=5),
            ndcg(judged[order], judged, 5, "exp"), rtol=1e-12)
# --- end in code ---

# --- in code: ir-measures ---
import ir_measures  # noqa: E402
from ir_measures import nDCG  # noqa: E402

# trec_eval's input: the qrels hold every judged grade; the run scores document d{i} so that it is
# ranked as `shuffled` lists it.
shuffled = np.random.default_rng(2).permutation(len(judged))
qrels = {"q": {f"d{i}": int(g) for i, g in enumerate(judged)}}
run = {"q": {f"d{i}": float(len(judged) - rank) for rank, i in enumerate(shuffled)}}
exp_gains = {r: 2**r - 1 for r in range(4)}


def trec(measure, run=run):
    return ir_measures.calc_aggregate([measure], qrels, run)[measure]


# trec_eval sums at most 8 terms in C in another order: a few ulps apart, so 1e-12 holds.
check_close("calc_aggregate([nDCG@5], qrels, run) = nDCG@5, linear gains",
            trec(nDCG@5), ndcg(judged[shuffled], judged, 5), rtol=1e-12)
top3 = {"q": {d: s for d, s in run["q"].items() if s > len(judged) - 3}}
check_close("a run of only 3 documents: IDCG still comes from all 8 judged documents",
            trec(nDCG@5, top3), ndcg(judged[shuffled][:3], judged, 5), rtol=1e-12)
check_close("fix: nDCG(gains={r: 2^r - 1})@5 gives the exponential-gain nDCG@5",
            trec(nDCG(gains=exp_gains)@5), ndcg(judged[shuffled], judged, 5, "exp"), rtol=1e-12)
# Equal scores: trec_eval ranks by document id, descending, whatever order the run lists them in.
tied = {"q": {f"d{i}": 1.0 for i in range(len(judged))}}
check_close("pitfall: tied scores are ranked d7, d6, ..., d0 (id descending), not as listed",
            trec(nDCG@5, tied), ndcg(judged[::-1], judged, 5), rtol=1e-12)
check_true("and that differs from the listed order d0, ..., d7",
           abs(trec(nDCG@5, tied) - ndcg(judged, judged, 5)) > 1e-3)
# --- end in code ---

ranks = np.arange(1, 21)
fig, ax = figure("Position discounts", "rank  i", "weight of an item at rank i")
ax.plot(ranks, 1 / np.log2(ranks + 1), "o-", ms=3, label="$1/\\log_2(i+1)$ (common form)")
ax.plot(ranks, np.where(ranks < 2, 1.0, 1 / np.log2(np.maximum(ranks, 2))), "s--", ms=3,
        label="Järvelin–Kekäläinen, b = 2")
ax.plot(ranks, 1 / ranks, "^:", ms=3, label="$1/i$ (reciprocal rank)")
ax.legend()
