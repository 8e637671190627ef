"""EBM density exp(-E)/Z: vs scipy Gaussians (Z by quadrature and grid), discrete case vs softmax."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.integrate import quad
from scipy.special import logsumexp, softmax
from scipy.stats import multivariate_normal, norm


# --- formula ---
def ebm_density(energy_values: np.ndarray, Z: float) -> np.ndarray:
    """p(x) = exp(-E(x)) / Z, given the energies and the normalizer Z = integral of exp(-E)."""
    return np.exp(-energy_values) / Z


def ebm_log_density_discrete(energy: np.ndarray) -> np.ndarray:
    """log p(x) = -E(x) - log Z with Z = sum_x exp(-E(x)), computed stably."""
    return -energy - logsumexp(-energy)
# --- end formula ---


# 1-D continuous: E(x) = (x - m)^2 / (2 s^2) is a Gaussian with Z = sqrt(2 pi) s.
m, s = 0.7, 1.3


def energy(x):
    return (x - m) ** 2 / (2 * s**2)


Z = quad(lambda x: np.exp(-energy(x)), -np.inf, np.inf)[0]
check_close("Z by quadrature vs sqrt(2 pi) s", Z, np.sqrt(2 * np.pi) * s, rtol=1e-10)
xs = np.linspace(-4, 5, 50)
check_close("exp(-E)/Z vs scipy.stats.norm.pdf", ebm_density(energy(xs), Z), norm.pdf(xs, m, s), rtol=1e-10)

# 2-D: E(x) = x^T Lam x / 2 on a grid; the grid estimate of Z matches (2 pi)^(d/2) det(Lam)^(-1/2).
Lam = np.array([[2.0, 0.6], [0.6, 1.0]])
g = np.linspace(-8, 8, 801)
gx, gy = np.meshgrid(g, g)
pts = np.stack([gx, gy], -1).reshape(-1, 2)
E2 = 0.5 * np.einsum("ni,ij,nj->n", pts, Lam, pts)
Z_grid = np.exp(-E2).sum() * (g[1] - g[0]) ** 2
check_close("2-D grid Z vs (2 pi) det(Lam)^(-1/2)", Z_grid, 2 * np.pi / np.sqrt(np.linalg.det(Lam)),
            rtol=1e-8)
check_close("2-D exp(-E)/Z vs scipy multivariate_normal(0, Lam^-1)", ebm_density(E2[::997], Z_grid),
            multivariate_normal(np.zeros(2), np.linalg.inv(Lam)).pdf(pts[::997]), rtol=1e-7)

# Discrete: the Gibbs distribution is a softmax of negative energies, unchanged by adding a constant.
rng = np.random.default_rng(0)
e = rng.normal(size=20) * 3
check_close("discrete exp(-E)/Z vs scipy.special.softmax(-E)", np.exp(ebm_log_density_discrete(e)),
            softmax(-e), rtol=1e-12)
check_close("shifting E by a constant leaves p unchanged", ebm_log_density_discrete(e + 123.4),
            ebm_log_density_discrete(e), rtol=1e-10)

# A double-well energy: low energy means high probability; temperature T sharpens or flattens p ∝ exp(-E/T).
x = np.linspace(-2.2, 2.2, 600)
E_dw = (x**2 - 1) ** 2 + 0.3 * x
fig, ax = figure("Double-well energy and its Gibbs density", "x", "energy / density")
ax.plot(x, E_dw, "k", label="E(x)")
for T in (0.3, 1.0):
    p = np.exp(-E_dw / T)
    ax.plot(x, p / np.trapezoid(p, x), label=f"exp(-E/T)/Z, T = {T}")
ax.set_ylim(-0.5, 2.5)
ax.legend()
