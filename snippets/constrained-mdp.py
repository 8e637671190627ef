"""Constrained MDP: the linear program over discounted occupancy measures, on a three-state CMDP. Its value
equals the exact constrained optimum (envelope of the deterministic policies) and a brute-force search over
a grid of 68,921 stochastic policies; the policy read off the occupancy measure attains it and must
randomise."""

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
from matplotlib import pyplot as plt
from rl_worlds import evaluate_policy, occupancy, solve_optimal
from scipy.optimize import linprog


# --- formula ---
def solve_cmdp(mdp, cost, d):
    """max_pi J_R(pi) s.t. J_C(pi) <= d as a linear program over the occupancy measure
    rho(s, a) = sum_t gamma^t Pr(S_t = s, A_t = a): maximise sum rho r subject to the flow constraints
    sum_a rho(s', a) - gamma sum_{s,a} P(s'|s,a) rho(s, a) = mu_0(s'), rho >= 0 and sum rho c <= d.
    Returns (optimal J_R, rho, the policy pi(a|s) = rho(s, a) / sum_a rho(s, a))."""
    S, A = mdp.n_states, mdp.n_actions
    flow = np.repeat(np.eye(S), A, axis=1) - mdp.gamma * mdp.P.reshape(S * A, S).T
    res = linprog(
        -mdp.R.ravel(),
        A_ub=cost.ravel()[None, :],
        b_ub=[d],
        A_eq=flow,
        b_eq=mdp.start,
        bounds=(0, None),
        method="highs",
    )
    rho = res.x.reshape(S, A)
    pi = rho / rho.sum(axis=1, keepdims=True)
    return -res.fun, rho, pi


# --- end formula ---


mdp, cost, d = CMDP_WORLD, CMDP_COST, CMDP_BUDGET
value, rho, pi = solve_cmdp(mdp, cost, d)
print(f"budget d = {d}; LP optimum J_R = {value:.6f}; policy P(risky | s) = {np.round(pi[:, 1], 4)}")

# 1. Exact constrained optimum without LP: all 4 deterministic policies evaluated by linear solves, then
#    the best mixture of two of them meeting the budget (upper concave envelope at d).
dets = deterministic_policies(mdp)
JR_det, JC_det = policy_values(mdp, cost, dets)
check_close(
    "LP optimum = envelope of the deterministic policies at the budget",
    value,
    envelope_optimum(JR_det, JC_det, d),
    rtol=1e-8,
)

# 2. The policy read off rho attains the optimum (exact evaluation) and spends exactly the budget.
V_R, _ = evaluate_policy(mdp, pi)
JR_pi, JC_pi = policy_values(mdp, cost, pi[None])
check_close("J_R of the extracted policy (exact evaluation) = LP value", mdp.start @ V_R, value, rtol=1e-8)
check_close("its expected discounted cost equals the budget (constraint active)", JC_pi[0], d, rtol=1e-8)
check_close(
    "rho(s, a) = occupancy(s) pi(a|s) (rl_worlds.occupancy)",
    rho,
    occupancy(mdp, pi)[:, None] * pi,
    rtol=1e-8,
    atol=1e-12,
)

# 3. The optimum randomises, and beats every feasible deterministic policy.
check_true(
    "the optimal constrained policy is stochastic in some state",
    np.any((pi > 1e-6) & (pi < 1 - 1e-6)),
    f"pi = {np.round(pi, 4).tolist()}",
)
stochastic_states = np.sum(np.any((pi > 1e-6) & (pi < 1 - 1e-6), axis=1))
check_true("one constraint: it randomises in exactly one state (Altman, Sec. 3.5)", stochastic_states == 1,
           f"{stochastic_states} state(s)")
best_det = JR_det[JC_det <= d].max()
check_true(
    "every feasible deterministic policy is strictly worse",
    value > best_det + 1e-3,
    f"{value:.4f} > {best_det:.4f}",
)

# 4. Brute force over a 41 x 41 x 41 grid of stochastic policies (P(risky | s) for each of the 3 states).
u = np.linspace(0, 1, 41)
grid = np.stack(np.meshgrid(u, u, u, indexing="ij"), -1).reshape(-1, 3)
pis = np.stack([1 - grid, grid], axis=-1)
JR_g, JC_g = policy_values(mdp, cost, pis)
feasible = JC_g <= d
check_true(
    "no grid policy within budget beats the LP",
    JR_g[feasible].max() <= value + 1e-9,
    f"grid best {JR_g[feasible].max():.5f} <= {value:.5f}",
)
check_close(
    "the grid's best feasible return approaches the LP value (grid step 0.025, within 0.04)",
    JR_g[feasible].max(),
    value,
    rtol=0,
    atol=4e-2,
)

# 5. Limits: a budget that does not bind gives V*(s0) (solve_optimal); a zero budget gives always-safe.
V_star, _, _ = solve_optimal(mdp)
check_close(
    "slack budget: LP value = V*(s_0) of the unconstrained MDP",
    solve_cmdp(mdp, cost, 1e3)[0],
    mdp.start @ V_star,
    rtol=1e-8,
)
check_close(
    "zero budget: LP value = return of always-safe", solve_cmdp(mdp, cost, 0.0)[0], JR_det[0], rtol=1e-8
)

# Figure: (cost, return) of grid policies, the deterministic ones, the budget and the LP optimum.
fig, ax = figure(
    "Constrained MDP: reachable (J_C, J_R) and the LP optimum",
    "expected discounted cost J_C",
    "expected discounted return J_R",
)
# The 5,302 grey points are drawn as one image inside the SVG (at the 200 dpi the build gives a figure it
# saves as an image), the rest as vectors: one vector path per point makes a 600 KB SVG, over the size limit,
# and the build would then render the whole figure a second time as a PNG.
plt.rcParams["savefig.dpi"] = 200
ax.scatter(JC_g[::13], JR_g[::13], s=1, color="0.6", rasterized=True)
ax.scatter(JC_det, JR_det, color="k", marker="s", label="deterministic policies")
ax.axvline(d, color="k", lw=0.6, ls="--", label="budget d")
ax.scatter([d], [value], color="C3", zorder=3, label="LP optimum")
ax.legend(loc="lower right")
