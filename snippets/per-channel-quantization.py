"""Per-channel quantization: row by row against per-tensor brute force, scale-out-of-the-GEMM identity,
and the error on a weight matrix with one outlier output channel."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def per_channel_scales(W, bits):
    """s_c = max_i |W[c, i]| / (2^(b-1) - 1): one scale per output channel (row)."""
    return np.max(np.abs(W), axis=1) / (2 ** (bits - 1) - 1)


def quantize_per_channel(W, bits):
    """Integer codes round(W[c, i] / s_c) and the scales."""
    s = per_channel_scales(W, bits)
    return np.round(W / s[:, None]), s
# --- end formula ---


def nearest_code(values, s, q_max):
    """Brute force: the code k in [-q_max, q_max] whose grid value s k is nearest."""
    k = np.arange(-q_max, q_max + 1)
    return k[np.argmin(np.abs(values[:, None] - s * k[None, :]), axis=1)]


rng = np.random.default_rng(0)
C_out, C_in = 12, 40
W = rng.normal(size=(C_out, C_in)) * rng.uniform(0.02, 0.2, size=(C_out, 1))   # channels differ in range
W[7] *= 40.0                                                                      # one outlier channel
for bits in (8, 4):
    q_max = 2 ** (bits - 1) - 1
    Q, s = quantize_per_channel(W, bits)
    # 1. Row by row, per-channel quantization is per-tensor symmetric quantization of that row alone.
    ref_s = np.array([np.abs(row).max() / q_max for row in W])
    ref_Q = np.stack([nearest_code(row, ref_s[c], q_max) for c, row in enumerate(W)])
    check_close(f"b = {bits}: scales == per-row absmax / {q_max}", s, ref_s, rtol=1e-15)
    check_close(f"b = {bits}: codes == row-wise brute-force nearest grid point", Q, ref_Q, rtol=0)
    check_true(f"b = {bits}: each row reaches code +-{q_max} and no further",
               bool(np.all(np.abs(Q).max(axis=1) == q_max)))

    # 2. The scale leaves the integer GEMM: (diag(s) Q) X == diag(s) (Q X).
    X = rng.normal(size=(C_in, 7))
    check_close(f"b = {bits}: dequantized W @ X == s_c * (integer Q @ X)", (s[:, None] * Q) @ X,
                s[:, None] * (Q.astype(np.int64) @ X), rtol=1e-12, atol=1e-14)

    # 3. Against one scale for the whole tensor: per-channel error is never larger in any row, and the
    #    outlier row no longer flattens the others.
    s_t = np.abs(W).max() / q_max
    err_t = np.abs(W - s_t * nearest_code(W.ravel(), s_t, q_max).reshape(W.shape))
    err_c = np.abs(W - s[:, None] * Q)
    check_true(f"b = {bits}: per-row max error <= s_c/2 <= per-tensor s/2",
               bool(np.all(err_c.max(axis=1) <= s / 2 * (1 + 1e-12))) and bool(np.all(s <= s_t)))
    ratio = np.sqrt((err_t[np.arange(C_out) != 7] ** 2).mean() / (err_c[np.arange(C_out) != 7] ** 2).mean())
    check_true(f"b = {bits}: on the 11 ordinary rows per-tensor RMS error is > 5x per-channel",
               ratio > 5, f"ratio {ratio:.0f}")

Q4, s4 = quantize_per_channel(W, 4)
zeroed = np.mean(np.round(np.delete(W, 7, 0) / (np.abs(W).max() / 7)) == 0)
check_true("4-bit per-tensor: most ordinary weights round to 0", zeroed > 0.9, f"{zeroed:.0%} zeroed")
check_true("4-bit per-channel: few ordinary weights round to 0", np.mean(np.delete(Q4, 7, 0) == 0) < 0.2)

fig, ax = figure("RMS quantization error per output channel (4-bit)", "output channel c", "RMS error")
s_t = np.abs(W).max() / 7
ax.semilogy(np.sqrt(((W - s_t * np.clip(np.round(W / s_t), -7, 7)) ** 2).mean(1)), "o-",
            label="per-tensor scale")
ax.semilogy(np.sqrt(((W - s4[:, None] * Q4) ** 2).mean(1)), "s-", label="per-channel scales")
ax.axvline(7, color="gray", ls=":", label="outlier channel")
ax.legend()
