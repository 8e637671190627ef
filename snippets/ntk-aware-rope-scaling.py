"""NTK-aware RoPE scaling: the base b becomes b s^(d/(d-2)). Checked against the per-pair form
theta_j s^(-2j/(d-2)) built with np.geomspace, for its two end points (fastest pair unchanged,
slowest pair divided by exactly s), for the angle the slowest pair sweeps over the extended window,
against a rotation built with a matrix exponential, and against Hugging Face's "dynamic" variant."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import block_diag, expm


# --- formula ---
def ntk_base(s: float, d: int, base: float = 10000.0) -> float:
    """b' = b s^(d / (d - 2)) (bloc97 2023; Peng et al. 2023, 'NTK-aware' interpolation)."""
    return base * s ** (d / (d - 2))


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """theta_j = base^(-2j/d), j = 0 .. d/2 - 1."""
    return base ** (-np.arange(0, d, 2) / d)


def ntk_frequencies(d: int, s: float, base: float = 10000.0) -> np.ndarray:
    return rope_frequencies(d, ntk_base(s, d, base))
# --- end formula ---


d, s, L = 128, 8.0, 2048
theta = 1.0 / np.geomspace(1.0, 10000.0 ** ((d - 2) / d), d // 2)  # RoPE, built independently
new = ntk_frequencies(d, s)

# 1. The per-pair form: theta'_j = theta_j s^(-2j/(d-2)), a geometric ramp of scales from 1 to s.
check_close("theta'_j = theta_j / s^(2j/(d-2)), scales from np.geomspace(1, s, d/2)", new,
            theta / np.geomspace(1.0, s, d // 2), rtol=1e-12)
check_close("RoPE frequencies at the default base 10000", rope_frequencies(d), theta, rtol=1e-12)
check_close("fastest pair unchanged: theta'_0 = theta_0 = 1", new[0], 1.0, rtol=0)
check_close("slowest pair divided by exactly s: theta'_{d/2-1} = theta_{d/2-1} / s", new[-1], theta[-1] / s,
            rtol=1e-13)
check_close("other head sizes: d = 64, s = 4 and d = 96, s = 16, end points",
            [ntk_frequencies(64, 4.0)[-1] * 4.0 / rope_frequencies(64)[-1],
             ntk_frequencies(96, 16.0)[-1] * 16.0 / rope_frequencies(96)[-1], ntk_frequencies(96, 16.0)[0]],
            [1.0, 1.0, 1.0], rtol=1e-13)
check_close("s = 1 changes nothing", ntk_frequencies(d, 1.0), theta, rtol=1e-13)

# 2. What it buys: over the extended window s L, the slowest pair sweeps the same angle the
#    original swept over L (interpolation), while the fastest pair keeps its per-token angle.
check_close("slowest pair: (s L) theta'_{d/2-1} = L theta_{d/2-1}", s * L * new[-1], L * theta[-1],
            rtol=1e-13)

# 3. Applied to a vector: rotation at position m with the new base vs expm of the generator.
rng = np.random.default_rng(0)
dd, m = 16, 3000
x = rng.normal(size=dd)
ang = m * ntk_frequencies(dd, s)
rot = np.empty(dd)
rot[0::2] = x[0::2] * np.cos(ang) - x[1::2] * np.sin(ang)
rot[1::2] = x[1::2] * np.cos(ang) + x[0::2] * np.sin(ang)
J = np.array([[0.0, -1.0], [1.0, 0.0]])
t_ref = 1.0 / np.geomspace(1.0, 10000.0 ** ((dd - 2) / dd), dd // 2) / np.geomspace(1.0, s, dd // 2)
check_close("rotation with base b' at m = 3000 vs block-diagonal expm(m theta'_j J)",
            rot, block_diag(*[expm(m * t * J) for t in t_ref]) @ x, rtol=1e-10, atol=1e-10)

# 4. Hugging Face 'dynamic' recomputes the base from the current length l:
#    b ((factor l / L) - (factor - 1))^(d/(d-2)). With factor = 1 that is NTK scaling with s = l/L.
length = 5000
dyn_base = 10000.0 * ((1.0 * length / L) - 0.0) ** (d / (d - 2))
check_close("dynamic NTK, factor 1, length 5000 = NTK with s = 5000/2048", ntk_base(length / L, d), dyn_base,
            rtol=1e-13)
dyn2 = 10000.0 * ((2.0 * 4096 / L) - 1.0) ** (d / (d - 2))
check_true("...with factor 2 at length 4096 it uses the base of s = 3, not s = 2",
           np.isclose(dyn2, ntk_base(3.0, d), rtol=1e-13) and not np.isclose(dyn2, ntk_base(2.0, d)),
           f"base {dyn2:.0f} vs NTK(s = 2) {ntk_base(2.0, d):.0f}")

# The page's calculator is checked against ntk_base and rope_frequencies on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows): the first, second and last pairs of small and large heads,
# no extension (s = 1) up to s = 32, and LLaMA's and Llama 3's bases.
import cardcalc  # noqa: E402

pairs = cardcalc.grid(b=(10000.0, 500000.0), s=(1.0, 2.0, 8.0, 32.0), d=(4, 64, 128), j=(0, 1, 31, 63))
cardcalc.table(lambda b, s, d, j: {"b_new": ntk_base(s, d, b), "theta": ntk_frequencies(d, s, b)[j],
                                   "slowdown": rope_frequencies(d, b)[j] / ntk_frequencies(d, s, b)[j]},
               [row for row in pairs if row["j"] < row["d"] // 2])

fig, ax = figure("RoPE frequency scaling per pair (d = 128, s = 8)", "pair index  j",
                 r"frequency divided by  $\theta_j / \theta'_j$")
j = np.arange(d // 2)
ax.semilogy(j, np.full(d // 2, s), label="position interpolation (all pairs / s)")
ax.semilogy(j, theta / new, label="NTK-aware: $s^{2j/(d-2)}$")
ax.semilogy(j, np.ones(d // 2), ":", label="plain RoPE")
ax.legend()
