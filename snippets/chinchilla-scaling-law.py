"""Chinchilla fit: closed-form optimal (N, D) vs numerical minimization under C = 6ND."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar

E, A, B, ALPHA, BETA = 1.69, 406.4, 410.7, 0.34, 0.28


def loss(N, D):
    """Hoffmann et al. parametric fit: L(N, D) = E + A / N^alpha + B / D^beta (nats/token)."""
    return E + A / N**ALPHA + B / D**BETA


def optimum(C):
    """Closed form (eq. 4): N_opt = G (C/6)^a, D_opt = (C/6)^b / G."""
    G = (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))
    a, b = BETA / (ALPHA + BETA), ALPHA / (ALPHA + BETA)
    return G * (C / 6) ** a, (C / 6) ** b / G


budgets = np.array([1e19, 1e21, 5.76e23, 1e26])
closed = np.array([optimum(C) for C in budgets])

# 1. Minimize L(N, C/(6N)) over log N numerically for each budget.
numeric = []
for C in budgets:
    res = minimize_scalar(lambda lg, C=C: loss(10**lg, C / (6 * 10**lg)), bounds=(5, 14), method="bounded",
                          options={"xatol": 1e-10})
    numeric.append([10**res.x, C / (6 * 10**res.x)])
check_close("closed-form N_opt, D_opt vs numerical minimum on C = 6ND", closed, np.array(numeric),
            rtol=1e-6)

# 2. First-order condition at the optimum: alpha A / N^alpha = beta B / D^beta.
N_o, D_o = closed.T
check_close("marginal terms balance: alpha A N^-alpha = beta B D^-beta", ALPHA * A / N_o**ALPHA,
            BETA * B / D_o**BETA, rtol=1e-10)

# 3. Equal compute, different split: the fit prefers Chinchilla (70B, 1.4T) over Gopher (280B, 300B).
l_chin, l_gopher = loss(70e9, 1.4e12), loss(280e9, 300e9)
check_true("fit ranks Chinchilla below Gopher", l_chin < l_gopher,
           f"L(70B, 1.4T) = {l_chin:.3f}, L(280B, 300B) = {l_gopher:.3f} nats")
# 4. With the rounded published constants the optimum at Chinchilla's own budget is far from it.
n_c, d_c = optimum(6 * 70e9 * 1.4e12)
check_true("rounded constants do not reproduce 70B / 1.4T", d_c / n_c > 50 and n_c < 40e9,
           f"optimum {n_c / 1e9:.0f}B params, {d_c / 1e12:.1f}T tokens, {d_c / n_c:.0f} tokens/param")
check_close("E is the limit for N, D -> infinity", loss(1e40, 1e40), E, rtol=1e-6)

fig, ax = figure("Iso-FLOP slices of the parametric fit", "parameters N", "predicted loss (nats/token)")
for C in (1e20, 1e22, 1e24):
    n = np.logspace(7, 12.5, 300)
    ax.semilogx(n, loss(n, C / (6 * n)), label=f"C = {C:.0e} FLOPs")
    n_opt, d_opt = optimum(C)
    ax.plot(n_opt, loss(n_opt, d_opt), "ko", ms=4)
ax.set_ylim(1.8, 4.0)
ax.legend()
