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

check_close("d-dim entropy vs scipy.stats.multivariate_normal.entropy",
            gaussian_entropy(sigma), dist.entropy(), rtol=1e-12)
samples = dist.rvs(size=400_000, random_state=rng)
check_close("entropy vs Monte-Carlo mean of -log p(x)", gaussian_entropy(sigma),
            -dist.logpdf(samples).mean(), rtol=0.01)

# 1-D: 1/2 log(2 pi e sigma^2); it is negative once sigma < 1/sqrt(2 pi e) ≈ 0.242.
for s in (0.1, 1.0, 3.0):
    check_close(f"1-D entropy, sigma = {s}, vs scipy.stats.norm.entropy",
                gaussian_entropy(np.array([[s**2]])), norm(0, s).entropy(), rtol=1e-12)
check_true("differential entropy can be negative", gaussian_entropy(np.array([[0.1**2]])) < 0,
           f"h(N(0, 0.1^2)) = {gaussian_entropy(np.array([[0.01]])):.3f} nats")

# Independent coordinates add: diagonal Sigma gives the sum of the 1-D entropies.
variances = np.array([0.5, 2.0, 7.0])
check_close("diagonal Sigma = sum of 1-D entropies", gaussian_entropy(np.diag(variances)),
            sum(norm(0, np.sqrt(v)).entropy() for v in variances), rtol=1e-12)
