"""Denoising score matching: least-squares minimizer vs the smoothed-density score; J_DSM - J_ESM constant."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp, softmax

rng = np.random.default_rng(0)
SIGMA = 0.6


# --- formula ---
def dsm_target(x, x_noisy, sigma=SIGMA):
    """Regression target of DSM: the score of the Gaussian corruption kernel, (x - x~) / sigma^2."""
    return (x - x_noisy) / sigma**2


def dsm_loss(s_fn, x, x_noisy):
    return 0.5 * np.mean((s_fn(x_noisy) - dsm_target(x, x_noisy)) ** 2)
# --- end formula ---


# 1) Gaussian data N(mu, s^2): q_sigma = N(mu, s^2 + sigma^2) has a linear score, so a linear model
#    fitted by least squares on the DSM target must land on it.
mu, s, n = 1.0, 0.8, 400_000
x = mu + s * rng.standard_normal(n)
x_noisy = x + SIGMA * rng.standard_normal(n)
design = np.column_stack([x_noisy, np.ones(n)])
(slope, intercept), *_ = np.linalg.lstsq(design, dsm_target(x, x_noisy), rcond=None)
var_q = s**2 + SIGMA**2
check_close("DSM minimizer (slope, intercept) vs score of N(mu, s^2 + sigma^2)",
            [slope, intercept], [-1.0 / var_q, mu / var_q], rtol=0.02)

# 2) Vincent's identity: J_DSM(theta) - J_ESM(theta) does not depend on theta.
def true_score(y):
    return -(y - mu) / var_q


thetas = [(-1.0, 0.0), (-0.5, 1.0), (0.3, -0.2), (-2.0, 2.0), (-1 / var_q, mu / var_q)]
j_dsm = np.array([dsm_loss(lambda y, a=a, b=b: a * y + b, x, x_noisy) for a, b in thetas])
j_esm = np.array([0.5 * np.mean((a * x_noisy + b - true_score(x_noisy)) ** 2) for a, b in thetas])
gap = j_dsm - j_esm
check_close("J_DSM - J_ESM is the same constant for every theta", gap, np.full(len(gap), gap.mean()),
            rtol=0.01)
check_true("the true score minimizes J_DSM among the probes", np.argmin(j_dsm) == len(thetas) - 1)

# Exact expectations by two-point Gauss-Hermite quadrature. With x = mu + s xi and x~ = x + sigma n, the
# residual of a linear model a x~ + b against the DSM target, (a mu + b) + a s xi + (a sigma + 1/sigma) n,
# is linear in (xi, n); so its mean square over the four nodes xi, n = +-1 (weight 1/4 each) is its exact
# Gaussian mean square, and J_DSM(a, b) = [(a mu + b)^2 + a^2 s^2 + (a sigma + 1/sigma)^2] / 2.
xi, nu = np.array([1.0, 1.0, -1.0, -1.0]), np.array([1.0, -1.0, 1.0, -1.0])
x_nodes = mu + s * xi
x_nodes_noisy = x_nodes + SIGMA * nu
j_nodes = [dsm_loss(lambda y, a=a, b=b: a * y + b, x_nodes, x_nodes_noisy) for a, b in thetas]
check_close("J_DSM(a, b) on Gauss-Hermite nodes vs [(a mu + b)^2 + a^2 s^2 + (a sigma + 1/sigma)^2] / 2",
            j_nodes,
            [((a * mu + b) ** 2 + a**2 * s**2 + (a * SIGMA + 1 / SIGMA) ** 2) / 2 for a, b in thetas],
            rtol=1e-12)
j_esm_nodes = [0.5 * np.mean((a * x_nodes_noisy + b - true_score(x_nodes_noisy)) ** 2) for a, b in thetas]
check_close("Vincent's constant: J_DSM - J_ESM = (1/sigma^2 - 1/(s^2 + sigma^2)) / 2 exactly",
            np.array(j_nodes) - np.array(j_esm_nodes), np.full(len(thetas), (1 / SIGMA**2 - 1 / var_q) / 2),
            rtol=1e-12)

# 3) Non-Gaussian data (atoms): the exact DSM minimizer E[(x - x~)/sigma^2 | x~] equals the
#    finite-difference score of the smoothed mixture q_sigma.
atoms, weights = np.array([-1.5, 0.0, 2.0]), np.array([0.3, 0.5, 0.2])
grid = np.linspace(-3.0, 4.0, 41)
logits = -0.5 * ((grid[:, None] - atoms) / SIGMA) ** 2 + np.log(weights)
optimum = softmax(logits, axis=1) @ atoms
minimizer = (optimum - grid) / SIGMA**2  # conditional mean of the DSM target


def log_q(y):
    return logsumexp(-0.5 * ((y[:, None] - atoms) / SIGMA) ** 2 + np.log(weights), axis=1)


h = 1e-5
check_close("E[target | x~] vs d/dx~ log q_sigma(x~) (finite differences, mixture data)",
            minimizer, (log_q(grid + h) - log_q(grid - h)) / (2 * h), rtol=1e-6, atol=1e-6)
