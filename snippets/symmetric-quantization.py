"""Symmetric (absmax) quantization: brute-force nearest grid point, +-max|x| hit exactly, exact zero,
the restricted code range, and the cost of symmetry on one-sided data."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def symmetric_scale(x, bits):
    """s = max|x| / (2^(b-1) - 1)."""
    return np.max(np.abs(x)) / (2 ** (bits - 1) - 1)


def quantize_symmetric(x, s, bits):
    """q = clip(round(x / s), -(2^(b-1) - 1), 2^(b-1) - 1); zero point 0."""
    q_max = 2 ** (bits - 1) - 1
    return np.clip(np.round(x / s), -q_max, q_max)
# --- end formula ---


rng = np.random.default_rng(0)
for bits, expected_qmax in [(8, 127), (4, 7), (3, 3)]:
    x = rng.standard_t(df=4, size=3000) * 0.3 + 0.05     # heavy-tailed, not centred
    s = symmetric_scale(x, bits)
    q = quantize_symmetric(x, s, bits)
    x_hat = s * q

    # 1. The scale puts max|x| exactly on the outermost code: independent route via the sorted values.
    absmax = max(-np.sort(x)[0], np.sort(x)[-1])
    check_close(f"b = {bits}: s = max|x| / {expected_qmax}", s, absmax / expected_qmax, rtol=1e-15)
    extreme = x[np.argmax(np.abs(x))]
    check_close(f"b = {bits}: the largest |x| maps to code +-{expected_qmax} and back exactly",
                [abs(quantize_symmetric(extreme, s, bits)), abs(s * quantize_symmetric(extreme, s, bits))],
                [expected_qmax, absmax], rtol=1e-15)

    # 2. Brute force over the signed grid {-(2^(b-1)-1), ..., 2^(b-1)-1}: nearest grid value.
    codes = np.arange(-expected_qmax, expected_qmax + 1)
    nearest = codes[np.argmin(np.abs(x[:, None] - s * codes[None, :]), axis=1)]
    check_close(f"b = {bits}: code == nearest of the {codes.size} symmetric grid points", q, nearest, rtol=0)
    check_true(f"b = {bits}: |x - x_hat| <= s/2 everywhere (no clipping on the calibration data)",
               bool(np.all(np.abs(x - x_hat) <= s / 2 * (1 + 1e-12))))
    check_true(f"b = {bits}: restricted range, code -{expected_qmax + 1} never used",
               bool(q.min() >= -expected_qmax) and bool(np.all(q == np.round(q))))

    # 3. Zero point 0: real 0 is code 0; the grid is symmetric, x -> -x flips every code.
    check_close(f"b = {bits}: 0 -> code 0, and q(-x) = -q(x)",
                np.append(quantize_symmetric(-x, s, bits), quantize_symmetric(0.0, s, bits)),
                np.append(-q, 0.0), rtol=0)

# 4. Values beyond the calibrated range saturate at +-(2^(b-1) - 1).
s8 = 0.01
check_close("b = 8: values beyond 127 s clip to +-127",
            quantize_symmetric(np.array([2.0, -5.0, 1.27]), s8, 8), [127, -127, 127], rtol=0)

# 5. The price of symmetry: on one-sided data (ReLU outputs) half of the codes go unused, so the step,
#    and the rounding error with it, is twice that of a min-max grid over [0, max] (sklearn-free check:
#    the error of the affine grid is computed by brute force over its 2^b levels).
relu = np.maximum(rng.normal(size=20000), 0.0)
s_sym = symmetric_scale(relu, 8)
err_sym = np.sqrt(np.mean((relu - s_sym * quantize_symmetric(relu, s_sym, 8)) ** 2))
s_asym = relu.max() / 255
grid = s_asym * np.arange(256)
err_asym = np.sqrt(np.mean((relu - grid[np.clip(np.round(relu / s_asym), 0, 255).astype(int)]) ** 2))
check_close("ReLU data: symmetric step is 255/127 times the min-max step", s_sym / s_asym, 255 / 127,
            rtol=1e-12)
check_true("ReLU data: symmetric RMS error ~2x the asymmetric one",
           1.7 < err_sym / err_asym < 2.3, f"ratio {err_sym / err_asym:.2f}")

# 6. The extreme value may be negative: x = (-3, 1, 2) has max|x| = 3, so s = 3/127 at 8 bits.
check_close("negative extreme: s = 3/127 for x = (-3, 1, 2)", symmetric_scale(np.array([-3.0, 1.0, 2.0]), 8),
            3 / 127, rtol=1e-15)

# The page's calculator is checked against symmetric_scale and quantize_symmetric on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows). With max|x| = 7 at 4 bits or 127 at 8 bits the
# step is 1, so x = +-0.5, 1.5, 2.5 are exact ties (np.round sends them to the even code, which the page
# must match), and x = +-300 clips at both ends.
import cardcalc  # noqa: E402


def calculator_row(absmax, b, x):
    s = symmetric_scale(absmax, b)
    q = quantize_symmetric(x, s, b)
    return {"s": s, "q": q, "xhat": s * q}


cardcalc.table(calculator_row, cardcalc.grid(absmax=(0.3, 7.0, 127.0), b=(2, 4, 8, 16),
                                             x=(-300.0, -2.5, -0.5, 0.0, 0.2, 1.5, 2.5, 6.6, 300.0)))
