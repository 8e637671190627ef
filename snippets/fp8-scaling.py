"""FP8 per-tensor scaling: E4M3 and E5M2 rounding against an exact enumeration of each format's values
(maxima 448 and 57344), and delayed scaling (amax history) against current scaling on an activation spike."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from minifloat_fixture import nearest_by_enumeration, positive_codes

# --- formula ---
FORMATS = {  # mantissa bits, exponent bias, largest finite value
    "E4M3": (3, 7, 448.0),
    "E5M2": (2, 15, 57344.0),
}


def to_fp8(x, fmt):
    """Round to the nearest FP8 value (ties to even), saturating at the largest finite value."""
    man_bits, bias, fmax = FORMATS[fmt]
    mag = np.abs(x)
    exp = np.floor(np.log2(np.maximum(mag, 2.0 ** (1 - bias))))      # subnormals share the smallest exponent
    step = 2.0 ** (exp - man_bits)
    rounded = np.round(mag / step) * step                             # np.round: half to even
    return np.sign(x) * np.minimum(rounded, fmax)


def current_scale(x, fmt, margin=0):
    """Just-in-time scaling: s = fmax / amax(x) / 2^margin, from the tensor being cast."""
    return FORMATS[fmt][2] / np.max(np.abs(x)) / 2.0**margin


def delayed_scale(amax_history, fmt, margin=0):
    """Delayed scaling: s = fmax / max(amax history of earlier steps) / 2^margin."""
    return FORMATS[fmt][2] / np.max(amax_history) / 2.0**margin


def fp8_cast(x, s, fmt):
    """Quantize x * s to FP8 and return the dequantized x_hat = q / s."""
    return to_fp8(x * s, fmt) / s
# --- end formula ---


rng = np.random.default_rng(0)
tables = {"E4M3": positive_codes(4, 3, 7, "e4m3"), "E5M2": positive_codes(5, 2, 15, "ieee")}

# 1. The formats' constants, from the enumeration of all 256 codes of each (Micikevicius et al., Table 1):
#    largest finite 448 and 57344, smallest subnormal 2^-9 and 2^-16, and the number of finite codes.
for fmt, (values, _) in tables.items():
    check_close(f"{fmt}: largest finite value of the enumeration = the formula's saturation point",
                FORMATS[fmt][2], values[-1], rtol=0)
check_true("E4M3: max 448 = 1.75 x 2^8, min subnormal 2^-9, 127 positive values (only S.1111.111 is NaN)",
           tables["E4M3"][0][-1] == 448 and tables["E4M3"][0][1] == 2.0**-9 and len(tables["E4M3"][0]) == 127)
check_true("E5M2: max 57344 = 1.75 x 2^15, min subnormal 2^-16, 124 positive values (IEEE inf/NaN)",
           tables["E5M2"][0][-1] == 57344 and tables["E5M2"][0][1] == 2.0**-16
           and len(tables["E5M2"][0]) == 124)

# 2. Round-to-nearest against the enumeration: random magnitudes over the whole range (subnormal to past the
#    maximum), every representable value itself, and every midpoint between neighbours (ties -> even code).
for fmt, (values, codes) in tables.items():
    fmax = values[-1]
    x = rng.choice([-1, 1], 4000) * np.exp(rng.uniform(np.log(values[1] / 4), np.log(fmax * 4), 4000))
    check_close(f"{fmt}: random values round to the enumeration's nearest (saturating)", to_fp8(x, fmt),
                nearest_by_enumeration(x, values, codes), rtol=0)
    check_close(f"{fmt}: every representable value is kept exactly", to_fp8(values, fmt), values, rtol=0)
    mids = (values[1:] + values[:-1]) / 2
    check_close(f"{fmt}: midpoints round to the even code (round half to even)", to_fp8(-mids, fmt),
                nearest_by_enumeration(-mids, values, codes), rtol=0)

# 3. Relative error of a normal value is at most half a unit in the last place: 2^-(m+1).
for fmt in tables:
    man_bits, bias, fmax = FORMATS[fmt]
    x = np.exp(rng.uniform(np.log(2.0 ** (1 - bias)), np.log(fmax), 20000))
    rel = np.max(np.abs(to_fp8(x, fmt) - x) / x)
    check_true(f"{fmt}: normal range, relative error <= 2^-{man_bits + 1}", rel <= 2.0 ** -(man_bits + 1),
               f"{rel:.4f}")

# 4. Scales. Current scaling maps the tensor's amax onto the format's maximum; with a margin of m it leaves
#    2^m of headroom. The cast of the tensor's largest element is then exact, whatever its size.
x = rng.normal(0, 3.0, 4096)
for fmt in FORMATS:
    s = current_scale(x, fmt)
    check_close(f"{fmt}: current scale puts amax at the format's maximum", np.max(np.abs(x)) * s,
                tables[fmt][0][-1], rtol=1e-15)
    check_close(f"{fmt}: margin 2 leaves amax at a quarter of the maximum",
                np.max(np.abs(x)) * current_scale(x, fmt, margin=2), tables[fmt][0][-1] / 4, rtol=1e-15)

# 5. A spike. Sixteen steps of activations with amax near 3 fill the history; then one step's activations are
#    40x larger. Delayed scaling uses the history's amax, so the spike's values land far past 448 and
#    saturate; current scaling sees the spike and casts it within the format's rounding error.
history = [np.max(np.abs(rng.normal(0, 1.0, 4096))) for _ in range(16)]
spike = rng.normal(0, 40.0, 4096)
s_delayed = delayed_scale(history, "E4M3")
s_current = current_scale(spike, "E4M3")
err_delayed = np.max(np.abs(fp8_cast(spike, s_delayed, "E4M3") - spike) / np.abs(spike))
big = np.abs(spike) >= np.max(np.abs(spike)) * 2.0**-6     # inside E4M3's normal range after scaling
err_current = np.max(np.abs(fp8_cast(spike[big], s_current, "E4M3") - spike[big]) / np.abs(spike[big]))
saturated = np.mean(np.abs(spike * s_delayed) > 448)
check_true("delayed scaling on the spike: values saturate, relative error above 50%",
           saturated > 0.3 and err_delayed > 0.5,
           f"{saturated:.0%} of values past 448, error {err_delayed:.2f}")
check_true("current scaling on the spike: no saturation, relative error <= 2^-4", err_current <= 2.0**-4,
           f"{err_current:.4f}")
check_close("delayed scale = 448 / max(history)", s_delayed, 448 / max(history), rtol=1e-15)
check_close("delayed, margin 3: the history's amax maps to 2^-3 x 448 = 56 (Transformer Engine's rule)",
            max(history) * delayed_scale(history, "E4M3", margin=3), 56.0, rtol=1e-15)
check_true("after the step, the history holds the spike: the next delayed scale adapts",
           delayed_scale([*history[1:], np.max(np.abs(spike))], "E4M3") == s_current)

# The page's calculator is checked against current_scale, to_fp8 and fp8_cast on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows), with both formats and margins 0 and 2: x = 17 at
# s = 1 and at s = 1/4 falls exactly between two E4M3 values (ties go to the even code), x = 500 and -1000
# saturate, 1e-3 and 1e-7 land among the subnormals, and 0 stays 0.
import cardcalc  # noqa: E402


def calculator_row(e, amax, m, x):
    fmt = {4: "E4M3", 5: "E5M2"}[e]
    s = current_scale(amax, fmt, margin=m)
    return {"s": s, "q": to_fp8(x * s, fmt), "xhat": fp8_cast(x, s, fmt)}


cardcalc.table(calculator_row, cardcalc.grid(e=(4, 5), amax=(3.0, 448.0), m=(0, 2),
                                             x=(-1000, -17, 0, 1e-7, 1e-3, 1.3, 2.5, 17, 19, 500)))

fig, ax = figure("E4M3 cast of a spike: delayed against current scaling", "true value",
                 "dequantized value")
order = np.argsort(spike)
ax.plot(spike[order], fp8_cast(spike, s_delayed, "E4M3")[order], label="delayed (history amax)")
ax.plot(spike[order], fp8_cast(spike, s_current, "E4M3")[order], "--", label="current (this tensor's amax)")
ax.legend()
