"""T5 relative position bias: the bucket function against a hand-worked table of bucket boundaries
and against exact integer arithmetic (no logarithms), in the encoder (bidirectional) and decoder
(causal) modes, for the default 32 buckets / 128 distance and another setting; then the biased
scores against an explicit loop over heads, queries and keys of different lengths."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def relative_position_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128):
    """Bucket of rel = j - i (key position minus query position), as in Mesh TensorFlow / T5."""
    rel = np.asarray(rel)
    if bidirectional:
        num_buckets //= 2
        offset = np.where(rel > 0, num_buckets, 0)  # keys after the query use the upper half
        n = np.abs(rel)
    else:
        offset = np.zeros_like(rel)
        n = np.maximum(-rel, 0)  # causal: only keys before the query, distance i - j
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(n / max_exact) / np.log(max_distance / max_exact)
        large = max_exact + (log_ratio * (num_buckets - max_exact)).astype(int)
    large = np.minimum(large, num_buckets - 1)
    return offset + np.where(n < max_exact, n, large)


def t5_scores(q, k, bias_table, bidirectional=True):
    """score[h, i, j] = q_i . k_j + b[bucket(j - i), h]; no 1/sqrt(d_k), as in T5. q: (H, Tq, d_k)."""
    rel = np.arange(k.shape[1])[None, :] - np.arange(q.shape[1])[:, None]
    buckets = relative_position_bucket(rel, bidirectional, bias_table.shape[0])
    return q @ k.transpose(0, 2, 1) + bias_table[buckets].transpose(2, 0, 1)
# --- end formula ---


def bucket_exact(r: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """The same rule in integers: bucket >= m + t  iff  (n/m)^(h-m) >= (D/m)^t, cross-multiplied."""
    half = num_buckets // 2 if bidirectional else num_buckets
    upper = half if (bidirectional and r > 0) else 0
    n = abs(r) if bidirectional else max(-r, 0)
    m = half // 2
    if n < m:
        return upper + n
    t = 0
    while (t + 1 <= half - m - 1
           and n ** (half - m) * m ** (t + 1) >= m ** (half - m) * max_distance ** (t + 1)):
        t += 1
    return upper + m + t


# 1. Hand-worked table (published T5 setting, 32 buckets, max_distance 128). Encoder: 16 buckets
#    per direction, 8 exact (distances 0..7), then 8 log-spaced; boundaries at 8 * sqrt(2)^t rounded
#    up: 8, 12, 16, 23, 32, 46, 64, 91. Decoder: 32 buckets for the past, 16 exact, boundaries at
#    16 * 8^(t/16) rounded up.
enc_starts = [*range(8), 8, 12, 16, 23, 32, 46, 64, 91]
dec_starts = [*range(16), 16, 19, 21, 24, 27, 31, 35, 40, 46, 52, 59, 67, 77, 87, 99, 113]
dist = np.arange(0, 2000)
enc = relative_position_bucket(-dist)  # key before the query: j - i = -distance
dec = relative_position_bucket(-dist, bidirectional=False)
check_close("encoder buckets (key before query): first distance of each bucket = hand table",
            [dist[enc == b].min() for b in range(16)], enc_starts, rtol=0)
check_close("decoder buckets: first distance of each bucket = hand table",
            [dist[dec == b].min() for b in range(32)], dec_starts, rtol=0)
check_true("every distance >= 91 (encoder) / >= 113 (decoder) shares the last bucket, up to 2000",
           np.all(enc[91:] == 15) and np.all(dec[113:] == 31) and enc[90] == 14 and dec[112] == 30,
           "the last bucket starts before max_distance = 128")
check_close("encoder: a key after the query at distance n uses bucket 16 + bucket(-n)",
            relative_position_bucket(dist[1:]), 16 + enc[1:], rtol=0)
check_close("decoder: keys after the query all map to bucket 0 (they are masked anyway)",
            relative_position_bucket(dist, bidirectional=False), np.zeros_like(dist), rtol=0)

# 2. Exact integer arithmetic for every offset in [-1500, 1500], both modes, two settings.
offsets = np.arange(-1500, 1501)
for nb, md in ((32, 128), (64, 256)):
    for bi in (True, False):
        got = relative_position_bucket(offsets, bi, nb, md)
        ref = [bucket_exact(int(r), bi, nb, md) for r in offsets]
        check_close(f"{'encoder' if bi else 'decoder'} buckets, {nb} buckets / distance {md}: "
                    "float logs = integer rule", got, ref, rtol=0)
check_true("bucket ids are integers in 0 .. 31", enc.dtype.kind == "i" and 0 <= dec.min() and dec.max() == 31)

# 3. Scores: explicit loop over heads, queries and keys, Tq != Tk, H heads with their own biases.
rng = np.random.default_rng(0)
H, Tq, Tk, dk = 3, 5, 140, 4
q, k = rng.normal(size=(H, Tq, dk)), rng.normal(size=(H, Tk, dk))
table = rng.normal(size=(32, H))
for bi in (True, False):
    ref = np.empty((H, Tq, Tk))
    for h in range(H):
        for i in range(Tq):
            for j in range(Tk):
                ref[h, i, j] = sum(q[h, i, c] * k[h, j, c] for c in range(dk)) \
                    + table[bucket_exact(j - i, bi, 32, 128), h]
    check_close(f"{'encoder' if bi else 'decoder'} scores q.k + b[bucket(j - i), h] vs explicit loop",
                t5_scores(q, k, table, bi), ref, rtol=1e-12, atol=1e-12)
bias = t5_scores(np.zeros((H, 50, dk)), np.zeros((H, 50, dk)), table)
check_close("the bias depends on j - i only (Toeplitz: b[i+1, j+1] = b[i, j])", bias[:, 1:, 1:],
            bias[:, :-1, :-1], rtol=0)

# The page's calculator is checked against relative_position_bucket (32 buckets, max distance 128) on
# these offsets (cardcalc; the build runs the card's JavaScript on the same rows): keys after and
# before the query, the last exact distance and the first log-spaced one in each mode, distances on
# either side of the first bucket that is full (91 encoder, 113 decoder), and far past max distance.
import cardcalc  # noqa: E402

cardcalc.table(lambda r: {"enc": int(relative_position_bucket(r)),
                          "dec": int(relative_position_bucket(r, bidirectional=False))},
               cardcalc.grid(r=(-5000, -128, -113, -112, -91, -90, -64, -32, -17, -16, -15, -9, -8, -7,
                                -1, 0, 1, 7, 8, 16, 90, 91, 5000)))

fig, ax = figure("T5 relative-position buckets (32 buckets, max distance 128)",
                 "relative position  j - i  (key minus query)", "bucket id")
r = np.arange(-160, 161)
ax.step(r, relative_position_bucket(r), where="mid", label="encoder (bidirectional)")
ax.step(r, relative_position_bucket(r, bidirectional=False), where="mid", label="decoder (causal)")
ax.axvline(-128, color="gray", ls=":", label="max distance 128")
ax.legend()
