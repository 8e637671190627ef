"""RoPE: cos/sin form vs block-diagonal matrix and complex form; relative property; rotate_half."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import block_diag


# --- formula ---
def rope_angles(d: int, base: float = 10000.0) -> np.ndarray:
    """theta_j = base^(-2j/d) for pair j = 0 .. d/2 - 1."""
    return base ** (-np.arange(0, d, 2) / d)


def rope(x: np.ndarray, m: int, base: float = 10000.0) -> np.ndarray:
    """Rotate pairs (x_2j, x_2j+1) by m * theta_j using elementwise cos/sin (RoFormer eq. 34)."""
    ang = np.repeat(m * rope_angles(x.shape[-1], base), 2)
    rot = np.empty_like(x)
    rot[0::2], rot[1::2] = -x[1::2], x[0::2]
    return x * np.cos(ang) + rot * np.sin(ang)
# --- end formula ---


def rotation_matrix(d: int, m: int) -> np.ndarray:
    """R_m built block by block, with its own frequency list."""
    blocks = []
    for j in range(d // 2):
        a = m * 10000.0 ** (-2.0 * j / d)
        blocks.append(np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]))
    return block_diag(*blocks)


rng = np.random.default_rng(0)
d = 16
q, k = rng.normal(size=d), rng.normal(size=d)
m, n = 37, 5

check_close("elementwise form vs block-diagonal R_m", rope(q, m), rotation_matrix(d, m) @ q,
            rtol=1e-12, atol=1e-14)
z = (q[0::2] + 1j * q[1::2]) * np.exp(1j * m * rope_angles(d))
check_close("elementwise form vs complex multiplication", rope(q, m),
            np.stack([z.real, z.imag], axis=1).ravel(), rtol=1e-12, atol=1e-14)

score = rope(q, m) @ rope(k, n)
check_close("<R_m q, R_n k> = q^T R_{n-m} k", score, q @ rotation_matrix(d, n - m) @ k,
            rtol=1e-10, atol=1e-12)
check_close("score depends only on n - m (shift both by 1000)", rope(q, m + 1000) @ rope(k, n + 1000),
            score, rtol=1e-9, atol=1e-11)
check_close("R_m is orthogonal (norm preserved)", np.linalg.norm(rope(q, m)), np.linalg.norm(q),
            rtol=1e-12)
check_true("the relative property needs both vectors rotated",
           abs(rope(q, m) @ k - score) > 1e-3, f"{rope(q, m) @ k:.3f} vs {score:.3f}")

# rotate_half layout (pairs j and j + d/2) is the same rotation after a permutation of coordinates.
half = d // 2
perm = np.ravel(np.column_stack([np.arange(half), np.arange(half) + half]))  # interleave halves
x_half = rng.normal(size=d)
ang = np.concatenate([m * rope_angles(d)] * 2)
rotate_half = np.concatenate([-x_half[half:], x_half[:half]])
neox = x_half * np.cos(ang) + rotate_half * np.sin(ang)
check_close("rotate_half layout = interleaved RoPE on permuted coordinates", neox[perm],
            rope(x_half[perm], m), rtol=1e-12, atol=1e-14)

# The page's calculator is checked against rope_angles and rope on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): the first, second, a middle and the last pair of two head sizes, at
# positions 0, 1, 100 and 4095, with the bases of LLaMA and LLaMA 3. Rotating the unit vector of
# coordinate 2j gives block j's entries cos m theta_j and sin m theta_j.
import cardcalc  # noqa: E402


def rope_row(m, j, d, b):
    """The calculator's outputs at one row, from the formula's own functions."""
    theta = rope_angles(d, b)[j]
    turned = rope(np.eye(d)[2 * j], m, b)
    return {"theta": theta, "wavelength": 2 * np.pi / theta, "angle": m * theta,
            "cos": turned[2 * j], "sin": turned[2 * j + 1]}


pairs = cardcalc.grid(m=(0, 1, 100, 4095), j=(0, 1, 31, 63), d=(64, 128), b=(10000.0, 500000.0))
cardcalc.table(rope_row, [row for row in pairs if row["j"] < row["d"] // 2])

fig, ax = figure("RoPE rotation frequencies (head dim 128)", "pair index  j",
                 "wavelength  $2\\pi/\\theta_j$  (tokens)")
j = np.arange(64)
for base in (1e4, 5e5):
    ax.semilogy(j, 2 * np.pi / rope_angles(128, base), label=f"base {base:g}")
ax.axhline(4096, color="gray", ls=":", label="4096-token context")
ax.legend()
