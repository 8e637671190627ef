"""Lagrangian of a constrained MDP: the dual function g(lambda) = max_pi L(pi, lambda) is convex, lies
above the constrained optimum for every lambda >= 0 (weak duality), and its minimum equals it (strong
duality); projected dual descent lambda <- max(0, lambda + eta (J_C - d)) raises lambda while the
constraint is violated and settles at the multiplier lambda* (the shadow price of the budget)."""

import numpy as np
from bandit_fixture import (
    CMDP_BUDGET,
    CMDP_COST,
    CMDP_WORLD,
    deterministic_policies,
    envelope_optimum,
    policy_values,
)
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import TabularMDP, solve_optimal
from scipy.optimize import minimize_scalar


# --- formula ---
def lagrangian(J_R, J_C, lam, d):
    """L(pi, lambda) = J_R(pi) - lambda (J_C(pi) - d)."""
    return J_R - lam * (J_C - d)


def best_response(mdp, cost, lam):
    """argmax_pi L(pi, lambda): an unconstrained MDP with the penalised reward r - lambda c."""
    penalised = TabularMDP(mdp.P, mdp.R_sas - lam * cost[:, :, None], mdp.gamma, mdp.start, mdp.terminal)
    return solve_optimal(penalised)[2]


def dual_step(lam, J_C, d, eta):
    """Projected (sub)gradient descent on the dual: dL/dlambda = -(J_C - d)."""
    return max(0.0, lam + eta * (J_C - d))


# --- end formula ---


mdp, cost, d = CMDP_WORLD, CMDP_COST, CMDP_BUDGET


def dual_function(lam):
    pi = best_response(mdp, cost, lam)
    JR, JC = policy_values(mdp, cost, pi[None])
    return lagrangian(JR[0], JC[0], lam, d)


# Reference optimum of the constrained problem, no LP: envelope of the deterministic policies.
dets = deterministic_policies(mdp)
JR_det, JC_det = policy_values(mdp, cost, dets)
opt = envelope_optimum(JR_det, JC_det, d)

# 1. g(lambda) - lambda d is the optimal value V*(s_0) of the penalised MDP (reward r - lambda c).
lams = np.linspace(0, 3, 31)
g = np.array([dual_function(lam) for lam in lams])
pen = np.array(
    [
        mdp.start
        @ solve_optimal(
            TabularMDP(mdp.P, mdp.R_sas - lam * cost[:, :, None], mdp.gamma, mdp.start, mdp.terminal)
        )[0]
        for lam in lams
    ]
)
check_close("g(lambda) - lambda d = V*(s_0) of the penalised MDP", g - lams * d, pen, rtol=1e-8, atol=1e-10)

# 2. Weak duality on the grid, strong duality at the minimiser (scipy minimize_scalar).
check_true(
    "weak duality: g(lambda) >= constrained optimum for every lambda >= 0",
    np.all(g >= opt - 1e-9),
    f"min over grid {g.min():.5f} >= {opt:.5f}",
)
res = minimize_scalar(dual_function, bounds=(0, 3), method="bounded", options={"xatol": 1e-10})
check_close("strong duality: min_lambda g(lambda) = constrained optimum", res.fun, opt, rtol=1e-7)
check_true(
    "the duality gap at lambda = 0 is positive (the constraint binds)",
    g[0] > opt + 1e-3,
    f"g(0) = {g[0]:.4f} > {opt:.4f}",
)

# 3. The minimiser is the shadow price of the budget: the slope dJ*/dd of the envelope at d.
h = 1e-4
lam_star = (envelope_optimum(JR_det, JC_det, d + h) - envelope_optimum(JR_det, JC_det, d - h)) / (2 * h)
check_close("argmin g = lambda* = slope of the optimal return in the budget", res.x, lam_star, rtol=1e-5)
check_close("g(lambda*) = constrained optimum", dual_function(lam_star), opt, rtol=1e-8)
check_true(
    "g is convex in lambda (second differences on the grid >= 0)",
    np.all(np.diff(g, 2) >= -1e-9),
    f"min second difference {np.diff(g, 2).min():.2e}",
)

# The best response jumps across the budget at lambda*: just below it the penalised optimum overspends, just
# above it underspends, and neither attains the constrained optimum (which mixes the two).
side = np.stack([best_response(mdp, cost, lam_star + e) for e in (-1e-3, 1e-3)])
(JR_lo, JR_hi), (JC_lo, JC_hi) = policy_values(mdp, cost, side)
check_true("best response at lambda* - 0.001 breaks the budget, at lambda* + 0.001 stays under it",
           JC_lo > d + 1e-3 and JC_hi < d - 1e-3, f"J_C = {JC_lo:.3f} and {JC_hi:.3f}, d = {d}")
check_true("... and the under-budget one earns less than the constrained optimum", JR_hi < opt - 1e-3,
           f"J_R = {JR_hi:.4f} < {opt:.4f}")
mix = (d - JC_hi) / (JC_lo - JC_hi)
check_close("mixing the two best responses to spend exactly d attains the constrained optimum",
            mix * JR_lo + (1 - mix) * JR_hi, opt, rtol=1e-8)

# 4. Dual descent: lambda = 0 gives the unconstrained optimum, which overspends; the step raises lambda.
pi0 = best_response(mdp, cost, 0.0)
JC0 = policy_values(mdp, cost, pi0[None])[1][0]
check_true("lambda = 0: the best response violates the budget", JC0 > d, f"J_C = {JC0:.3f} > d = {d}")
check_true(
    "... so one dual step increases lambda",
    dual_step(0.0, JC0, d, 0.05) > 0.0,
    f"lambda_1 = {dual_step(0.0, JC0, d, 0.05):.3f}",
)
check_close(
    "a step from lambda = 0.3 with J_C = 3 (under budget 4), eta = 0.05, gives 0.25",
    dual_step(0.3, 3.0, 4.0, 0.05),
    0.25,
    rtol=1e-12,
)
check_close("projection: a step below zero is clipped to 0", dual_step(0.01, 0.0, d, 0.05), 0.0, atol=0)
lam, trace = 0.0, []
for k in range(1, 201):
    JC_k = policy_values(mdp, cost, best_response(mdp, cost, lam)[None])[1][0]
    lam = dual_step(lam, JC_k, d, 0.5 / np.sqrt(k))
    trace.append(lam)
check_close(
    "projected dual descent ends near lambda* (200 steps, eta_k = 0.5/sqrt(k))",
    np.mean(trace[-50:]),
    lam_star,
    rtol=0.05,
)

fig, ax = figure("Dual function of the three-state CMDP", "lambda", "g(lambda) = max_pi L(pi, lambda)")
ax.plot(lams, g)
ax.axhline(opt, color="k", lw=0.6, ls="--")
ax.axvline(lam_star, color="k", lw=0.6, ls=":")
