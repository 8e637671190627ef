"""Sliding-window attention: the banded O(T w) procedure vs dense masked attention, the mask vs
numpy's tril/triu band, exactly w keys per query, and the receptive field L (w - 1) + 1."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax


# --- formula ---
def window_mask(n, w, causal=True):
    """True where query i may attend key j: causal, the w most recent keys i-w+1..i;
    bidirectional (Longformer), w/2 keys on each side, |i - j| <= w/2."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if causal:
        return (j <= i) & (i - j < w)
    return 2 * np.abs(i - j) <= w


def sliding_window_attention(q, k, v, w):
    """Causal sliding window, computed band by band: query i only ever touches keys i-w+1..i."""
    n, d_k = q.shape
    out = np.empty((n, v.shape[1]))
    for i in range(n):
        lo = max(0, i - w + 1)
        s = k[lo:i + 1] @ q[i] / np.sqrt(d_k)
        p = np.exp(s - s.max())
        out[i] = p @ v[lo:i + 1] / p.sum()
    return out
# --- end formula ---


def dense_masked(q, k, v, allowed):
    """Reference: full T x T scores, -inf outside the allowed set, scipy softmax."""
    s = np.where(allowed, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
    return scipy_softmax(s, axis=1) @ v


rng = np.random.default_rng(0)
T, d_k, d_v = 24, 6, 3
Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))

for w in (1, 4, 7):
    band = np.tril(np.ones((T, T), bool)) & np.triu(np.ones((T, T), bool), -(w - 1))
    check_true(f"causal mask, w = {w}: equals tril(0) & triu(-(w-1))",
               np.array_equal(window_mask(T, w), band))
    counts = window_mask(T, w).sum(axis=1)
    check_true(f"w = {w}: query i attends to exactly min(i + 1, w) keys",
               np.array_equal(counts, np.minimum(np.arange(T) + 1, w)), f"counts {counts[:w + 1]}...")
    check_close(f"w = {w}: banded O(T w) loop vs dense masked attention",
                sliding_window_attention(Q, K, V, w), dense_masked(Q, K, V, band),
                rtol=1e-12, atol=1e-14)

# w = 1: every token returns its own value; w >= T: plain causal attention.
check_close("w = 1 returns v_i", sliding_window_attention(Q, K, V, 1), V, rtol=1e-13)
check_close("w >= T equals full causal attention", sliding_window_attention(Q, K, V, T),
            dense_masked(Q, K, V, np.tril(np.ones((T, T), bool))), rtol=1e-12, atol=1e-14)

