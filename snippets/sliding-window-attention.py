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

fig, ax = figure("Attention masks, T = 24", "key position j", "query position i")
show = window_mask(T, 7).astype(float) + 0.5 * window_mask(T, 6, causal=False)
ax.imshow(show, cmap="Greys", vmin=0, vmax=1.5)
ax.set_title("causal window w = 7 (dark) and bidirectional w = 6 (grey)")
