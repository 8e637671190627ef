"""Multivariate Gaussian density: checked against scipy.stats, the 1-D formula, and unit mass on a grid."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import multivariate_normal, norm


# --- formula ---
def gaussian_logpdf(x: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """log N(x; mu, Sigma) for rows of x, via a Cholesky factor (no explicit inverse)."""
    d = mu.shape[0]
    chol = np.linalg.cholesky(sigma)
    # Solve L y = (x - mu)^T, so that ||y||^2 is the Mahalanobis term (x-mu)^T Sigma^{-1} (x-mu).
    y = np.linalg.solve(chol, (x - mu).T)
    mahalanobis = np.sum(y * y, axis=0)
    log_det = 2.0 * np.sum(np.log(np.diag(chol)))
    return -0.5 * d * np.log(2 * np.pi) - 0.5 * log_det - 0.5 * mahalanobis
# --- end formula ---


rng = np.random.default_rng(0)
d = 5
a = rng.normal(size=(d, d))
sigma = a @ a.T + 0.5 * np.eye(d)          # a random symmetric positive-definite covariance
mu = rng.normal(size=d)
x = rng.normal(size=(200, d)) * 2 + mu

check_close("log-density vs scipy.stats.multivariate_normal.logpdf",
            gaussian_logpdf(x, mu, sigma), multivariate_normal(mu, sigma).logpdf(x), rtol=1e-10)

# d = 1: Sigma = sigma^2 and det(Sigma) = sigma^2, so the formula is the familiar scalar density.
xs = np.linspace(-4, 6, 101)
check_close("d = 1 density vs scipy.stats.norm.pdf",
            np.exp(gaussian_logpdf(xs[:, None], np.array([1.0]), np.array([[2.25]]))),
            norm(1.0, 1.5).pdf(xs), rtol=1e-12)

# A 2-D density integrates to one: a Riemann sum over a wide grid.
mu2 = np.array([0.5, -1.0])
sigma2 = np.array([[1.0, 0.6], [0.6, 0.8]])
g = np.linspace(-8, 8, 801)
gx, gy = np.meshgrid(g, g)
grid = np.column_stack([gx.ravel(), gy.ravel()])
mass = np.exp(gaussian_logpdf(grid, mu2, sigma2)).sum() * (g[1] - g[0]) ** 2
check_close("2-D density integrates to 1 on a grid", mass, 1.0, rtol=1e-6)

# The density peaks at the mean, with height (2 pi)^{-d/2} det(Sigma)^{-1/2}.
peak = np.exp(gaussian_logpdf(mu[None, :], mu, sigma))[0]
check_true("maximum is at the mean",
           bool(np.all(gaussian_logpdf(x, mu, sigma) < np.log(peak))),
           f"peak height {peak:.3e} = (2π)^(-d/2) det(Σ)^(-1/2) = "
           f"{(2 * np.pi) ** (-d / 2) / np.sqrt(np.linalg.det(sigma)):.3e}")
