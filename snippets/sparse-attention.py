"""Sparse Transformer attention: strided and fixed patterns vs their set definitions, gathered
attention vs dense masked attention, two-step coverage of the prefix, and O(n sqrt n) pairs."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax


# --- formula ---
def strided_pattern(n, ell):
    """A1: the previous l positions and itself; A2: every l-th position back (both causal)."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    causal = j <= i
    a1 = causal & (i - j <= ell)
    a2 = causal & ((i - j) % ell == 0)
    return a1, a2


def fixed_pattern(n, ell, c):
    """A1: the positions of i's own block of length l; A2: the last c positions of every block."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    causal = j <= i
    a1 = causal & (j // ell == i // ell)
    a2 = causal & (j % ell >= ell - c)
    return a1, a2


def sparse_attention(q, k, v, allowed):
    """a(x_i, S_i) = softmax(q_i K_{S_i}^T / sqrt(d)) V_{S_i}, gathering only the allowed keys."""
    n, d = q.shape
    out = np.empty((n, v.shape[1]))
    for i in range(n):
        idx = np.flatnonzero(allowed[i])
        s = k[idx] @ q[i] / np.sqrt(d)
        p = np.exp(s - s.max())
        out[i] = p @ v[idx] / p.sum()
    return out
# --- end formula ---


def as_mask(sets, n):
    m = np.zeros((n, n), bool)
    for i, s in enumerate(sets):
        m[i, sorted(s)] = True
    return m


n, ell, c = 36, 6, 2
# Reference patterns: the set definitions of Child et al., Sec. 4.3, enumerated with Python sets.
ref_s1 = as_mask([set(range(max(0, i - ell), i + 1)) for i in range(n)], n)
ref_s2 = as_mask([{j for j in range(i + 1) if (i - j) % ell == 0} for i in range(n)], n)
ref_f1 = as_mask([{j for j in range(i + 1) if j // ell == i // ell} for i in range(n)], n)
ref_f2 = as_mask([{j for j in range(i + 1) if j % ell in range(ell - c, ell + 1)} for i in range(n)], n)
s1, s2 = strided_pattern(n, ell)
f1, f2 = fixed_pattern(n, ell, c)
check_true("strided A1 = {max(0, i-l), ..., i}", np.array_equal(s1, ref_s1))
check_true("strided A2 = {j <= i : (i - j) mod l = 0}", np.array_equal(s2, ref_s2))
check_true("fixed A1 = {j <= i : floor(j/l) = floor(i/l)}", np.array_equal(f1, ref_f1))
check_true("fixed A2 = {j <= i : j mod l in {l-c, ..., l}}", np.array_equal(f2, ref_f2))

# Attention restricted to a pattern: gather form vs dense -inf-masked form with scipy.
rng = np.random.default_rng(0)
d, d_v = 8, 3
Q, K, V = rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d_v))
for name, mask in (("strided A1", ref_s1), ("strided A2", ref_s2), ("fixed A1 | A2", ref_f1 | ref_f2),
                   ("strided A1 | A2 (merged head)", ref_s1 | ref_s2)):
    dense = scipy_softmax(np.where(mask, Q @ K.T / np.sqrt(d), -np.inf), axis=1) @ V
    check_close(f"{name}: gathered attention vs dense masked attention",
                sparse_attention(Q, K, V, mask), dense, rtol=1e-12, atol=1e-14)
Qw = 150.0 * Q
dense_w = scipy_softmax(np.where(ref_s1, Qw @ K.T / np.sqrt(d), -np.inf), axis=1) @ V
span = np.ptp((Qw @ K.T / np.sqrt(d))[ref_s1])
check_close(f"scores spanning {span:.0f}: gathered vs dense", sparse_attention(Qw, K, V, ref_s1),
            dense_w, rtol=1e-12, atol=1e-14)

# Factorization: two attention steps (one per head type) connect every i to every j <= i.
causal = np.tril(np.ones((n, n), bool))
check_true("strided: A1 then A2 reaches the whole prefix",
           np.array_equal((ref_s1.astype(int) @ ref_s2.astype(int)) > 0, causal))
check_true("fixed: A1, or A2 then A1, reaches the whole prefix",
           np.array_equal(ref_f1 | ((ref_f2.astype(int) @ ref_f1.astype(int)) > 0), causal))
check_true("no single head covers the prefix on its own",
           not any(np.array_equal(m, causal) for m in (ref_s1, ref_s2, ref_f1, ref_f2)))

# Cost: with l = sqrt(n) each query sees at most about 2 sqrt(n) + 1 keys.
for nn in (64, 256, 1024):
    ll = int(np.sqrt(nn))
    a1, a2 = strided_pattern(nn, ll)
    per_row = (a1 | a2).sum(axis=1)
    check_true(f"n = {nn}, l = {ll}: at most 2 sqrt(n) + 1 keys per query",
               per_row.max() <= 2 * ll + 1, f"max {per_row.max()}, dense {nn}")
    check_close(f"n = {nn}: strided pairs in closed form", (a1 | a2).sum(),
                sum(min(i, ll) + 1 + i // ll - (1 if i >= ll else 0) for i in range(nn)), rtol=0)

# --- in code: torch ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention.flex_attention import create_block_mask, flex_attention  # noqa: E402

q_t, k_t, v_t = (torch.tensor(a)[None] for a in (Q, K, V))          # [heads, n, d]
# The two strided heads in one call: a boolean attn_mask per head, True where a query may attend.
# Width-8 dot products and softmaxes over at most 7 keys, a few ulps: the 1e-12 of the checks above.
two_heads = F.scaled_dot_product_attention(q_t.expand(2, n, d), k_t.expand(2, n, d), v_t.expand(2, n, d_v),
                                           attn_mask=torch.tensor(np.stack([s1, s2])))
check_close("sdpa(Q, K, V, attn_mask=[A1, A2]) = the two strided heads",
            two_heads.numpy(), np.stack([sparse_attention(Q, K, V, s1), sparse_attention(Q, K, V, s2)]),
            rtol=1e-12, atol=1e-14)


def strided(batch, head, q_idx, kv_idx):
    """flex_attention's mask_mod for the merged strided head A1 | A2."""
    back = q_idx - kv_idx
    return (kv_idx <= q_idx) & ((back <= ell) | (back % ell == 0))


