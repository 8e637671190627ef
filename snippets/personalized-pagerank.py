"""Personalized PageRank: closed form vs power iteration, random walk with restart, geometric walks."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import ENTITIES, N_ENTITIES, relation_matrix


# --- formula ---
def personalized_pagerank(p_mat: np.ndarray, v: np.ndarray, alpha: float = 0.85) -> np.ndarray:
    """Solve p = (1 - alpha) v + alpha P^T p, i.e. p = (1 - alpha) (I - alpha P^T)^{-1} v."""
    return (1.0 - alpha) * np.linalg.solve(np.eye(len(v)) - alpha * p_mat.T, v)
# --- end formula ---


# Undirected weighted entity graph; P is the weighted random-walk matrix (rows sum to 1).
w = relation_matrix(directed=False)
P = w / w.sum(axis=1, keepdims=True)
seeds = [ENTITIES.index("GPT"), ENTITIES.index("Paris")]  # entities matched in the query
v = np.zeros(N_ENTITIES)
v[seeds] = [0.7, 0.3]
alpha = 0.85
p = personalized_pagerank(P, v)

# 1. Power iteration of the fixed-point equation (an independent iterative route).
it = v.copy()
for _ in range(400):
    it = (1 - alpha) * v + alpha * P.T @ it
check_close("closed form vs power iteration of p = (1-a) v + a P^T p", p, it, rtol=1e-12)
check_close("PPR is a probability distribution", p.sum(), 1.0, rtol=1e-12)

# 2. Random walk with restart (Monte-Carlo): 40,000 walkers, each step restart at v w.p. 1 - alpha,
#    otherwise move along P; after 80 steps the walker positions follow p.
rng = np.random.default_rng(0)
n_walk = 40_000
cum = np.cumsum(P, axis=1)
pos = rng.choice(N_ENTITIES, n_walk, p=v)
for _ in range(80):
    step = np.minimum((rng.random(n_walk)[:, None] > cum[pos]).sum(axis=1), N_ENTITIES - 1)
    restart = rng.random(n_walk) >= alpha
    pos = np.where(restart, rng.choice(N_ENTITIES, n_walk, p=v), step)
freq = np.bincount(pos, minlength=N_ENTITIES) / n_walk
se = np.sqrt(p * (1 - p) / n_walk) + 1e-12
check_true("random walk with restart: frequencies within 4.5 standard errors",
           bool(np.all(np.abs(freq - p) < 4.5 * se)))

# 3. Geometric-length walks (Jeh & Widom / Fogaras et al.): start at v, walk L ~ Geometric steps with
#    P(L = l) = (1 - alpha) alpha^l, record the end node. Exact series sum_l (1-a) a^l (P^T)^l v.
series = np.zeros(N_ENTITIES)
term = (1 - alpha) * v
for _ in range(600):
    series += term
    term = alpha * P.T @ term
check_close("closed form vs the series sum_l (1-a) a^l (P^T)^l v", p, series, rtol=1e-12)

# 4. A uniform v on a graph without dangling nodes gives global PageRank: the stationary vector of
#    the Google matrix, taken from numpy.linalg.eig. A one-hot v gives the restart-at-one-node case.
G = alpha * P.T + (1 - alpha) / N_ENTITIES * np.ones((N_ENTITIES, N_ENTITIES))
vals, vecs = np.linalg.eig(G)
g = np.abs(vecs[:, np.argmax(vals.real)].real)
check_close("uniform v: equals global PageRank (eigenvector of G)",
            personalized_pagerank(P, np.full(N_ENTITIES, 1 / N_ENTITIES)), g / g.sum(), rtol=1e-10)

# 5. Exact two-node case: 0 <-> 1, v = e_0: p_0 = (1-a) + a p_1, p_1 = a p_0 -> p_0 = 1/(1+a).
check_close("two nodes, restart at node 0: p = [1, a]/(1 + a)",
            personalized_pagerank(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 0.0])),
            np.array([1.0, alpha]) / (1 + alpha), rtol=1e-12)

# 5b. Linearity in v (Jeh & Widom): the vector for a mixture of seeds is the mixture of the vectors.
one_hot = np.eye(N_ENTITIES)
check_close("linearity: PPR(0.7 e_GPT + 0.3 e_Paris) = 0.7 PPR(e_GPT) + 0.3 PPR(e_Paris)", p,
            0.7 * personalized_pagerank(P, one_hot[seeds[0]])
            + 0.3 * personalized_pagerank(P, one_hot[seeds[1]]),
            rtol=1e-12)

# --- in code: networkx ---
import networkx as nx  # noqa: E402

g = nx.from_numpy_array(w)  # undirected, each edge's weight from w under the key "weight"
TOL = 1e-12
# nx.pagerank stops once the L1 change of one sweep is below N * tol; a contraction by alpha leaves the
# iterate within N * tol * alpha / (1 - alpha) ~ 7e-11 (L1, N = 12) of p: atol 1e-9.
nx_p = nx.pagerank(g, alpha=alpha, personalization={seeds[0]: 0.7, seeds[1]: 0.3}, tol=TOL)
check_close("nx.pagerank(G, alpha, personalization=v) = PPR", [nx_p[i] for i in range(N_ENTITIES)], p,
            atol=1e-9)
# networkx divides the personalization dict by its sum, so raw counts give the same vector.
nx_counts = nx.pagerank(g, alpha=alpha, personalization={seeds[0]: 7, seeds[1]: 3}, tol=TOL)
check_close("personalization={GPT: 7, Paris: 3} is normalized to v = [0.7, 0.3]",
            [nx_counts[i] for i in range(N_ENTITIES)], p, atol=1e-9)
# weight="weight" by default: the walk follows w. With weight=None every edge counts 1 and P changes.
nx_unw = nx.pagerank(g, alpha=alpha, personalization={seeds[0]: 0.7, seeds[1]: 0.3}, weight=None,
                     tol=TOL)
a_unw = (w > 0).astype(float)
check_close("pitfall: weight=None is PPR on the 0/1 adjacency, not on the weighted P",
            [nx_unw[i] for i in range(N_ENTITIES)],
            personalized_pagerank(a_unw / a_unw.sum(axis=1, keepdims=True), v), atol=1e-9)
gap = max(abs(nx_unw[i] - p[i]) for i in range(N_ENTITIES))
check_true("... and it differs from the card's weighted PPR", gap > 1e-3, f"largest gap {gap:.4f}")
# alpha is the card's alpha (follow an edge); passing the restart probability 1 - alpha is another vector.
nx_r = nx.pagerank(g, alpha=1 - alpha, personalization={seeds[0]: 0.7, seeds[1]: 0.3}, tol=TOL)
check_close("pitfall: alpha=0.15 (the restart probability) is PPR at alpha = 0.15",
            [nx_r[i] for i in range(N_ENTITIES)], personalized_pagerank(P, v, 1 - alpha), atol=1e-9)
gap_r = max(abs(nx_r[i] - p[i]) for i in range(N_ENTITIES))
check_true("... and it differs from PPR at alpha = 0.85", gap_r > 0.01, f"largest gap {gap_r:.3f}")
# --- end in code ---

# 6. Query locality: the seed entities and their neighbours outrank far nodes; the
#    Seine is adjacent to neither seed, so it must score below both seeds.
order = np.argsort(-p)
print("top entities:", ", ".join(f"{ENTITIES[i]} {p[i]:.3f}" for i in order[:5]))
check_true("seed entities rank above a non-adjacent entity (Seine)",
           bool(np.all(p[seeds] > p[ENTITIES.index("Seine")])))

fig, ax = figure("Personalized PageRank, restart at GPT (0.7) and Paris (0.3)", "entity",
                 "score", size=(7.0, 3.6))
ax.bar(range(N_ENTITIES), p, color="tab:blue", label="closed form")
ax.plot(range(N_ENTITIES), freq, "o", color="tab:orange", label="random walk with restart")
ax.set_xticks(range(N_ENTITIES), ENTITIES, rotation=45, ha="right", fontsize=8)
ax.legend()
