"""Linear attention: the associativity form vs the explicit quadratic form, an exact polynomial
kernel, the causal recurrence vs the masked parallel form, and a state whose size ignores T."""

import numpy as np
from cardcheck import check_close


# --- formula ---
def elu_plus_one(x):
    """phi(x) = elu(x) + 1: x + 1 for x > 0, exp(x) for x <= 0 (always positive)."""
    return np.exp(np.minimum(x, 0.0)) + np.maximum(x, 0.0)


def linear_attention(q, k, v, phi=elu_plus_one):
    """V'_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / phi(q_i)^T (sum_j phi(k_j)); O(N D M) work."""
    fq, fk = phi(q), phi(k)
    kv = fk.T @ v                  # [D, M]: sum_j phi(k_j) v_j^T
    z = fk.sum(axis=0)             # [D]:    sum_j phi(k_j)
    return (fq @ kv) / (fq @ z)[:, None]


def causal_linear_attention(q, k, v, phi=elu_plus_one):
    """The same with j <= i, run as an RNN: S_i = S_{i-1} + phi(k_i) v_i^T, z_i = z_{i-1} + phi(k_i)."""
    fq, fk = phi(q), phi(k)
    s = np.zeros((fk.shape[1], v.shape[1]))
    z = np.zeros(fk.shape[1])
    out = np.empty((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        s = s + np.outer(fk[i], v[i])
        z = z + fk[i]
        out[i] = fq[i] @ s / (fq[i] @ z)
    return out, (s, z)
# --- end formula ---


rng = np.random.default_rng(0)
N, D, M = 10, 4, 3
Q, K, V = rng.normal(size=(N, D)), rng.normal(size=(N, D)), rng.normal(size=(N, M))

# The feature map: elu(x) + 1 at known points and continuity at 0.
check_close("phi(-2), phi(-0.5), phi(0), phi(0.5), phi(3)",
            elu_plus_one(np.array([-2.0, -0.5, 0.0, 0.5, 3.0])),
            [np.exp(-2.0), np.exp(-0.5), 1.0, 1.5, 4.0], rtol=1e-15)

def elu(x):
    """Reference ELU (alpha = 1), written from its definition: x for x > 0, e^x - 1 otherwise."""
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0.0)))


# Reference: build the N x N similarity matrix sim(q_i, k_j) = phi(q_i).phi(k_j) element by
# element and normalize each row explicitly (the quadratic route the formula avoids).
fq = elu(Q) + 1
fk = elu(K) + 1
sim = np.array([[sum(fq[i, a] * fk[j, a] for a in range(D)) for j in range(N)] for i in range(N)])
quadratic = (sim / sim.sum(axis=1, keepdims=True)) @ V
check_close("linear (associativity) form vs explicit N x N similarity form",
            linear_attention(Q, K, V), quadratic, rtol=1e-12, atol=1e-14)


# An exact finite kernel: phi(x) = vec(x x^T) gives sim(q, k) = (q.k)^2, computed directly.
def outer_features(x):
    return np.einsum("na,nb->nab", x, x).reshape(len(x), -1)


w2 = (Q @ K.T) ** 2
check_close("phi = vec(x x^T): equals attention with weights (q.k)^2 / sum_j (q.k_j)^2",
            linear_attention(Q, K, V, outer_features), (w2 / w2.sum(axis=1, keepdims=True)) @ V,
            rtol=1e-11, atol=1e-13)

# Causal: the recurrence equals the masked parallel (quadratic) form, row by row.
masked = np.tril(sim)
check_close("causal recurrence vs lower-triangular similarity matrix",
            causal_linear_attention(Q, K, V)[0], (masked / masked.sum(axis=1, keepdims=True)) @ V,
            rtol=1e-12, atol=1e-14)
check_close("causal, last row = non-causal last row (it sees every key)",
            causal_linear_attention(Q, K, V)[0][-1], linear_attention(Q, K, V)[-1], rtol=1e-12)
check_close("causal, first row = v_0", causal_linear_attention(Q, K, V)[0][0], V[0], rtol=1e-13)
masked2 = np.tril(w2)
check_close("causal recurrence with the (q.k)^2 kernel vs its masked form",
            causal_linear_attention(Q, K, V, outer_features)[0],
            (masked2 / masked2.sum(axis=1, keepdims=True)) @ V, rtol=1e-11, atol=1e-13)

# Prefix-only: rewriting tokens after t leaves outputs 0..t unchanged.
t = 5
K2, V2 = K.copy(), V.copy()
K2[t + 1:], V2[t + 1:] = rng.normal(size=(N - t - 1, D)), rng.normal(size=(N - t - 1, M))
check_close("causal outputs <= t ignore later tokens", causal_linear_attention(Q, K2, V2)[0][: t + 1],
            causal_linear_attention(Q, K, V)[0][: t + 1], rtol=1e-13)

# Inputs of large magnitude: phi stays finite (elu saturates below 0, linear above).
big = 800.0 * Q
big[:, 0] = np.abs(big[:, 0])     # keep one positive feature per row (phi underflows to 0 below -745)
fb = elu(big) + 1
simb = fb @ fk.T
check_close("|x| up to ~2000: still finite and equal to the quadratic form",
            linear_attention(big, K, V), (simb / simb.sum(axis=1, keepdims=True)) @ V,
            rtol=1e-11, atol=1e-13)

# The recurrent state after N steps is (sum_j phi(k_j) v_j^T, sum_j phi(k_j)): D x M plus D
# numbers whatever N is, where softmax attention would cache N (D + M) numbers.
for n_tok in (N, 4 * N):
    Kn, Vn = rng.normal(size=(n_tok, D)), rng.normal(size=(n_tok, M))
    _, (S_n, z_n) = causal_linear_attention(Q[:1].repeat(n_tok, 0), Kn, Vn)
    fkn = elu(Kn) + 1
    check_close(f"N = {n_tok}: final state S = sum_j phi(k_j) v_j^T, shape {S_n.shape}", S_n,
                fkn.T @ Vn, rtol=1e-12)
    check_close(f"N = {n_tok}: final normalizer z = sum_j phi(k_j), shape {z_n.shape}", z_n,
                fkn.sum(axis=0), rtol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# phi = F.elu(x) + 1, elu's default alpha = 1 as on the card; the sums over keys are two matrix products.
fq_t, fk_t, v_t = F.elu(torch.tensor(Q)) + 1, F.elu(torch.tensor(K)) + 1, torch.tensor(V)
# Sums of 10 positive products, a few ulps each: 1e-12 as the checks above.
check_close("phi(Q) (phi(K)^T V) / (phi(Q) phi(K)^T 1), phi = F.elu + 1 = linear attention",
            ((fq_t @ (fk_t.T @ v_t)) / (fq_t @ fk_t.sum(dim=0))[:, None]).numpy(), linear_attention(Q, K, V),
            rtol=1e-12, atol=1e-14)
# Causal, in parallel: the states S_i and z_i are prefix sums over positions, torch.cumsum along dim 0.
states = torch.cumsum(fk_t[:, :, None] * v_t[:, None, :], dim=0)                 # [N, D, M]: S_1 .. S_N
normalizers = torch.cumsum(fk_t, dim=0)                                           # [N, D]:    z_1 .. z_N
check_close("torch.cumsum of phi(k_j) v_j^T and of phi(k_j) = the causal recurrence",
            (torch.einsum("nd,ndm->nm", fq_t, states)
             / (fq_t * normalizers).sum(dim=1, keepdim=True)).numpy(),
            causal_linear_attention(Q, K, V)[0], rtol=1e-12, atol=1e-14)
# --- end in code ---
