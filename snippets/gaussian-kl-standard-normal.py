"""VAE KL term: checked against the general Gaussian KL with Sigma_2 = I and against Monte-Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import multivariate_normal


# --- formula ---
def kl_to_standard_normal(mu: np.ndarray, log_var: np.ndarray) -> float:
    """D_KL(N(mu, diag sigma^2) || N(0, I)) in nats, from mu and log sigma^2 (as VAE encoders emit)."""
    return 0.5 * float(np.sum(mu**2 + np.exp(log_var) - log_var - 1.0))
# --- end formula ---


def kl_gaussians(mu1, sigma1, mu2, sigma2) -> float:
    """General D_KL(N(mu1, Sigma1) || N(mu2, Sigma2)) for full covariances (independent route)."""
    d = mu1.shape[0]
    inv2 = np.linalg.inv(sigma2)
    diff = mu2 - mu1
    return 0.5 * float(np.trace(inv2 @ sigma1) + diff @ inv2 @ diff - d
                       + np.linalg.slogdet(sigma2)[1] - np.linalg.slogdet(sigma1)[1])


rng = np.random.default_rng(0)
d = 6
mu = rng.normal(size=d)
log_var = rng.normal(scale=0.7, size=d)
sigma = np.exp(0.5 * log_var)

kl = kl_to_standard_normal(mu, log_var)
check_close("closed form vs general Gaussian KL with Sigma_2 = I", kl,
            kl_gaussians(mu, np.diag(sigma**2), np.zeros(d), np.eye(d)), rtol=1e-12)

# Monte-Carlo: average log q(z) - log p(z) over reparameterized draws z = mu + sigma * eps.
z = mu + sigma * rng.standard_normal((400_000, d))
q = multivariate_normal(mu, np.diag(sigma**2))
p = multivariate_normal(np.zeros(d), np.eye(d))
check_close("closed form vs Monte-Carlo E_q[log q - log p]", kl,
            np.mean(q.logpdf(z) - p.logpdf(z)), rtol=0.01)

check_true("zero exactly at mu = 0, sigma = 1, positive elsewhere",
           kl_to_standard_normal(np.zeros(d), np.zeros(d)) == 0.0 and kl > 0,
           f"KL = {kl:.4f} nats for the random posterior")
# The direction matters: KL(N(0, I) || q) is a different number.
reverse = kl_gaussians(np.zeros(d), np.eye(d), mu, np.diag(sigma**2))
check_true("not symmetric: KL(q || p) != KL(p || q)", abs(kl - reverse) > 1e-2,
           f"{kl:.4f} vs {reverse:.4f} nats")

# The page's calculator is checked against kl_to_standard_normal on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): d dimensions that share one mean and variance; the prior itself
# (mu = 0, sigma^2 = 1: 0 nats), tiny and large variances and means of both signs.
import cardcalc  # noqa: E402


def calculator_row(mu, sigma2, d):
    shared = kl_to_standard_normal(np.full(d, mu), np.full(d, np.log(sigma2)))
    return {"D_j": kl_to_standard_normal(np.array([mu]), np.array([np.log(sigma2)])), "D": shared}


cardcalc.table(calculator_row,
               cardcalc.grid(mu=(-2.0, 0.0, 0.5), sigma2=(1e-6, 0.5, 1.0, 30.0), d=(1, 16, 512)))
