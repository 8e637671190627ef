"""Closed-form q(x_t|x_0): vs the exact moment recursion and the iterated chain (Monte-Carlo, KS)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import kstest, norm


# --- formula ---
def xt_from_noise(x0: np.ndarray, abar_t: float, eps: np.ndarray) -> np.ndarray:
    """One jump x_t = sqrt(alpha_bar_t) x_0 + sqrt(1 - alpha_bar_t) eps, with eps ~ N(0, I)."""
    return np.sqrt(abar_t) * x0 + np.sqrt(1.0 - abar_t) * eps


def marginal_moments(x0: float, abar_t: float) -> tuple[float, float]:
    """Mean and variance of q(x_t | x_0)."""
    return np.sqrt(abar_t) * x0, 1.0 - abar_t
# --- end formula ---


T = 1000
betas = np.linspace(1e-4, 0.02, T)
abar = np.cumprod(1 - betas)
probe = [1, 50, 200, 500, 1000]
x0 = 1.5

# 1. Exact route: push mean and variance through each Gaussian step,
#    m_t = sqrt(alpha_t) m_{t-1},  v_t = alpha_t v_{t-1} + beta_t  (from m_0 = x_0, v_0 = 0).
m, v, rec = x0, 0.0, {}
for t in range(1, T + 1):
    m, v = np.sqrt(1 - betas[t - 1]) * m, (1 - betas[t - 1]) * v + betas[t - 1]
    rec[t] = (m, v)
got = np.array([marginal_moments(x0, abar[t - 1]) for t in probe])
check_close("closed-form (mean, var) vs step-by-step moment recursion", got,
            np.array([rec[t] for t in probe]), rtol=1e-12)

# 2. Monte-Carlo route: run the one-step chain t times and compare the samples with N(sqrt(abar) x0, 1-abar).
rng = np.random.default_rng(0)
x = np.full(40_000, x0)
chain = {}
for t in range(1, T + 1):
    x = np.sqrt(1 - betas[t - 1]) * x + np.sqrt(betas[t - 1]) * rng.standard_normal(x.shape)
    if t in probe:
        chain[t] = x.copy()
mc = np.array([[chain[t].mean(), chain[t].var()] for t in probe])
check_close("iterated chain (mean, var) vs closed form", mc, got, rtol=0.03, atol=0.01)
pvals = []
for t in (50, 500):
    mean_t, var_t = marginal_moments(x0, abar[t - 1])
    pvals.append(kstest(chain[t], norm(mean_t, np.sqrt(var_t)).cdf).pvalue)
check_true("iterated chain at t = 50, 500 passes a KS test against the closed form",
           min(pvals) > 0.001, "p = " + ", ".join(f"{p:.2f}" for p in pvals))

# 3. Sample by sample: the chain is linear, x_t = a_t x_0 + N_t with a_t = prod sqrt(alpha_s) and the
#    accumulated noise N_t = sqrt(alpha_t) N_{t-1} + sqrt(beta_t) z_t, whose variance is v_t from the
#    recursion in 1. So eps = N_t / sqrt(v_t) is a standard normal draw, and the one-jump formula fed
#    with that eps must land exactly on the chain's own x_t (the Gaussians merge into one).
z = rng.standard_normal((T, 2000))
x, noise, jumped, chained = np.full(2000, x0), np.zeros(2000), [], []
for t in range(1, T + 1):
    a, b = np.sqrt(1 - betas[t - 1]), np.sqrt(betas[t - 1])
    x, noise = a * x + b * z[t - 1], a * noise + b * z[t - 1]
    if t in probe:
        jumped.append(xt_from_noise(x0, abar[t - 1], noise / np.sqrt(rec[t][1])))
        chained.append(x)
check_close(f"one jump with eps = N_t / sqrt(v_t) vs 2000 chained samples, t = {probe}", jumped, chained,
            rtol=1e-10, atol=1e-13)

# 4. The one-jump sampler and the chain agree in distribution (two-sample comparison of quantiles).
jump = xt_from_noise(x0, abar[199], rng.standard_normal(40_000))
qs = np.linspace(0.05, 0.95, 19)
check_close("quantiles: one jump to t = 200 vs 200 chained steps",
            np.quantile(jump, qs), np.quantile(chain[200], qs), atol=0.03)

# Bimodal data pushed through the forward process: each mode shrinks by sqrt(abar) and widens.
fig, ax = figure("Closed-form marginals of a two-mode data set", "$x_t$", "density")
data = np.where(rng.random(40_000) < 0.5, -1.0, 1.0) + 0.1 * rng.standard_normal(40_000)
grid = np.linspace(-3.5, 3.5, 600)
for t in (1, 100, 250, 1000):
    xt = xt_from_noise(data, abar[t - 1], rng.standard_normal(data.shape))
    a = np.sqrt(abar[t - 1])
    dens = 0.5 * sum(norm(a * mu, np.sqrt(a**2 * 0.01 + 1 - abar[t - 1])).pdf(grid) for mu in (-1, 1))
    line, = ax.plot(grid, dens, label=f"t = {t}")
    ax.hist(xt, bins=140, range=(-3.5, 3.5), density=True, alpha=0.25, color=line.get_color())
ax.set_ylim(0, 2.2)
ax.legend()

# The page's calculator is checked against xt_from_noise and marginal_moments on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows): one coordinate, from abar = 0 (pure noise) to 1.
import cardcalc  # noqa: E402


def calculator_row(x0, abar, eps):
    mean, var = marginal_moments(x0, abar)
    return {"xt": float(xt_from_noise(x0, abar, eps)), "mean": float(mean), "var": float(var)}


cardcalc.table(calculator_row,
               cardcalc.grid(x0=(-1.0, 0.0, 0.8), abar=(0.0, 0.01, 0.5, 0.9999, 1.0), eps=(-1.5, 0.0, 2.0)))