# Bidirectional (Longformer) window of size w: w/2 on each side, so w + 1 keys away from the edges.
w = 6
bi = window_mask(T, w, causal=False)
check_true("bidirectional mask equals triu(-w/2) & tril(+w/2)",
           np.array_equal(bi, np.triu(np.ones((T, T), bool), -(w // 2))
                          & np.tril(np.ones((T, T), bool), w // 2)))
check_true("bidirectional: interior tokens see w + 1 keys (w/2 each side plus self)",
           bool(np.all(bi.sum(axis=1)[w // 2:T - w // 2] == w + 1)))

# Scores spanning > 1000: the banded loop's max shift keeps exp finite.
Qw = 250.0 * Q
span = np.ptp(np.where(window_mask(T, 5), Qw @ K.T / np.sqrt(d_k), np.nan)[window_mask(T, 5)])
check_close(f"w = 5, scores spanning {span:.0f}: banded loop vs scipy",
            sliding_window_attention(Qw, K, V, 5), dense_masked(Qw, K, V, window_mask(T, 5)),
            rtol=1e-12, atol=1e-14)

# Stacking L layers: information flows along chains of windows. The last token's receptive field
# (positions that can influence it) is L (w - 1) + 1 tokens, found by boolean matrix powers.
w = 4
A = window_mask(T, w).astype(int)
reach = np.eye(T, dtype=int)
fields = []
for _ in range(1, 6):
    reach = (A @ reach > 0).astype(int)
    fields.append(int(reach[-1].sum()))
check_true("receptive field of the last token after L = 1..5 layers is L (w - 1) + 1",
           fields == [L * (w - 1) + 1 for L in range(1, 6)], f"{fields}")

# The page's calculator is checked against window_mask: the receptive field by propagating the last
# token's reach back through L layers (in a sequence of L w + 1 tokens, long enough to hold it), the
# keys of the last query, and the band's entries against the full causal mask's (w = T).
import cardcalc  # noqa: E402


def window_budget(w, L, T):
    band = window_mask(T, w)
    chain = window_mask(L * w + 1, w).astype(float)
    reach = np.zeros(L * w + 1)
    reach[-1] = 1.0
    for _ in range(L):
        reach = (reach @ chain > 0).astype(float)
    return {"R": reach.sum(), "k": band[-1].sum(), "S": band.sum(), "f": band.sum() / window_mask(T, T).sum()}


cardcalc.table(window_budget, cardcalc.grid(w=(1, 2, 7, 64), L=(1, 3, 8), T=(1, 5, 64, 1000)))

# --- in code: torch ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention.flex_attention import create_block_mask, flex_attention  # noqa: E402

w_swa = 7
swa_out = sliding_window_attention(Q, K, V, w_swa)
q_t, k_t, v_t = (torch.tensor(a)[None, None] for a in (Q, K, V))   # [batch, heads, T, d]
# Width-6 dot products and softmaxes over at most 7 keys: a few ulps, the 1e-12 of the checks above.
check_close("F.scaled_dot_product_attention(Q, K, V, attn_mask=window_mask(T, w)) = SWA, w = 7",
            F.scaled_dot_product_attention(q_t, k_t, v_t,
                                           attn_mask=torch.tensor(window_mask(T, w_swa)))[0, 0].numpy(),
            swa_out, rtol=1e-12, atol=1e-14)


def in_window(batch, head, q_idx, kv_idx):
    """flex_attention's mask_mod: True where query q_idx may attend key kv_idx."""
    return (kv_idx <= q_idx) & (q_idx - kv_idx < w_swa)


# Without torch.compile, flex_attention runs unfused on the CPU and warns so; the result is the same.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    block_mask = create_block_mask(in_window, None, None, T, T, device="cpu")
    flex_out = flex_attention(q_t, k_t, v_t, block_mask=block_mask)
check_close("flex_attention(Q, K, V, block_mask=create_block_mask(q - w < kv <= q)) = SWA, w = 7",
            flex_out[0, 0].numpy(), swa_out, rtol=1e-12, atol=1e-14)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64 inputs, as the card's numpy


def jax_attention(**options):
    """jax.nn.dot_product_attention on the card's Q, K, V as [batch 1, T, heads 1, d]. It wants values
    as wide as the keys, so V gets d_k - d_v zero columns, dropped from the output."""
    padded = np.concatenate([V, np.zeros((T, d_k - d_v))], axis=1)
    arrays = (jax.numpy.asarray(a[None, :, None]) for a in (Q, K, padded))
    result = jax.nn.dot_product_attention(*arrays, **options)
    return np.asarray(result)[0, :, 0, :d_v]


# Its softmax runs in float32 even on float64 inputs: each weight is off by up to (max|s| + a few
# ulps for exp and the sum) 2^-24 relative, an output (a convex mix of values) by that times max|v|;
# twice that is the tolerance.
f32_atol = 2 * (np.abs(Q @ K.T / np.sqrt(d_k)).max() + 4) * 2.0**-24 * np.abs(V).max()
check_close("jax.nn.dot_product_attention(is_causal=True, local_window_size=(w - 1, 0)) = SWA, w = 7",
            jax_attention(is_causal=True, local_window_size=(6, 0)), sliding_window_attention(Q, K, V, 7),
            rtol=0, atol=f32_atol)
# local_window_size counts the keys to the left of the query, itself not included.
check_close("pitfall: local_window_size=(w, 0) lets every query see w + 1 keys: SWA with w = 8",
            jax_attention(is_causal=True, local_window_size=(7, 0)), sliding_window_attention(Q, K, V, 8),
            rtol=0, atol=f32_atol)
# A single int is a window on both sides: the band |i - j| <= 3, the card's bidirectional w = 6.
check_close("pitfall: local_window_size=3 (an int) without is_causal is two-sided, |i - j| <= 3",
            jax_attention(local_window_size=3), dense_masked(Q, K, V, window_mask(T, 6, causal=False)),
            rtol=0, atol=f32_atol)
# --- end in code ---

fig, ax = figure("Attention masks, T = 24", "key position j", "query position i")
show = window_mask(T, 7).astype(float) + 0.5 * window_mask(T, 6, causal=False)
ax.imshow(show, cmap="Greys", vmin=0, vmax=1.5)
ax.set_title("causal window w = 7 (dark) and bidirectional w = 6 (grey)")
