"""Learned absolute position embeddings: the lookup against one-hot matrix products, the backward
pass (scatter-add into E, per-position sums into P) against finite differences, the rows of P that
never receive gradient, the hard length limit, and a brute-force permutation test showing what the
position table adds to a position-blind attention layer."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax


# --- formula ---
def embed(tokens: np.ndarray, E: np.ndarray, P: np.ndarray) -> np.ndarray:
    """h[b, i] = E[x_{b,i}] + P[i] for positions i = 0 .. T - 1; T may not exceed n_max = rows of P."""
    T = tokens.shape[-1]
    if T > P.shape[0]:
        raise IndexError(f"sequence of {T} tokens, but only {P.shape[0]} learned positions")
    return E[tokens] + P[:T]


def embed_backward(tokens: np.ndarray, grad_h: np.ndarray, vocab: int, n_max: int):
    """dL/dE[v] = sum of dL/dh over every occurrence of token v; dL/dP[i] = sum over all leading axes."""
    T = tokens.shape[-1]
    grad_E = np.zeros((vocab, grad_h.shape[-1]))
    np.add.at(grad_E, tokens, grad_h)
    grad_P = np.zeros((n_max, grad_h.shape[-1]))
    grad_P[:T] = grad_h.sum(axis=tuple(range(grad_h.ndim - 2)))
    return grad_E, grad_P
# --- end formula ---


rng = np.random.default_rng(0)
V, n_max, d = 11, 16, 6
B, T = 3, 9
E = rng.normal(size=(V, d))
P = rng.normal(size=(n_max, d))
tokens = rng.integers(0, V, size=(B, T))
tokens[0, 1] = tokens[0, 5] = tokens[2, 3] = 4  # a token repeated within and across sequences

# 1. The lookup is one-hot(token) @ E + one-hot(position) @ P.
onehot_tok = np.eye(V)[tokens]
onehot_pos = np.eye(n_max)[np.arange(T)]
check_close("E[x_i] + P_i = onehot(x_i) E + onehot(i) P", embed(tokens, E, P),
            onehot_tok @ E + onehot_pos @ P, rtol=1e-13, atol=1e-15)

check_close("one unbatched sequence (1-D ids) gives the same rows", embed(tokens[1], E, P),
            embed(tokens, E, P)[1], rtol=1e-15)

# 2. Backward pass against central finite differences of a nonlinear scalar loss.
G = rng.normal(size=(B, T, d))


def loss(E_, P_):
    return float(np.sum(np.tanh(embed(tokens, E_, P_)) * G))


grad_h = (1 - np.tanh(embed(tokens, E, P)) ** 2) * G
gE, gP = embed_backward(tokens, grad_h, V, n_max)
eps = 1e-6
fd_E = np.zeros_like(E)
fd_P = np.zeros_like(P)
for idx in np.ndindex(*E.shape):
    dE = np.zeros_like(E)
    dE[idx] = eps
    fd_E[idx] = (loss(E + dE, P) - loss(E - dE, P)) / (2 * eps)
for idx in np.ndindex(*P.shape):
    dP = np.zeros_like(P)
    dP[idx] = eps
    fd_P[idx] = (loss(E, P + dP) - loss(E, P - dP)) / (2 * eps)
check_close("dL/dE by scatter-add (token 4 appears 3 times) vs finite differences", gE, fd_E,
            rtol=1e-6, atol=1e-8)
check_close("dL/dP vs finite differences", gP, fd_P, rtol=1e-6, atol=1e-8)
check_true("rows P[T:] get exactly zero gradient: positions never seen in training stay at init",
           np.all(gP[T:] == 0.0) and np.all(np.abs(gP[:T]) > 0), f"zero rows: {T} .. {n_max - 1}")
gE2, gP2 = embed_backward(np.stack([tokens, tokens[::-1]]), np.stack([grad_h, grad_h[::-1]]), V, n_max)
check_close("extra leading axis (2 x B x T ids): gradients of both copies add up",
            np.concatenate([gE2, gP2]), np.concatenate([2 * gE, 2 * gP]), rtol=1e-12, atol=1e-14)
overwrite = np.zeros((V, d))
overwrite[tokens] = grad_h  # the classic bug: fancy-index assignment keeps one occurrence only
check_true("plain assignment instead of scatter-add loses repeated tokens' gradient",
           np.abs(overwrite[4] - gE[4]).max() > 1e-3,
           f"error on token 4: {np.abs(overwrite[4] - gE[4]).max():.2f}")

# 3. A hard limit: one row per position, nothing past n_max (GPT-2: 1024, BERT: 512).
try:
    embed(rng.integers(0, V, size=(1, n_max + 1)), E, P)
    raised = False
except IndexError:
    raised = True
check_true("a sequence of n_max + 1 tokens has no embedding for its last position", raised)
check_close("n_max tokens are fine (positions 0 .. n_max - 1)",
            embed(np.zeros((1, n_max), dtype=int), E, P)[0], E[0] + P, rtol=1e-15)
check_close("GPT-2 small position table: 1024 x 768 = 786,432 parameters", 1024 * 768, 786432, rtol=0)

# 4. Why the table exists: self-attention without positions is permutation-equivariant
#    (shuffling tokens shuffles outputs). Adding P breaks that, by brute force over permutations.
Wq, Wk, Wv = (rng.normal(size=(d, d)) for _ in range(3))


def attention(H):
    s = (H @ Wq) @ (H @ Wk).T / np.sqrt(d)
    return softmax(s, axis=-1) @ (H @ Wv)


x = tokens[1]
no_pos = E[x]
with_pos = embed(x[None, :], E, P)[0]
perms = [rng.permutation(T) for _ in range(20)]
check_close("no positions: attention(H[perm]) = attention(H)[perm] for 20 random permutations",
            np.stack([attention(no_pos[p]) for p in perms]), np.stack([attention(no_pos)[p] for p in perms]),
            rtol=1e-10, atol=1e-12)
gaps = [np.abs(attention(embed(x[p][None, :], E, P)[0]) - attention(with_pos)[p]).max() for p in perms]
check_true("with E[x_i] + P_i the same shuffles change the outputs (order is visible)", min(gaps) > 1e-3,
           f"smallest change over the 20 permutations: {min(gaps):.3f}")
