"""Path relevance: product of edge weights with hop decay; Dijkstra on -log weights vs brute force."""

import heapq
from itertools import pairwise

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import N_ENTITIES, relation_matrix
from scipy.sparse.csgraph import dijkstra


# --- formula ---
def path_score(w: np.ndarray, path: list[int], gamma: float = 0.9) -> float:
    """s(path) = prod over hops (i, j) of gamma * w_ij; the empty path (one node) scores 1."""
    score = 1.0
    for i, j in pairwise(path):
        score *= gamma * w[i, j]
    return score


def best_path(w: np.ndarray, source: int, target: int, gamma: float = 0.9):
    """Max-product path = shortest path under costs -log(gamma * w_ij) >= 0 (needs gamma * w <= 1)."""
    dist = {source: 0.0}
    prev = {}
    heap = [(0.0, source)]
    done = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v in np.flatnonzero(w[u]):
            nd = d - np.log(gamma * w[u, v])
            if nd < dist.get(v, np.inf):
                dist[v] = nd
                prev[v] = u
                heapq.heappush(heap, (nd, v))
    path = [target]
    while path[-1] != source:
        path.append(prev[path[-1]])
    return path[::-1], float(np.exp(-dist[target]))
# --- end formula ---


def simple_paths(w, source, target):
    """Every simple path from source to target, by depth-first enumeration."""
    stack = [[source]]
    while stack:
        p = stack.pop()
        if p[-1] == target:
            yield p
            continue
        for v in np.flatnonzero(w[p[-1]]):
            if v not in p:
                stack.append([*p, int(v)])


w = relation_matrix(directed=False)

# 1. Hand value: BERT -> Transformer -> GPT = 0.9*0.8 * 0.9*0.9.
check_close("hand value for a two-hop path", path_score(w, [2, 0, 3]), 0.9 * 0.8 * 0.9 * 0.9, rtol=1e-12)
check_close("a single node (no hop) scores 1", path_score(w, [4]), 1.0)

# 2. Brute force over all simple paths, for every ordered pair of entities.
agree_score, agree_path, n_paths = True, True, 0
mine = np.ones((N_ENTITIES, N_ENTITIES))  # best score per ordered pair, diagonal 1
for s in range(N_ENTITIES):
    for t in range(N_ENTITIES):
        if s == t:
            continue
        paths = list(simple_paths(w, s, t))
        n_paths += len(paths)
        scores = [path_score(w, p) for p in paths]
        bp, bs = best_path(w, s, t)
        mine[s, t] = bs
        agree_score &= bool(np.isclose(bs, max(scores), rtol=1e-12))
        ok = bool(np.isclose(path_score(w, bp), max(scores), rtol=1e-12))
        agree_path &= ok and bp[0] == s and bp[-1] == t
print(f"{n_paths} simple paths enumerated over {N_ENTITIES * (N_ENTITIES - 1)} ordered pairs")
check_true("Dijkstra score = max over all simple paths, every pair", agree_score)
check_true("returned path runs from source to target and attains that maximum, every pair", agree_path)

# 2b. Source = target: the best path is the single node, with score 1 (no hop), for every entity.
same = [best_path(w, s, s) for s in range(N_ENTITIES)]
check_true("source == target: the path is [s] and its score is 1, for every entity",
           all(p == [s] and sc == 1.0 for s, (p, sc) in enumerate(same)),
           f"entity 0 gives {same[0][0]} with score {same[0][1]:.3f}")

# 3. Library route: scipy.sparse.csgraph.dijkstra on -log(gamma w) gives the same best scores.
cost = np.where(w > 0, -np.log(np.where(w > 0, 0.9 * w, 1.0)), 0.0)
lib = np.exp(-dijkstra(cost, directed=False))
check_close("best scores vs scipy.sparse.csgraph.dijkstra on -log weights", mine, lib, rtol=1e-12)

# 4. Length decay: every extra hop costs a factor gamma on top of its edge weight, so replacing one
#    edge Tokenizer-GPT by the detour Tokenizer-Transformer-GPT changes the score by exactly
#    gamma * w(4,0) * w(0,3) / w(4,3); gamma = 1 is the plain product of weights.
p3 = [4, 3, 10, 5]
p4 = [4, 0, 3, 10, 5]
ratio = path_score(w, p4) / path_score(w, p3)
check_close("one extra hop multiplies the score by gamma * w(extra) / w(replaced)", ratio,
            0.9 * w[4, 0] * w[0, 3] / w[4, 3], rtol=1e-12)
g1 = best_path(w, 2, 5, gamma=1.0)[1]
check_close("gamma = 1 reduces to the plain product of weights", g1,
            max(np.prod([w[i, j] for i, j in pairwise(p)]) for p in simple_paths(w, 2, 5)), rtol=1e-12)

gammas = np.linspace(0.5, 1.0, 51)
fig, ax = figure("Best path score, BERT to Paris", "length decay gamma", "best path score")
ax.plot(gammas, [best_path(w, 2, 5, gamma=g)[1] for g in gammas])
