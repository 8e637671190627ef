"""Reparameterization: samples vs N(mu, sigma^2); pathwise gradient vs analytic and finite differences."""

import numpy as np
from cardcheck import check_close, check_true

rng = np.random.default_rng(0)


# --- formula ---
# few mutants: z = mu + sigma eps: one sum and one product
def reparameterize(mu: np.ndarray, sigma: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """z = mu + sigma * eps with eps ~ N(0, I): a differentiable function of (mu, sigma)."""
    return mu + sigma * eps
# --- end formula ---


# Objective E_z[f(z)] with f(z) = sin z + z^2, whose expectation is known in closed form:
# E[sin z] = sin(mu) exp(-sigma^2 / 2) and E[z^2] = mu^2 + sigma^2.
def f(z):
    return np.sin(z) + z**2


def df(z):
    return np.cos(z) + 2 * z


mu, sigma = 0.7, 0.9
analytic_grad_mu = np.cos(mu) * np.exp(-sigma**2 / 2) + 2 * mu
analytic_grad_sigma = -sigma * np.sin(mu) * np.exp(-sigma**2 / 2) + 2 * sigma

n = 400_000
eps = rng.standard_normal(n)
z = reparameterize(mu, sigma, eps)
check_close("reparameterized samples: mean and std vs (mu, sigma)", [z.mean(), z.std()],
            [mu, sigma], rtol=0.01)

# Pathwise estimator: the chain rule through z gives dz/dmu = 1 and dz/dsigma = eps.
grad_mu = np.mean(df(z))
grad_sigma = np.mean(df(z) * eps)
check_close("pathwise gradient vs analytic gradient of E[f(mu + sigma eps)]",
            [grad_mu, grad_sigma], [analytic_grad_mu, analytic_grad_sigma], rtol=0.01)

# With the noise held fixed, the Monte-Carlo objective is a smooth function of (mu, sigma):
# central finite differences of it reproduce the pathwise estimate to rounding error.
h = 1e-5


def mc_objective(m: float, s: float) -> float:
    return float(f(reparameterize(m, s, eps)).mean())


fd_mu = (mc_objective(mu + h, sigma) - mc_objective(mu - h, sigma)) / (2 * h)
fd_sigma = (mc_objective(mu, sigma + h) - mc_objective(mu, sigma - h)) / (2 * h)
check_close("pathwise gradient vs finite differences at fixed noise",
            [grad_mu, grad_sigma], [fd_mu, fd_sigma], rtol=1e-6)

# The score-function (REINFORCE) estimator is unbiased too, but noisier per sample.
score_mu = f(z) * (z - mu) / sigma**2
pathwise_mu = df(z)
check_close("score-function estimator agrees in expectation", score_mu.mean(), analytic_grad_mu,
            rtol=0.02)
check_true("pathwise estimator has lower per-sample variance than the score function",
           pathwise_mu.var() < score_mu.var(),
           f"variance {pathwise_mu.var():.2f} (pathwise) vs {score_mu.var():.2f} (score function)")

# The page's calculator is checked against reparameterize on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): one coordinate, sigma = 0 included, eps of either sign.
import cardcalc  # noqa: E402

cardcalc.table(lambda mu, sigma, eps: {"z": float(reparameterize(mu, sigma, eps))},
               cardcalc.grid(mu=(-1.0, 0.0, 2.5), sigma=(0.0, 0.5, 3.0), eps=(-2.0, 0.0, 1.5)))
