"""ALiBi: slopes vs the paper and the interleaving rule; causal bias forms compared via softmax."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def alibi_slopes(n_heads: int) -> np.ndarray:
    """m_h = 2^(-8h/H), h = 1..H: the paper's geometric sequence (its code uses it when H is a power of 2)."""
    h = np.arange(1, n_heads + 1)
    return 2.0 ** (-8.0 * h / n_heads)


def alibi_slopes_general(n_heads: int) -> list[float]:
    """The reference code's rule for any H: powers of 2 use the formula; others interleave from 2H'."""
    if math.log2(n_heads).is_integer():
        return list(alibi_slopes(n_heads))
    p = 2 ** math.floor(math.log2(n_heads))
    return list(alibi_slopes(p)) + alibi_slopes_general(2 * p)[0::2][: n_heads - p]


def alibi_bias(seq_len: int, slope: float) -> np.ndarray:
    """-m (i - j) on j <= i, -inf above the diagonal (causal)."""
    i = np.arange(seq_len)[:, None]
    j = np.arange(seq_len)[None, :]
    return np.where(j <= i, -slope * (i - j), -np.inf)
# --- end formula ---


check_close("H = 8 slopes are 1/2, 1/4, ..., 1/256 (paper)", alibi_slopes(8),
            [1 / 2**k for k in range(1, 9)], rtol=1e-15)
check_close("H = 16 slopes: start 2^-0.5, ratio 2^-0.5 (paper)", alibi_slopes(16),
            [2 ** (-0.5 * k) for k in range(1, 17)], rtol=1e-15)
check_close("H = 12: the 8 slopes of H = 8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5",
            alibi_slopes_general(12),
            [1 / 2**k for k in range(1, 9)] + [2 ** (-k - 0.5) for k in range(4)], rtol=1e-15)

rng = np.random.default_rng(0)
T, d_k, m = 7, 8, 0.25
Q, K = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k))
raw = Q @ K.T / np.sqrt(d_k)
bias = alibi_bias(T, m)

loop = np.full((T, T), -np.inf)
for i in range(T):
    for j in range(i + 1):
        loop[i, j] = raw[i, j] - m * abs(i - j)
check_close("broadcast bias vs scalar loop with -m|i - j| on j <= i", np.where(np.isinf(bias), 0, raw + bias),
            np.where(np.isinf(loop), 0, loop), rtol=1e-14)

causal = np.where(np.isinf(bias), -np.inf, 0.0)
weights = softmax(raw + bias, axis=1)
shared_row = softmax(raw + causal + m * np.arange(T)[None, :], axis=1)
check_close("causal softmax: -m(i - j) equals the shared row +m j", weights, shared_row, rtol=1e-12,
            atol=1e-15)

# Without a causal mask the two conventions are not interchangeable.
i_idx, j_idx = np.arange(T)[:, None], np.arange(T)[None, :]
bidir_abs = softmax(raw - m * np.abs(i_idx - j_idx), axis=1)
bidir_signed = softmax(raw + m * (j_idx - i_idx), axis=1)
check_true("bidirectional: |i - j| and (j - i) give different weights",
           np.abs(bidir_abs - bidir_signed).max() > 1e-2,
           f"max difference {np.abs(bidir_abs - bidir_signed).max():.3f}")

# The page's calculator is checked against alibi_slopes, alibi_slopes_general and alibi_bias on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): head counts that are powers of 2, where
# every head takes the formula's slope, and 12 and 112 (BLOOM's), where the heads past the largest power of
# 2 take interleaved slopes; distances 0, 1 and 100.
import cardcalc  # noqa: E402

heads = cardcalc.grid(h=(1, 2, 8, 9, 12, 16, 40, 64, 65, 112), H=(1, 8, 12, 16, 64, 112), dist=(0, 1, 100))
cardcalc.table(lambda h, H, dist: {"m": alibi_slopes(H)[h - 1], "m_ref": alibi_slopes_general(H)[h - 1],
                                   "bias": alibi_bias(dist + 1, alibi_slopes_general(H)[h - 1])[dist, 0]},
               [row for row in heads if row["h"] <= row["H"]])

fig, ax = figure("ALiBi penalty per head (H = 8)", "distance to the key  i - j  (tokens)",
                 "bias added to the score")
dist = np.arange(0, 65)
for h, slope in enumerate(alibi_slopes(8), start=1):
    ax.plot(dist, -slope * dist, label=f"head {h}: $m = 2^{{-{h}}}$")
ax.set_ylim(-16, 0.5)
ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
