"""Compute-optimal split: N = sqrt(C/120) vs root-finding, the Chinchilla point, fit exponents."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.optimize import brentq

# --- formula ---
TOKENS_PER_PARAM = 20.0


def allocate(C, r=TOKENS_PER_PARAM):
    """Split a FLOP budget C = 6 N D with D = r N: N = sqrt(C / (6 r)), D = r N."""
    N = np.sqrt(C / (6 * r))
    return N, r * N
# --- end formula ---


# 1. Independent route: solve 6 N (20 N) = C for N by bracketing root-finding.
budgets = np.array([1e20, 1e22, 5.88e23, 1e25])
roots = np.array([brentq(lambda n, C=C: 6 * n * 20 * n - C, 1.0, 1e15, xtol=1e-6, rtol=1e-14)
                  for C in budgets])
check_close("N = sqrt(C/120) vs root of 6 N (20 N) = C", allocate(budgets)[0], roots, rtol=1e-10)

# 2. The Chinchilla run: 70B parameters, 1.4T tokens, C = 6 N D = 5.88e23 FLOPs.
N_chin, D_chin = allocate(6 * 70e9 * 1.4e12)
check_close("budget of 70B x 1.4T gives back (70B, 1.4T)", [N_chin, D_chin], [70e9, 1.4e12], rtol=1e-12)

# 3. C = 6ND forces a + b = 1 for N ~ C^a, D ~ C^b; the rule D = 20 N gives a = b = 1/2.
C = np.logspace(18, 26, 9)
a = np.polyfit(np.log(C), np.log(allocate(C)[0]), 1)[0]
b = np.polyfit(np.log(C), np.log(allocate(C)[1]), 1)[0]
check_close("fixed tokens-per-parameter => exponents a = b = 0.5", [a, b], [0.5, 0.5], rtol=1e-9)

# 4. Approach 3 of Hoffmann et al. (parametric fit, alpha = 0.34, beta = 0.28) gives
#    a = beta/(alpha+beta) ~ 0.45 and b ~ 0.55: there the tokens-per-parameter ratio drifts with C.
alpha, beta, A, B = 0.34, 0.28, 406.4, 410.7
a3, b3 = beta / (alpha + beta), alpha / (alpha + beta)
check_close("parametric-fit exponents (0.452, 0.548) vs paper's Table 2 (0.46, 0.54)", [a3, b3],
            [0.46, 0.54], atol=0.01)
G = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
ratio3 = lambda c: (c / 6) ** (b3 - a3) / G**2  # noqa: E731  D_opt / N_opt
check_true("with a != b there is no fixed 20:1 ratio", ratio3(1e25) / ratio3(1e21) > 1.5,
           f"D/N = {ratio3(1e21):.0f} at 1e21 FLOPs, {ratio3(5.88e23):.0f} at 5.88e23, "
           f"{ratio3(1e25):.0f} at 1e25")


# The page's calculator is checked against allocate on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows).
import cardcalc  # noqa: E402


def calculator_outputs(C, r):
    N, D = allocate(C, r)
    return {"N": N, "D": D}


cardcalc.table(calculator_outputs, cardcalc.grid(C=(1, 1e20, 5.88e23, 1e27), r=(0.01, 20, 200)))
