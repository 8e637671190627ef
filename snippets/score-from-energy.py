"""Score of an EBM: -grad E vs finite differences of scipy's normalized log-density; Z drops out."""

import numpy as np
from cardcheck import check_close
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

# Energy of a 2-D Gaussian mixture without its global normalizer 2 pi:
# E(x) = -log sum_k (w_k / s_k^2) exp(-|x - mu_k|^2 / (2 s_k^2)).
w = np.array([0.5, 0.3, 0.2])
mus = np.array([[-2.0, 0.0], [2.0, 1.0], [0.0, -2.5]])
sds = np.array([0.8, 1.0, 0.6])


def energy(x: np.ndarray) -> np.ndarray:
    sq = ((x[:, None, :] - mus[None]) ** 2).sum(-1)
    return -logsumexp(np.log(w / sds**2) - sq / (2 * sds**2), axis=1)


# --- formula ---
def score(x: np.ndarray) -> np.ndarray:
    """grad_x log p(x) = -grad_x E(x): responsibility-weighted pulls toward the component means."""
    sq = ((x[:, None, :] - mus[None]) ** 2).sum(-1)
    logits = np.log(w / sds**2) - sq / (2 * sds**2)
    resp = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))          # (n, K)
    minus_grad_energy = -(x[:, None, :] - mus[None]) / (sds**2)[None, :, None]   # -grad of each sq/(2s^2)
    return (resp[:, :, None] * minus_grad_energy).sum(1)
# --- end formula ---


def log_p(x: np.ndarray) -> np.ndarray:
    """Properly normalized mixture density from scipy (a different constant per component)."""
    comps = [np.log(wk) + multivariate_normal(mk, sk**2 * np.eye(2)).logpdf(x)
             for wk, mk, sk in zip(w, mus, sds, strict=True)]
    return logsumexp(np.stack(comps, 1), axis=1)


rng = np.random.default_rng(0)
x = rng.normal(size=(40, 2)) * 2
h = 1e-5
fd_log_p = np.stack([(log_p(x + h * e) - log_p(x - h * e)) / (2 * h) for e in np.eye(2)], 1)
check_close("-grad E (analytic) vs finite differences of scipy's normalized log p", score(x), fd_log_p,
            rtol=1e-6, atol=1e-8)
fd_energy = np.stack([(energy(x + h * e) - energy(x - h * e)) / (2 * h) for e in np.eye(2)], 1)
check_close("score = minus the finite-difference gradient of the energy", score(x), -fd_energy,
            rtol=1e-6, atol=1e-8)
check_close("log p + E = -log Z at every x (here Z = 2 pi), a constant with no gradient",
            log_p(x) + energy(x), np.full(len(x), -np.log(2 * np.pi)), rtol=1e-10)
