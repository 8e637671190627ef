"""DDPM posterior variance: vs Bayes' rule on a grid, summed precisions and simulated residuals."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import norm


# --- formula ---
def posterior_variance(t: int, betas: np.ndarray) -> float:
    """beta~_t = (1 - abar_{t-1}) / (1 - abar_t) * beta_t, with abar_0 = 1."""
    abar = np.cumprod(1 - betas)
    abar_prev = abar[t - 2] if t > 1 else 1.0
    return (1 - abar_prev) / (1 - abar[t - 1]) * betas[t - 1]
# --- end formula ---


T = 1000
betas = np.linspace(1e-4, 0.02, T)
abar = np.cumprod(1 - betas)

# 1. Bayes' rule on a grid: variance of q(x_{t-1}|x_t,x_0) ∝ q(x_t|x_{t-1}) q(x_{t-1}|x_0).
for t, x0, x_t in [(2, 0.7, 0.4), (50, -1.0, 0.8), (400, 0.3, -1.2), (1000, 1.0, 0.1)]:
    y = np.linspace(-4.0, 4.0, 200_001)
    w = (norm.pdf(x_t, np.sqrt(1 - betas[t - 1]) * y, np.sqrt(betas[t - 1]))
         * norm.pdf(y, np.sqrt(abar[t - 2]) * x0, np.sqrt(1 - abar[t - 2])))
    w /= np.trapezoid(w, y)
    m = np.trapezoid(y * w, y)
    check_close(f"t = {t}: beta~_t vs grid posterior variance", posterior_variance(t, betas),
                np.trapezoid((y - m) ** 2 * w, y), rtol=1e-5)

# 2. Conjugacy: precisions add. Likelihood of x_{t-1} from x_t has precision alpha_t/beta_t,
#    the prior q(x_{t-1}|x_0) has precision 1/(1 - abar_{t-1}).
ts = np.arange(2, T + 1)
precision = (1 - betas[ts - 1]) / betas[ts - 1] + 1 / (1 - abar[ts - 2])
check_close("beta~_t = 1 / (alpha_t/beta_t + 1/(1 - abar_{t-1})) for t = 2..T",
            np.array([posterior_variance(t, betas) for t in ts]), 1 / precision, rtol=1e-10)

# 3. Monte-Carlo: the residual variance of x_{t-1} after regressing on x_t (x_0 fixed).
rng = np.random.default_rng(0)
t, x0 = 20, -0.5
x_prev = np.sqrt(abar[t - 2]) * x0 + np.sqrt(1 - abar[t - 2]) * rng.standard_normal(400_000)
x_t = np.sqrt(1 - betas[t - 1]) * x_prev + np.sqrt(betas[t - 1]) * rng.standard_normal(x_prev.size)
resid = x_prev - np.polyval(np.polyfit(x_t, x_prev, 1), x_t)
check_close("t = 20: beta~_t vs residual variance of simulated x_{t-1}", posterior_variance(t, betas),
            resid.var(), rtol=0.01)

bt = np.array([posterior_variance(t, betas) for t in range(1, T + 1)])
check_true("0 = beta~_1 and beta~_t < beta_t for t >= 2", bt[0] == 0 and bool(np.all(bt[1:] < betas[1:])),
           f"beta~_2/beta_2 = {bt[1] / betas[1]:.3f}, beta~_T/beta_T = {bt[-1] / betas[-1]:.6f}")

fig, ax = figure("How much smaller the posterior variance is", "step t (log scale)",
                 r"$\tilde\beta_t / \beta_t = (1-\bar\alpha_{t-1})/(1-\bar\alpha_t)$")
steps = np.arange(1, T + 1)
ax.semilogx(steps, bt / betas, label="linear schedule")
s_off = 0.008
f_cos = np.cos((np.arange(T + 1) / T + s_off) / (1 + s_off) * np.pi / 2) ** 2
abar_cos = f_cos / f_cos[0]
ax.semilogx(steps, (1 - abar_cos[:-1]) / (1 - abar_cos[1:]), "--", label="cosine schedule")
ax.set_ylim(0, 1.05)
ax.legend()

# The page's calculator is checked against posterior_variance on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): a two-step schedule whose first step leaves abar_{t-1}, and
# t = 1 (abar_0 = 1, variance 0); dyadic abar_{t-1} keep 1 - (1 - abar_{t-1}) exact.
import cardcalc  # noqa: E402


def calculator_row(beta, abar_prev):
    if abar_prev == 1:
        value = posterior_variance(1, np.array([beta]))
    else:
        value = posterior_variance(2, np.array([1 - abar_prev, beta]))
    return {"beta_tilde": float(value), "shrink": float(value / beta)}


cardcalc.table(calculator_row,
               cardcalc.grid(beta=(1e-4, 0.02, 0.5, 0.999), abar_prev=(0, 0.25, 0.5, 0.9375, 1)))
