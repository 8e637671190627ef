"""Human handoff as a cost decision (a modelling choice): hand off when the expected cost of acting,
sum_k P(failure k | x) C_k, exceeds the handoff cost. With one failure mode the threshold is C_h / C_err
(Chow's reject rule); brute force over thresholds and over pairs of thresholds (the seed's OR rule)
confirms it, and the rule's coverage and selective risk match a Monte-Carlo run."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy import integrate, stats


# --- formula ---
# few mutants: sum_k p_k C_k against C_h, and C_h / C_err: two products, a comparison, a ratio
def hands_off(p_fail, cost_fail, cost_handoff):
    """True where the expected cost of acting, sum_k p_k C_k (p_fail: (n, k)), exceeds the handoff cost."""
    return p_fail @ cost_fail > cost_handoff


def error_threshold(cost_error, cost_handoff):
    """One failure mode: hand off iff P(error | x) exceeds C_h / C_err."""
    return cost_handoff / cost_error


def decision_cost(p_fail, cost_fail, cost_handoff, handoff):
    """Expected cost of each decision: C_h if handed off, sum_k p_k C_k if the agent acts."""
    return np.where(handoff, cost_handoff, p_fail @ cost_fail)


# --- end formula ---


rng = np.random.default_rng(0)
C_ERR, C_H = 10.0, 1.5
beta = stats.beta(1.2, 5.0)  # distribution of the calibrated error probability p(x) over incoming tasks


# 1. One failure mode. Expected cost per task of the rule "hand off iff p > t", in closed form from the Beta
#    distribution (scipy), on a grid of 2001 thresholds: its minimiser is t* = C_h / C_err = 0.15.
def cost_of_threshold(t):
    """E[C_err p 1(p <= t)] + C_h P(p > t); the first term is C_err E[p] F_{Beta(a+1, b)}(t)."""
    act = C_ERR * beta.mean() * stats.beta(1.2 + 1, 5.0).cdf(t)
    return act + C_H * beta.sf(t)


grid = np.linspace(0, 1, 2001)
costs = cost_of_threshold(grid)
t_best = grid[np.argmin(costs)]
check_close(
    "brute force over 2001 thresholds: best t = C_h / C_err = 0.15",
    error_threshold(C_ERR, C_H),
    t_best,
    rtol=0,
    atol=5e-4,
)
p = beta.rvs(size=400_000, random_state=rng)[:, None]
rule_cost = decision_cost(p, np.array([C_ERR]), C_H, hands_off(p, np.array([C_ERR]), C_H)).mean()
check_close(
    "the rule's mean expected cost over 400,000 tasks = integral at t* (MC, 1%)",
    rule_cost,
    costs.min(),
    rtol=0.01,
)
check_true(
    "at exact indifference (0.25 x 8 = 2) the agent acts: the rule is a strict inequality",
    not hands_off(np.array([[0.25]]), np.array([8.0]), 2.0)[0]
    and hands_off(np.array([[0.2500001]]), np.array([8.0]), 2.0)[0],
)
check_close(
    "handoff rate = P(p > C_h / C_err) (scipy beta.sf)",
    hands_off(p, np.array([C_ERR]), C_H).mean(),
    beta.sf(C_H / C_ERR),
    rtol=0.01,
)

# 2. Realised outcomes: errors drawn as Bernoulli(p). Coverage and selective risk (error rate among the
#    tasks the agent keeps) of the rule vs their integrals (selective-risk card: a confidence threshold).
errors = rng.random(p.shape[0]) < p[:, 0]
keep = ~hands_off(p, np.array([C_ERR]), C_H)
t_star = error_threshold(C_ERR, C_H)
check_true(
    "the expected-cost rule and the threshold rule hand off the same tasks",
    np.array_equal(~keep, p[:, 0] > t_star),
)
sel_risk = integrate.quad(lambda q: q * beta.pdf(q), 0, t_star)[0] / beta.cdf(t_star)
check_close("coverage = P(p <= t*)", keep.mean(), beta.cdf(t_star), rtol=0.01)
check_close("selective risk among kept tasks = E[p | p <= t*] (MC)", errors[keep].mean(), sel_risk, rtol=0.02)
realised = np.where(keep, C_ERR * errors, C_H).mean()
check_close("realised cost per task = expected cost of the rule (MC, 2%)", realised, rule_cost, rtol=0.02)
check_true(
    "the rule beats always acting and always handing off",
    rule_cost < min(C_ERR * p.mean(), C_H),
    f"{rule_cost:.3f} vs act {C_ERR * p.mean():.3f}, hand off {C_H}",
)

# 3. Two failure modes (error, cost C_err = 10; harm, cost C_harm = 40), scores p_e and p_r. The seed's rule
#    hands off iff p_e > t_e OR p_r > t_r; the best such pair (brute force over a 41 x 41 grid) costs more
#    than handing off iff 10 p_e + 40 p_r > C_h.
n = 20000
pe = rng.beta(1.5, 6.0, size=n)
pr = rng.beta(0.6, 20.0, size=n)
P2 = np.stack([pe, pr], axis=1)
C2 = np.array([10.0, 40.0])
linear = decision_cost(P2, C2, C_H, hands_off(P2, C2, C_H)).mean()
ts = np.linspace(0, 1, 41)
or_costs = np.array([[decision_cost(P2, C2, C_H, (pe > a) | (pr > b)).mean() for b in ts * 0.3] for a in ts])
check_true(
    "expected-cost rule beats the best OR of two thresholds",
    linear < or_costs.min() - 1e-3,
    f"{linear:.4f} < {or_costs.min():.4f}",
)
per_task = np.minimum(P2 @ C2, C_H)
check_close(
    "... and attains the per-task minimum min(C_h, sum_k p_k C_k) (no rule can do better)",
    linear,
    per_task.mean(),
    rtol=1e-12,
)

# The page's calculator is checked against error_threshold, hands_off and decision_cost with one failure
# mode on this grid (cardcalc; the build runs the card's JavaScript on the same rows): tasks kept and
# handed off, the exact tie 0.25 x 8 = 2 (the agent acts), a free handoff and one dearer than any error.
import cardcalc  # noqa: E402


def calculator_row(p, C_err, C_h):
    p_fail, cost_fail = np.array([[p]]), np.array([C_err])
    handoff = hands_off(p_fail, cost_fail, C_h)
    return {"tau": error_threshold(C_err, C_h), "handoff": float(handoff[0]),
            "cost": float(decision_cost(p_fail, cost_fail, C_h, handoff)[0])}


cardcalc.table(calculator_row, cardcalc.grid(p=(0.0, 0.1, 0.25, 0.5, 1.0), C_err=(8.0, 10.0, 100.0),
                                             C_h=(0.0, 1.5, 2.0, 20.0)))

fig, ax = figure(
    "Expected cost of 'hand off if p > t' (C_err = 10, C_h = 1.5)", "threshold t", "expected cost per task"
)
ax.plot(grid, costs)
ax.axvline(C_H / C_ERR, color="k", lw=0.6, ls="--")
