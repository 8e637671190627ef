"""OCP Microscaling (MX): blocks of 32 elements sharing a power-of-two E8M0 scale
X = 2^(floor(log2 amax) - emax), elements in FP8, FP6, FP4 or INT8; quantize/dequantize checked against an
exact enumeration of each element format, the spec's emax values, the scale's defining bracket, and
per-tensor scaling on a tensor with one outlier block."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from minifloat_fixture import nearest_by_enumeration, positive_codes

# --- formula ---
BLOCK = 32
ELEMENTS = {  # mantissa bits, exponent bias, largest value, emax (exponent of the largest normal)
    "FP8 E4M3": (3, 7, 448.0, 8),
    "FP8 E5M2": (2, 15, 57344.0, 15),
    "FP6 E3M2": (2, 3, 28.0, 4),
    "FP6 E2M3": (3, 1, 7.5, 2),
    "FP4 E2M1": (1, 1, 6.0, 2),
    "INT8": (6, None, 127 / 64, 0),        # two's complement with an implicit 2^-6
}


def to_element(v, fmt):
    """Round v to the element format: nearest value, ties to even, magnitude clamped to the largest value."""
    man_bits, bias, vmax, _ = ELEMENTS[fmt]
    if bias is None:
        q = np.round(v * 2.0**man_bits) / 2.0**man_bits
    else:
        _, e = np.frexp(v)                                      # |v| = |f| 2^e with |f| in [0.5, 1)
        scale_exp = np.maximum(e - 1, 1 - bias) - man_bits      # below the normals, the subnormal step
        q = np.round(v / 2.0**scale_exp) * 2.0**scale_exp
    return np.clip(q, -vmax, vmax)


def mx_quantize(block, fmt):
    """One block: shared exponent floor(log2 amax) - emax, clamped to E8M0's range; returns (X, elements)."""
    emax = ELEMENTS[fmt][3]
    shared = np.floor(np.log2(np.max(np.abs(block)))) - emax
    X = 2.0 ** np.clip(shared, -127, 127)
    return X, to_element(block / X, fmt)


def mx_round_trip(x, fmt):
    """Quantize a vector block by block (length a multiple of 32) and dequantize: X * P_i."""
    out = np.empty_like(x)
    for start in range(0, len(x), BLOCK):
        X, p = mx_quantize(x[start:start + BLOCK], fmt)
        out[start:start + BLOCK] = X * p
    return out


def bits_per_element(element_bits, block=BLOCK, scale_bits=8):
    """Storage per value: its element plus its share of the block's scale (an 8-bit E8M0 per 32)."""
    return element_bits + scale_bits / block
# --- end formula ---


rng = np.random.default_rng(0)
TABLES = {  # every non-negative value of each element format, decoded from its bit patterns
    "FP8 E4M3": positive_codes(4, 3, 7, "e4m3"),
    "FP8 E5M2": positive_codes(5, 2, 15, "ieee"),
    "FP6 E3M2": positive_codes(3, 2, 3, "none"),
    "FP6 E2M3": positive_codes(2, 3, 1, "none"),
    "FP4 E2M1": positive_codes(2, 1, 1, "none"),
    "INT8": (np.arange(128) / 64.0, np.arange(128)),
}

# 1. The spec's element constants against the enumeration: the largest value, and emax = the exponent of
#    the largest normal value (OCP MX v1.0: 8, 15, 4, 2, 2 and 0 for INT8).
SPEC_EMAX = {"FP8 E4M3": 8, "FP8 E5M2": 15, "FP6 E3M2": 4, "FP6 E2M3": 2, "FP4 E2M1": 2, "INT8": 0}
for fmt, (values, _) in TABLES.items():
    check_true(f"{fmt}: largest value {values[-1]:g} and emax {SPEC_EMAX[fmt]} match the enumeration",
               ELEMENTS[fmt][2] == values[-1] and ELEMENTS[fmt][3] == SPEC_EMAX[fmt]
               == int(np.floor(np.log2(values[-1]))))

# 2. Quantize/dequantize against brute force, 40 blocks per format with magnitudes spread over 2^-20..2^20
#    and block maxima anywhere: the shared scale is the unique power of two 2^k with
#    2^emax <= amax / 2^k < 2^(emax+1) (searched over k), and each element is the enumeration's nearest value
#    of V_i / X. Everything is a power-of-two scaling or a table lookup: exact equality.
ks = np.arange(-160, 161)
for fmt, (values, codes) in TABLES.items():
    emax = SPEC_EMAX[fmt]
    ok_scale, ok_elem = True, True
    for _ in range(40):
        block = rng.choice([-1, 1], BLOCK) * np.exp2(rng.uniform(-8, 8) + rng.normal(0, 3, BLOCK))
        X, p = mx_quantize(block, fmt)
        ratio = np.max(np.abs(block)) / 2.0**ks
        k = ks[(ratio >= 2.0**emax) & (ratio < 2.0 ** (emax + 1))]
        ok_scale &= len(k) == 1 and X == 2.0 ** k[0]
        ok_elem &= bool(np.array_equal(X * p, X * nearest_by_enumeration(block / 2.0 ** k[0], values, codes)))
    check_true(f"{fmt}: 40 blocks: X is the power of two bracketing amax / 2^emax (brute-force search)",
               ok_scale)
    check_true(f"{fmt}: 40 blocks: elements = the enumeration's nearest values of V_i / X", ok_elem)
    mids = (values[1:] + values[:-1]) / 2
    check_close(f"{fmt}: midpoints between element values round to the even code", to_element(mids, fmt),
                nearest_by_enumeration(mids, values, codes), rtol=0)

