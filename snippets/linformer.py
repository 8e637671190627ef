"""Linformer: shapes, E = F = I gives full attention, exactness on repeated keys, the rank-k
context map, an explicit loop over the projected keys, and the loss of causality."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


# --- formula ---
def linformer_attention(q, k, v, e, f):
    """softmax(Q (E K)^T / sqrt(d_k)) (F V); E, F: [k_proj, n] mix the n positions into k_proj rows."""
    k_proj = e @ k                                  # [k_proj, d_k]
    v_proj = f @ v                                  # [k_proj, d_v]
    scores = q @ k_proj.T / np.sqrt(q.shape[1])     # [n, k_proj]: the context map P-bar
    scores = scores - scores.max(axis=1, keepdims=True)
    p_bar = np.exp(scores)
    p_bar = p_bar / p_bar.sum(axis=1, keepdims=True)
    return p_bar @ v_proj
# --- end formula ---


def full_attention(q, k, v):
    return scipy_softmax(q @ k.T / np.sqrt(q.shape[1]), axis=1) @ v


rng = np.random.default_rng(0)
n, k_dim, d_k, d_v = 24, 6, 5, 3
Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
E, F = rng.normal(size=(k_dim, n)) / np.sqrt(k_dim), rng.normal(size=(k_dim, n)) / np.sqrt(k_dim)
out = linformer_attention(Q, K, V, E, F)
check_true("output is n x d_v although only k = 6 projected keys exist", out.shape == (n, d_v),
           str(out.shape))

# Reference: project keys and values with explicit sums over positions, then attend per query.
Kp = np.array([[sum(E[r, j] * K[j, c] for j in range(n)) for c in range(d_k)] for r in range(k_dim)])
Vp = np.array([[sum(F[r, j] * V[j, c] for j in range(n)) for c in range(d_v)] for r in range(k_dim)])
loop = np.array([scipy_softmax(Kp @ Q[i] / np.sqrt(d_k)) @ Vp for i in range(n)])
check_close("matrix form vs explicit projection sums + per-query softmax", out, loop,
            rtol=1e-12, atol=1e-14)

# With E = F = I (k = n) nothing is compressed: plain softmax attention.
check_close("E = F = I_n gives full attention", linformer_attention(Q, K, V, np.eye(n), np.eye(n)),
            full_attention(Q, K, V), rtol=1e-12, atol=1e-14)

# Exact compression: if keys/values come in blocks of r identical rows, picking one row per block
# (or averaging each block) loses nothing, because duplicated keys scale every weight equally.
r = 4
Ku, Vu = rng.normal(size=(n // r, d_k)), rng.normal(size=(n // r, d_v))
Kr, Vr = np.repeat(Ku, r, axis=0), np.repeat(Vu, r, axis=0)
pick = np.zeros((n // r, n))
pick[np.arange(n // r), np.arange(0, n, r)] = 1.0
mean_pool = np.kron(np.eye(n // r), np.full((1, r), 1.0 / r))
for name, P in (("row selection", pick), ("mean pooling", mean_pool)):
    check_close(f"blocks of {r} repeated keys: {name} E = F is exact",
                linformer_attention(Q, Kr, Vr, P, P), full_attention(Q, Kr, Vr), rtol=1e-12, atol=1e-14)

# The context map P-bar (n x k) has rows summing to 1; the effective n x n map P-bar F has rank k.
P_bar = linformer_attention(Q, K, np.eye(n, k_dim), E, np.eye(k_dim, n))    # F V = I_k reads out P-bar
check_close("rows of the n x k context map sum to 1", P_bar.sum(axis=1), np.ones(n), rtol=1e-13)
effective = linformer_attention(Q, K, np.eye(n), E, F)          # rows: weights on the n values
check_true("the effective n x n attention map has rank k = 6 (< n = 24)",
           np.linalg.matrix_rank(effective) == k_dim, f"rank {np.linalg.matrix_rank(effective)}")
check_close("output = (P-bar F) V", out, effective @ V, rtol=1e-12, atol=1e-14)

# Scores spanning > 1000: the max shift keeps exp finite.
Qw = 250.0 * Q
span = np.ptp(Qw @ (E @ K).T / np.sqrt(d_k))
check_close(f"scores spanning {span:.0f}: still matches scipy",
            linformer_attention(Qw, K, V, E, F),
            scipy_softmax(Qw @ (E @ K).T / np.sqrt(d_k), axis=1) @ (F @ V), rtol=1e-12, atol=1e-14)

# E mixes all positions, so position 0 sees the last token: Linformer is not causal.
V2 = V.copy()
V2[-1] += 1.0
check_true("changing the last value changes the output at position 0",
           np.abs(linformer_attention(Q, K, V2, E, F)[0] - out[0]).max() > 1e-3)

# The page's calculator is checked against linformer_attention: with F V = I its output is the context map,
# whose entries it counts, and with E = F = I_n (k = n) it is full attention's n x n map.
import cardcalc  # noqa: E402


def map_entries(n, k):
    draw = np.random.default_rng(n + k)
    q_k = draw.normal(size=(n, 2))
    projected = linformer_attention(q_k, q_k, np.eye(n, k), draw.normal(size=(k, n)), np.eye(k, n)).size
    full = linformer_attention(q_k, q_k, np.eye(n), np.eye(n), np.eye(n)).size
    return {"P": projected, "f": projected / full}


cardcalc.table(map_entries, [{"n": n, "k": k} for n in (1, 64, 1024) for k in (1, 16, 256) if k <= n])

# --- in code: torch ---
import torch  # noqa: E402

# The card's F is the value projection, so torch's functional module goes by its full name here.
sdpa = torch.nn.functional.scaled_dot_product_attention
q_t, k_t, v_t, e_t, f_t = (torch.tensor(a) for a in (Q, K, V, E, F))
# Sums of 24 and 5 products and a softmax over 6 rows, a few ulps each: the 1e-12 of the checks above.
check_close("sdpa(Q, E @ K, F @ V) = Linformer: 24 queries over 6 projected keys",
            sdpa(q_t, e_t @ k_t, f_t @ v_t).numpy(), out, rtol=1e-12, atol=1e-14)
# E and F written as nn.Linear(n, k) layers over the sequence axis carry a bias by default, which
# adds a learned row b 1^T to the projected keys: E K + b 1^T = [E | b] [K; 1].
proj_k, proj_v = (torch.nn.Linear(n, k_dim, dtype=torch.float64) for _ in range(2))
with torch.no_grad():
    proj_k.weight.copy_(e_t)
    proj_v.weight.copy_(f_t)
b_e, b_f = proj_k.bias.detach().numpy(), proj_v.bias.detach().numpy()
biased = sdpa(q_t, proj_k(k_t.T).T, proj_v(v_t.T).T).detach().numpy()
check_close("pitfall: nn.Linear(n, k) over the positions adds its default bias to every projected key",
            biased, linformer_attention(Q, np.vstack([K, np.ones(d_k)]), np.vstack([V, np.ones(d_v)]),
                                        np.column_stack([E, b_e]), np.column_stack([F, b_f])),
            rtol=1e-12, atol=1e-14)
check_true("... which is not the card's E K", np.abs(biased - out).max() > 1e-3,
           f"max difference {np.abs(biased - out).max():.2g}")
check_close("fix: nn.Linear(n, k, bias=False)",
            sdpa(q_t, torch.nn.functional.linear(k_t.T, e_t).T,
                 torch.nn.functional.linear(v_t.T, f_t).T).numpy(),
            out, rtol=1e-12, atol=1e-14)
# --- end in code ---
