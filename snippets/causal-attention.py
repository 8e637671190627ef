"""Causal masked attention: mask form vs a per-position prefix loop, blindness to the future,
end-aligned masks for cached decoding, and scores spanning more than 1000."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax


# --- formula ---
def causal_attention(q, k, v):
    """softmax(Q K^T / sqrt(d_k) + M) V per head; q: [H, n_q, d_k], k: [H, n_k, d_k], v: [H, n_k, d_v].

    Query i sits at absolute position n_k - n_q + i (queries are the last n_q positions, as when
    decoding with a KV cache); M is 0 where the key position is <= that, -inf after it.
    """
    n_q, n_k = q.shape[-2], k.shape[-2]
    query_pos = np.arange(n_q)[:, None] + (n_k - n_q)
    key_pos = np.arange(n_k)[None, :]
    allowed = key_pos <= query_pos
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(allowed, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v
# --- end formula ---


rng = np.random.default_rng(0)
H, T, d_k, d_v = 3, 9, 5, 4
Q = rng.normal(size=(H, T, d_k))
K = rng.normal(size=(H, T, d_k))
V = rng.normal(size=(H, T, d_v))
out = causal_attention(Q, K, V)


def prefix_loop(q, k, v, scale=1.0):
    """Reference: position i runs ordinary attention over keys 0..i only (scipy softmax)."""
    ref = np.zeros((*q.shape[:-1], v.shape[-1]))
    for h in range(q.shape[0]):
        for i in range(q.shape[1]):
            s = np.array([np.dot(q[h, i], k[h, j]) for j in range(i + 1)]) / np.sqrt(q.shape[-1])
            ref[h, i] = scipy_softmax(s) @ v[h, : i + 1]
    return ref


check_close("mask form vs per-position loop over the prefix (3 heads)", out, prefix_loop(Q, K, V),
            rtol=1e-12, atol=1e-14)

# The first position can only see itself, so its output is its own value vector.
check_close("position 0 returns v_0", out[:, 0], V[:, 0], rtol=1e-13)

# Changing every token after position t (queries, keys and values) leaves outputs 0..t unchanged.
t = 4
Q2, K2, V2 = Q.copy(), K.copy(), V.copy()
Q2[:, t + 1:] = rng.normal(size=Q2[:, t + 1:].shape)
K2[:, t + 1:] = 5 * rng.normal(size=K2[:, t + 1:].shape)
V2[:, t + 1:] = rng.normal(size=V2[:, t + 1:].shape)
out2 = causal_attention(Q2, K2, V2)
check_close(f"outputs at positions <= {t} ignore every later token", out2[:, : t + 1],
            out[:, : t + 1], rtol=1e-13, atol=1e-15)
check_true("later positions do change", np.abs(out2[:, t + 1:] - out[:, t + 1:]).min() > 1e-6,
           f"smallest change {np.abs(out2[:, t + 1:] - out[:, t + 1:]).min():.2e}")

# The weights (one-hot values) are a lower-triangular stochastic matrix.
W = causal_attention(Q, K, np.broadcast_to(np.eye(T), (H, T, T)))
check_true("weights above the diagonal are exactly 0", bool(np.all(np.triu(W, 1) == 0.0)))
check_close("each row of weights sums to 1", W.sum(axis=-1), np.ones((H, T)), rtol=1e-13)

# Cached decoding: the last n_q queries against all T keys reproduce the last n_q rows.
for n_q in (1, 3):
    check_close(f"{n_q} new queries vs cached keys = last {n_q} rows of the full pass",
                causal_attention(Q[:, -n_q:], K, V), out[:, -n_q:], rtol=1e-12, atol=1e-14)

# Scores spanning more than 1000: the max shift keeps exp finite; scipy agrees.
Qw = 150.0 * Q
span = np.ptp(np.einsum("hid,hjd->hij", Qw, K) / np.sqrt(d_k))
out_w = causal_attention(Qw, K, V)
check_close(f"scores spanning {span:.0f}: matches the prefix loop", out_w, prefix_loop(Qw, K, V),
            rtol=1e-12, atol=1e-14)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

qt, kt, vt = torch.tensor(Q), torch.tensor(K), torch.tensor(V)
# Dot products of width 5 and softmaxes over at most 9 keys: a few ulps, as the prefix loop's 1e-12.
check_close("F.scaled_dot_product_attention(Q, K, V, is_causal=True) = the card",
            F.scaled_dot_product_attention(qt, kt, vt, is_causal=True).numpy(), out,
            rtol=1e-12, atol=1e-14)
# With fewer queries than keys (decoding with a cache), is_causal aligns the mask to the top left:
# query i sees keys 0..i, as if the queries were the first n_q positions, not the last.
n_q = 3
check_close("pitfall: is_causal with 3 queries and 9 keys masks as if they were positions 0..2",
            F.scaled_dot_product_attention(qt[:, -n_q:], kt, vt, is_causal=True).numpy(),
            causal_attention(Q[:, -n_q:], K[:, :n_q], V[:, :n_q]), rtol=1e-12, atol=1e-14)
# A boolean attn_mask marks with True the keys a query may attend (nn.MultiheadAttention: the opposite).
end_aligned = torch.ones(n_q, T, dtype=torch.bool).tril(diagonal=T - n_q)
check_close("fix: attn_mask = ones(n_q, n_k).tril(n_k - n_q), True = may attend",
            F.scaled_dot_product_attention(qt[:, -n_q:], kt, vt, attn_mask=end_aligned).numpy(),
            out[:, -n_q:], rtol=1e-12, atol=1e-14)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def jax_attention(q, k, v, **options):
    """jax.nn.dot_product_attention on the card's [H, n, d] arrays (it takes [batch, n, H, d]). It
    wants values as wide as the keys, so V gets d_k - d_v zero columns, dropped from the output."""
    def to_jax(a):
        return jax.numpy.asarray(a.transpose(1, 0, 2)[None])
    padded = np.concatenate([v, np.zeros((*v.shape[:-1], q.shape[-1] - v.shape[-1]))], axis=-1)
    result = jax.nn.dot_product_attention(to_jax(q), to_jax(k), to_jax(padded), **options)
    return np.asarray(result)[0].transpose(1, 0, 2)[..., : v.shape[-1]]


# It runs the softmax in float32 even for float64 inputs: the scores are rounded to 2^-24 of their
# size, so each weight is off by up to (max|s| + a few ulps for exp and the sum) 2^-24 relative, and
# an output, a convex mix of values, by that times max|v|; twice that is the tolerance.
scores = np.einsum("hid,hjd->hij", Q, K) / np.sqrt(d_k)
f32_atol = 2 * (np.abs(scores).max() + 4) * 2.0**-24 * np.abs(V).max()
jax_out = jax_attention(Q, K, V, is_causal=True)
check_close("jax.nn.dot_product_attention(Q, K, V, is_causal=True) = the card, to float32's rounding",
            jax_out, out, rtol=0, atol=f32_atol)
check_true("pitfall: its softmax is float32 even on float64 inputs: off by more than float64's 1e-12",
           np.abs(jax_out - out).max() > 1e-12, f"max difference {np.abs(jax_out - out).max():.2e}")
check_close("pitfall: is_causal aligns to the top left here too (3 queries, 9 keys)",
            jax_attention(Q[:, -n_q:], K, V, is_causal=True),
            causal_attention(Q[:, -n_q:], K[:, :n_q], V[:, :n_q]), rtol=0, atol=f32_atol)
check_close("fix: mask = tril(ones(n_q, n_k), n_k - n_q), True = may attend",
            jax_attention(Q[:, -n_q:], K, V, mask=jax.numpy.tril(jax.numpy.ones((n_q, T), bool), T - n_q)),
            out[:, -n_q:], rtol=0, atol=f32_atol)
# --- end in code ---

fig, ax = figure("Causal attention weights (one head, T = 9)", "key position j",
                 "query position i")
im = ax.imshow(W[0], cmap="viridis", vmin=0, vmax=1)
ax.set_xticks(range(T))
ax.set_yticks(range(T))
fig.colorbar(im, ax=ax, label="weight")
