"""EBM gradient E_data[dE] - E_model[dE] (exact enumeration) vs finite differences of the NLL."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp

# A fully visible Boltzmann machine on {0,1}^5: E_theta(x) = -b.x - sum_{i<j} W_ij x_i x_j, theta = (b, W).
n = 5
states = np.array(list(itertools.product([0, 1], repeat=n)), dtype=float)   # all 32 configurations
iu = np.triu_indices(n, 1)


def features(x: np.ndarray) -> np.ndarray:
    """-dE/dtheta: the sufficient statistics (x_i, x_i x_j for i < j)."""
    return np.concatenate([x, (x[:, :, None] * x[:, None, :])[:, iu[0], iu[1]]], axis=1)


PHI = features(states)


def energy(theta: np.ndarray, x_feats: np.ndarray) -> np.ndarray:
    return -x_feats @ theta


def nll(theta: np.ndarray, data_feats: np.ndarray) -> float:
    """Mean negative log-likelihood with the exact log Z from enumerating every state."""
    return float(np.mean(energy(theta, data_feats)) + logsumexp(-energy(theta, PHI)))


# --- formula ---
def nll_gradient(theta: np.ndarray, data_feats: np.ndarray) -> np.ndarray:
    """E_data[grad_theta E] - E_model[grad_theta E]; here grad_theta E = -features."""
    p_model = np.exp(-energy(theta, PHI) - logsumexp(-energy(theta, PHI)))
    return -data_feats.mean(axis=0) - (-(p_model @ PHI))
# --- end formula ---


rng = np.random.default_rng(0)
theta = rng.normal(size=PHI.shape[1]) * 0.5
data = states[rng.choice(len(states), size=300, p=rng.dirichlet(np.ones(len(states))))]
data_feats = features(data)

h = 1e-6
fd = np.array([(nll(theta + h * e, data_feats) - nll(theta - h * e, data_feats)) / (2 * h)
               for e in np.eye(len(theta))])
check_close("E_data[dE] - E_model[dE] vs central differences of the exact NLL",
            nll_gradient(theta, data_feats), fd, rtol=1e-6, atol=1e-8)

# In practice E_model is estimated from model samples (e.g. MCMC); with exact samples it converges.
samples = states[rng.choice(len(states), size=400_000, p=np.exp(-energy(theta, PHI)
                                                            - logsumexp(-energy(theta, PHI))))]
mc_grad = -data_feats.mean(axis=0) + features(samples).mean(axis=0)
check_close("sampled negative phase vs exact gradient (atol 0.005)", mc_grad,
            nll_gradient(theta, data_feats), atol=5e-3)

# Gradient descent with the formula drives the NLL down to the moment-matching optimum.
t = theta.copy()
for _ in range(3000):
    t -= 0.5 * nll_gradient(t, data_feats)
check_true("descent on the formula lowers the NLL and matches moments",
           nll(t, data_feats) < nll(theta, data_feats)
           and np.max(np.abs(nll_gradient(t, data_feats))) < 1e-4,
           f"NLL {nll(theta, data_feats):.4f} -> {nll(t, data_feats):.4f}")
