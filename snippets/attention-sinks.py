"""Attention sinks and the StreamingLLM cache. The procedure (token-by-token decoding with a rolling
KV cache that keeps the first S tokens, stores keys before rotation and re-indexes RoPE positions
inside the cache) is checked against a batch computation with a mask and relative rotations in
complex form; the cache rule against the paper's printed example; softmax-off-by-one against a
softmax with an extra zero logit; and, in a simulation where the first token is a sink, how much
better the sink cache tracks full attention than a plain window."""

from collections import deque

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def rope(x: np.ndarray, pos: np.ndarray, base: float = 10000.0) -> np.ndarray:
    d = x.shape[-1]
    angle = pos[:, None] * base ** (-np.arange(0, d, 2) / d)[None, :]
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(angle) - x[..., 1::2] * np.sin(angle)
    out[..., 1::2] = x[..., 1::2] * np.cos(angle) + x[..., 0::2] * np.sin(angle)
    return out


def streaming_decode(Q, K, V, n_sink: int, window: int):
    """StreamingLLM: attend over the first n_sink tokens plus the last `window` tokens (the current
    one included). Keys are cached unrotated and rotated at their position inside the cache."""
    sink_k, sink_v = [], []
    recent_k, recent_v = deque(maxlen=window), deque(maxlen=window)
    outputs, kept = [], []
    for t in range(Q.shape[0]):
        if len(sink_k) < n_sink:
            sink_k.append(K[t]), sink_v.append(V[t])
        else:
            recent_k.append(K[t]), recent_v.append(V[t])
        keys, values = np.array(sink_k + list(recent_k)), np.array(sink_v + list(recent_v))
        pos = np.arange(len(keys))  # positions within the cache, not in the text
        scores = rope(keys, pos) @ rope(Q[t][None, :], pos[-1:])[0] / np.sqrt(Q.shape[1])
        w = np.exp(scores - scores.max())
        outputs.append((w / w.sum()) @ values)
        kept.append(len(keys))
    return np.array(outputs), kept


def softmax_off_by_one(x: np.ndarray) -> np.ndarray:
    """softmax_1(x)_i = exp(x_i) / (1 + sum_j exp(x_j)): a sink with logit 0 and value 0."""
    zero = np.zeros_like(x[..., :1])
    m = np.maximum(x.max(axis=-1, keepdims=True), zero)
    e = np.exp(x - m)
    return e / (np.exp(-m) + e.sum(axis=-1, keepdims=True))


def sink_mass(weights: np.ndarray, n_sink: int) -> np.ndarray:
    """Share of each query's attention that lands on the first n_sink tokens."""
    return weights[..., :n_sink].sum(axis=-1)
# --- end formula ---


def kept_mask(T: int, n_sink: int, window: int) -> np.ndarray:
    """M[t, j]: key j is in the cache of query t (0-based positions)."""
    t, j = np.arange(T)[:, None], np.arange(T)[None, :]
    return (j <= t) & ((j < n_sink) | (j > t - window))


