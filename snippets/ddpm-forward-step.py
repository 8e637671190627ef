"""DDPM forward step: log-density vs scipy, sampled moments vs the kernel, variance preservation."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import kstest, multivariate_normal


# --- formula ---
def forward_step_sample(x_prev: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    """Draw x_t ~ q(x_t | x_{t-1}) = N(sqrt(1 - beta) x_{t-1}, beta I): standard deviation times a standard
    normal draw, plus the mean (the same draws and sums as rng.normal(mean, sd), which is slower with an
    array of means)."""
    return np.sqrt(beta) * rng.standard_normal(np.shape(x_prev)) + np.sqrt(1.0 - beta) * x_prev


def forward_step_logpdf(x_t: np.ndarray, x_prev: np.ndarray, beta: float) -> float:
    """log q(x_t | x_{t-1}) for a d-dimensional isotropic Gaussian kernel."""
    d = x_t.size
    r = x_t - np.sqrt(1.0 - beta) * x_prev
    return float(-0.5 * d * np.log(2 * np.pi * beta) - 0.5 * r @ r / beta)
# --- end formula ---


rng = np.random.default_rng(0)
d, beta = 4, 0.02
x_prev = rng.normal(size=d) * 2.0
x_t = rng.normal(size=d)

# 1. The density written out by hand agrees with scipy's multivariate normal.
ref = multivariate_normal(mean=np.sqrt(1 - beta) * x_prev, cov=beta * np.eye(d)).logpdf(x_t)
check_close("log q(x_t|x_{t-1}) vs scipy multivariate_normal", forward_step_logpdf(x_t, x_prev, beta), ref)

# 2. The sampler has the kernel's mean and covariance (Monte-Carlo, 200k draws).
n = 200_000
draws = forward_step_sample(np.broadcast_to(x_prev, (n, d)), beta, rng)
check_close("sample mean vs sqrt(1-beta) x_{t-1}", draws.mean(0), np.sqrt(1 - beta) * x_prev, atol=2e-3)
check_close("sample covariance vs beta I", np.cov(draws.T), beta * np.eye(d), atol=3e-4)

# 3. Variance preservation: unit-variance input stays unit-variance, step after step.
betas = np.linspace(1e-4, 0.02, 1000)  # Ho et al. (2020), Sec. 4
x = rng.standard_normal(50_000)
for b in betas:
    x = forward_step_sample(x, b, rng)
check_close("Var(x_T) after 1000 steps from unit-variance data", x.var(), 1.0, rtol=0.03)
ks = kstest(x, "norm")
check_true("x_T is still N(0,1) (KS test)", ks.pvalue > 0.01, f"KS p = {ks.pvalue:.2f}")

# A few one-dimensional paths: the signal shrinks and the noise takes over.
fig, ax = figure("DDPM forward chain, linear schedule", "step t", "$x_t$")
paths = np.empty((1001, 6))
paths[0] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
for t, b in enumerate(betas, start=1):
    paths[t] = forward_step_sample(paths[t - 1], b, rng)
ax.plot(paths, lw=0.8)
sd_mean = np.sqrt(np.cumprod(np.r_[1.0, 1 - betas]))
ax.plot(2.5 * sd_mean, "k--", lw=1, label=r"$2.5\sqrt{\bar\alpha_t}$ (decay of the mean)")
ax.legend(fontsize=8)

# The page's calculator is checked against forward_step_logpdf (one coordinate, d = 1) and against
# forward_step_sample with every standard normal draw at 0, which leaves the kernel's mean, on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): beta from tiny to nearly 1, x_t on
# either side of the mean.
import cardcalc  # noqa: E402


class ZeroDraws:
    """A generator whose standard normal draws are all 0."""

    def standard_normal(self, shape):
        return np.zeros(shape)


cardcalc.table(lambda x_t, x_prev, beta: {
    "mean": float(forward_step_sample(np.array([x_prev]), beta, ZeroDraws())[0]),
    "logq": forward_step_logpdf(np.array([x_t]), np.array([x_prev]), beta)},
    cardcalc.grid(x_t=(-2.0, 0.0, 1.5), x_prev=(-1.0, 0.0, 2.0), beta=(1e-4, 0.02, 0.5, 0.999)))
