"""MMR: greedy selection vs brute force over all ordered picks, lambda = 1 / 0 limits, an exact crossover."""

from itertools import permutations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from packing_fixture import toy_candidates
from scipy.spatial.distance import cdist
from toy_corpus import DOC_IDS, doc_embeddings


# --- formula ---
def mmr(rel, sim, lam, k):
    """Greedy MMR: repeatedly take argmax over unselected d of lam*rel(d) - (1-lam)*max_{d' in S} sim(d, d');
    the redundancy term is 0 while S is empty. Ties go to the earlier candidate."""
    selected = []
    remaining = list(range(len(rel)))
    while len(selected) < k:
        if selected:
            redundancy = np.max(sim[np.ix_(remaining, selected)], axis=1)
        else:
            redundancy = np.zeros(len(remaining))
        score = lam * rel[remaining] - (1 - lam) * redundancy
        best = remaining[int(np.argmax(score))]
        selected.append(best)
        remaining.remove(best)
    return selected
# --- end formula ---


# 1. Exact example: d0 and d1 are near-duplicates. Pure relevance takes d0, d1; MMR swaps d1 for d2
#    once lam < 0.85 / 1.2 = 0.708333..., where 0.85 lam - 0.95 (1 - lam) = 0.5 lam - 0.1 (1 - lam).
rel3 = np.array([0.9, 0.85, 0.5])
sim3 = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.2], [0.1, 0.2, 1.0]])
check_true("lam = 0.5 skips the near-duplicate: picks d0 then d2", mmr(rel3, sim3, 0.5, 2) == [0, 2])
check_true("crossover at lam* = 0.70833: lam = 0.70 picks d2, lam = 0.72 picks d1",
           mmr(rel3, sim3, 0.70, 2) == [0, 2] and mmr(rel3, sim3, 0.72, 2) == [0, 1])
check_true("lam = 1 follows relevance: d0, d1, d2", mmr(rel3, sim3, 1.0, 3) == [0, 1, 2])

# 2. Toy corpus, query q1: the 8 nearest documents by embedding cosine.
idx, rel, sim = toy_candidates("q1", 8)
perm = np.random.default_rng(0).permutation(8)  # candidates in arbitrary order, not sorted by relevance
idx, rel, sim = idx[perm], rel[perm], sim[np.ix_(perm, perm)]
n, k = len(rel), 4


def step_scores(order, lam):
    """Marginal value of each pick given the picks before it (first pick: no redundancy)."""
    out = []
    for j, d in enumerate(order):
        red = max((sim[d, e] for e in order[:j]), default=0.0)
        out.append(lam * rel[d] - (1 - lam) * red)
    return tuple(out)


# Brute force: among all 8*7*6*5 ordered picks, the greedy sequence is the one whose vector of
# step scores is lexicographically largest (each pick is best given the ones before it).
for lam in (0.3, 0.5, 0.7, 0.9):
    best = max(permutations(range(n), k), key=lambda order: step_scores(order, lam))
    check_true(f"lam = {lam}: greedy MMR equals the lexicographic optimum over all 1680 ordered picks",
               mmr(rel, sim, lam, k) == list(best), f"{mmr(rel, sim, lam, k)} vs {list(best)}")

# 3. Limits. lam = 1: plain relevance order (argsort). lam = 0: after the first pick, each pick
#    maximizes the cosine distance to its nearest already-picked document (farthest-point traversal),
#    computed here with scipy's cosine distance on the raw embeddings.
check_true("lam = 1 reproduces sorting by relevance",
           mmr(rel, sim, 1.0, n) == list(np.argsort(-rel, kind="stable")))
emb = doc_embeddings()[idx]
picks = mmr(rel, sim, 0.0, k)
farthest = [picks[0]]
for _ in range(k - 1):
    dist = cdist(emb, emb[farthest], metric="cosine").min(axis=1)
    dist[farthest] = -np.inf
    farthest.append(int(np.argmax(dist)))
check_true("lam = 0: pure diversity equals farthest-point traversal by scipy cosine distance",
           picks == farthest, f"{[DOC_IDS[idx[i]] for i in picks]}")

# 4. Diversity grows as lam falls: the largest pairwise similarity inside the top 4 never exceeds the
#    pure-relevance set's, and the relevance sum never exceeds it either (trade-off).
top = list(np.argsort(-rel)[:k])
lams = np.linspace(0, 1, 21)
max_pair = [np.max(sim[np.ix_(s, s)][~np.eye(k, dtype=bool)]) for s in (mmr(rel, sim, la, k) for la in lams)]
rel_sum = [rel[mmr(rel, sim, la, k)].sum() for la in lams]
check_true("any lam: top-4 relevance sum <= pure-relevance top-4 sum", max(rel_sum) <= rel[top].sum() + 1e-12)
check_close("lam = 1 end of the sweep equals the pure-relevance top 4", rel_sum[-1], rel[top].sum())
check_true("lam = 0 set is less redundant than the relevance top 4",
           max_pair[0] < np.max(sim[np.ix_(top, top)][~np.eye(k, dtype=bool)]))

fig, ax = figure("MMR trade-off on the toy corpus (q1, top 4 of 8)", "lambda", "value over the selected set")
ax.plot(lams, rel_sum, marker="o", label="sum of relevance cos(q, d)")
ax.plot(lams, max_pair, marker="s", label="largest pairwise cos(d, d')")
ax.legend()
