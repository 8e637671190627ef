"""MLE = min KL: sample log-likelihood vs KL(empirical || model) over a grid, plus moment matching."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq
from scipy.special import log_softmax
from scipy.stats import entropy

K = 10
values = np.arange(K)


def log_model(theta: float) -> np.ndarray:
    """A one-parameter family on {0, ..., K-1}: log p_theta(k) = log softmax(theta * k)."""
    return log_softmax(theta * values)


# --- formula ---
def kl_data_model(p_data: np.ndarray, theta: float) -> float:
    """D_KL(p_data || p_theta) in nats."""
    support = p_data > 0
    return float(np.sum(p_data[support] * (np.log(p_data[support]) - log_model(theta)[support])))
# --- end formula ---


# Data: 500 draws from a two-bump mixture outside the family, so the fit is a real compromise.
rng = np.random.default_rng(0)
samples = np.where(rng.random(500) < 0.7, rng.binomial(K - 1, 0.25, 500), rng.binomial(K - 1, 0.8, 500))
p_data = np.bincount(samples, minlength=K) / samples.size  # the empirical distribution

thetas = np.linspace(-1.0, 1.0, 2001)
avg_loglik = np.array([np.mean(log_model(t)[samples]) for t in thetas])  # straight from the samples
kl = np.array([kl_data_model(p_data, t) for t in thetas])

check_close("KL(theta) = -avg log-lik(theta) - H(p_data) at every theta", kl,
            -avg_loglik - entropy(p_data))
i_mle, i_kl = avg_loglik.argmax(), kl.argmin()
check_true("argmax log-likelihood = argmin KL on the grid", i_mle == i_kl,
           f"theta_MLE = {thetas[i_mle]:+.4f}, theta_KL = {thetas[i_kl]:+.4f}")
# In this exponential family the optimum matches moments: E_theta[k] = sample mean.
def mean_under(t: float) -> float:
    return float(np.sum(values * np.exp(log_model(t))))


theta_moment = brentq(lambda t: mean_under(t) - samples.mean(), -1.0, 1.0)
check_close("grid optimum vs moment-matching root (grid step 1e-3)", thetas[i_kl], theta_moment,
            atol=1e-3)

fig, ax = figure("Same minimizer, curves offset by H(p_data)", "parameter θ", "nats")
ax.plot(thetas, -avg_loglik, label="average NLL  $-\\frac{1}{N}\\sum_i \\log p_\\theta(x_i)$")
ax.plot(thetas, kl, label="$D_{KL}(\\hat p_{data} \\Vert p_\\theta)$")
ax.axvline(thetas[i_kl], color="gray", linestyle=":", label=f"optimum θ = {thetas[i_kl]:+.3f}")
ax.legend(fontsize=8)
