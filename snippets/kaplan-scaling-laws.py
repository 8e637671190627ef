"""Kaplan laws: log-log slopes, limits of the joint L(N, D) and the D ~ 5e3 N^0.74 rule."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq

# Eqs. (1.1)-(1.2): separate fits (non-embedding parameters N, tokens D, loss in nats/token).
# --- formula ---
ALPHA_N, N_C = 0.076, 8.8e13
ALPHA_D, D_C = 0.095, 5.4e13
# Eq. (1.5) joint fit has its own constants (Table 2 of the paper).
J_ALPHA_N, J_ALPHA_D, J_N_C, J_D_C = 0.076, 0.103, 6.4e13, 1.8e13


def loss_n(N):
    """Loss of a model of N non-embedding parameters trained to convergence on ample data."""
    return (N_C / N) ** ALPHA_N


def loss_d(D):
    """Loss of a large model trained with early stopping on D tokens."""
    return (D_C / D) ** ALPHA_D


def loss_nd(N, D, an=J_ALPHA_N, ad=J_ALPHA_D, nc=J_N_C, dc=J_D_C):
    """Joint law, eq. (1.5): [(N_c/N)^(alpha_N/alpha_D) + D_c/D]^alpha_D."""
    return ((nc / N) ** (an / ad) + dc / D) ** ad
# --- end formula ---


N = np.logspace(6, 11, 30)
D = np.logspace(8, 13, 30)

# 1. Straight lines in log-log: the fitted slopes recover -alpha.
check_close("log-log slope of L(N) = -alpha_N", np.polyfit(np.log(N), np.log(loss_n(N)), 1)[0],
            -ALPHA_N, rtol=1e-9)
check_close("log-log slope of L(D) = -alpha_D", np.polyfit(np.log(D), np.log(loss_d(D)), 1)[0],
            -ALPHA_D, rtol=1e-9)

# 2. 10x more parameters multiplies the loss by 10^-0.076 ~ 0.839.
check_close("10x N gives a factor 0.839", loss_n(1e10) / loss_n(1e9), 0.8394, rtol=1e-3)

# 3. The joint law reduces to each single-variable law when the other resource is unlimited.
check_close("L(N, D -> inf) = (N_c/N)^alpha_N", loss_nd(N, 1e40), (J_N_C / N) ** J_ALPHA_N, rtol=1e-9)
check_close("L(N -> inf, D) = (D_c/D)^alpha_D", loss_nd(1e60, D), (J_D_C / D) ** J_ALPHA_D, rtol=1e-6)

# 4. Sec. 4: keeping the overfitting penalty L(N,D)/L(N,inf) - 1 below ~0.02 needs
#    D >~ 5e3 N^0.74 tokens. Find that D by root-finding on the joint law.
n_test = np.logspace(7, 11, 5)
d_needed = np.array([brentq(lambda lg, n=n: loss_nd(n, 10**lg) / loss_nd(n, 1e40) - 1.02, 3, 20)
                     for n in n_test])
d_needed = 10**d_needed
check_close("root-found D ~ 5e3 N^0.74", d_needed / n_test**0.74, np.full(5, 5e3), rtol=0.15)
check_true("exponent alpha_N / alpha_D rounds to 0.74", round(J_ALPHA_N / J_ALPHA_D, 2) == 0.74)

# 5. The constants as printed in Kaplan et al. (2020): Eqs. (1.1)-(1.2) and, for the joint law,
#    Table 2 (alpha_N = 0.076, alpha_D = 0.103, N_c = 6.4e13, D_c = 1.8e13), typed from the paper.
PAPER = {"alpha_N": 0.076, "N_c": 8.8e13, "alpha_D": 0.095, "D_c": 5.4e13,
         "joint alpha_N": 0.076, "joint alpha_D": 0.103, "joint N_c": 6.4e13, "joint D_c": 1.8e13}
check_close("constants == Kaplan et al. Eqs. (1.1), (1.2) and Table 2",
            [ALPHA_N, N_C, ALPHA_D, D_C, J_ALPHA_N, J_ALPHA_D, J_N_C, J_D_C], list(PAPER.values()),
            rtol=1e-12)

fig, ax = figure("Kaplan et al. power laws", "parameters N  or  tokens D", "test loss (nats/token)")
x = np.logspace(6, 13, 100)
ax.loglog(x, loss_n(x), label=r"$L(N) = (N_c/N)^{0.076}$")
ax.loglog(x, loss_d(x), label=r"$L(D) = (D_c/D)^{0.095}$")
ax.legend()

# The page's calculator is checked against loss_n, loss_d and loss_nd on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda N, D: {"L_N": loss_n(N), "L_D": loss_d(D), "L_ND": loss_nd(N, D)},
               cardcalc.grid(N=(1e3, 1e6, 1.5e9, 1e12), D=(1e3, 1e8, 2.3e10, 1e16)))
