"""PageRank with dangling nodes: power iteration vs the Google matrix eigenvector and a random surfer."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import ENTITIES, N_ENTITIES, out_links, relation_matrix

N_ITER = 300  # iteration budget of the power method (not part of the formula): 0.85**300 ~ 1e-21


# --- formula ---
def pagerank(links: list[list[int]], d: float = 0.85) -> np.ndarray:
    """PR(v) = (1 - d)/N + d * (sum_{u -> v} PR(u)/out(u) + sum_{u dangling} PR(u)/N)."""
    n = len(links)
    pr = np.full(n, 1.0 / n)
    for _ in range(N_ITER):  # equivalent: for d < 1 one more contraction moves the vector by < d**300
        new = np.full(n, (1.0 - d) / n)
        for u, targets in enumerate(links):
            if len(targets) == 0:
                new += d * pr[u] / n  # a dangling page spreads its score over every page
            else:
                for v in targets:
                    new[v] += d * pr[u] / len(targets)
        pr = new
    return pr
# --- end formula ---


def google_matrix(links, d):
    """Column-stochastic G = d (S) + (1 - d)/N 11^T, S with dangling columns replaced by 1/N."""
    n = len(links)
    s = np.zeros((n, n))
    for u, targets in enumerate(links):
        if targets:
            s[targets, u] = 1.0 / len(targets)
        else:
            s[:, u] = 1.0 / n
    return d * s + (1.0 - d) / n * np.ones((n, n))


links = out_links(relation_matrix(directed=True))
check_true("fixture has a dangling node (Seine has no outgoing relation)",
           any(len(t) == 0 for t in links))
pr = pagerank(links)

# 1. Dominant eigenvector of the Google matrix (eigenvalue 1), from numpy.linalg.eig.
vals, vecs = np.linalg.eig(google_matrix(links, 0.85))
top = np.argmax(vals.real)
eigvec = np.abs(vecs[:, top].real)
check_close("dominant eigenvalue of the Google matrix is 1", vals[top].real, 1.0, rtol=1e-12)
check_close("power iteration vs dominant eigenvector of G (numpy.linalg.eig), d = 0.85",
            pr, eigvec / eigvec.sum(), rtol=1e-10)
check_close("scores form a probability distribution (sum to 1, not N)", pr.sum(), 1.0, rtol=1e-12)

# 2. A different damping gives a measurably different vector: d = 0.85 is pinned by the check above,
#    and d = 0 gives the uniform vector.
check_close("d = 0: every page gets 1/N", pagerank(links, d=0.0), np.full(N_ENTITIES, 1 / N_ENTITIES))
vals5, vecs5 = np.linalg.eig(google_matrix(links, 0.5))
e5 = np.abs(vecs5[:, np.argmax(vals5.real)].real)
check_close("d = 0.5 vs eigenvector of its own Google matrix", pagerank(links, d=0.5), e5 / e5.sum(),
            rtol=1e-10)

# 3. Monte-Carlo random surfer: 40,000 independent surfers, 60 steps each; with probability d follow a
#    random out-link (a dangling page sends the surfer anywhere), otherwise jump anywhere.
rng = np.random.default_rng(0)
n_surf, d = 40_000, 0.85
pos = rng.integers(0, N_ENTITIES, n_surf)
out_deg = np.array([len(t) for t in links])
table = np.full((N_ENTITIES, max(out_deg)), -1)
for u, t in enumerate(links):
    table[u, :len(t)] = t
for _ in range(60):
    follow = (rng.random(n_surf) < d) & (out_deg[pos] > 0)
    pick = (rng.random(n_surf) * np.maximum(out_deg[pos], 1)).astype(int)
    jump = rng.integers(0, N_ENTITIES, n_surf)
    pos = np.where(follow, table[pos, pick], jump)
freq = np.bincount(pos, minlength=N_ENTITIES) / n_surf
se = np.sqrt(pr * (1 - pr) / n_surf)
check_true("random-surfer visit frequencies within 4.5 standard errors of PageRank",
           bool(np.all(np.abs(freq - pr) < 4.5 * se)))

# 4. Exact small case: a 3-cycle is symmetric, so every page gets 1/3; a page pointing at a
#    dangling sink: PR = [a, b] with a = 0.075 + 0.425 b and a + b = 1 -> b = 0.925/1.425.
check_close("3-cycle: uniform scores", pagerank([[1], [2], [0]]), np.full(3, 1 / 3), rtol=1e-12)
check_close("d = 1 (no teleport), 3-cycle from the uniform start: stays uniform",
            pagerank([[1], [2], [0]], d=1.0),
            np.full(3, 1 / 3), rtol=1e-12)
b = 0.925 / 1.425
check_close("two pages, 0 -> 1 and 1 dangling: exact solution", pagerank([[1], []]), [1 - b, b],
            rtol=1e-12)

# --- in code: networkx ---
import networkx as nx  # noqa: E402

g = nx.DiGraph()
g.add_nodes_from(range(N_ENTITIES))  # every page a node, the dangling Seine included
g.add_edges_from((u, v) for u, targets in enumerate(links) for v in targets)
TOL = 1e-12  # the default max_iter=100 raises PowerIterationFailedConvergence at this tol; 500 suffices
# nx.pagerank stops once the L1 change of one sweep is below N * tol; a contraction by d leaves the
# iterate within N * tol * d / (1 - d) ~ 7e-11 (L1, N = 12) of its fixed point; atol 1e-9 leaves room
# for the card's own 300 sweeps.
nx_pr = nx.pagerank(g, alpha=0.85, tol=TOL, max_iter=500)
check_close("nx.pagerank(G, alpha=d) = PR, Seine dangling", [nx_pr[i] for i in range(N_ENTITIES)], pr,
            atol=1e-9)
# alpha is d, the probability of following a link, not the teleport probability 1 - d that some texts
# call alpha: passing the teleport probability gives the card's PR at d = 0.15.
nx_15 = nx.pagerank(g, alpha=0.15, tol=TOL, max_iter=500)
check_close("pitfall: alpha=0.15 (the teleport probability) is PR at d = 0.15, not d = 0.85",
            [nx_15[i] for i in range(N_ENTITIES)], pagerank(links, d=0.15), atol=1e-9)
gap = max(abs(nx_15[i] - pr[i]) for i in range(N_ENTITIES))
check_true("... and it differs from PR at d = 0.85", gap > 0.01, f"largest gap {gap:.3f}")
# Built undirected (nx.Graph), each link also runs backwards and the Seine is no longer dangling.
und = nx.pagerank(g.to_undirected(), alpha=0.85, tol=TOL, max_iter=500)
gap_u = max(abs(und[i] - pr[i]) for i in range(N_ENTITIES))
check_true("pitfall: the same links in an undirected nx.Graph give another vector", gap_u > 0.01,
           f"largest gap {gap_u:.3f}")
# --- end in code ---

order = np.argsort(-pr)
print("top entities:", ", ".join(f"{ENTITIES[i]} {pr[i]:.3f}" for i in order[:4]))

fig, ax = figure("PageRank of the toy entity graph", "entity", "PageRank (d = 0.85)", size=(7.0, 3.6))
ax.bar(range(N_ENTITIES), pr, color="tab:blue", label="power iteration")
ax.plot(range(N_ENTITIES), freq, "o", color="tab:orange", label="random surfer")
ax.set_xticks(range(N_ENTITIES), ENTITIES, rotation=45, ha="right", fontsize=8)
ax.legend()