def batch_reference(Q, K, V, n_sink, window):
    """All queries at once: mask, cache rank of each key, relative rotation in complex form."""
    T, d = Q.shape
    M = kept_mask(T, n_sink, window)
    rank = np.cumsum(M, axis=1) - 1  # position of key j inside query t's cache
    theta = 1.0 / np.geomspace(1.0, 10000.0 ** ((d - 2) / d), d // 2)
    qc, kc = Q[:, 0::2] + 1j * Q[:, 1::2], K[:, 0::2] + 1j * K[:, 1::2]
    rel = rank[np.arange(T), np.arange(T)][:, None] - rank  # query's cache position minus key's
    S = np.real(np.einsum("tp,jp,tjp->tj", qc, np.conj(kc), np.exp(1j * rel[..., None] * theta))) / np.sqrt(d)
    weights = softmax(np.where(M, S, -np.inf), axis=1)
    return weights @ V, M, weights


rng = np.random.default_rng(0)
T, d, S_, W_ = 60, 8, 4, 10
Q, K, V = rng.normal(size=(T, d)), rng.normal(size=(T, d)), rng.normal(size=(T, 3))

# 1. The streaming procedure against the batch computation.
out, kept = streaming_decode(Q, K, V, S_, W_)
ref, M, _ = batch_reference(Q, K, V, S_, W_)
check_close("streaming decode (rolling cache, cache positions) = masked batch attention", out, ref,
            rtol=1e-10, atol=1e-12)
check_close("cache size = min(t + 1, S + W) at every step", kept, np.minimum(np.arange(1, T + 1), S_ + W_),
            rtol=0)
check_close("with S + W >= T nothing is evicted: ordinary causal RoPE attention",
            streaming_decode(Q, K, V, 4, T)[0], batch_reference(Q, K, V, T, T)[0], rtol=1e-10, atol=1e-12)
check_close("S = 0 is plain window attention (positions re-indexed in the window)",
            streaming_decode(Q, K, V, 0, W_)[0], batch_reference(Q, K, V, 0, W_)[0], rtol=1e-10, atol=1e-12)

big = streaming_decode(1000.0 * Q, K, V, S_, W_)[0]
check_close("logits spanning thousands (queries x 1000): max-shifted softmax stays exact",
            big, batch_reference(1000.0 * Q, K, V, S_, W_)[0], rtol=1e-9, atol=1e-12)
X3 = rng.normal(size=(3, 5, d))
check_close("RoPE helper on several heads at once (3 x 5 x d) = one head at a time",
            rope(X3, np.arange(5.0)), np.stack([rope(h, np.arange(5.0)) for h in X3]), rtol=1e-15)

# 2. The paper's example: with 4 sinks and 4 recent slots, decoding token 9 sees [0, 1, 2, 3, 6, 7, 8, 9]
#    at cache positions 0 .. 7.
Mx = kept_mask(10, 4, 4)
check_close("cache of token 9 (S = 4, W = 4) = [0, 1, 2, 3, 6, 7, 8, 9]", np.flatnonzero(Mx[9]),
            [0, 1, 2, 3, 6, 7, 8, 9], rtol=0)

# 3. Softmax-off-by-one = softmax over [0, x] without its first entry; stable for logits near +-1000.
x = np.concatenate([rng.normal(size=(3, 6)) * 3, [[1000.0, 999.0, -5, 0, 2, -1000.0]],
                    [[-1000.0, -998.0, -999.0, -1001.0, -1000.5, -999.5]]])
ref1 = softmax(np.concatenate([np.zeros((5, 1)), x], axis=1), axis=1)[:, 1:]
check_close("softmax_1(x) = softmax([0, x])[1:] (scipy), logits in [-1000, 1000]",
            softmax_off_by_one(x), ref1, rtol=1e-12, atol=1e-300)
check_close("the missing mass 1 - sum_i softmax_1(x)_i = 1 / (1 + sum_j e^{x_j}) sits on the implicit sink",
            1 - softmax_off_by_one(x[:3]).sum(axis=1), [1 / (1 + np.sum(np.exp(r))) for r in x[:3]],
            rtol=1e-10)
check_true("all logits near -1000: the implicit sink takes everything (row sum ~ 0), no 0/0",
           softmax_off_by_one(x[4:]).sum() < 1e-300 and np.all(np.isfinite(softmax_off_by_one(x))), "finite")

# 4. Simulation of the phenomenon: token 0 has a key aligned with every query along the slowest
#    RoPE pair (little rotation) and a near-zero value, so it absorbs most attention.
T2 = 200
Q2, K2, V2 = rng.normal(size=(T2, d)), rng.normal(size=(T2, d)), rng.normal(size=(T2, 3))
Q2[:, -2:] += [6.0, 0.0]
K2[0, -2:] = [6.0, 0.0]
V2[0] = 0.0
full, _, w_full = batch_reference(Q2, K2, V2, T2, T2)
mass = sink_mass(w_full, 1)
check_close("sink mass of the first 4 tokens = sum of their weights (loop)", sink_mass(w_full, 4),
            [sum(w_full[t, j] for j in range(4)) for t in range(T2)], rtol=1e-12)
sink_out = streaming_decode(Q2, K2, V2, 4, 16)[0]
win_out = streaming_decode(Q2, K2, V2, 0, 20)[0]
late = slice(100, None)
err_sink = np.abs(sink_out[late] - full[late]).mean()
err_win = np.abs(win_out[late] - full[late]).mean()
check_true("with a sink absorbing most attention, the sink cache (4 + 16) tracks full attention far "
           "better than a 20-token window", mass[late].mean() > 0.5 and err_sink < err_win / 3,
           f"mean sink mass {mass[late].mean():.2f}; error sink cache {err_sink:.3f}, window {err_win:.3f}")

fig, ax = figure("StreamingLLM cache: which keys each query sees (S = 4, W = 10)", "key position  j",
                 "query position  t")
ax.imshow(M[:40, :40], cmap="Greys", origin="lower", interpolation="nearest")
