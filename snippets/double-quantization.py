"""Double quantization: bits per parameter of the quantization constants (0.5 -> 0.127, QLoRA's numbers) by
counting stored arrays, the FP8 grid against the E4M3 spec, and the round trip of the constants."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def constant_bits_per_param(block1=64, block2=256, const_bits=8, double=True):
    """Memory of the scales per weight: 32/block1 without, const_bits/block1 + 32/(block1 block2) with DQ."""
    if not double:
        return 32 / block1
    return const_bits / block1 + 32 / (block1 * block2)


def fp8_e4m3_values():
    """All finite E4M3 values: 4 exponent bits (bias 7), 3 mantissa bits, subnormals, no infinities;
    the all-ones pattern is NaN."""
    m = np.arange(8)
    sub = m / 8 * 2.0**-6
    normal = ((1 + m[None, :] / 8) * 2.0 ** (np.arange(1, 16)[:, None] - 7)).ravel()[:-1]
    pos = np.concatenate([sub, normal])
    return np.unique(np.concatenate([-pos, pos]))


def quantize_constants(c2, block2=256):
    """Second quantization of the fp32 block absmaxes c2: subtract their mean, then per block of 256
    an absmax scale c1 (fp32) and the nearest FP8 value of (c2 - mean) / c1 (scaled to [-1, 1])."""
    grid = fp8_e4m3_values() / 448.0
    mean = np.mean(c2)
    centred = (c2 - mean).reshape(c2.size // block2, block2)
    c1 = np.max(np.abs(centred), axis=1, keepdims=True)
    codes = np.argmin(np.abs(centred[..., None] / c1[..., None] - grid), axis=-1)
    return codes, c1, mean


def dequantize_constants(codes, c1, mean):
    """dequant(c1, c2^FP8): the first step of doubleDequant; the second multiplies the 4-bit weights."""
    return (fp8_e4m3_values()[codes] / 448.0 * c1).ravel() + mean
# --- end formula ---


# 1. The numbers printed in QLoRA (Sec. 3): 32/64 = 0.5 bits per parameter without double quantization,
#    8/64 + 32/(64*256) = 0.127 with it, a saving of 0.373 bits, "about 3 GB for a 65B model".
check_close("without DQ: 0.5 bits per parameter", constant_bits_per_param(double=False), 0.5, rtol=1e-15)
check_close("with DQ: 0.127 bits per parameter (paper, 3 digits)",
            constant_bits_per_param(), 0.127, rtol=5e-4)
check_close("saving 0.373 bits per parameter", 0.5 - constant_bits_per_param(), 0.373, rtol=5e-4)
check_close("65B parameters: about 3 GB saved", 65e9 * (0.5 - constant_bits_per_param()) / 8 / 1e9, 3.0,
            rtol=0.02)

# 2. Count what is actually stored for a tensor of 64 * 256 * 8 weights and compare with the formula.
rng = np.random.default_rng(0)
n = 64 * 256 * 8
W = rng.normal(scale=0.02, size=n) * np.repeat(rng.uniform(0.5, 2.0, size=n // 4096), 4096)
c2 = np.abs(W.reshape(-1, 64)).max(axis=1)                 # first-level fp32 absmax per 64 weights
codes, c1, mean = quantize_constants(c2)
stored_bits = codes.size * 8 + c1.size * 32                # 8-bit codes + fp32 second-level scales
check_close("counted bits per weight == 8/64 + 32/(64*256)", stored_bits / n, constant_bits_per_param(),
            rtol=1e-15)
check_close("counted bits per weight without DQ == 32/64", c2.size * 32 / n,
            constant_bits_per_param(double=False), rtol=1e-15)

# 3. The FP8 grid against the E4M3 definition (Micikevicius et al. 2022, Table 1): 253 distinct finite values
#    (+-0 merged), largest 448, smallest subnormal 2^-9, smallest normal 2^-6.
g = fp8_e4m3_values()
pos = g[g > 0]
check_close("E4M3: 253 values, max 448, min subnormal 2^-9, min normal 2^-6",
            [g.size, g.max(), pos.min(), pos[7]], [253, 448.0, 2.0**-9, 2.0**-6], rtol=0)

# 4. Round trip of the constants: each code is the nearest FP8 value (bisection on sorted midpoints), the
#    relative error of a normal FP8 value is at most 2^-4, and the largest centred constant of each
#    block is exact.
grid = g / 448.0
centred = (c2 - mean).reshape(-1, 256) / c1
mids = (grid[1:] + grid[:-1]) / 2
check_close("codes == bisection on the FP8 midpoints",
            codes.ravel(), np.searchsorted(mids, centred.ravel()), rtol=0)
c2_hat = dequantize_constants(codes, c1, mean)
rel = np.abs(grid[codes] - centred).ravel() / np.maximum(np.abs(centred).ravel(), 2.0**-6 / 448)
check_true("relative error of the normalized constants <= 2^-4", bool(np.all(rel <= 2.0**-4 * (1 + 1e-12))),
           f"max {rel.max():.4f}")
peak = np.argmax(np.abs(centred), axis=1) + 256 * np.arange(centred.shape[0])
check_close("each block's extreme constant is exact", c2_hat[peak], c2[peak], rtol=1e-12)
check_close("mean restored: mean of dequantized constants ~ mean of c2", c2_hat.mean(), c2.mean(), rtol=1e-3)

# 5. Subtracting the mean first matters: the constants are all positive, so without it half of the
#    symmetric FP8 codes are wasted and the error grows.
err_dq = np.abs(c2_hat - c2).max()
c1_raw = np.abs(c2.reshape(-1, 256)).max(1, keepdims=True)
raw_codes = np.argmin(np.abs(c2.reshape(-1, 256)[..., None] / c1_raw[..., None] - grid), -1)
raw_hat = (grid[raw_codes] * c1_raw).ravel()
check_true("mean subtraction lowers the max error of the constants", err_dq < np.abs(raw_hat - c2).max(),
           f"{err_dq:.2e} vs {np.abs(raw_hat - c2).max():.2e}")
rel_c = np.abs(c2_hat - c2) / c2
check_true("DQ changes a typical constant by < 1% (median relative change)", np.median(rel_c) < 0.01,
           f"median {np.median(rel_c):.2%}, max {rel_c.max():.2%}")

fig, ax = figure("Memory of the quantization constants (first-level block 64)",
                 "second-level block size", "bits per parameter")
blocks = 2 ** np.arange(4, 11)
ax.semilogx(blocks, [constant_bits_per_param(64, b) for b in blocks], "o-", base=2, label="with DQ (FP8)")
ax.axhline(constant_bits_per_param(double=False), color="gray", ls=":", label="without DQ (fp32 absmax)")
ax.legend()

# The page's calculator is checked against constant_bits_per_param on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows).
import cardcalc  # noqa: E402


def calculator_outputs(B_1, B_2, k, N):
    with_dq = constant_bits_per_param(B_1, B_2, k)
    without = constant_bits_per_param(B_1, B_2, k, double=False)
    return {"bits_dq": with_dq, "bits": without, "saved": N * (without - with_dq) / 8}


cardcalc.table(calculator_outputs,
               cardcalc.grid(B_1=(16, 64, 256), B_2=(1, 256, 4096), k=(4, 8), N=(1, 65e9)))
