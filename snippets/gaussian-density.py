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

reference = gaussian_logpdf(x, mu, sigma)
xs = np.linspace(-4, 6, 101)
one_d = np.exp(gaussian_logpdf(xs[:, None], np.array([1.0]), np.array([[2.25]])))

# --- in code: scipy ---
# A Cholesky solve in 5 dimensions either way (condition number 14): 1e-10 of the log-density.
check_close("scipy multivariate_normal(mu, Sigma).logpdf(x): 200 points",
            multivariate_normal(mu, sigma).logpdf(x), reference, rtol=1e-10)
# d = 1: Sigma = sigma^2 and det(Sigma) = sigma^2, so the formula is the familiar scalar density.
check_close("scipy norm(loc=1, scale=1.5).pdf: d = 1 with variance 2.25", norm(1.0, 1.5).pdf(xs), one_d,
            rtol=1e-12)
check_true("pitfall: norm's scale is the standard deviation: norm(1, 2.25) is the density with variance 5.06",
           np.allclose(norm(1.0, 2.25).pdf(xs), np.exp(gaussian_logpdf(xs[:, None], np.array([1.0]),
                                                                       np.array([[2.25 ** 2]]))), rtol=1e-12)
           and not np.allclose(norm(1.0, 2.25).pdf(xs), one_d, rtol=1e-3))
# --- end in code ---

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

# --- in code: torch ---
import torch  # noqa: E402
from torch.distributions import MultivariateNormal, Normal  # noqa: E402

torch_mvn = MultivariateNormal(torch.tensor(mu), covariance_matrix=torch.tensor(sigma))
check_close("torch MultivariateNormal(mu, covariance_matrix=Sigma).log_prob(x): 200 points",
            torch_mvn.log_prob(torch.tensor(x)).numpy(), reference, rtol=1e-10)
loc, scale = torch.tensor(1.0, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64)
check_close("torch Normal(loc=1, scale=1.5).log_prob on float64 tensors: d = 1 with variance 2.25",
            Normal(loc, scale).log_prob(torch.tensor(xs)).exp().numpy(), one_d, rtol=1e-12)
from_floats = Normal(1.0, 1.5).log_prob(torch.tensor(xs)).exp().numpy()
check_true("pitfall: Normal(1.0, 1.5) with Python floats holds float32 parameters: float32 digits only",
           np.max(np.abs(from_floats - one_d) / one_d) > 1e-10,
           f"largest relative error {np.max(np.abs(from_floats - one_d) / one_d):.1e}")
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402
from jax.scipy.stats import multivariate_normal as jax_mvn  # noqa: E402

# Without jax_enable_x64 JAX computes in float32: a relative error of order 1e-7, not 1e-15.
single = np.asarray(jax_mvn.logpdf(x, mu, sigma))
check_true("pitfall: by default jax.scipy.stats.multivariate_normal.logpdf runs in float32",
           single.dtype == np.float32 and np.max(np.abs(single - reference) / np.abs(reference)) > 1e-9,
           f"largest relative error {np.max(np.abs(single - reference) / np.abs(reference)):.1e}")
# A float32 Cholesky solve: relative error up to about d x cond(Sigma) x eps_32 = 5 x 14 x 1.2e-7.
check_close("float32 still agrees to its own precision, d cond(Sigma) eps_32 = 8.4e-6 relative",
            single, reference, rtol=5 * 14 * 1.2e-7)
jax.config.update("jax_enable_x64", True)
check_close("fix: with jax_enable_x64 it matches the card to 1e-10, as scipy does",
            np.asarray(jax_mvn.logpdf(x, mu, sigma)), reference, rtol=1e-10)
# --- end in code ---
