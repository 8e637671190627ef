"""Flow matching: target vs path finite differences, fit vs closed-form marginal velocity, ODE transport."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.integrate import solve_ivp

MU, S = 2.0, 0.5  # data x_1 ~ N(MU, S^2); noise x_0 ~ N(0, 1), drawn independently


# --- formula ---
def path(x0, x1, t):
    return (1.0 - t) * x0 + t * x1


def target(x0, x1):
    return x1 - x0


def marginal_velocity(x, t):
    """E[x_1 - x_0 | x_t = x] for Gaussian endpoints: the regression function the loss converges to."""
    var_t = (1 - t) ** 2 + t**2 * S**2
    cov = t * S**2 - (1 - t)
    return MU + cov / var_t * (x - t * MU)
# --- end formula ---


rng = np.random.default_rng(0)
n = 200_000
x0 = rng.standard_normal(n)
x1 = MU + S * rng.standard_normal(n)

t_probe = rng.uniform(0.05, 0.95, size=8)
h = 1e-6
fd = (path(x0[:8], x1[:8], t_probe + h) - path(x0[:8], x1[:8], t_probe - h)) / (2 * h)
check_close("target u vs d/dt of the interpolation path (finite differences)", target(x0[:8], x1[:8]), fd,
            rtol=1e-6)

# Minimizing E||v(x_t, t) - u||^2 over affine v at fixed t recovers E[u | x_t].
for t in (0.25, 0.7):
    xt = path(x0, x1, t)
    design = np.column_stack([xt, np.ones(n)])
    coef, *_ = np.linalg.lstsq(design, target(x0, x1), rcond=None)
    probe = np.array([-1.0, 0.5, 2.0])
    check_close(f"least-squares v(x, t={t}) vs closed-form E[x_1 - x_0 | x_t]",
                coef[0] * probe + coef[1], marginal_velocity(probe, t), rtol=0.02, atol=0.01)

# Integrating dx/dt = v(x, t) from noise gives data: for 1-D Gaussians the flow is x_1 = MU + S x_0.
starts = np.linspace(-2.5, 2.5, 11)
sol = solve_ivp(lambda t, x: marginal_velocity(x, t), (0.0, 1.0), starts, rtol=1e-10, atol=1e-10,
                dense_output=True)
check_close("ODE endpoint vs monotone Gaussian map MU + S x_0", sol.y[:, -1], MU + S * starts, rtol=1e-7)

# The optimum keeps a positive loss: the conditional variance of u given x_t.
t = 0.5
xt = path(x0, x1, t)
resid = np.mean((marginal_velocity(xt, t) - target(x0, x1)) ** 2)
var_t = (1 - t) ** 2 + t**2 * S**2
irreducible = (1 + S**2) - (t * S**2 - (1 - t)) ** 2 / var_t
check_close("loss at the optimum vs Var(u | x_t) (Monte-Carlo)", resid, irreducible, rtol=0.02)

fig, ax = figure("Flow matching: straight pairs, curved marginal flow", "time t (0 = noise, 1 = data)", "x")
tt = np.linspace(0.0, 1.0, 200)
for a, b in zip(x0[:6], x1[:6], strict=True):
    ax.plot([0, 1], [a, b], color="gray", lw=0.8, alpha=0.6)
ax.plot([], [], color="gray", lw=0.8, label="conditional paths (x_0, x_1)")
ax.plot(tt, sol.sol(tt).T, color="tab:blue", lw=1.2)
ax.plot([], [], color="tab:blue", label="ODE with the optimal v = E[u | x_t]")
ax.legend(loc="lower right")