# The whole-vector round trip block by block: 4 blocks of 32 with maxima 10^3 apart, each checked against its
# own bracketing scale and the enumeration (blocks must start at 0, 32, 64, 96).
values4, codes4 = TABLES["FP4 E2M1"]
v = rng.normal(0, 1, 4 * BLOCK) * np.repeat([1e-3, 1.0, 1e3, 1e-6], BLOCK)
expected = np.empty_like(v)
for b in range(4):
    part = v[32 * b: 32 * (b + 1)]
    k = ks[(np.max(np.abs(part)) / 2.0**ks >= 4) & (np.max(np.abs(part)) / 2.0**ks < 8)][0]
    expected[32 * b: 32 * (b + 1)] = 2.0**k * nearest_by_enumeration(part / 2.0**k, values4, codes4)
check_close("FP4: 4 blocks of 32 at scales 1e-3..1e3, round trip = per-block brute force",
            mx_round_trip(v, "FP4 E2M1"), expected, rtol=0)

# 3. The scale is an E8M0 code: an exact power of two whose exponent is clamped to [-127, 127].
X_tiny, _ = mx_quantize(np.full(BLOCK, 2.0**-140), "FP8 E4M3")
X_huge, _ = mx_quantize(np.full(BLOCK, 2.0**200), "FP4 E2M1")
check_true("E8M0 range: a block of 2^-140 gets X = 2^-127, a block of 2^200 gets X = 2^127",
           X_tiny == 2.0**-127 and X_huge == 2.0**127)

# 4. The top of a block can clip. amax / X lies in [2^emax, 2^(emax+1)), but FP4 E2M1's largest value is 6:
#    a block whose maximum is 7.9 x 2^j keeps X = 2^j and clamps that element to 6 (error 24%).
X, p = mx_quantize(np.array([7.9] + [0.5] * 31), "FP4 E2M1")
check_true("FP4: amax 7.9 -> X = 1 and the element clamps to 6", X == 1.0 and p[0] == 6.0, f"X = {X}, {p[0]}")

# 5. Why blocks: a tensor of 32 blocks with one outlier block (values x1000). One per-tensor power-of-two
#    scale chosen the same way pushes the other blocks toward FP4's zero; MX keeps their relative error.
x = rng.normal(0, 1, 32 * BLOCK)
x[:BLOCK] *= 1000
mx = mx_round_trip(x, "FP4 E2M1")
X_t = 2.0 ** (np.floor(np.log2(np.max(np.abs(x)))) - 2)
per_tensor = X_t * nearest_by_enumeration(x / X_t, *TABLES["FP4 E2M1"])
rest = slice(BLOCK, None)
err_mx = np.linalg.norm(mx[rest] - x[rest]) / np.linalg.norm(x[rest])
err_t = np.linalg.norm(per_tensor[rest] - x[rest]) / np.linalg.norm(x[rest])
check_true("FP4, one outlier block: MX error on the other blocks < 0.25, per-tensor scale's > 0.9",
           err_mx < 0.25 and err_t > 0.9, f"MX {err_mx:.3f}, per-tensor {err_t:.3f}")
check_true("the per-tensor route is the MX rule applied to one 1024-element block",
           np.array_equal(per_tensor, X_t * to_element(x / X_t, "FP4 E2M1")))

fig, ax = figure("MX round trip of one block (FP4 E2M1 elements)", "element index in the block", "value")
blk = rng.normal(0, 1, BLOCK)
ax.plot(blk, "o", label="original")
ax.plot(mx_round_trip(blk, "FP4 E2M1"), "x", label="MXFP4 (X · P_i)")
ax.plot(mx_round_trip(blk, "FP8 E4M3"), ".", label="MXFP8 E4M3")
ax.legend(fontsize=8)

# 4. Storage, counted on the 4-block vector above: every value's element code (a sign bit and the bits of
#    the largest magnitude code) plus one 8-bit E8M0 scale per block that the quantizer produced.
for fmt, (_, codes) in TABLES.items():
    width = 1 + int(codes.max()).bit_length()
    scales = [mx_quantize(v[start:start + BLOCK], fmt)[0] for start in range(0, v.size, BLOCK)]
    check_close(f"{fmt}: {width}-bit elements, bits per value = (element codes + 8 per scale) / values",
                bits_per_element(width), (v.size * width + 8 * len(scales)) / v.size, rtol=0)
check_close("MXFP4 stores 4.25 bits per value", bits_per_element(4), 4.25, rtol=0)

# The page's calculator is checked against bits_per_element on this grid (cardcalc; the build runs the
# page's JavaScript on the same rows); other block sizes and scale widths are the same count.
import cardcalc  # noqa: E402

cardcalc.table(lambda w, k, s, n: {"bpe": bits_per_element(w, k, s), "M": n * bits_per_element(w, k, s) / 8},
               cardcalc.grid(w=(4, 6, 8), k=(16, 32), s=(0, 8), n=(32, 7.0e9)))
