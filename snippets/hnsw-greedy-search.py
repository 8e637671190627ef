"""Greedy search on a proximity graph (HNSW's routing step and its SEARCH-LAYER beam search): each step
against a brute-force argmin over the neighbours, termination at a local minimum, exactness on the
Delaunay graph of 2-D points (scipy.spatial.Delaunay) and with ef >= n, and recall growing with ef on a
k-NN graph of the toy corpus's token embeddings."""

import heapq
from itertools import pairwise

import numpy as np
import toy_corpus as tc
from cardcheck import check_true
from cardplot import figure
from scipy.spatial import Delaunay
from scipy.spatial.distance import cdist


# --- formula ---
def greedy_step(graph, X, q, v):
    """v_next = argmin over N(v) and v itself of |x_u - q|: stay at v when no neighbour is closer."""
    cand = [v, *graph[v]]
    return cand[int(np.argmin(np.linalg.norm(X[cand] - q, axis=1)))]


def greedy_search(graph, X, q, entry):
    """Repeat the greedy step until it stays put (a local minimum); returns the visited path."""
    path = [entry]
    while True:
        nxt = greedy_step(graph, X, q, path[-1])
        if nxt == path[-1]:
            return path
        path.append(nxt)


def search_layer(graph, X, q, entry, ef: int):
    """HNSW SEARCH-LAYER: best-first search keeping the ef closest nodes found; returns them sorted."""
    d0 = float(np.linalg.norm(X[entry] - q))
    visited = {entry}
    candidates = [(d0, entry)]          # min-heap by distance
    found = [(-d0, entry)]              # max-heap (negated) of the ef best so far
    while candidates:
        d, c = heapq.heappop(candidates)
        if d > -found[0][0]:
            break
        for e in graph[c]:
            if e not in visited:
                visited.add(e)
                de = float(np.linalg.norm(X[e] - q))
                if de < -found[0][0] or len(found) < ef:
                    heapq.heappush(candidates, (de, e))
                    heapq.heappush(found, (-de, e))
                    if len(found) > ef:
                        heapq.heappop(found)
    return [e for _, e in sorted((-d, e) for d, e in found)]
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Token embeddings of the toy corpus (449 x 32) and a symmetrized 5-NN graph built by brute force.
X = np.stack([tc.embed(t) for t in tc.vocabulary()])
D = cdist(X, X)
knn = np.argsort(D, axis=1)[:, 1:6]
graph = [set() for _ in range(len(X))]
for i, row in enumerate(knn):
    for j in row:
        graph[i].add(int(j))
        graph[int(j)].add(i)
graph = [sorted(g) for g in graph]
Q = np.stack([tc.embed(d.title) for d in tc.DOCS] + [tc.embed(q) for q in tc.QUERIES.values()])
entries = rng.integers(0, len(X), len(Q))

ok_step, ok_local, ok_decrease = True, True, True
for q, e in zip(Q, entries, strict=True):
    path = greedy_search(graph, X, q, int(e))
    dq = np.linalg.norm(X - q, axis=1)
    for a, b in pairwise(path):
        ok_step &= b == graph[a][int(np.argmin(dq[graph[a]]))] and dq[b] < dq[a]
    ok_decrease &= bool(np.all(np.diff(dq[path]) < 0))
    ok_local &= bool(dq[path[-1]] <= dq[graph[path[-1]]].min())
check_true("each move goes to the neighbour nearest to q (brute-force argmin over N(v))", ok_step)
check_true("distances to q strictly decrease along every path", ok_decrease)
check_true("every search stops at a local minimum: no neighbour of the last node is closer", ok_local)

# 2. Greedy routing is exact on a Delaunay graph: 2-D points, neighbours = Delaunay edges.
P = rng.random((300, 2))
tri = Delaunay(P)
indptr, indices = tri.vertex_neighbor_vertices
delaunay = [sorted(indices[indptr[i]:indptr[i + 1]].tolist()) for i in range(len(P))]
queries2 = rng.random((200, 2))
found2 = [greedy_search(delaunay, P, q, int(rng.integers(300)))[-1] for q in queries2]
check_true("Delaunay graph: greedy search returns the exact nearest neighbour for 200 queries",
           np.array_equal(found2, np.argmin(cdist(queries2, P), axis=1)))

# 3. SEARCH-LAYER: with ef = 1 it ends where greedy search ends; with ef >= n on a connected graph it
#    visits everything and returns the exact top-10; recall@1 grows with ef in between.
truth = np.argsort(cdist(Q, X), axis=1)
check_true("ef = 1: result = end of the greedy path (all 38 queries)",
           all(search_layer(graph, X, q, int(e), 1) == [greedy_search(graph, X, q, int(e))[-1]]
               for q, e in zip(Q, entries, strict=True)))
check_true("ef = n: the first 10 results are the exact 10 nearest neighbours",
           all(search_layer(graph, X, q, int(e), len(X))[:10] == truth[i, :10].tolist()
               for i, (q, e) in enumerate(zip(Q, entries, strict=True))))
efs = [1, 2, 4, 8, 16, 32, 64]
recall = [np.mean([search_layer(graph, X, q, int(e), ef)[0] == truth[i, 0]
                   for i, (q, e) in enumerate(zip(Q, entries, strict=True))]) for ef in efs]
check_true("recall@1 does not fall as ef grows, and greedy (ef = 1) misses some neighbours",
           recall[0] < 1 and bool(np.all(np.diff(recall) >= 0)),
           " ".join(f"ef={e}:{r:.2f}" for e, r in zip(efs, recall, strict=True)))
res = search_layer(graph, X, Q[0], int(entries[0]), 8)
check_true("ef = 8: exactly 8 results, sorted by distance",
           len(res) == 8 and bool(np.all(np.diff(cdist(Q[:1], X[res])[0]) >= 0)))

fig, ax = figure("Search on a 5-NN graph of 449 token embeddings (38 queries)", "ef (beam width)",
                 "recall@1")
ax.semilogx(efs, recall, "o-", base=2)
ax.set_ylim(0, 1.02)
