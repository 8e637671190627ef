"""GNN neighbourhood aggregation: node loop vs GCN (Kipf & Welling Eq. 2), GraphSAGE-mean, hand values."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import N_ENTITIES, relation_matrix


# --- formula ---
def aggregate(h, adj, alpha, w_self, w_neigh):
    """h_v' = ReLU(W_self h_v + sum_{u in N(v)} alpha_uv W_neigh h_u), node by node."""
    n = h.shape[0]
    out = np.zeros((n, w_self.shape[0]))
    for v in range(n):
        z = w_self @ h[v]
        for u in np.flatnonzero(adj[v]):
            z = z + alpha[u, v] * (w_neigh @ h[u])
        out[v] = np.maximum(z, 0.0)
    return out
# --- end formula ---


rng = np.random.default_rng(0)
adj = (relation_matrix(directed=False) > 0).astype(float)
n, d_in, d_out = N_ENTITIES, 5, 4
h = rng.normal(size=(n, d_in))
w_self = rng.normal(size=(d_out, d_in))
w_neigh = rng.normal(size=(d_out, d_in))
relu = lambda x: np.maximum(x, 0)  # noqa: E731

# 1. GCN (Kipf & Welling 2017, Eq. 2): H' = ReLU(D~^-1/2 (A + I) D~^-1/2 H W^T). It is this layer on
#    the graph with self-loops, W_self = 0, W_neigh = W and alpha_uv = 1/sqrt(d~_u d~_v).
a_tilde = adj + np.eye(n)
dt = a_tilde.sum(axis=1)
alpha_gcn = 1.0 / np.sqrt(np.outer(dt, dt))
gcn_ref = relu(np.diag(dt**-0.5) @ a_tilde @ np.diag(dt**-0.5) @ h @ w_neigh.T)
check_close("GCN special case vs Kipf & Welling matrix form", aggregate(h, a_tilde, alpha_gcn,
            np.zeros((d_out, d_in)), w_neigh), gcn_ref, rtol=1e-12, atol=1e-12)

# 2. GraphSAGE with the mean aggregator: W [h_v ; mean_{u in N(v)} h_u] with a concatenated weight
#    matrix equals W_self h_v + W_neigh mean(h_u), i.e. alpha_uv = 1/|N(v)| (not symmetric in u, v).
deg = adj.sum(axis=1)
alpha_mean = adj / deg[None, :]  # alpha[u, v] = 1/|N(v)|
concat = np.hstack([h, (adj @ h) / deg[:, None]])
sage_ref = relu(concat @ np.hstack([w_self, w_neigh]).T)
check_close("GraphSAGE-mean vs concatenate-then-linear route", aggregate(h, adj, alpha_mean, w_self, w_neigh),
            sage_ref, rtol=1e-12, atol=1e-12)

# 3. Hand value, 3-node path 0 - 1 - 2 with scalar features h = [1, 2, -4], W_self = 0.5,
#    W_neigh = 1, alpha = 1: node 0: 0.5 + 2 = 2.5; node 1: 1 + 1 - 4 = -2 -> ReLU 0;
#    node 2: -2 + 2 = 0 -> 0; with h_2 = -1: node 2: -0.5 + 2 = 1.5 and node 1: 1 + 1 - 1 = 1.
path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
ones = np.ones((3, 3))
got = aggregate(np.array([[1.0], [2.0], [-4.0]]), path, ones, np.array([[0.5]]), np.array([[1.0]]))
check_close("hand value with ReLU clipping", got.ravel(), [2.5, 0.0, 0.0])
got = aggregate(np.array([[1.0], [2.0], [-1.0]]), path, ones, np.array([[0.5]]), np.array([[1.0]]))
check_close("hand value, all positive", got.ravel(), [2.5, 1.0, 1.5])
got = aggregate(np.array([[0.4], [0.2], [0.6]]), path, 0.5 * ones, np.array([[1.0]]), np.array([[2.0]]))
check_close("hand value, alpha = 0.5, W_neigh = 2: h_v + sum h_u", got.ravel(), [0.6, 1.2, 0.8])

# 4. Permutation equivariance: relabelling the nodes relabels the outputs.
perm = rng.permutation(n)
out = aggregate(h, adj, alpha_mean, w_self, w_neigh)
out_p = aggregate(h[perm], adj[np.ix_(perm, perm)], alpha_mean[np.ix_(perm, perm)], w_self, w_neigh)
check_close("permuting nodes permutes the outputs", out_p, out[perm], rtol=1e-12, atol=1e-12)
check_true("ReLU output is non-negative and some units are clipped", bool(out.min() == 0 and out.max() > 0))

# Over-smoothing: repeated mean aggregation without self weights pulls node features together.
fig, ax = figure("Repeated mean aggregation on the entity graph", "layers", "spread of node features")
x = h[:, :1]
spread = []
for _ in range(12):
    spread.append(float(x.std()))
    x = aggregate(x + 5.0, adj, alpha_mean, np.zeros((1, 1)), np.ones((1, 1))) - 5.0
ax.plot(range(12), spread, marker="o")
