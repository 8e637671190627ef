"""Affine quantization: against the nearest point of the integer grid by brute force, Jacob et al.'s
clamp-then-round form, exact zero, the s/2 error bound inside the range and clipping outside."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: round(x / s) + z clipped, and s (q - z): four operators; round and clip have no twin
def quantize(x, s, z, q_min, q_max):
    """q = clip(round(x / s) + z, q_min, q_max), an integer code."""
    return np.clip(np.round(x / s) + z, q_min, q_max)


def dequantize(q, s, z):
    """x_hat = s (q - z)."""
    return s * (q - z)
# --- end formula ---


rng = np.random.default_rng(0)

# A uint8 grid (codes 0..255) with a zero point away from the middle, and a signed 4-bit grid.
GRIDS = [("uint8", 0.037, 61, 0, 255), ("int4", 0.21, -3, -8, 7)]
for name, s, z, q_min, q_max in GRIDS:
    lo, hi = s * (q_min - z), s * (q_max - z)          # the representable range
    x = rng.uniform(lo - 0.3 * (hi - lo), hi + 0.3 * (hi - lo), size=4000)  # some outside it
    q = quantize(x, s, z, q_min, q_max)
    x_hat = dequantize(q, s, z)

    # 1. Brute force: x_hat is the grid point s (k - z), k = q_min..q_max, nearest to x.
    levels = s * (np.arange(q_min, q_max + 1) - z)
    nearest = levels[np.argmin(np.abs(x[:, None] - levels[None, :]), axis=1)]
    check_close(f"{name}: x_hat == nearest of the {q_max - q_min + 1} grid points", x_hat, nearest,
                rtol=1e-12, atol=1e-15)
    codes = np.arange(q_min, q_max + 1)[np.argmin(np.abs(x[:, None] - levels[None, :]), axis=1)]
    check_close(f"{name}: code q == index of that grid point", q, codes, rtol=0)

    # 2. Inside the range the error is at most s/2; outside, x is clipped to the nearer end.
    inside = (x >= lo) & (x <= hi)
    err = np.abs(x - x_hat)
    check_true(f"{name}: |x - x_hat| <= s/2 on the {inside.sum()} values inside the range",
               bool(np.all(err[inside] <= s / 2 + 1e-12)), f"max {err[inside].max():.4f}, s/2 = {s / 2}")
    check_close(f"{name}: values below the range map to q_min, above it to q_max",
                q[~inside], np.where(x[~inside] < lo, q_min, q_max), rtol=0)

    # 3. Jacob et al. (2018) Eq. (12): clamp to [a, b] in real units first, then round the offset from a
    #    in steps of s. Same grid (a = -s z, b = s (q_max - z) up to the q_min shift), same result.
    eq12 = np.round((np.clip(x, lo, hi) - lo) / s) * s + lo
    check_close(f"{name}: equals clamp-then-round form (Jacob et al. Eq. 12)", x_hat, eq12,
                rtol=1e-12, atol=1e-14)

    # 4. Real zero is exact (code z), and quantizing a grid value again changes nothing.
    check_close(f"{name}: 0 -> code z -> exactly 0", [quantize(0.0, s, z, q_min, q_max),
                                                       dequantize(quantize(0.0, s, z, q_min, q_max), s, z)],
                [z, 0.0], rtol=0, atol=0)
    check_close(f"{name}: round trip is idempotent on the grid",
                dequantize(quantize(levels, s, z, q_min, q_max), s, z), levels, rtol=1e-12, atol=1e-15)

# 5. Jacob et al. Eq. (7): a matrix product of dequantized matrices equals s1 s2 times an all-integer
#    sum with zero-point corrections, computed here in exact integer arithmetic.
s1, z1, s2, z2 = 0.05, 17, 0.02, 140
A = rng.normal(size=(5, 9))
B = rng.normal(size=(9, 4))
qa = quantize(A, s1, z1, 0, 255).astype(np.int64)
qb = quantize(B, s2, z2, 0, 255).astype(np.int64)
n = A.shape[1]
int_acc = (qa @ qb - z2 * qa.sum(1, keepdims=True) - z1 * qb.sum(0, keepdims=True) + n * z1 * z2)
check_close("dequant(A) @ dequant(B) == s1 s2 (integer GEMM with zero-point terms)",
            dequantize(qa, s1, z1) @ dequantize(qb, s2, z2), s1 * s2 * int_acc, rtol=1e-12, atol=1e-14)

# 6. np.round rounds halves to even (as torch.round does): 2.5 s -> 2, 3.5 s -> 4 (codes with z = 0).
check_close("ties go to the even code", quantize(np.array([2.5, 3.5, -2.5]) * 0.5, 0.5, 0, -8, 7),
            [2.0, 4.0, -2.0], rtol=0)

s, z, q_min, q_max = 0.25, 3, -8, 7
xs = np.linspace(-3.5, 2.5, 1201)
xh = dequantize(quantize(xs, s, z, q_min, q_max), s, z)
fig, ax = figure("Affine quantization, 4-bit signed grid (s = 0.25, z = 3)", "x", "value")
ax.plot(xs, xs, ":", color="gray", label="x")
ax.plot(xs, xh, label=r"$\hat{x} = s(q - z)$")
ax.plot(xs, xs - xh, label=r"error $x - \hat{x}$")
ax.axvspan(s * (q_min - z), s * (q_max - z), color="tab:blue", alpha=0.08, label="representable range")
ax.legend(fontsize=8)

# The page's calculator is checked against quantize and dequantize on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows). With s = 0.5, x = -1.25, -0.75, 0.25, 1.25 make x / s an exact
# tie (np.round sends it to the even integer, which the page must match); x = +-300 clips at both ends.
import cardcalc  # noqa: E402


def calculator_row(x, s, z, q_min, q_max):
    q = quantize(x, s, z, q_min, q_max)
    return {"q": q, "xhat": dequantize(q, s, z)}


cardcalc.table(calculator_row, cardcalc.grid(x=(-300.0, -1.25, -0.75, 0.0, 0.25, 1.25, 3.3, 300.0),
                                             s=(0.037, 0.5), z=(-3, 0, 61), q_min=(-8, 0), q_max=(7, 255)))
