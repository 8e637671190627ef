"""Asymmetric (min-max) scale and zero point: the range ends land on q_min and q_max, real 0 is exact,
brute force over the grid, and the error against the symmetric scale on skewed data."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def minmax_params(x, q_min, q_max):
    """s = (x_max - x_min) / (q_max - q_min), z = round(q_min - x_min / s), range widened to contain 0."""
    x_min = np.minimum(np.min(x), 0.0)
    x_max = np.maximum(np.max(x), 0.0)
    s = (x_max - x_min) / (q_max - q_min)
    z = np.round(q_min - x_min / s)
    return s, z


def fake_quant(x, s, z, q_min, q_max):
    """s (clip(round(x / s) + z, q_min, q_max) - z)."""
    return s * (np.clip(np.round(x / s) + z, q_min, q_max) - z)
# --- end formula ---


rng = np.random.default_rng(0)
cases = [("uint8, skewed data", 0, 255, rng.gamma(2.0, 0.7, 5000) - 0.4),
         ("int8, skewed data", -128, 127, rng.gamma(2.0, 0.7, 5000) - 0.4),
         ("int4, mostly negative", -8, 7, -rng.gamma(2.0, 0.5, 5000) + 0.3)]
for name, q_min, q_max, x in cases:
    s, z = minmax_params(x, q_min, q_max)
    lo, hi = x.min(), x.max()
    # 1. The scale spreads [x_min, x_max] over exactly q_max - q_min steps (hand form of the ratio).
    check_close(f"{name}: (q_max - q_min) s == x_max - x_min", (q_max - q_min) * s, hi - lo, rtol=1e-13)
    # 2. The zero point is an integer inside the code range, and real 0 is exactly representable.
    check_true(f"{name}: z = {z:.0f} is an integer in [{q_min}, {q_max}]",
               bool(q_min <= z <= q_max and z == np.round(z)))
    check_close(f"{name}: fake_quant(0) == 0 exactly", fake_quant(0.0, s, z, q_min, q_max), 0.0, atol=0)
    # 3. The ends of the data land on the end codes (within the half step lost to rounding z).
    check_close(f"{name}: x_min -> q_min and x_max -> q_max",
                np.clip(np.round(np.array([lo, hi]) / s) + z, q_min, q_max), [q_min, q_max], rtol=0)
    # 4. Brute force: nearest of the grid s (k - z), k = q_min..q_max.
    levels = s * (np.arange(q_min, q_max + 1) - z)
    nearest = levels[np.argmin(np.abs(x[:, None] - levels[None, :]), axis=1)]
    x_hat = fake_quant(x, s, z, q_min, q_max)
    check_close(f"{name}: fake_quant == nearest grid point", x_hat, nearest, rtol=1e-12, atol=1e-15)
    inner = (x > lo + s) & (x < hi - s)
    check_true(f"{name}: |x - x_hat| <= s/2 away from the ends",
               bool(np.all(np.abs(x - x_hat)[inner] <= s / 2 * (1 + 1e-9))))

# 5. A range that does not contain 0 (all x > 0) is widened to [0, x_max]: z = q_min, 0 still exact.
pos = rng.uniform(2.0, 3.0, 1000)
s, z = minmax_params(pos, 0, 255)
check_close("all-positive data: z = q_min = 0 and s = x_max / 255", [z, s], [0.0, pos.max() / 255],
            rtol=1e-14)
neg = -pos
s, z = minmax_params(neg, -128, 127)
check_close("all-negative data: z = q_max = 127 and s = |x_min| / 255", [z, s], [127.0, pos.max() / 255],
            rtol=1e-14)

# 6. Skewed data: min-max uses all 2^b codes where absmax leaves most of one side empty.
x = rng.gamma(2.0, 0.7, 20000) - 0.4
s_a, z_a = minmax_params(x, -128, 127)
err_asym = np.sqrt(np.mean((x - fake_quant(x, s_a, z_a, -128, 127)) ** 2))
s_s = np.max(np.abs(x)) / 127
err_sym = np.sqrt(np.mean((x - s_s * np.clip(np.round(x / s_s), -127, 127)) ** 2))
check_true("skewed data: min-max RMS error well under the absmax (symmetric) one",
           err_asym < 0.65 * err_sym, f"{err_asym:.4f} vs {err_sym:.4f}")

xs = np.linspace(-0.6, 1.6, 600)
s, z = minmax_params(np.array([-0.5, 1.5]), 0, 15)
fig, ax = figure("4-bit min-max grid for the range [-0.5, 1.5]", "x", r"$\hat{x}$")
ax.plot(xs, xs, ":", color="gray", label="x")
ax.step(xs, fake_quant(xs, s, z, 0, 15), where="mid", label=f"s = {s:.3f}, z = {z:.0f}")
ax.axhline(0, color="black", lw=0.6)
ax.legend()

# The page's calculator is checked against minmax_params on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): ranges across zero, all-negative (x_max widened to 0) and
# all-positive (x_min widened to 0), and lo = -1.25, hi = 126.25 on 255 steps, where s = 0.5 and
# -x_min / s = 2.5 is an exact tie that np.round sends to the even code.
import cardcalc  # noqa: E402


def calculator_row(lo, hi, q_min, q_max):
    s, z = minmax_params(np.array([lo, hi]), q_min, q_max)
    return {"s": s, "z": z}


codes = {"q_min": (0, -128, -8), "q_max": (255, 127, 7)}
cardcalc.table(calculator_row, cardcalc.grid(lo=(-3.0, -1.25), hi=(-0.2, 5.0, 126.25), **codes)
               + cardcalc.grid(lo=(0.5,), hi=(5.0, 126.25), **codes))
