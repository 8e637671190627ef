"""Modularity Q: pairwise formula vs the e_ii - a_i^2 form, exact rationals, brute force over partitions."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import N_ENTITIES, relation_matrix


# --- formula ---
def modularity(a: np.ndarray, labels) -> float:
    """Q = 1/(2m) sum_ij (A_ij - k_i k_j / (2m)) [c_i == c_j] for a symmetric (weighted) A."""
    labels = np.asarray(labels)
    k = a @ np.ones(len(a))  # weighted degrees (row sums)
    two_m = a.sum()
    same = labels[:, None] == labels[None, :]
    return float(np.sum((a - np.outer(k, k) / two_m) * same) / two_m)
# --- end formula ---


def modularity_e_a(a, labels):
    """Newman & Girvan (2004): Q = sum_c (e_cc - a_c^2), e_cc = fraction of edge ends inside c,
    a_c = fraction of edge ends attached to c; computed community by community."""
    total = a.sum()
    q = 0.0
    for c in set(labels):
        idx = [i for i, lab in enumerate(labels) if lab == c]
        e_cc = a[np.ix_(idx, idx)].sum() / total
        a_c = a[idx, :].sum() / total
        q += e_cc - a_c**2
    return q


def set_partitions(n):
    """All partitions of range(n) as label lists (restricted growth strings)."""
    def grow(prefix, top):
        if len(prefix) == n:
            yield list(prefix)
            return
        for lab in range(top + 2):
            yield from grow([*prefix, lab], max(top, lab))
    yield from grow([0], 0)


# 1. Two triangles joined by one edge: m = 7. Splitting at the bridge gives
#    Q = 2 (3/7 - (7/14)^2) = 5/14 exactly; all-in-one gives 0.
two_tri = np.zeros((6, 6))
for i, j in [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)]:
    two_tri[i, j] = two_tri[j, i] = 1
check_close("two triangles split at the bridge: Q = 5/14", modularity(two_tri, [0, 0, 0, 1, 1, 1]),
            float(Fraction(5, 14)), rtol=1e-12)
check_close("one community: Q = 0", modularity(two_tri, [0] * 6), 0.0, atol=1e-12)
# singletons: Q = -sum_i k_i^2 / (2m)^2 = -(4*2^2 + 2*3^2)/196 = -34/196
check_close("all singletons: Q = -sum k_i^2 / (2m)^2", modularity(two_tri, list(range(6))),
            float(Fraction(-34, 196)), rtol=1e-12)

# 1b. The two counts of edges must not be mixed. Writing m (each edge once, 7 here) where 2m belongs
#    (the 14 edge ends) gives (1/m) sum_ij (A_ij - k_i k_j / m) [c_i = c_j] = 2 sum_c e_cc - 4 sum_c a_c^2:
#    the observed part doubles but the null part quadruples, so this is not a rescaled Q. By hand for
#    the bridge split: 2 (6/7) - 4 (1/2) = -2/7, negative where Q = 5/14 is positive, and the single
#    community scores 2 - 4 = -2 instead of 0.
edges_once = two_tri.sum() / 2
deg = two_tri.sum(axis=1)


def mixed(labels):
    same = np.equal.outer(labels, labels)
    return np.sum((two_tri - np.outer(deg, deg) / edges_once) * same) / edges_once


q_split = modularity(two_tri, [0, 0, 0, 1, 1, 1])
check_close("m for 2m: bridge split -2/7 and one community -2, not a multiple of Q (5/14 and 0)",
            [mixed(np.array([0, 0, 0, 1, 1, 1])), mixed(np.zeros(6))], [-2 / 7, -2.0], rtol=1e-12)
check_true("the sign flips: Q > 0 for the bridge split, the mixed-convention value < 0",
           q_split > 0 > mixed(np.array([0, 0, 0, 1, 1, 1])))

# 2. Brute force over all 203 partitions of the 6-node graph: the maximum is the bridge split.
parts = list(set_partitions(6))
check_true("Bell(6) = 203 partitions enumerated", len(parts) == 203)
qs = [modularity(two_tri, lab) for lab in parts]
best = parts[int(np.argmax(qs))]
check_true("brute-force maximiser is the two triangles", best == [0, 0, 0, 1, 1, 1])
check_close("brute-force max Q = 5/14", max(qs), 5 / 14, rtol=1e-12)
check_close("every partition: pairwise form vs e_cc - a_c^2 form", qs,
            [modularity_e_a(two_tri, lab) for lab in parts], rtol=1e-9, atol=1e-12)

# 3. Weighted entity graph (11 nodes, two topical clusters and a bridge): compare both forms on
#    the topical split and on random labelings; the topical split beats random ones.
w = relation_matrix(directed=False)
topical = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
rng = np.random.default_rng(0)
randoms = [rng.integers(0, 3, N_ENTITIES).tolist() for _ in range(200)]
check_close("weighted graph: both forms agree on 200 random labelings",
            [modularity(w, lab) for lab in randoms], [modularity_e_a(w, lab) for lab in randoms],
            rtol=1e-9, atol=1e-12)
q_top = modularity(w, topical)
print(f"topical split of the entity graph: Q = {q_top:.4f}")
check_close("weighted topical split vs e_cc - a_c^2", q_top, modularity_e_a(w, topical), rtol=1e-12)
check_true("topical split beats every random 3-labeling", q_top > max(modularity(w, lab) for lab in randoms))

# --- in code: networkx ---
import networkx as nx  # noqa: E402

g = nx.from_numpy_array(w)  # undirected, each edge's weight from w under the key "weight"
# networkx takes the communities as a partition (sets of nodes), not as the card's labels c_i: a list of
# labels raises TypeError ('int' object is not iterable).
as_sets = [{i for i, lab in enumerate(topical) if lab == c} for c in set(topical)]
# A closed form summed in another order: only rounding differs, rtol 1e-12.
check_close("nx.community.modularity(G, communities) = Q, weighted topical split",
            nx.community.modularity(g, as_sets), q_top, rtol=1e-12)
check_close("... and on the two triangles split at the bridge: 5/14",
            nx.community.modularity(nx.from_numpy_array(two_tri), [{0, 1, 2}, {3, 4, 5}]), 5 / 14,
            rtol=1e-12)
# weight="weight" is the default: Q uses the weights. weight=None counts every edge as 1.
q_unw = nx.community.modularity(g, as_sets, weight=None)
check_close("pitfall: weight=None is Q of the 0/1 adjacency, not of the weighted A",
            q_unw, modularity((w > 0).astype(float), topical), rtol=1e-12)
check_true("... and it differs from the weighted Q", abs(q_unw - q_top) > 1e-3,
           f"{q_unw:.4f} vs {q_top:.4f}")
# resolution (default 1) scales the null term: Q_gamma = sum_c (e_cc - gamma a_c^2); only 1 is the card's Q.
e_part = modularity_e_a(w, topical) + sum(
    (w[[i for i, lab in enumerate(topical) if lab == c], :].sum() / w.sum()) ** 2 for c in set(topical))
check_close("resolution=0.5 is sum_c (e_cc - 0.5 a_c^2), not Q",
            nx.community.modularity(g, as_sets, resolution=0.5), e_part - 0.5 * (e_part - q_top),
            rtol=1e-12)
# A DiGraph gets the directed formula (Leicht & Newman): (1/m) sum_ij (A_ij - k_i^out k_j^in / m) [c_i = c_j].
wd = relation_matrix(directed=True)
m_d, same = wd.sum(), np.equal.outer(topical, topical)
q_dir = np.sum((wd - np.outer(wd.sum(axis=1), wd.sum(axis=0)) / m_d) * same) / m_d
q_nx_dir = nx.community.modularity(nx.from_numpy_array(wd, create_using=nx.DiGraph), as_sets)
check_close("pitfall: on an nx.DiGraph it is the directed Q with out- and in-degrees", q_nx_dir, q_dir,
            rtol=1e-12)
q_sym = modularity(wd + wd.T, topical)
check_true("... which differs from the card's Q of the symmetrised graph A + A^T",
           abs(q_nx_dir - q_sym) > 1e-3, f"{q_nx_dir:.4f} vs {q_sym:.4f}")
# --- end in code ---

fig, ax = figure("Modularity of all 203 partitions of two joined triangles", "number of communities",
                 "Q")
ax.plot([max(lab) + 1 for lab in parts], qs, "o", alpha=0.5)
ax.axhline(5 / 14, color="tab:red", ls="--", label="max = 5/14")
ax.legend()
