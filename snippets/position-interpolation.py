"""Position interpolation for RoPE: positions m are replaced by m L / L'. Checked against rotations
built with a matrix exponential at the fractional position (no sin/cos), against the equivalent
"divide every frequency by s" form, for the range of interpolated positions, for the relative
property, and for scores at multiples of s that reproduce the original model's scores exactly."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import block_diag, expm


# --- formula ---
def interpolated_positions(m: np.ndarray, L_train: int, L_target: int) -> np.ndarray:
    """m' = m L / L' (Chen et al. 2023): positions 0 .. L' - 1 squeezed into [0, L)."""
    return m * L_train / L_target


def rope(x: np.ndarray, pos: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """RoPE at (possibly fractional) positions: x (..., T, d), pair j turned by pos_t theta_j."""
    d = x.shape[-1]
    angle = pos[:, None] * base ** (-np.arange(0, d, 2) / d)[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 1::2] * cos + x[..., 0::2] * sin
    return out


def rope_pi(x: np.ndarray, m: np.ndarray, L_train: int, L_target: int) -> np.ndarray:
    """f'(x, m) = f(x, m L / L')."""
    return rope(x, interpolated_positions(m, L_train, L_target))
# --- end formula ---


rng = np.random.default_rng(0)
d, L, L_new = 16, 2048, 8192
s = L_new / L
theta = 1.0 / np.geomspace(1.0, 10000.0 ** ((d - 2) / d), d // 2)  # 10000^(-2j/d), built another way
J = np.array([[0.0, -1.0], [1.0, 0.0]])


def rotation(p: float) -> np.ndarray:
    """Block-diagonal rotation at position p from the generator: expm(p theta_j J) per pair."""
    return block_diag(*[expm(p * t * J) for t in theta])


# 1. PI at integer position m is the RoPE rotation at the fractional position m L / L'.
m = np.array([0, 1, 3, 1001, 5000, L_new - 1])
x = rng.normal(size=(len(m), d))
ref = np.stack([rotation(mi * L / L_new) @ xi for mi, xi in zip(m, x, strict=True)])
check_close("PI(x, m) = expm rotation at position m L/L' (L = 2048, L' = 8192)", rope_pi(x, m, L, L_new), ref,
            rtol=1e-10, atol=1e-10)
heads = rng.normal(size=(3, len(m), d))
check_close("several heads (3 x T x d) at once = one head at a time", rope_pi(heads, m, L, L_new),
            np.stack([rope_pi(h, m, L, L_new) for h in heads]), rtol=1e-15)

# 2. Same thing as dividing every frequency by s = L'/L (Hugging Face rope_type "linear", factor s).
angle_div = m[:, None] * (theta / s)[None, :]
zc = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * angle_div)
check_close("= RoPE with frequencies theta_j / s (complex form)", rope_pi(x, m, L, L_new),
            np.stack([zc.real, zc.imag], axis=-1).reshape(len(m), d), rtol=1e-12, atol=1e-13)

# 3. Every target position lands inside the trained range [0, L), on a grid of spacing 1/s.
mp = interpolated_positions(np.arange(L_new), L, L_new)
check_true("max interpolated position L - L/L' = 2047.75 < L = 2048",
           mp.max() < L and np.isclose(mp.max(), L - L / L_new, rtol=1e-15), f"max {mp.max()}")
check_close("spacing between consecutive positions = L/L' = 1/4", np.diff(mp), np.full(L_new - 1, 0.25),
            rtol=0)
check_close("no-op when L' = L", interpolated_positions(np.arange(L), L, L), np.arange(L), rtol=0)

# 4. Scores stay relative, in units of 1/s tokens; at distances that are multiples of s they equal
#    the original model's scores at the shrunk distance, exactly.
q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))


def score(mq, mk, target):
    return float(rope_pi(q, np.array([mq]), L, target)[0] @ rope_pi(k, np.array([mk]), L, target)[0])


check_close("score(m, n) depends on m - n only (shift both by 3000)", score(7000, 6000, L_new),
            score(4000, 3000, L_new), rtol=1e-9)
pi_scores = [score(4 * delta + 100, 100, L_new) for delta in (0, 1, 5, 300, 511)]
orig_scores = [score(delta + 25, 25, L) for delta in (0, 1, 5, 300, 511)]
check_close("PI score at distance 4 delta = original score at distance delta", pi_scores, orig_scores,
            rtol=1e-9, atol=1e-12)

# The page's calculator is checked against interpolated_positions on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): the first and last positions of the window, positions past it,
# no extension (L' = L) and extensions by 4 and 16.
import cardcalc  # noqa: E402

cardcalc.table(lambda m, L, L_new: {"m_pi": interpolated_positions(m, L, L_new),
                                    "spacing": interpolated_positions(1, L, L_new)},
               cardcalc.grid(m=(0, 1, 1001, 2047, 8191, 32767, 40000), L=(2048, 4096),
                             L_new=(2048, 8192, 32768)))

fig, ax = figure("Position interpolation: RoPE angle of the slowest pair (d = 128)", "token position m",
                 "angle $m'\\theta_{63}$ (radians)")
mm = np.arange(0, 8192, 16)
slow = 10000.0 ** (-126 / 128)
ax.plot(mm, mm * slow, label="extrapolation (plain RoPE)")
ax.plot(mm, interpolated_positions(mm, 2048, 8192) * slow, label="interpolation, $L'/L = 4$")
ax.axhline(2048 * slow, color="gray", ls=":", label="largest angle seen in training")
ax.legend()
