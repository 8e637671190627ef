"""xPos: RoPE plus a per-pair exponential scale, zeta_j^(m/B) on queries and zeta_j^(-n/B) on keys.
Checked against the paper's constants (gamma = 0.4 as exact fractions, B = 512), against a complex
pair-by-pair form of the score, against a block-diagonal RoPE when the scale is switched off, and
for the relative property, the decay with distance and the float16 range problem."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import block_diag


# --- formula ---
def xpos_zeta(d: int, gamma: float = 0.4) -> np.ndarray:
    """zeta_j = (2j/d + gamma) / (1 + gamma) for pair j = 0 .. d/2 - 1; in (0, 1)."""
    return (np.arange(0, d, 2) / d + gamma) / (1 + gamma)


def xpos(x: np.ndarray, pos: np.ndarray, key: bool = False, scale_base: float = 512.0,
         base: float = 10000.0) -> np.ndarray:
    """x: (..., T, d). Rotate pair (x_2j, x_2j+1) of row t by pos_t theta_j, scale it by
    zeta_j^(+-pos_t/B)."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    angle = pos[:, None] * theta[None, :]
    scale = xpos_zeta(d) ** (pos[:, None] / scale_base)
    if key:
        scale = 1 / scale
    cos, sin = np.cos(angle) * scale, np.sin(angle) * scale
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 1::2] * cos + x[..., 0::2] * sin
    return out
# --- end formula ---


# 1. Constants: gamma = 0.4 gives zeta = (j / (d/2) + 0.4) / 1.4; for d = 8 that is 2/7, 13/28, 9/14, 23/28.
check_close("zeta for d = 8 (gamma = 0.4): 2/7, 13/28, 9/14, 23/28", xpos_zeta(8),
            [2 / 7, 13 / 28, 9 / 14, 23 / 28], rtol=1e-14)
check_close("torchscale's form (2j + 0.4 d) / (1.4 d), d = 128", xpos_zeta(128),
            (np.arange(0, 128, 2) + 0.4 * 128) / (1.4 * 128), rtol=1e-14)

# 2. Score of a query at m and a key at n, pair by pair in complex numbers:
#    sum_j zeta_j^((m - n)/512) Re[ q_j conj(k_j) e^{i (m - n) theta_j} ],  theta_j = 10000^(-2j/d).
rng = np.random.default_rng(0)
d, T = 16, 12
Q, K = rng.normal(size=(T, d)), rng.normal(size=(T, d))
pos = np.arange(T) * 97.0 + 3  # positions 3 .. 1070
S = xpos(Q, pos) @ xpos(K, pos, key=True).T
qc, kc = Q[:, 0::2] + 1j * Q[:, 1::2], K[:, 0::2] + 1j * K[:, 1::2]
theta_ref = 1.0 / 10000.0 ** (np.arange(d // 2) / (d // 2))
zeta_ref = (np.arange(d // 2) / (d // 2) + 0.4) / 1.4
delta = pos[:, None, None] - pos[None, :, None]
S_ref = np.sum(zeta_ref ** (delta / 512) * np.real(qc[:, None, :] * np.conj(kc[None, :, :])
                                                  * np.exp(1j * delta * theta_ref)), axis=-1)
check_close("xPos scores = sum_j zeta_j^((m-n)/512) Re[q_j conj(k_j) e^{i(m-n) theta_j}]", S, S_ref,
            rtol=1e-10, atol=1e-12)

heads = rng.normal(size=(3, T, d))
check_close("several heads at once (3 x T x d) = one head at a time", xpos(heads, pos, key=True),
            np.stack([xpos(h, pos, key=True) for h in heads]), rtol=1e-15)

# 3. Relative: shifting every position by the same amount (torchscale centres them) changes nothing.
check_close("scores unchanged when all positions shift by -600",
            xpos(Q, pos - 600) @ xpos(K, pos - 600, key=True).T, S, rtol=1e-9, atol=1e-12)

# 4. Without the scale (B -> infinity) it is RoPE: block-diagonal rotations built independently.
def rope_matrix(m: float) -> np.ndarray:
    blocks = [np.array([[np.cos(m * t), -np.sin(m * t)], [np.sin(m * t), np.cos(m * t)]]) for t in theta_ref]
    return block_diag(*blocks)


rope_q = np.stack([rope_matrix(m) @ Q[t] for t, m in enumerate(pos)])
check_close("B = inf: query side is plain RoPE (block-diagonal rotation)", xpos(Q, pos, scale_base=np.inf),
            rope_q, rtol=1e-12, atol=1e-13)
check_close("...and the key side too", xpos(K, pos, key=True, scale_base=np.inf),
            np.stack([rope_matrix(m) @ K[t] for t, m in enumerate(pos)]), rtol=1e-12, atol=1e-13)
check_close("query pair j is the RoPE pair times zeta_j^(m/512)", xpos(Q, pos),
            rope_q * np.repeat(zeta_ref[None, :] ** (pos[:, None] / 512), 2, axis=1), rtol=1e-12, atol=1e-13)

# 5. Decay: for a key before the query (m - n > 0) every pair is damped, most for the fastest pair;
#    a key after the query would be amplified, which is why xPos is used with a causal mask.
factor = xpos_zeta(128) ** (np.array([-512.0, 512.0, 2048.0])[:, None] / 512)
check_true("m - n = 512: pair 0 damped to 2/7, slowest pair to about 0.99; m - n = -512 amplifies",
           np.isclose(factor[1, 0], 2 / 7) and 0.98 < factor[1, -1] < 1 and np.all(factor[0] > 1),
           f"zeta^1 from {factor[1, 0]:.3f} to {factor[1, -1]:.3f}")
with np.errstate(over="ignore", under="ignore"):
    q16 = np.float16(2 / 7) ** np.float16(8192 / 512)
    k16 = np.float16(7 / 2) ** np.float16(8192 / 512)
check_true("uncentred positions in float16: at position 8192, (2/7)^16 underflows and (7/2)^16 overflows",
           np.isinf(k16) and q16 == 0, f"query scale {float(q16)}, key scale {float(k16)}")

# The page's calculator is checked against xpos_zeta on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): the first, second and last pairs of two head sizes, the paper's gamma and
# another, two scale bases, keys before, at and after the query, and uncentred positions up to 8192.
import cardcalc  # noqa: E402


def xpos_row(j, d, gamma, B, m, n):
    """The calculator's outputs at one row: zeta_j from the formula, raised to the card's exponents."""
    zeta = xpos_zeta(d, gamma)[j]
    return {"zeta": zeta, "decay": zeta ** ((m - n) / B),
            "q_scale": zeta ** (m / B), "k_scale": zeta ** (-n / B)}


pairs = cardcalc.grid(j=(0, 1, 31, 63), d=(8, 64, 128), gamma=(0.4, 1.0), B=(512.0, 2048.0), m=(0, 100, 8192),
                      n=(0, 50, 8192))
cardcalc.table(xpos_row, [row for row in pairs if row["j"] < row["d"] // 2])

fig, ax = figure("xPos damping of pair j with distance (d = 128, B = 512)",
                 "distance  m - n  (tokens)", r"$\zeta_j^{(m-n)/512}$")
dist = np.linspace(0, 4096, 200)
z128 = xpos_zeta(128)
for j in (0, 16, 32, 48, 63):
    ax.semilogy(dist, z128[j] ** (dist / 512), label=f"pair j = {j}")
ax.legend()
