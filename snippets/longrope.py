"""LongRoPE: RoPE whose pair i turns by n theta_i / lambda_i, with a searched factor lambda_i per pair,
except for the first n_hat positions, which keep the original angles n theta_i. Checked against a
direct per-position, per-pair loop with beta = base^(2/d), the complex-number form of RoPE, the
limits lambda_i = 1 (plain RoPE) and lambda_i = s with n_hat = 0 (position interpolation), and the
relative-position property inside and across the two regions."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

# --- formula ---


def longrope_angles(n, lam, n_hat, base=10000.0):
    """Angle of pair i at position n: I(lambda_i, n_hat) n theta_i, theta_i = base^(-2i/d), with
    I = 1 for n < n_hat and 1 / lambda_i for n >= n_hat; lam has one factor per pair (d/2 of them)."""
    d = 2 * len(lam)
    theta = base ** (-np.arange(0, d, 2) / d)
    n = np.asarray(n, dtype=float)[..., None]
    return longrope_factor(n, lam, n_hat) * n * theta


def longrope_factor(n, lam, n_hat):
    """I(lambda_i, n_hat): 1 at positions n < n_hat, 1 / lambda_i from n_hat on."""
    return np.where(n < n_hat, 1.0, 1.0 / lam)


def longrope(x, n, lam, n_hat, base=10000.0):
    """Rotate each pair (x_2i, x_2i+1) of x (positions along the first axis) by its LongRoPE angle."""
    ang = longrope_angles(n, lam, n_hat, base)
    c, s = np.cos(ang), np.sin(ang)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out
# --- end formula ---


rng = np.random.default_rng(0)
d = 16
# Illustrative factors of the searched kind: between 1 and 10, non-decreasing in i (the fast,
# high-frequency pairs are interpolated least).
lam = np.sort(rng.uniform(1.0, 10.0, size=d // 2))
n_hat = 12
positions = np.arange(0, 40)


def direct_angle(n, i, lam, n_hat, d, base=10000.0):
    """The paper's form with beta = base^(2/d): n / beta^i, divided by lambda_i from n_hat on."""
    beta = base ** (2.0 / d)
    return n / beta**i if n < n_hat else n / (lam[i] * beta**i)


def rope_complex(x, n, freqs):
    """RoPE as complex multiplication: pair i is the number x_2i + j x_2i+1, turned by exp(j n freq_i)."""
    z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * n * freqs)
    return np.stack([z.real, z.imag], axis=1).ravel()


# 1. Angles against the direct loop, positions 0..39 with n_hat = 12 inside the range (so n = 11, 12, 13
#    test the boundary: n_hat itself is scaled). A product and a power per entry: 1e-13 relative.
ref = np.array([[direct_angle(n, i, lam, n_hat, d) for i in range(d // 2)] for n in positions])
check_close("angles = n / beta^i below n_hat, n / (lambda_i beta^i) from n_hat on",
            longrope_angles(positions, lam, n_hat), ref, rtol=1e-13, atol=0)
check_close("position n_hat = 12 is already rescaled: angle_i = 12 theta_i / lambda_i",
            longrope_angles(12, lam, n_hat), 12 * 10000.0 ** (-np.arange(8) / 8) / lam, rtol=1e-13)

# 2. The rotation against RoPE's complex form with the per-pair frequency theta_i / lambda_i (or
#    theta_i below n_hat), for every position. A few flops per entry on O(1) values: 1e-12.
theta = 10000.0 ** (-np.arange(0, d, 2) / d)
x = rng.normal(size=(len(positions), d))
ours = longrope(x, positions, lam, n_hat)
expected = np.array([rope_complex(x[k], n, theta if n < n_hat else theta / lam)
                     for k, n in enumerate(positions)])
check_close("rotation = complex RoPE with theta_i (n < n_hat) or theta_i / lambda_i (n >= n_hat)", ours,
            expected, rtol=1e-12, atol=1e-13)
check_close("rotation keeps every pair's length", np.hypot(ours[:, 0::2], ours[:, 1::2]),
            np.hypot(x[:, 0::2], x[:, 1::2]), rtol=1e-12)

# 3. lambda_i = 1 reproduces RoPE whatever n_hat is; uniform lambda_i = s with n_hat = 0 is position
#    interpolation, RoPE at position n / s.
for nh in (0, 12, 100):
    check_close(f"lambda = 1, n_hat = {nh}: LongRoPE = RoPE", longrope(x, positions, np.ones(d // 2), nh),
                np.array([rope_complex(x[k], n, theta) for k, n in enumerate(positions)]),
                rtol=1e-12, atol=1e-13)
check_close("lambda = s = 8 for every pair, n_hat = 0: RoPE at position n / 8 (position interpolation)",
            longrope(x, positions, np.full(d // 2, 8.0), 0),
            np.array([rope_complex(x[k], n / 8, theta) for k, n in enumerate(positions)]),
            rtol=1e-12, atol=1e-13)

# 4. The relative property: two positions on the same side of n_hat give a score that depends on their
#    difference only; a pair straddling n_hat does not (the query and key are turned at different rates).
q, k = rng.normal(size=d), rng.normal(size=d)


def score(m, n):
    return longrope(q[None], [m], lam, n_hat)[0] @ longrope(k[None], [n], lam, n_hat)[0]


check_close("m, n >= n_hat: score(30, 20) = score(25, 15) = score(40, 30)", [score(25, 15), score(40, 30)],
            [score(30, 20)] * 2, rtol=1e-12)
check_close("m, n < n_hat: score(9, 4) = score(7, 2)", score(7, 2), score(9, 4), rtol=1e-12)
gap = abs(score(14, 4) - score(19, 9))
check_true("across n_hat (n = 4 < 12 <= 14): the score changes with the absolute positions", gap > 1e-3,
           f"|score(14, 4) - score(19, 9)| = {gap:.3g}")

# The page's calculator is checked against longrope_angles on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows), for one pair with factor lambda_i: positions before n_hat, at it and after
# it, n_hat = 0 (every position rescaled), the first, second and last pairs, and factors below and above 1.
import cardcalc  # noqa: E402


def longrope_row(n, i, d, lam, n_hat):
    """The calculator's outputs at one row: pair i's multiplier and angle, every pair given the factor lam."""
    factors = np.full(d // 2, lam)
    return {"I": float(longrope_factor(n, lam, n_hat)), "angle": longrope_angles(n, factors, n_hat)[i]}


pairs = cardcalc.grid(n=(0, 3, 4, 5, 4096, 100_000), i=(0, 1, 31, 63), d=(64, 128),
                      lam=(0.5, 1.0, 16.0), n_hat=(0, 4, 4096))
cardcalc.table(longrope_row, [row for row in pairs if row["i"] < row["d"] // 2])

fig, ax = figure("Angle per pair at position 4096 (d = 128)", "pair index i",
                 "angle (radians)")
i = np.arange(64)
lam_fig = 1 + 9 * (i / 63) ** 2        # an illustrative non-decreasing factor curve, not a searched one
ax.semilogy(i, longrope_angles(4096, np.ones(64), 0), label="RoPE")
ax.semilogy(i, longrope_angles(4096, np.full(64, 8.0), 0), ls=":", label="position interpolation, s = 8")
ax.semilogy(i, longrope_angles(4096, lam_fig, 0), ls="--", label="non-uniform $\\lambda_i$")
ax.legend()
