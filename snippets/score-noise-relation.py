"""Score <-> noise: -E[eps|x_t]/sqrt(1-abar) vs finite differences of log p_t and a fitted eps-predictor."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp, softmax


# --- formula ---
def score_from_eps(eps_hat: np.ndarray, alpha_bar: float) -> np.ndarray:
    """Score of the noised marginal p_t implied by a noise prediction (VP / DDPM parameterization)."""
    return -eps_hat / np.sqrt(1.0 - alpha_bar)
# --- end formula ---


rng = np.random.default_rng(0)

# Non-Gaussian data: a few atoms a_k with weights w_k, so p_t is a Gaussian mixture.
atoms = np.array([-2.0, -0.5, 1.0, 3.0])
weights = np.array([0.1, 0.4, 0.3, 0.2])
x = np.linspace(-4.0, 5.0, 61)
for alpha_bar in (0.9, 0.5, 0.05):
    scale = np.sqrt(1.0 - alpha_bar)
    means = np.sqrt(alpha_bar) * atoms

    def log_pt(y, means=means, scale=scale):
        z = (y[:, None] - means) / scale
        return logsumexp(-0.5 * z**2 + np.log(weights), axis=1)

    # Optimal noise predictor E[eps | x_t]: posterior over atoms times the noise each atom implies.
    post = softmax(-0.5 * ((x[:, None] - means) / scale) ** 2 + np.log(weights), axis=1)
    eps_opt = np.sum(post * (x[:, None] - means) / scale, axis=1)
    h = 1e-5
    score_fd = (log_pt(x + h) - log_pt(x - h)) / (2 * h)
    check_close(f"-E[eps|x_t]/sqrt(1-abar) vs d/dx log p_t (finite diff), abar={alpha_bar}",
                score_from_eps(eps_opt, alpha_bar), score_fd, rtol=1e-6, atol=1e-6)
    # Tweedie: E[x_0 | x_t] = (x_t + (1 - abar) * score) / sqrt(abar).
    x0_tweedie = (x + (1.0 - alpha_bar) * score_from_eps(eps_opt, alpha_bar)) / np.sqrt(alpha_bar)
    check_close(f"Tweedie denoiser vs posterior mean of x_0, abar={alpha_bar}",
                x0_tweedie, post @ atoms, rtol=1e-9, atol=1e-12)

# Gaussian data in 3-D: train a linear eps-predictor by least squares (the simple-loss minimizer)
# and compare the implied score with the closed-form score of N(sqrt(abar) mu, abar Sigma + (1-abar) I).
d, n, alpha_bar = 3, 200_000, 0.3
mu = np.array([1.0, -2.0, 0.5])
L = rng.normal(size=(d, d)) * 0.5
sigma = L @ L.T + 0.2 * np.eye(d)
x0 = rng.multivariate_normal(mu, sigma, size=n)
eps = rng.standard_normal((n, d))
xt = np.sqrt(alpha_bar) * x0 + np.sqrt(1.0 - alpha_bar) * eps
design = np.hstack([xt, np.ones((n, 1))])
coef, *_ = np.linalg.lstsq(design, eps, rcond=None)
probe = rng.normal(size=(5, d))
score_learned = score_from_eps(np.hstack([probe, np.ones((5, 1))]) @ coef, alpha_bar)
cov_t = alpha_bar * sigma + (1.0 - alpha_bar) * np.eye(d)
score_exact = -np.linalg.solve(cov_t, (probe - np.sqrt(alpha_bar) * mu).T).T
check_close("score from least-squares eps-predictor vs closed-form Gaussian score",
            score_learned, score_exact, rtol=0.03, atol=0.03)
check_true("the score points back toward the noised mean",
           np.all(np.sum(score_exact * (np.sqrt(alpha_bar) * mu - probe), axis=1) > 0))
# The page's calculator is checked against score_from_eps on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): pure noise (abar = 0), nearly clean samples, noise of both signs.
import cardcalc  # noqa: E402

cardcalc.table(lambda eps, abar: float(score_from_eps(np.float64(eps), abar)),
               cardcalc.grid(eps=(-2.0, 0.0, 0.5, 3.0), abar=(0.0, 0.5, 0.9, 0.999999)))


