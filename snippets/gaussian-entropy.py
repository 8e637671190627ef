"""Gaussian entropy: checked against scipy.stats, a Monte-Carlo mean of -log p, and the 1-D form."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import multivariate_normal, norm


# --- formula ---
def gaussian_entropy(sigma: np.ndarray) -> float:
    """h(N(mu, Sigma)) = 1/2 log det(2 pi e Sigma), in nats; the mean plays no role."""
    _, log_det = np.linalg.slogdet(2 * np.pi * np.e * sigma)
    return 0.5 * float(log_det)
# --- end formula ---


rng = np.random.default_rng(0)
d = 4
a = rng.normal(size=(d, d))
sigma = a @ a.T + 0.3 * np.eye(d)
mu = rng.normal(size=d)
dist = multivariate_normal(mu, sigma)


# --- in code: scipy ---
# A log-determinant of a 4 x 4 matrix either way: a few ulps, so 1e-12.
check_close("scipy multivariate_normal(mu, Sigma).entropy()", dist.entropy(), gaussian_entropy(sigma),
            rtol=1e-12)
for s in (0.1, 1.0, 3.0):
    check_close(f"scipy norm(0, sigma).entropy(), sigma = {s}", norm(0, s).entropy(),
                gaussian_entropy(np.array([[s**2]])), rtol=1e-12)
check_close("pitfall: norm's scale is the standard deviation: norm(0, sigma^2) has variance sigma^4",
            norm(0, 3.0 ** 2).entropy(), gaussian_entropy(np.array([[3.0 ** 4]])), rtol=1e-12)
# --- end in code ---
samples = dist.rvs(size=400_000, random_state=rng)
check_close("entropy vs Monte-Carlo mean of -log p(x)", gaussian_entropy(sigma),
            -dist.logpdf(samples).mean(), rtol=0.01)

# 1-D: 1/2 log(2 pi e sigma^2); it is negative once sigma < 1/sqrt(2 pi e) ≈ 0.242.
check_true("differential entropy can be negative", gaussian_entropy(np.array([[0.1**2]])) < 0,
           f"h(N(0, 0.1^2)) = {gaussian_entropy(np.array([[0.01]])):.3f} nats")

# Independent coordinates add: diagonal Sigma gives the sum of the 1-D entropies.
variances = np.array([0.5, 2.0, 7.0])
check_close("diagonal Sigma = sum of 1-D entropies", gaussian_entropy(np.diag(variances)),
            sum(norm(0, np.sqrt(v)).entropy() for v in variances), rtol=1e-12)

# The page's calculator is checked against gaussian_entropy on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): Sigma = sigma^2 I in 1, 3 and 64 dimensions, with variances that
# give negative (1e-6, 0.01) and positive entropies.
import cardcalc  # noqa: E402

cardcalc.table(lambda sigma2, d: gaussian_entropy(sigma2 * np.eye(d)),
               cardcalc.grid(sigma2=(1e-6, 0.01, 1.0, 1e6), d=(1, 3, 64)))

# --- in code: torch ---
import torch  # noqa: E402
from torch.distributions import MultivariateNormal, Normal  # noqa: E402

check_close("torch MultivariateNormal(mu, covariance_matrix=Sigma).entropy()",
            MultivariateNormal(torch.tensor(mu), covariance_matrix=torch.tensor(sigma)).entropy().item(),
            gaussian_entropy(sigma), rtol=1e-12)
stds = torch.tensor(np.sqrt(variances))
check_close("torch Normal(0, sigma).entropy(): one entropy per coordinate, summed for the diagonal Sigma",
            Normal(torch.zeros(3, dtype=torch.float64), stds).entropy().sum().item(),
            gaussian_entropy(np.diag(variances)), rtol=1e-12)
as_variances = Normal(torch.zeros(3, dtype=torch.float64), stds ** 2)
check_close("pitfall: Normal(loc, scale) takes the standard deviation: variances passed in give the "
            "entropy for variances squared", as_variances.entropy().sum().item(),
            gaussian_entropy(np.diag(variances ** 2)), rtol=1e-12)
# --- end in code ---
