"""IQL expectile loss: both branches by hand; the minimizer of the expected loss equals the tau-expectile
found independently from its first-order condition (Newey and Powell's asymmetric least squares) with
scipy's brentq; tau = 1/2 gives the mean (and half the squared error) and tau -> 1 approaches the max."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq, minimize_scalar


# --- formula ---
def expectile_loss(u, tau):
    """L_2^tau(u) = |tau - 1(u < 0)| u^2."""
    weight = np.abs(tau - (u < 0))
    return weight * u ** 2


def iql_value_loss(q, v, tau):
    """L_V = E_{(s,a) ~ D}[L_2^tau(Q(s, a) - V(s))] for one state's dataset Q-values q and scalar V."""
    return np.mean(expectile_loss(q - v, tau))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Branches, worked by hand with tau = 0.7: u = 2 -> 0.7 * 4, u = -2 -> 0.3 * 4, u = 0 -> 0.
check_close("u > 0 weighs u^2 by tau", expectile_loss(np.array([2.0, 0.5]), 0.7), [2.8, 0.175], rtol=1e-12)
check_close("u < 0 weighs u^2 by 1 - tau", expectile_loss(np.array([-2.0, -0.5]), 0.7), [1.2, 0.075],
            rtol=1e-12)
check_close("u = 0 costs nothing", expectile_loss(np.array([0.0]), 0.7), [0.0], rtol=0)
u = rng.normal(size=50)
check_close("mirror symmetry L^tau(u) = L^(1-tau)(-u)", expectile_loss(u, 0.8), expectile_loss(-u, 0.2),
            rtol=1e-12)
check_close("tau = 1/2 is half the squared error", expectile_loss(u, 0.5), 0.5 * u ** 2, rtol=1e-12)

# 2. The value that minimizes the loss is the tau-expectile. Dataset Q-values of one state: a skewed
#    sample. Reference: the expectile m_tau solves tau E[(X - m)_+] = (1 - tau) E[(m - X)_+], found by
#    brentq; the formula's minimizer comes from minimize_scalar on iql_value_loss.
q = np.concatenate([rng.normal(0.0, 1.0, 300), rng.exponential(3.0, 100) + 1.0])
taus = [0.1, 0.3, 0.5, 0.7, 0.9, 0.99]
got, ref = [], []
for tau in taus:
    got.append(minimize_scalar(lambda v, t=tau: iql_value_loss(q, v, t), bracket=(q.min(), q.max()),
                               method="brent", options={"xtol": 1e-12}).x)
    ref.append(brentq(lambda m, t=tau: t * np.maximum(q - m, 0).mean()
                      - (1 - t) * np.maximum(m - q, 0).mean(),
                      q.min(), q.max(), xtol=1e-13))
check_close("argmin_V L_V = tau-expectile (first-order condition, brentq)", got, ref, rtol=0, atol=1e-7)
check_close("tau = 1/2: the expectile is the mean", got[2], q.mean(), rtol=0, atol=1e-7)
check_true("expectiles increase with tau", bool(np.all(np.diff(got) > 0)), f"{np.round(got, 3)}")
m_hi = minimize_scalar(lambda v: iql_value_loss(q, v, 0.99999), bracket=(q.min(), q.max()), method="brent",
                       options={"xtol": 1e-12}).x
check_true("tau -> 1 approaches the largest in-data value (a max over the data's actions only)",
           q.max() - 0.5 < m_hi <= q.max(), f"expectile(0.99999) = {m_hi:.3f}, max = {q.max():.3f}")

# 3. Gradient: d L_V / d V = -2 E[|tau - 1(u < 0)| u] (central finite differences on the formula).
for tau, v in [(0.7, 0.4), (0.9, -1.0), (0.2, 3.0)]:
    h = 1e-6
    fd = (iql_value_loss(q, v + h, tau) - iql_value_loss(q, v - h, tau)) / (2 * h)
    uu = q - v
    check_close(f"dL_V/dV by finite differences (tau = {tau}, V = {v})", fd,
                -2 * np.mean(np.where(uu > 0, tau, 1 - tau) * uu), rtol=1e-6)

# Figure: the asymmetric loss for a few tau.
fig, ax = figure("Expectile loss L_2^tau(u)", "u = Q(s, a) - V(s)", "loss")
grid = np.linspace(-2, 2, 201)
for tau in (0.5, 0.7, 0.9):
    ax.plot(grid, expectile_loss(grid, tau), label=f"tau = {tau}")
ax.legend()
