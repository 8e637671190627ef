"""Expected utility of a tool call and the retry rule, checked by simulation, brute force over
thresholds and retry budgets, an exact two-case enumeration and scipy's binomial distribution."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import binom


# --- formula ---
def expected_utility(p_success, value, cost, lam):
    """U(a) = E[R | a, x] - lam * Cost(a), with R = value on success and 0 otherwise."""
    return np.asarray(p_success) * value - lam * np.asarray(cost)


def best_action(p_success, value, cost, lam):
    """The maximum-expected-utility action (index 0 is usually 'answer without a tool', cost 0)."""
    return int(np.argmax(expected_utility(p_success, value, cost, lam)))


def success_within(p, k):
    """Probability that at least one of k independent tries succeeds."""
    return 1.0 - (1.0 - p) ** k


def next_try_success(p, prior_up, j):
    """Success probability of try j + 1 after j failures when the tool is either up (each try then
    succeeds with p) or persistently down: p times the posterior probability that it is up."""
    up = prior_up * (1.0 - p) ** j
    return p * up / (up + 1.0 - prior_up)


def tries_to_make(p, prior_up, value, cost, max_tries):
    """Retry rule: make try j + 1 only while its expected gain p_j * V exceeds its cost C."""
    j = 0
    while j < max_tries and next_try_success(p, prior_up, j) * value - cost > 0:
        j += 1
    return j
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Expected utility of three actions, by hand and by simulation.
#    no tool: success 0.55, cost 0; search: 0.80, cost 3; code tool: 0.92, cost 9; value 20, lam 1.
p_act = np.array([0.55, 0.80, 0.92])
c_act = np.array([0.0, 3.0, 9.0])
check_close("hand values U = 0.55*20 - 0, 0.80*20 - 3, 0.92*20 - 9",
            expected_utility(p_act, 20.0, c_act, 1.0), [11.0, 13.0, 9.4], rtol=1e-12)
n_sim = 200000
realized = [(rng.random(n_sim) < p) * 20.0 - c for p, c in zip(p_act, c_act, strict=True)]
means = np.array([r.mean() for r in realized])
se = np.array([r.std() / np.sqrt(n_sim) for r in realized])
check_close("simulated mean reward minus cost vs U(a), within 4 standard errors",
            expected_utility(p_act, 20.0, c_act, 1.0), means, atol=float(4 * se.max()))
check_true("best action is the search tool (index 1); with lam = 3 it becomes no tool",
           best_action(p_act, 20.0, c_act, 1.0) == 1 and best_action(p_act, 20.0, c_act, lam=3.0) == 0)
check_close("lam prices the cost: U(code tool) at lam = 0.5 is 0.92*20 - 4.5",
            expected_utility(p_act, 20.0, c_act, lam=0.5)[2], 13.9, rtol=1e-12)

# 2. The call-if-gain-exceeds-cost rule is the best threshold policy. Contexts differ in how much
#    the tool raises the success probability; a policy calls the tool iff (q1 - q0) * V > tau.
#    Brute force over a grid of tau: the average realized utility peaks at tau = lam * cost.
n_ctx = 4000
q0 = rng.uniform(0.0, 1.0, n_ctx)
q1 = np.clip(q0 + rng.normal(0.1, 0.15, n_ctx), 0.0, 1.0)
value, cost, lam = 10.0, 0.8, 1.5
u_direct = expected_utility(q0, value, 0.0, lam)
u_tool = expected_utility(q1, value, cost, lam)
rule_calls = np.array([best_action([a, b], value, [0.0, cost], lam)
                       for a, b in zip(q0, q1, strict=True)]) == 1
taus = np.linspace(-3.0, 5.0, 801)
avg = [np.mean(np.where((q1 - q0) * value > t, q1 * value - lam * cost, q0 * value)) for t in taus]
best_tau = taus[int(np.argmax(avg))]
check_close("brute force over thresholds: best tau equals lam * cost = 1.2 (grid step 0.01)",
            best_tau, lam * cost, atol=0.05)
rule_value = float(np.mean(np.where(rule_calls, u_tool, u_direct)))
check_true("the MEU rule is at least as good as every threshold on the grid",
           rule_value >= max(avg) - 1e-12, f"rule {rule_value:.6f}, best grid {max(avg):.6f}")
check_true("a tool that beats answering directly by 0.002 is called; one 0.002 short is not",
           best_action([0.5, 0.6501], 20.0, [0.0, 3.0], 1.0) == 1
           and best_action([0.5, 0.6499], 20.0, [0.0, 3.0], 1.0) == 0)

# 3. At least one success in k independent tries: 1 - (1 - p)^k against scipy's binomial.
ks = np.arange(0, 12)
check_close("1 - (1 - p)^k equals binom.sf(0, k, p) for p = 0.3, k = 0..11",
            success_within(0.3, ks), binom.sf(0, ks, 0.3), rtol=1e-12)

# 4. Retry rule under persistent failures. Exact expected net value of 'try at most k times',
#    computed from the two cases (tool up / tool down) without the posterior formula.
def net_value_exact(p, prior_up, value, cost, k):
    p_any = 1.0 - (1.0 - p) ** k
    tries_up = p_any / p if k > 0 else 0.0              # mean of a geometric count truncated at k
    return prior_up * (value * p_any - cost * tries_up) + (1.0 - prior_up) * (-cost * k)


worst_gap = 0.0
agree = 0
cases = 0
for p in (0.2, 0.5, 0.8):
    for prior_up in (0.3, 0.7, 0.95):
        for ratio in (0.5, 1.5, 3.0, 6.0, 20.0, 80.0):   # value / cost
            values = [net_value_exact(p, prior_up, ratio, 1.0, k) for k in range(41)]
            k_rule = tries_to_make(p, prior_up, ratio, 1.0, 40)
            cases += 1
            agree += values[k_rule] >= max(values) - 1e-12
            worst_gap = max(worst_gap, max(values) - values[k_rule])
check_true("retry rule achieves the brute-force best budget k in 0..40 on all 54 settings",
           agree == cases, f"{agree}/{cases}, worst gap {worst_gap:.1e}")

# Posterior success probability of the next try vs Monte-Carlo over tools that are up or down.
p, prior_up = 0.5, 0.7
n_mc = 400000
up = rng.random(n_mc) < prior_up
outcomes = (rng.random((n_mc, 4)) < p) & up[:, None]
first_failures_then = []
for j in range(4):
    reached = np.all(~outcomes[:, :j], axis=1)        # j failures so far
    first_failures_then.append(outcomes[reached, j].mean())
check_close("success chance of try j+1 after j failures: closed form vs simulation (j = 0..3)",
            [next_try_success(p, prior_up, j) for j in range(4)], first_failures_then, atol=0.006)
check_true("an always-up tool (prior 1) keeps p on every retry; the count is then all-or-nothing",
           np.isclose(next_try_success(0.4, 1.0, 7), 0.4)
           and tries_to_make(0.4, 1.0, 3.0, 1.0, 25) == 25 and tries_to_make(0.4, 1.0, 2.0, 1.0, 25) == 0)
check_true("break-even: p V = C is not worth a try (strict inequality)",
           tries_to_make(0.5, 1.0, 2.0, 1.0, 10) == 0)
check_true("example: p = 0.5, prior 0.7, V/C = 6 gives 3 tries (p_j = 0.35, 0.27, 0.18, 0.11)",
           tries_to_make(0.5, 0.7, 6.0, 1.0, 40) == 3)

# The page's calculator is checked against expected_utility, best_action and success_within on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): the tool called and not, ties (no
# value and no cost), certain and hopeless calls, and no tries at all.
import cardcalc  # noqa: E402


def calculator_row(p, p_0, V, Cost, lam, k):
    return {"U_tool": float(expected_utility(p, V, Cost, lam)),
            "U_direct": float(expected_utility(p_0, V, 0.0, lam)),
            "call": best_action([p_0, p], V, [0.0, Cost], lam), "P_k": float(success_within(p, k))}


cardcalc.table(calculator_row, cardcalc.grid(p=(0.0, 0.3, 0.8, 1.0), p_0=(0.0, 0.55, 0.8), V=(0.0, 20.0),
                                             Cost=(0.0, 3.0), lam=(0.5, 1.0, 3.0), k=(0, 1, 5)))

fig, ax = figure("Net value of allowing up to k tries (p = 0.5, prior up 0.7)",
                 "maximum number of tries k", "expected value - expected cost (units of C)")
for ratio in (3.0, 6.0, 20.0):
    vals = [net_value_exact(0.5, 0.7, ratio, 1.0, k) for k in range(13)]
    k_rule = tries_to_make(0.5, 0.7, ratio, 1.0, 40)
    ax.plot(range(13), vals, marker=".", label=f"V/C = {ratio:g}")
    ax.plot([k_rule], [vals[k_rule]], "k*", markersize=10)
ax.legend(title="stars: retry rule")
