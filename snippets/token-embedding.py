"""Token embedding lookup: row gather = one-hot product; its gradient is a scatter-add (finite
differences)."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def embed(ids, E):
    """X[..., :] = E[ids[...], :]: gather one row of the V x d table per token id."""
    return E[ids]


def embed_grad(ids, G, V):
    """dL/dE for upstream gradient G = dL/dX: add each token's gradient row into the row of its id."""
    grad = np.zeros((V, G.shape[-1]))
    np.add.at(grad, ids.ravel(), G.reshape(ids.size, G.shape[-1]))
    return grad
# --- end formula ---


rng = np.random.default_rng(0)
V, d, B, T = 11, 6, 3, 5
E = rng.normal(size=(V, d))
ids = rng.integers(0, V, size=(B, T))
ids[0, :3] = 4                                    # a repeated token, to exercise accumulation
X = embed(ids, E)

# 1. The lookup is a matrix product with one-hot rows: X = onehot(ids) E (exact in floating point).
onehot = (ids[..., None] == np.arange(V)).astype(float)      # (B, T, V)
check_close("E[ids] == onehot(ids) @ E", X, onehot @ E, rtol=0, atol=0)

# 2. Gradient: for L = sum(W * X), dL/dE = onehot^T W (the transpose of the one-hot product) ...
W = rng.normal(size=(B, T, d))
dE = embed_grad(ids, W, V)
check_close("scatter-add gradient == onehot^T @ G", dE,
            np.einsum("btv,btd->vd", onehot, W), rtol=1e-13, atol=1e-14)

# ... and agrees with central finite differences of the loss on every entry of E.
def loss(E_):
    return float(np.sum(W * embed(ids, E_)))


fd = np.zeros_like(E)
h = 1e-6
for v in range(V):
    for j in range(d):
        Ep, Em = E.copy(), E.copy()
        Ep[v, j] += h
        Em[v, j] -= h
        fd[v, j] = (loss(Ep) - loss(Em)) / (2 * h)
check_close("gradient vs central finite differences", dE, fd, rtol=1e-7, atol=1e-8)

# 3. Rows of tokens absent from the batch get exactly zero gradient; a row's gradient is the sum
#    over every occurrence of its token (token 4 occurs at least three times here).
absent = np.setdiff1d(np.arange(V), ids)
check_true("absent tokens: zero gradient rows", absent.size > 0 and np.all(dE[absent] == 0),
           f"absent ids {absent.tolist()}")
mask4 = ids == 4
check_close("repeated token: gradient = sum over its occurrences", dE[4], W[mask4].sum(axis=0),
            rtol=1e-13)

# Pitfall: buffered fancy-index assignment keeps only one of the duplicates.
naive = np.zeros((V, d))
naive[ids.reshape(-1)] += W.reshape(-1, d)
check_true("naive grad[ids] += G loses repeated tokens", not np.allclose(naive[4], dE[4]),
           f"{mask4.sum()} occurrences of token 4")
