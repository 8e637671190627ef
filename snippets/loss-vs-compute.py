"""Loss versus compute: Kaplan et al.'s L(C_min) power law (slope, constants, PF-day units) and the
irreducible-loss form L_inf + (C0/C)^alpha, fitted to synthetic points with scipy.optimize.curve_fit."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import curve_fit

# --- formula ---
ALPHA_C_MIN, C_C_MIN = 0.050, 3.1e8          # Kaplan et al. Eq. (1.3); C in PF-days
PF_DAY = 1e15 * 24 * 3600                    # FLOPs in one petaflop/s-day


def loss_kaplan(c_pf_days):
    """L(C_min) = (C_c^min / C_min)^alpha_C^min, in nats per token."""
    return (C_C_MIN / c_pf_days) ** ALPHA_C_MIN


def loss_irreducible(c, l_inf, c0, alpha):
    """L(C) = L_inf + (C0 / C)^alpha: a power law on top of an irreducible loss."""
    return l_inf + (c0 / c) ** alpha
# --- end formula ---


C = np.logspace(-8, 2, 40)                   # PF-days, about the range Kaplan et al. fitted

# 1. A straight line on log-log axes with slope -0.050: 10x compute multiplies the loss by 10^-0.05.
slope = np.polyfit(np.log(C), np.log(loss_kaplan(C)), 1)[0]
check_close("log-log slope == -alpha_C^min", slope, -0.050, rtol=1e-9)
check_close("10x compute: loss x 0.8913", loss_kaplan(1.0) / loss_kaplan(0.1), 0.891251, rtol=1e-6)
check_close("the loss reaches 1 nat/token exactly at C = C_c^min", loss_kaplan(3.1e8), 1.0, rtol=1e-12)

# 2. Units: one PF-day is 10^15 FLOP/s for 86,400 s; 1 PF-day -> loss (3.1e8)^0.05.
check_close("1 PF-day == 8.64e19 FLOPs", PF_DAY, 8.64e19, rtol=1e-15)
check_close("L at 1e-3 PF-days (8.64e16 FLOPs) == (3.1e11)^0.05", loss_kaplan(8.64e16 / PF_DAY), 3.1e11**0.05,
            rtol=1e-12)

# 3. The constants as printed in Kaplan et al. (2020), Eq. (1.3): alpha_C^min ~ 0.050,
#    C_c^min ~ 3.1e8 PF-days.
check_close("constants == Kaplan et al. Eq. (1.3)", [ALPHA_C_MIN, C_C_MIN], [0.050, 3.1e8], rtol=1e-12)

# 4. The irreducible-loss form: reduces to the pure power law at L_inf = 0, tends to L_inf as C grows.
check_close("L_inf = 0 recovers Kaplan's form",
            loss_irreducible(C, 0.0, C_C_MIN, ALPHA_C_MIN), loss_kaplan(C),
            rtol=1e-12)
check_close("C -> infinity: L -> L_inf", loss_irreducible(1e60, 1.7, 1e3, 0.3), 1.7 + 1e-17, rtol=1e-12)

# 5. Fit synthetic measurements (true L_inf = 1.8, C0 = 50, alpha = 0.15, 0.3% noise) with curve_fit in log
#    space: the three parameters come back; a pure power law fitted to the same points has a smaller slope
#    at small C than at large C, the curvature the irreducible term explains.
rng = np.random.default_rng(0)
truth = (1.8, 50.0, 0.15)
L_obs = loss_irreducible(C, *truth) * np.exp(0.003 * rng.normal(size=C.size))


def log_model(lc, l_inf, lg_c0, a):
    return np.log(loss_irreducible(np.exp(lc), l_inf, np.exp(lg_c0), a))


params, _ = curve_fit(log_model, np.log(C), np.log(L_obs), p0=(1.0, 1.0, 0.1))
fit = (params[0], np.exp(params[1]), params[2])
check_close("curve_fit recovers (L_inf, C0, alpha)", fit, truth, rtol=0.1)
check_close("fitted curve matches the noiseless law within 0.5%",
            loss_irreducible(C, *fit), loss_irreducible(C, *truth),
            rtol=5e-3)
lo_slope = np.polyfit(np.log(C[:10]), np.log(L_obs[:10]), 1)[0]
hi_slope = np.polyfit(np.log(C[-10:]), np.log(L_obs[-10:]), 1)[0]
check_true("with an irreducible term the log-log slope flattens as C grows",
           abs(hi_slope) < 0.8 * abs(lo_slope),
           f"slope {lo_slope:.3f} at small C, {hi_slope:.3f} at large C")

fig, ax = figure("Loss versus compute", "compute C (PF-days)", "test loss (nats/token)")
ax.loglog(C, loss_kaplan(C), label=r"Kaplan: $(3.1\times10^8 / C)^{0.050}$")
ax.loglog(C, L_obs, "o", ms=3, label="synthetic runs")
ax.loglog(C, loss_irreducible(C, *fit), "--", label=r"fit $L_\infty + (C_0/C)^{\alpha}$")
ax.axhline(fit[0], color="gray", ls=":", label=r"fitted $L_\infty$")
ax.legend(fontsize=8)

# The page's calculator is checked against loss_kaplan, loss_irreducible and PF_DAY on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda C, L_inf, C_0, alpha_C: {"L_min": loss_kaplan(C), "C_flops": C * PF_DAY,
                                               "L": loss_irreducible(C, L_inf, C_0, alpha_C)},
               cardcalc.grid(C=(1e-8, 1.0, 3640, 1e6), L_inf=(0, 1.7), C_0=(50, 3.1e8), alpha_C=(0.05, 0.3)))
