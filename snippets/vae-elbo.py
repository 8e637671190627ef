"""VAE ELBO on a linear-Gaussian model: closed form vs Monte-Carlo, vs the exact log-evidence from scipy."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import norm

# Model: p(z) = N(0, 1), p(x | z) = N(z, sigma^2); encoder q(z | x) = N(m, s^2).
SIGMA = 0.7


# --- formula ---
def gaussian_kl_to_standard(m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """KL(N(m, s^2) || N(0, 1)) in nats."""
    return 0.5 * (m**2 + s**2 - 1.0) - np.log(s)


def elbo(x: np.ndarray, m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E_q[log p(x|z)] - KL(q(z|x) || p(z)); the expectation is exact for a Gaussian decoder."""
    reconstruction = -0.5 * np.log(2 * np.pi * SIGMA**2) - ((x - m) ** 2 + s**2) / (2 * SIGMA**2)
    return reconstruction - gaussian_kl_to_standard(m, s)
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(0.0, np.sqrt(1 + SIGMA**2), size=6)
m = rng.normal(size=6)
s = rng.uniform(0.3, 1.2, size=6)

# Independent route: average log p(x, z) - log q(z|x) over reparameterized samples z = m + s * eps.
eps = rng.standard_normal((1_000_000, 1))
z = m + s * eps
log_joint = norm.logpdf(z, 0.0, 1.0) + norm.logpdf(x, z, SIGMA)
log_w = log_joint - norm.logpdf(z, m, s)
mc, mc_se = log_w.mean(axis=0), log_w.std(axis=0) / np.sqrt(len(eps))
check_close("closed-form ELBO vs Monte-Carlo E_q[log p(x,z) - log q(z|x)] (4 std. errors)",
            elbo(x, m, s), mc, atol=4 * mc_se.max())

log_evidence = norm.logpdf(x, 0.0, np.sqrt(1 + SIGMA**2))  # marginal p(x) = N(0, 1 + sigma^2)
check_true("ELBO < log p(x) for a mismatched encoder", bool(np.all(elbo(x, m, s) < log_evidence)),
           f"largest ELBO - log p(x) = {np.max(elbo(x, m, s) - log_evidence):.3f} nats")

post_mean = x / (1 + SIGMA**2)
post_std = np.full_like(x, np.sqrt(SIGMA**2 / (1 + SIGMA**2)))
check_close("ELBO = log p(x) when q is the exact posterior", elbo(x, post_mean, post_std),
            log_evidence, rtol=1e-12)
