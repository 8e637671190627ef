"""KV-cache quantization (KIVI): keys per channel over groups of tokens, values per token, asymmetric
min-max codes; checked by brute force over each group's grid, the s/2 bound, exact group extremes, the
full-precision residual, and attention with the dequantized cache."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def minmax_quant(X, bits, axis):
    """Q(X) = round((X - z) / s), z = min X, s = (max X - min X) / (2^B - 1), statistics along `axis`."""
    z = np.min(X, axis=axis, keepdims=True)
    s = (np.max(X, axis=axis, keepdims=True) - z) / (2**bits - 1)
    return np.round((X - z) / s), s, z


def kivi_dequantized(K, V, bits=2, group=32, residual=128):
    """K: per channel, statistics over each group of `group` tokens; V: per token, over its channels.
    The most recent tokens (at least `residual` of them, so that the rest fills whole key groups) stay in
    full precision. Defaults: KIVI-2 with group size 32 and residual length 128."""
    T = K.shape[0]
    n_q = max(T - residual, 0) // group * group         # tokens stored quantized
    Kg = K[:n_q].reshape(n_q // group, group, K.shape[1])
    qk, sk, zk = minmax_quant(Kg, bits, axis=1)         # min/max over the tokens of a group, per channel
    qv, sv, zv = minmax_quant(V[:n_q], bits, axis=1)    # min/max over the channels of a token
    K_hat = np.concatenate([(qk * sk + zk).reshape(n_q, K.shape[1]), K[n_q:]])
    V_hat = np.concatenate([qv * sv + zv, V[n_q:]])
    return K_hat, V_hat, n_q


def quantized_bytes_per_token(n_layer, n_kv_heads, d_head, bits, group, stat_bytes):
    """Bytes a quantized token occupies in the cache, over all layers and key-value heads: its key and
    value codes at `bits` bits each, its share of the keys' per-channel scale and offset (one pair per
    `group` tokens) and its values' own scale and offset, each statistic `stat_bytes` (2 for fp16)."""
    codes = 2 * d_head * bits / 8
    key_stats = 2 * stat_bytes * d_head / group
    value_stats = 2 * stat_bytes
    return n_layer * n_kv_heads * (codes + key_stats + value_stats)
# --- end formula ---


def nearest_on(values, lo, hi, bits):
    """Brute force: the nearest of the 2^B points lo + k (hi - lo) / (2^B - 1)."""
    levels = lo + np.arange(2**bits) * (hi - lo) / (2**bits - 1)
    return levels[np.argmin(np.abs(values[:, None] - levels[None, :]), axis=1)]


rng = np.random.default_rng(0)
T, d = 150, 16
K = rng.normal(size=(T, d)) + np.where(np.arange(d) % 5 == 2, 8.0, 0.0) * rng.uniform(0.8, 1.2, (T, d))
V = rng.normal(size=(T, d))
bits, G, R = 2, 32, 20
K_hat, V_hat, n_q = kivi_dequantized(K, V, bits, G, R)
check_close("tokens quantized: largest multiple of 32 leaving >= 20 in full precision", n_q, 128, rtol=0)

# 1. Brute force, group by group: keys per (token group, channel), values per token.
ref_K = K.copy()
for g0 in range(0, n_q, G):
    for c in range(d):
        col = K[g0:g0 + G, c]
        ref_K[g0:g0 + G, c] = nearest_on(col, col.min(), col.max(), bits)
ref_V = V.copy()
for t in range(n_q):
    ref_V[t] = nearest_on(V[t], V[t].min(), V[t].max(), bits)
check_close("keys == nearest point of each (group, channel) grid", K_hat, ref_K, rtol=1e-12, atol=1e-12)
check_close("values == nearest point of each token's grid", V_hat, ref_V, rtol=1e-12, atol=1e-12)
check_close("residual tokens are untouched", np.concatenate([K_hat[n_q:], V_hat[n_q:]]),
            np.concatenate([K[n_q:], V[n_q:]]), rtol=0)

# 2. Each group's min and max are stored exactly (codes 0 and 2^B - 1); errors are at most s/2.
Kg = K[:n_q].reshape(-1, G, d)
Khg = K_hat[:n_q].reshape(-1, G, d)
check_close("per (group, channel): min and max reproduced exactly", [Khg.min(1), Khg.max(1)],
            [Kg.min(1), Kg.max(1)], rtol=1e-12)
s_k = (Kg.max(1) - Kg.min(1)) / (2**bits - 1)
check_true("key errors <= s/2 of their group", bool(np.all(np.abs(Khg - Kg) <= s_k[:, None, :] / 2 + 1e-12)))

