"""CVaR by the Rockafellar-Uryasev minimisation: checked against the mean of the worst tail of a sorted
sample, the quantile integral of an exact discrete distribution with an atom at the quantile, the normal
closed form, and the reward (lower-tail) convention."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy import integrate, stats


# --- formula ---
def cvar(x, p, alpha):
    """CVaR_alpha and VaR_alpha of a discrete LOSS taking values x with probabilities p (upper tail,
    alpha = confidence level, e.g. 0.95): min over nu of nu + E[(X - nu)^+] / (1 - alpha), attained at
    the alpha-quantile nu = VaR_alpha (smallest x with F(x) >= alpha)."""
    order = np.argsort(x)
    xs = x[order]
    ps = p[order]
    cdf = np.cumsum(ps)
    var = xs[np.searchsorted(cdf, alpha)]
    excess = np.maximum(xs - var, 0.0)
    return var + np.sum(ps * excess) / (1.0 - alpha), var


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Equally likely sample of N = 1024 losses, alpha = 1 - 64/1024 = 0.9375 (exact in binary, so the cdf
#    k/1024 has no rounding): CVaR is exactly the mean of the 64 largest losses.
losses = rng.standard_t(df=3, size=1024)
w = np.full(1024, 1 / 1024)
c95, v95 = cvar(losses, w, 0.9375)
worst = np.sort(losses)[-64:]
check_close("CVaR_0.9375 of 1024 equally likely losses = mean of the worst 64", c95, worst.mean(), rtol=1e-12)
check_close(
    "VaR_0.9375 = the 960th smallest loss (empirical quantile, inverted cdf)",
    v95,
    np.quantile(losses, 0.9375, method="inverted_cdf"),
    rtol=1e-12,
)
check_true("CVaR >= VaR (the tail mean lies beyond the quantile)", c95 > v95, f"{c95:.3f} > {v95:.3f}")

# 2. Exact discrete distribution whose atom straddles the quantile: losses 0, 1, 5, 20 with
#    probabilities 0.5, 0.3, 0.15, 0.05, alpha = 0.9. The 0.9-quantile is 5 (F(1) = 0.8 < 0.9 <= F(5)).
#    Reference: Acerbi-Tasche quantile integral CVaR = 1/(1-alpha) int_alpha^1 VaR_u du, with the
#    quantile function evaluated piecewise by scipy quad; exact value (0.05*5 + 0.05*20)/0.1 = 12.5.
xd = np.array([20.0, 0.0, 5.0, 1.0])
pd = np.array([0.05, 0.5, 0.15, 0.3])
cd, vd = cvar(xd, pd, 0.9)


def quantile_fn(u):
    return 0.0 if u <= 0.5 else 1.0 if u <= 0.8 else 5.0 if u <= 0.95 else 20.0


tail_integral = integrate.quad(quantile_fn, 0.9, 1.0, points=[0.95])[0] / 0.1
check_close("discrete: CVaR_0.9 = quantile integral (scipy quad)", cd, tail_integral, rtol=1e-9)
check_close("discrete: CVaR_0.9 = 12.5 exactly", cd, 12.5, rtol=1e-12)
check_close("discrete: VaR_0.9 = 5", vd, 5.0, rtol=0)
naive = np.sum(pd * xd * (xd >= vd)) / np.sum(pd * (xd >= vd))
check_true(
    "the conditional-expectation form E[X | X >= VaR] is NOT CVaR when an atom straddles the quantile",
    abs(naive - cd) > 1.0,
    f"E[X | X >= VaR] = {naive:.3f} vs CVaR = {cd:.3f}",
)
nus = np.linspace(-5, 25, 3001)
objective = np.array([nu + np.sum(pd * np.clip(xd - nu, 0, None)) / 0.1 for nu in nus])
check_close("the minimum over a grid of nu equals the value returned", objective.min(), cd, rtol=1e-9)
cd2, vd2 = cvar(xd, pd, 0.5)
check_close("discrete, alpha = 0.5: CVaR = (0.3*1 + 0.15*5 + 0.05*20)/0.5 = 4.1", cd2, 4.1, rtol=1e-12)
check_close("discrete, alpha = 0.5: VaR = 0 (F(0) = 0.5 >= 0.5)", vd2, 0.0, atol=0)
cd0, _ = cvar(xd, pd, 0.0)
check_close("alpha = 0: CVaR is the mean", cd0, np.sum(pd * xd), rtol=1e-12)

# 3. Normal losses N(1, 2^2), alpha = 0.99: closed form mu + sigma phi(z)/(1-alpha), z = Phi^-1(alpha)
#    (scipy.stats.norm), against a 200,000-point sample (Monte-Carlo tolerance 2%).
big = 1.0 + 2.0 * rng.standard_normal(200_000)
cn, vn = cvar(big, np.full(big.size, 1 / big.size), 0.99)
z = stats.norm.ppf(0.99)
check_close(
    "normal: CVaR_0.99 vs mu + sigma phi(z)/(1-alpha) (MC, 2%)",
    cn,
    1.0 + 2.0 * stats.norm.pdf(z) / 0.01,
    rtol=0.02,
)
check_close("normal: VaR_0.99 vs mu + sigma z (MC, 2%)", vn, 1.0 + 2.0 * z, rtol=0.02)

# 4. Reward convention: the mean of the worst 5% of REWARDS is -CVaR_0.95 of the loss -R.
rewards = rng.normal(size=1000)
cr, _ = cvar(-rewards, np.full(1000, 1e-3), 0.95)
check_close(
    "rewards: mean of the lowest 50 of 1000 rewards = -CVaR_0.95(-R)",
    -cr,
    np.sort(rewards)[:50].mean(),
    rtol=1e-12,
)

# Figure: the Rockafellar-Uryasev objective for the discrete example; its minimum is at VaR.
fig, ax = figure(
    "CVaR as a minimum (losses 0, 1, 5, 20; alpha = 0.9)", "nu", "nu + E[(X - nu)+] / (1 - alpha)"
)
ax.plot(nus, objective)
ax.axvline(vd, color="k", lw=0.6, ls="--")
ax.axhline(cd, color="k", lw=0.6, ls=":")
