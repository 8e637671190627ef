"""Sinusoidal positional encoding: frequencies read back off the encoding and compared with the
paper's geometric progression of wavelengths (2 pi to 10000 * 2 pi); the shift by k positions as a
fixed rotation built with a matrix exponential; the complex-exponential form; the dot product that
depends only on the offset; and the concatenated sin|cos layout of tensor2tensor/fairseq."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import block_diag, expm


# --- formula ---
def sinusoid_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """omega_i = base^(-2i/d) for i = 0 .. d/2 - 1 (Vaswani et al., sec. 3.5)."""
    return base ** (-np.arange(0, d, 2) / d)


def sinusoidal_pe(n_pos: int, d: int, base: float = 10000.0) -> np.ndarray:
    """PE[pos, 2i] = sin(pos omega_i), PE[pos, 2i + 1] = cos(pos omega_i); positions 0 .. n_pos - 1."""
    angles = np.arange(n_pos)[:, None] * sinusoid_frequencies(d, base)[None, :]
    pe = np.empty((n_pos, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
# --- end formula ---


d, n_pos = 64, 4096
pe = sinusoidal_pe(n_pos, d)

# 1. The paper: "the wavelengths form a geometric progression from 2 pi to 10000 * 2 pi".
#    np.geomspace gives d/2 + 1 such wavelengths; the last one (10000 * 2 pi) is the limit, not used.
wavelengths = np.geomspace(2 * np.pi, 10000 * 2 * np.pi, d // 2 + 1)[:-1]
omega_ref = 2 * np.pi / wavelengths
check_close("omega_i = 10000^(-2i/d): geometric wavelengths 2 pi .. 10000 * 2 pi (np.geomspace)",
            sinusoid_frequencies(d), omega_ref, rtol=1e-12)
# Read the frequencies back off the encoding itself: at pos = 1 the pair (sin, cos) has angle omega_i.
omega_read = np.arctan2(pe[1, 0::2], pe[1, 1::2])
check_close("frequencies read off PE[1] with arctan2 (sin at even index, cos at odd)", omega_read,
            omega_ref, rtol=1e-12)
check_close("d = 512 (the paper's d_model): same progression",
            sinusoid_frequencies(512), 2 * np.pi / np.geomspace(2 * np.pi, 2e4 * np.pi, 257)[:-1],
            rtol=1e-12)

# 2. Complex form: PE[pos, 2i+1] + i PE[pos, 2i] = exp(i pos omega_i), over 4096 positions.
pos = np.arange(n_pos)[:, None]
z = np.exp(1j * pos * omega_ref[None, :])
check_close("cos/sin pairs = real/imaginary parts of exp(i pos omega_i), pos < 4096",
            np.stack([pe[:, 1::2], pe[:, 0::2]]), np.stack([z.real, z.imag]), rtol=0, atol=1e-11)

# 3. The paper's reason for the choice: PE[pos + k] is a linear function of PE[pos], the same for
#    every pos. With the (sin, cos) order, block i is exp(k omega_i J), J = [[0, 1], [-1, 0]]:
#    [sin(a + b), cos(a + b)] = [[cos b, sin b], [-sin b, cos b]] [sin a, cos a].
J = np.array([[0.0, 1.0], [-1.0, 0.0]])
rng = np.random.default_rng(0)
for k in (1, 7, 250):
    M_k = block_diag(*[expm(k * w * J) for w in omega_ref])
    starts = rng.integers(0, n_pos - k, size=6)
    check_close(f"PE[pos + {k}] = M_{k} PE[pos] with M_k = blockdiag(expm(k omega_i J)), 6 random pos",
                pe[starts + k], pe[starts] @ M_k.T, rtol=0, atol=1e-11)
check_close("M_k is a rotation: it preserves ||PE[pos]||^2 = d/2", np.sum(pe**2, axis=1),
            np.full(n_pos, d / 2), rtol=1e-12)

# 4. The dot product of two encodings depends only on their offset: sum_i cos(k omega_i).
k = 37
dots = np.sum(pe[:-k] * pe[k:], axis=1)
check_close("PE[pos] . PE[pos + 37] = sum_i cos(37 omega_i) for every pos",
            dots, np.full(n_pos - k, np.cos(k * omega_ref).sum()), rtol=1e-10)
check_true("...and it is symmetric in the sign of the offset (cannot tell before from after)",
           abs(pe[137] @ pe[100] - pe[137] @ pe[174]) < 1e-10, "PE[137].PE[100] = PE[137].PE[174]")

# 5. tensor2tensor / fairseq: [sin | cos] halves and omega_i = 10000^(-i/(d/2 - 1)), so the lowest
#    frequency is exactly 1e-4 instead of 10000^(-(d-2)/d). Same family, different numbers.
t2t_omega = 10000.0 ** (-np.arange(d // 2) / (d // 2 - 1))
t2t = np.concatenate([np.sin(pos * t2t_omega), np.cos(pos * t2t_omega)], axis=1)
gap = np.abs(t2t[:, np.ravel(np.column_stack([np.arange(d // 2), np.arange(d // 2) + d // 2]))] - pe).max()
check_true("t2t/fairseq layout is not a permutation of the paper's encoding (frequencies differ)",
           gap > 0.1, f"max |difference| after un-permuting the halves: {gap:.2f}")
same_freq = np.concatenate([np.sin(pos * omega_ref), np.cos(pos * omega_ref)], axis=1)
perm = np.ravel(np.column_stack([np.arange(d // 2), np.arange(d // 2) + d // 2]))
check_close("with the paper's frequencies, [sin | cos] halves are a column permutation of PE",
            same_freq[:, perm], pe, rtol=0, atol=1e-12)

# The page's calculator is checked against sinusoid_frequencies and sinusoidal_pe on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows): the first, second, a middle and the last pair of
# two widths, at positions 0, 1, 50 and 4095.
import cardcalc  # noqa: E402


def pe_row(pos, i, d_model):
    """The calculator's outputs at one row, from the formula's own functions."""
    omega = sinusoid_frequencies(d_model)[i]
    pe_at = sinusoidal_pe(pos + 1, d_model)[pos]
    return {"omega": omega, "wavelength": 2 * np.pi / omega,
            "pe_sin": pe_at[2 * i], "pe_cos": pe_at[2 * i + 1]}


pairs = cardcalc.grid(pos=(0, 1, 50, 4095), i=(0, 1, 16, 31, 255), d_model=(64, 512))
cardcalc.table(pe_row, [row for row in pairs if row["i"] < row["d_model"] // 2])

fig, ax = figure("Sinusoidal positional encoding (d = 64)", "dimension index", "position")
im = ax.imshow(pe[:128], aspect="auto", cmap="RdBu", vmin=-1, vmax=1, origin="lower",
               interpolation="nearest")
fig.colorbar(im, ax=ax, label="PE value")
