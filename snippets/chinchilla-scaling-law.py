"""Chinchilla fit: closed-form optimal (N, D) vs numerical minimization under C = 6ND."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar

# --- formula ---
E, A, B, ALPHA, BETA = 1.69, 406.4, 410.7, 0.34, 0.28


def loss(N, D):
    """Hoffmann et al. parametric fit: L(N, D) = E + A / N^alpha + B / D^beta (nats/token)."""
    return E + A / N**ALPHA + B / D**BETA


def optimum(C):
    """Closed form (eq. 4): N_opt = G (C/6)^a, D_opt = (C/6)^b / G."""
    G = (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))
    a, b = BETA / (ALPHA + BETA), ALPHA / (ALPHA + BETA)
    return G * (C / 6) ** a, (C / 6) ** b / G
# --- end formula ---


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

# 5. The constants as printed in Hoffmann et al. (2022), App. D.2, Eq. (10), typed from the paper.
PAPER_EQ10 = {"E": 1.69, "A": 406.4, "B": 410.7, "alpha": 0.34, "beta": 0.28}
check_close("E, A, B, alpha, beta == Hoffmann et al. Eq. (10)", [E, A, B, ALPHA, BETA],
            [PAPER_EQ10[k] for k in ("E", "A", "B", "alpha", "beta")], rtol=1e-12)
# 6. A predicted quantity the paper prints: Table 2 gives, for Approach 3, N_opt ~ C^0.46 and
#    D_opt ~ C^0.54 (two decimals, from the unrounded fit). Fit the slopes of the numerical minima
#    above over 1e19..1e26 FLOPs; the rounded constants must land within the printed rounding + 0.005.
slope_n = np.polyfit(np.log(budgets), np.log(np.array(numeric)[:, 0]), 1)[0]
slope_d = np.polyfit(np.log(budgets), np.log(np.array(numeric)[:, 1]), 1)[0]
check_true("exponents of N_opt, D_opt vs Table 2 (Approach 3: 0.46, 0.54)",
           abs(slope_n - 0.46) < 0.01 and abs(slope_d - 0.54) < 0.01,
           f"fitted {slope_n:.4f}, {slope_d:.4f}")

fig, ax = figure("Iso-FLOP slices of the parametric fit", "parameters N", "predicted loss (nats/token)")
for C in (1e20, 1e22, 1e24):
    n = np.logspace(7, 12.5, 300)
    ax.semilogx(n, loss(n, C / (6 * n)), label=f"C = {C:.0e} FLOPs")
    n_opt, d_opt = optimum(C)
    ax.plot(n_opt, loss(n_opt, d_opt), "ko", ms=4)
ax.set_ylim(1.8, 4.0)
ax.legend()

# The page's calculator is checked against loss and optimum on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): the loss at (N, D) and the optimum for the same C = 6 N D.
import cardcalc  # noqa: E402


def calculator_outputs(N, D):
    n_opt, d_opt = optimum(6 * N * D)
    return {"L": loss(N, D), "N_opt": n_opt, "D_opt": d_opt}


cardcalc.table(calculator_outputs, cardcalc.grid(N=(1e6, 1e9, 70e9, 1e12), D=(1e6, 1e9, 1.4e12, 1e15)))