# 3. Why keys go per channel: with outlier channels, a per-token key grid is set by those channels and the
#    attention logits q.k suffer; per-channel grids keep them accurate.
q = rng.normal(size=(8, d))
per_token_K = np.concatenate([minmax_quant(K[:n_q], bits, axis=1)[0] * minmax_quant(K[:n_q], bits, axis=1)[1]
                              + minmax_quant(K[:n_q], bits, axis=1)[2], K[n_q:]])
err_chan = np.abs(q @ K_hat.T - q @ K.T).mean()
err_tok = np.abs(q @ per_token_K.T - q @ K.T).mean()
check_true("mean |logit error|: per-channel keys < 0.6 x per-token keys", err_chan < 0.6 * err_tok,
           f"{err_chan:.3f} vs {err_tok:.3f}")

# 4. Attention with the dequantized cache against exact attention (scipy softmax), 4-bit: close.
K4, V4, _ = kivi_dequantized(K, V, 4, G, R)
att = softmax(q @ K.T / np.sqrt(d), axis=1) @ V
att4 = softmax(q @ K4.T / np.sqrt(d), axis=1) @ V4
check_close("4-bit cache: attention output within 0.1 of exact", att4, att, rtol=0, atol=0.1)
check_true("2-bit error > 4-bit error",
           bool(np.abs(softmax(q @ K_hat.T / np.sqrt(d), axis=1) @ V_hat - att).mean()
                                             > np.abs(att4 - att).mean()))

# 5. Defaults (2 bits, G = 32, R = 128) on a 288-token cache: 160 tokens quantized, 128 kept; 4 levels.
K3, V3 = rng.normal(size=(288, d)), rng.normal(size=(288, d))
Kd, Vd, nd = kivi_dequantized(K3, V3)
check_close("defaults: 160 of 288 tokens quantized", nd, 160, rtol=0)
check_true("defaults: 2 bits, so at most 4 distinct values per (group, channel) and per token",
           bool(max(len(np.unique(Kd[:32, c])) for c in range(d)) == 4 and len(np.unique(Vd[0])) == 4))
check_close("a cache shorter than the residual window stays in full precision (even with group 1)",
            kivi_dequantized(K[:10], V[:10], bits, 1, R)[2], 0, rtol=0)

# 6. Storage, counted on real arrays: 2 layers x 2 heads of 128 quantized tokens each, the codes packed
#    at B bits (np.packbits), the statistics stored as fp16; bytes per token = the formula.
def packed_nbytes(codes, bits):
    """Bytes of the codes packed `bits` bits each (the low bits of each code, none lost)."""
    as_bytes = codes.astype(np.uint8)
    assert np.array_equal(as_bytes, codes) and as_bytes.max() < 2**bits
    return np.packbits(np.unpackbits(as_bytes[..., None], axis=-1)[..., 8 - bits:].ravel()).nbytes


for store_bits, group in ((2, 32), (4, 32), (2, 64)):
    stored = 0
    for _ in range(2 * 2):                      # layers x heads, one cache each
        Kc, Vc = rng.normal(size=(128, d)), rng.normal(size=(128, d))
        qk, sk, zk = minmax_quant(Kc.reshape(128 // group, group, d), store_bits, axis=1)
        qv, sv, zv = minmax_quant(Vc, store_bits, axis=1)
        stats = [x.astype(np.float16) for x in (sk, zk, sv, zv)]
        stored += packed_nbytes(qk, store_bits) + packed_nbytes(qv, store_bits) + sum(x.nbytes for x in stats)
    check_close(f"{store_bits}-bit codes, key groups of {group}: packed arrays / tokens = bytes per token",
                quantized_bytes_per_token(2, 2, d, store_bits, group, 2), stored / 128, rtol=0)

fig, ax = figure("Keys: mean |K| per channel (outlier channels)", "channel", "mean |K|")
ax.bar(np.arange(d), np.abs(K).mean(0))

# The page's calculator is checked against quantized_bytes_per_token on this grid (cardcalc; the build runs
# the page's JavaScript on the same rows).
import cardcalc  # noqa: E402


def calculator_outputs(L, h_kv, d_h, bits, G, f, T):
    per_token = quantized_bytes_per_token(L, h_kv, d_h, bits, G, f)
    return {"m": per_token, "M": T * per_token, "ratio": 2 * L * h_kv * d_h * 2 / per_token}


cardcalc.table(calculator_outputs, cardcalc.grid(L=(1, 32), h_kv=(1, 8), d_h=(64, 128), bits=(2, 4),
                                                 G=(1, 32), f=(2, 4), T=(1, 4096)))