# Uncompiled, flex_attention runs unfused on the CPU and warns so; the values are the same.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    merged = flex_attention(q_t[None], k_t[None], v_t[None],
                            block_mask=create_block_mask(strided, None, None, n, n, device="cpu"))
check_close("flex_attention with mask_mod (j <= i) & ((i - j <= l) | ((i - j) mod l = 0)) = merged head",
            merged[0, 0].numpy(), sparse_attention(Q, K, V, s1 | s2), rtol=1e-12, atol=1e-14)
# A float attn_mask is ADDED to the scores: the pattern as 0/1 floats masks nothing and gives the
# allowed keys a bonus of 1.
bonus = F.scaled_dot_product_attention(q_t, k_t, v_t,
                                       attn_mask=torch.tensor(s1, dtype=torch.float64))[0].numpy()
check_close("pitfall: attn_mask=A1.double() adds 1 to the allowed scores and masks nothing",
            bonus, scipy_softmax(Q @ K.T / np.sqrt(d) + s1, axis=1) @ V, rtol=1e-12, atol=1e-14)
check_close("fix: a float mask holds 0 and -inf", F.scaled_dot_product_attention(
    q_t, k_t, v_t, attn_mask=torch.tensor(np.where(s1, 0.0, -np.inf)))[0].numpy(),
    sparse_attention(Q, K, V, s1), rtol=1e-12, atol=1e-14)
# --- end in code ---

fig, ax = figure("Sparse Transformer patterns, n = 36, l = 6", "key position j",
                 "query position i", size=(7.0, 3.6))
ax.remove()
axes = fig.subplots(1, 2)
panels = (("strided", ref_s1, ref_s2), ("fixed, c = 2", ref_f1, ref_f2))
for ax, (title, a, b) in zip(axes, panels, strict=True):
    ax.imshow(a.astype(float) + 0.5 * b, cmap="Greys", vmin=0, vmax=1.5)
    ax.set_title(f"{title}: A1 dark, A2 grey")
    ax.set_xlabel("key position j")
    ax.set_ylabel("query position i")
