"""Reverse-time SDE: Euler-Maruyama with the exact score of Gaussian data vs the closed-form marginals."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from vpsde import GaussianVPSDE

# VP SDE of Song et al. with data N(MU, diag S^2): exact marginals and score as the reference.
MU, S = np.array([2.0, -1.0]), np.array([0.3, 0.6])
sde = GaussianVPSDE(MU, S)
beta, marginal, score = sde.beta, sde.marginal, sde.score


# --- formula ---
def reverse_drift(x, t):
    """f - g^2 * score: the drift of the reverse-time SDE (time runs from 1 down to 0)."""
    return -0.5 * beta(t) * x - beta(t) * score(x, t)


def reverse_step(x, t, h, rng):
    """Euler-Maruyama from t to t - h: x - drift * h plus g(t) sqrt(h) times a standard normal draw."""
    # The same draws and sums as rng.normal(x - drift * h, g sqrt(h)), without its per-element location.
    return np.sqrt(beta(t) * h) * rng.standard_normal(np.shape(x)) + (x - reverse_drift(x, t) * h)
# --- end formula ---


def sample_reverse(x, t_grid, rng, noise=True, keep=None):
    path = []
    for t_hi, t_lo in itertools.pairwise(t_grid):
        h = t_hi - t_lo  # positive step; dt = -h
        x = reverse_step(x, t_hi, h, rng) if noise else x - reverse_drift(x, t_hi) * h
        if keep is not None:
            path.append(x[:keep, 0].copy())
        if t_lo == 0.5:  # 0.5 is on the grid exactly (appended below); no other point is within 4e-4
            x_half = x.copy()
    return x, x_half, np.array(path)


rng = np.random.default_rng(0)
n, steps, t_end = 20_000, 1000, 1e-3
t_grid = np.linspace(1.0, t_end, steps + 1)
t_grid = np.sort(np.append(t_grid, 0.5))[::-1]
mean1, var1 = marginal(1.0)
x1 = mean1 + np.sqrt(var1) * rng.standard_normal((n, 2))
x0, x_half, paths = sample_reverse(x1, t_grid, rng, keep=12)

mean_end, var_end = marginal(t_end)
check_close("reverse-SDE samples: mean at t~0 vs data mean", x0.mean(0), mean_end, atol=0.02)
check_close("reverse-SDE samples: variance at t~0 vs data variance", x0.var(0), var_end, rtol=0.06)
mean_half, var_half = marginal(0.5)
check_close("reverse-SDE samples at t=0.5 vs forward marginal p_0.5 (variance)",
            x_half.var(0), var_half, rtol=0.04)
# Exact, without sampling: with Gaussian p_t the reverse drift is affine, mu(x, t) = A(t) x + B(t). Run
# backwards, an SDE with that drift and diffusion g keeps a Gaussian whose moments obey
# dm/dt = mu(m_t, t) and dv/dt = 2 A(t) v_t - g(t)^2; both must match the forward marginals
# (finite differences of the closed form): the reverse process passes through the same p_t.
ts = np.linspace(0.05, 0.95, 7)[:, None]
m_t, v_t = marginal(ts)
slope = reverse_drift(np.ones_like(m_t), ts) - reverse_drift(np.zeros_like(m_t), ts)
dm_fd = (marginal(ts + 1e-6)[0] - marginal(ts - 1e-6)[0]) / 2e-6
dv_fd = (marginal(ts + 1e-6)[1] - marginal(ts - 1e-6)[1]) / 2e-6
check_close("reverse drift at the mean vs d m_t / dt (finite differences)", reverse_drift(m_t, ts), dm_fd,
            rtol=1e-6, atol=1e-8)
check_close("2 A(t) v_t - g(t)^2 vs d v_t / dt (finite differences)", 2 * slope * v_t - beta(ts), dv_fd,
            rtol=1e-6, atol=1e-8)

# The noise term is not optional: dropping it (with the full g^2 drift) collapses the variance.
x0_no_noise, _, _ = sample_reverse(x1, t_grid, rng, noise=False)
ratio = x0_no_noise.var(0) / var_end
check_true("negative control: reverse drift without the g dw-bar term misses the variance",
           np.all(np.abs(ratio - 1.0) > 0.5), f"variance ratio {np.round(ratio, 3)}")

fig, ax = figure("Reverse-time SDE paths (first coordinate)", "time t (integrated from 1 to 0)", "x")
t_plot = t_grid[1:]
m_plot, v_plot = marginal(t_plot[:, None])
ax.fill_between(t_plot, m_plot[:, 0] - 2 * np.sqrt(v_plot[:, 0]), m_plot[:, 0] + 2 * np.sqrt(v_plot[:, 0]),
                alpha=0.2, label=r"forward marginal $p_t$, $\pm 2$ sd")
# Every second step of the paths: 12 x 500 points keep the SVG under the size limit (at 1,001 points
# it was 350 KB, and the build rendered the figure twice to end with a PNG); the points are still about
# a pixel apart.
ax.plot(t_plot[::2], paths[::2], lw=0.7)
ax.invert_xaxis()
ax.legend(loc="upper right")
