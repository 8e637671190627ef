"""GAN criterion V(D*, G) vs 2 JSD - log 4 from scipy's Jensen-Shannon distance."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.spatial.distance import jensenshannon
from scipy.special import xlogy
from scipy.stats import norm


# --- formula ---
def criterion(p_data: np.ndarray, p_g: np.ndarray) -> float:
    """C(G) = max_D V(D, G) = E_data[log D*] + E_g[log(1 - D*)], D* = p_data / (p_data + p_g)."""
    total = p_data + p_g
    return float(np.sum(xlogy(p_data, p_data / total) + xlogy(p_g, p_g / total)))
# --- end formula ---


def js_form(p_data: np.ndarray, p_g: np.ndarray) -> float:
    """2 D_JS(p_data || p_g) - log 4; scipy returns the distance sqrt(D_JS) in nats."""
    return 2 * jensenshannon(p_data, p_g) ** 2 - np.log(4)


rng = np.random.default_rng(0)
pairs = [rng.dirichlet(np.ones(12), size=2) for _ in range(5)]
check_close("V(D*, G) = 2 JSD - log 4 on random distributions",
            [criterion(p, q) for p, q in pairs], [js_form(p, q) for p, q in pairs], rtol=1e-10)
p = rng.dirichlet(np.ones(12))
check_close("global minimum -log 4 at p_g = p_data", criterion(p, p), -np.log(4), rtol=1e-12)
disjoint_p, disjoint_q = np.array([0.5, 0.5, 0, 0]), np.array([0, 0, 0.3, 0.7])
check_close("disjoint supports: V(D*, G) = 0 (JSD = log 2)", criterion(disjoint_p, disjoint_q), 0.0,
            atol=1e-12)

# The criterion saturates: shift p_g away from p_data and it flattens at 0 (JSD at log 2).
grid = np.linspace(-12, 22, 20_001)
shifts = np.linspace(0, 8, 81)
values = [criterion(norm.pdf(grid), norm.pdf(grid, s)) * (grid[1] - grid[0]) for s in shifts]
fig, ax = figure("GAN criterion at the optimal discriminator", "generator mean shift", "V(D*, G)  (nats)")
ax.plot(shifts, values, label="N(0,1) vs N(shift,1)")
ax.axhline(-np.log(4), ls="--", color="gray", label="-log 4 (p_g = p_data)")
ax.axhline(0.0, ls=":", color="k", label="0 (disjoint supports)")
ax.legend()
