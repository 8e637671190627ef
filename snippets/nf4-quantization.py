"""NF4: the 16 levels from standard-normal quantiles (scipy.stats.norm.ppf) against the values printed in the
QLoRA paper, block-wise absmax quantization against a bisection route, and its error against uniform int4."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import norm

# --- formula ---
DELTA = 0.9677083          # outermost probability; the level at +-1 is its normal quantile, normalized


def nf4_levels(delta=DELTA):
    """8 positive levels at the quantiles 1/2 + (i/8)(delta - 1/2), 7 negative ones at i/7, and 0,
    all divided by the largest, so that the code runs from -1 to 1 with an exact zero."""
    pos = norm.ppf(0.5 + (delta - 0.5) * np.arange(1, 9) / 8)
    neg = -norm.ppf(0.5 + (delta - 0.5) * np.arange(1, 8) / 7)
    levels = np.sort(np.concatenate([neg, [0.0], pos]))
    return levels / np.max(levels)


def nf4_quantize(x, block=64):
    """Block-wise absmax normalization, then the index of the nearest NF4 level."""
    xb = x.reshape(x.size // block, block)
    absmax = np.max(np.abs(xb), axis=1, keepdims=True)
    codes = np.argmin(np.abs(xb[..., None] / absmax[..., None] - nf4_levels()), axis=-1)
    return codes, absmax


def nf4_dequantize(codes, absmax):
    return (nf4_levels()[codes] * absmax).ravel()
# --- end formula ---


# The table of NF4 values in the QLoRA paper's appendix (float32 values as printed there).
PAPER = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
         -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
         0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
         0.7229568362236023, 1.0]
levels = nf4_levels()
check_close("16 NF4 levels == the values printed in QLoRA (float32 precision)",
            levels, PAPER, rtol=0, atol=2e-7)
check_true("7 negative levels, an exact 0, 8 positive levels",
           bool(np.sum(levels < 0) == 7 and np.sum(levels == 0) == 1 and np.sum(levels > 0) == 8))
check_close("delta = 0.9677083 is 1 - (1/30 + 1/32)/2 to 7 digits",
            DELTA, 1 - (1 / 30 + 1 / 32) / 2, rtol=1e-7)

rng = np.random.default_rng(0)
x = rng.normal(scale=0.02, size=64 * 200)
codes, absmax = nf4_quantize(x)

# 1. Nearest level by bisection: sort the midpoints between levels and count how many lie below x/absmax.
xn = (x.reshape(-1, 64) / np.abs(x.reshape(-1, 64)).max(1, keepdims=True)).ravel()
mids = (np.array(PAPER)[1:] + np.array(PAPER)[:-1]) / 2
check_close("codes == bisection on the midpoints between levels",
            codes.ravel(), np.searchsorted(mids, xn), rtol=0)
check_close("block absmax over 64 consecutive weights",
            absmax.ravel(), np.abs(x.reshape(-1, 64)).max(1), rtol=0)

# 2. Round trip: the largest weight of each block is reproduced exactly (code 0 or 15), and every error is
#    at most half the widest gap between neighbouring levels, times the block's absmax.
x_hat = nf4_dequantize(codes, absmax)
peak = np.argmax(np.abs(x.reshape(-1, 64)), axis=1) + 64 * np.arange(200)
check_close("each block's absmax element survives exactly", x_hat[peak], x[peak], rtol=1e-15)
gap = np.max(np.diff(PAPER)) / 2
check_true("|x - x_hat| <= (widest gap / 2) * absmax", bool(np.all(np.abs(x - x_hat) <= gap * np.repeat(
    absmax.ravel(), 64) * (1 + 1e-12))))

# 3. For normally distributed weights NF4 beats a uniform 4-bit absmax grid (15 levels, step absmax/7).
xb = x.reshape(-1, 64)
s = np.abs(xb).max(1, keepdims=True) / 7
uni = (s * np.clip(np.round(xb / s), -7, 7)).ravel()
mse_nf4, mse_uni = np.mean((x - x_hat) ** 2), np.mean((x - uni) ** 2)
check_true("Gaussian weights: NF4 MSE < 0.8 x uniform int4 absmax MSE", mse_nf4 < 0.8 * mse_uni,
           f"{mse_nf4:.3e} vs {mse_uni:.3e}")

fig, ax = figure("NF4 levels vs uniform int4 on a block normalized to [-1, 1]", "normalized weight",
                 "density of N(0, 1/2.4^2)")
grid = np.linspace(-1, 1, 400)
ax.plot(grid, norm.pdf(grid, scale=1 / 2.4), color="gray")
ax.vlines(levels, 0, 0.25, color="tab:red", label="NF4 levels")
ax.vlines(np.arange(-7, 8) / 7, 0.25, 0.5, color="tab:blue", label="uniform int4 (absmax)")
ax.legend(fontsize=8)
