"""Reference values of small floating-point formats (FP8, FP6, FP4), enumerated bit pattern by bit pattern.

The FP8 and MX cards check their rounding against these tables: every code of a format decoded by the
textbook rule (sign, biased exponent, subnormals at exponent field 0), and the brute-force nearest value with
ties going to the code whose last mantissa bit is 0. Each card implements its own quantizer.
"""

from __future__ import annotations

import numpy as np

# Which codes are not finite numbers: "ieee" reserves the all-ones exponent field (infinities and NaNs, as
# E5M2); "e4m3" reserves only the all-ones exponent with all-ones mantissa (NaN, as FP8 E4M3); "none" makes
# every code a number (the MX FP6 and FP4 element formats).
SPECIALS = ("ieee", "e4m3", "none")


def positive_codes(exp_bits: int, man_bits: int, bias: int, specials: str) -> tuple[np.ndarray, np.ndarray]:
    """All finite non-negative values of the format and the codes (sign bit 0) that hold them, by value."""
    if specials not in SPECIALS:
        raise ValueError(f"specials must be one of {SPECIALS}, not {specials!r}")
    values, codes = [], []
    top = (1 << exp_bits) - 1
    for e in range(top + 1):
        for m in range(1 << man_bits):
            if specials == "ieee" and e == top:
                continue
            if specials == "e4m3" and e == top and m == (1 << man_bits) - 1:
                continue
            if e == 0:
                v = m / (1 << man_bits) * 2.0 ** (1 - bias)
            else:
                v = (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
            values.append(v)
            codes.append((e << man_bits) | m)
    order = np.argsort(values, kind="stable")
    return np.array(values)[order], np.array(codes)[order]


def nearest_by_enumeration(x: np.ndarray, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Round each x to the nearest listed value (sign kept, magnitude clamped to the largest), ties to the
    even code, by comparing against every value."""
    x = np.asarray(x, dtype=float)
    mag = np.minimum(np.abs(x), values[-1])
    dist = np.abs(mag[..., None] - values)
    best = dist.min(axis=-1, keepdims=True)
    tied = dist == best
    # Among the (at most two) nearest values, prefer an even code; else the only one.
    prefer = tied & (codes % 2 == 0)
    pick = np.where(prefer.any(axis=-1), prefer.argmax(axis=-1), tied.argmax(axis=-1))
    return np.sign(x) * values[pick]
