"""YaRN: NTK-by-parts frequencies (a ramp in r = L / wavelength between alpha = 1 and beta = 32)
plus the attention temperature sqrt(1/t) = 0.1 ln s + 1. Checked: the ramp's three branches at
hand-computed points; the frequencies against np.interp and against the pair boundaries from the
inverse (closed-form) wavelength formula; the temperature at hand values and its effect on logits;
and the differences from the authors' code (ramp linear in the pair index) and from the seed's form."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def yarn_ramp(r: np.ndarray, alpha: float = 1.0, beta: float = 32.0) -> np.ndarray:
    """gamma(r) = 0 if r < alpha, 1 if r > beta, (r - alpha) / (beta - alpha) otherwise."""
    return np.where(r < alpha, 0.0, np.where(r > beta, 1.0, (r - alpha) / (beta - alpha)))


def rope_frequencies(d: int, base: float) -> np.ndarray:
    """theta_j = base^(-2j/d), j = 0 .. d/2 - 1."""
    return base ** (-np.arange(0, d, 2) / d)


def turns_over_context(d: int, L: int, base: float) -> np.ndarray:
    """r_j = L theta_j / (2 pi): rotations of pair j over the original context L."""
    return L * rope_frequencies(d, base) / (2 * np.pi)


def yarn_frequencies(d: int, s: float, L: int, base: float = 10000.0, alpha: float = 1.0,
                     beta: float = 32.0) -> np.ndarray:
    """h(theta_j) = (1 - gamma(r_j)) theta_j / s + gamma(r_j) theta_j, with r_j = L theta_j / (2 pi)."""
    theta = rope_frequencies(d, base)
    g = yarn_ramp(turns_over_context(d, L, base), alpha, beta)
    return (1 - g) * theta / s + g * theta


def yarn_attention_factor(s: float) -> float:
    """sqrt(1/t) = 0.1 ln s + 1; q and k are each multiplied by it, so logits are divided by t."""
    return 0.1 * math.log(s) + 1.0
# --- end formula ---


# 1. The ramp with the paper's Llama values alpha = 1, beta = 32: both flat branches and the slope.
r_pts = np.array([0.0, 0.5, 1.0, 1.31, 16.5, 31.0, 32.0, 33.0, 1e6])
check_close("gamma(r) at 0, 0.5, 1, 1.31, 16.5, 31, 32, 33, 1e6 (hand values: (r-1)/31 inside)",
            yarn_ramp(r_pts), [0.0, 0.0, 0.0, 0.01, 0.5, 30 / 31, 1.0, 1.0, 1.0], rtol=1e-12, atol=1e-15)

# 2. Frequencies for Llama (d = 128, base 10000, L = 4096, s = 16): the ratio theta'/theta as a
#    function of r is the linear interpolation between 1/s (at r = 1) and 1 (at r = 32), clamped.
d, L, s = 128, 4096, 16.0
theta = 1.0 / np.geomspace(1.0, 10000.0 ** ((d - 2) / d), d // 2)
r = L * theta / (2 * np.pi)
new = yarn_frequencies(d, s, L)
check_close("theta'_j / theta_j = np.interp(r_j, [1, 32], [1/s, 1]) for all 64 pairs", new / theta,
            np.interp(r, [1.0, 32.0], [1 / s, 1.0]), rtol=1e-12)
# Which pairs are untouched, interpolated or ramped follows from inverting r(j) in closed form:
# r = L b^(-2j/d) / (2 pi)  <=>  j = d ln(L / (2 pi r)) / (2 ln b).
j_beta = d * math.log(L / (2 * math.pi * 32.0)) / (2 * math.log(10000.0))   # 20.94
j_alpha = d * math.log(L / (2 * math.pi * 1.0)) / (2 * math.log(10000.0))   # 45.03
j = np.arange(d // 2)
check_close(f"pairs j < {j_beta:.2f} (r > 32, fast) keep theta exactly", new[j < j_beta], theta[j < j_beta],
            rtol=1e-13)
check_close(f"pairs j > {j_alpha:.2f} (r < 1, slow) get theta / s exactly (position interpolation)",
            new[j > j_alpha], theta[j > j_alpha] / s, rtol=1e-13)
inside = (j > j_beta) & (j < j_alpha)
check_true("pairs 21 .. 45 lie strictly between the two", np.array_equal(j[inside], np.arange(21, 46))
           and np.all((new[inside] < theta[inside]) & (new[inside] > theta[inside] / s)), "pairs 21 .. 45")

# 3. Temperature: sqrt(1/t) = 0.1 ln s + 1 at hand values (ln 2 = 0.6931471805599453).
check_close("sqrt(1/t) for s = 1, 2, 16, 32: 1, 1.0693147, 1.2772589, 1.3465736",
            [yarn_attention_factor(v) for v in (1.0, 2.0, 16.0, 32.0)],
            [1.0, 1.0693147180559945, 1.2772588722239781, 1.3465735902799727], rtol=1e-13)
rng = np.random.default_rng(0)
q, K = rng.normal(size=8), rng.normal(size=(10, 8))
f = yarn_attention_factor(s)
t = 1 / f**2
check_close("scaling q and k by sqrt(1/t) = dividing the logits by t (s = 16, t = 0.613)",
            softmax((f * q) @ (f * K).T / np.sqrt(8)), softmax(q @ K.T / (t * np.sqrt(8))), rtol=1e-12)
check_true("t < 1: YaRN sharpens attention", t < 1, f"t = {t:.4f}")

# 4. The authors' code ramps linearly in the pair index between floor/ceil of the same boundaries
#    (beta_fast = 32, beta_slow = 1). It agrees outside the ramp and differs inside.
low, high = math.floor(j_beta), math.ceil(j_alpha)
code_mask = 1 - np.clip((j - low) / (high - low), 0, 1)
code = theta / s * (1 - code_mask) + theta * code_mask
outside = ~inside
check_close("authors' code = paper outside the ramp", code[outside], new[outside], rtol=1e-13)
gap = np.max(np.abs(code[inside] / new[inside] - 1))
check_true("...inside the ramp the two differ (ramp linear in j vs linear in r)", gap > 0.05,
           f"largest relative difference {gap:.2f}")

# 5. The seed's form divides theta by an interpolated scale, (1 - g) s + g; YaRN interpolates the
#    frequency itself. Same end points, different middle.
g = np.interp(r, [1.0, 32.0], [0.0, 1.0])
seed_form = theta / ((1 - g) * s + g)
check_close("seed form = YaRN where the ramp is 0 or 1", seed_form[outside], new[outside], rtol=1e-13)
mid = np.max(np.abs(seed_form[inside] / new[inside] - 1))
check_true("...but not on the ramp", mid > 0.1, f"largest relative difference {mid:.2f}")

# The page's calculator is checked against yarn_frequencies, yarn_ramp and yarn_attention_factor on this
# grid (cardcalc; the build runs the card's JavaScript on the same rows): pairs that turn more than beta
# times over L, fewer than alpha times, and on the ramp between, for two ramps, bases, lengths and factors.
import cardcalc  # noqa: E402


def yarn_row(j, d, b, L, s, alpha, beta):
    """The calculator's outputs at one row, from the formula's own functions."""
    theta_j = rope_frequencies(d, b)[j]
    r_j = turns_over_context(d, L, b)[j]
    theta_new = yarn_frequencies(d, s, L, b, alpha, beta)[j]
    return {"r": r_j, "gamma": float(yarn_ramp(r_j, alpha, beta)), "theta": theta_new,
            "slowdown": theta_j / theta_new, "mscale": yarn_attention_factor(s),
            "t": 1 / yarn_attention_factor(s) ** 2}


pairs = cardcalc.grid(j=(0, 20, 21, 30, 45, 46, 63), d=(64, 128), b=(10000.0, 500000.0), L=(2048, 4096),
                      s=(1.0, 16.0), alpha=(1.0, 2.0), beta=(16.0, 32.0))
cardcalc.table(yarn_row, [row for row in pairs if row["j"] < row["d"] // 2])

fig, ax = figure("RoPE frequency division per pair (d = 128, L = 4096, s = 16)",
                 "pair index  j", r"$\theta_j / \theta'_j$")
ax.semilogy(j, np.full(d // 2, s), label="position interpolation")
ax.semilogy(j, np.geomspace(1.0, s, d // 2), label="NTK-aware ($b' = b\\,s^{d/(d-2)}$)")
ax.semilogy(j, theta / new, label=r"YaRN / NTK-by-parts ($\alpha = 1, \beta = 32$)")
ax.axvspan(j_beta, j_alpha, color="gray", alpha=0.15, label="ramp $1 \\leq r \\leq 32$")
ax.legend()
