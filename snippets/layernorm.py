"""LayerNorm: checked against scipy.stats.zscore, a scalar loop, and shift/scale invariance."""

import statistics

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import zscore


# --- formula ---
def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """gamma * (x - mu) / sqrt(sigma^2 + eps) + beta, statistics over the last axis."""
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
# --- end formula ---


rng = np.random.default_rng(0)
T, d = 5, 16
x = rng.normal(loc=3.0, scale=4.0, size=(T, d))
gamma = rng.normal(size=d)
beta = rng.normal(size=d)

# scipy's z-score (population standard deviation, ddof=0) is LN with eps = 0, gamma = 1, beta = 0.
check_close("LN(eps=0) vs scipy.stats.zscore per token", layer_norm(x, 1.0, 0.0, eps=0.0),
            zscore(x, axis=-1, ddof=0), rtol=1e-12, atol=1e-14)

# Scalar reference with the standard library and eps inside the square root.
eps = 1e-5
reference = np.array([[gamma[i] * (row[i] - statistics.fmean(row))
                       / (statistics.pvariance(row) + eps) ** 0.5 + beta[i] for i in range(d)]
                      for row in x.tolist()])
check_close("LN with gain, bias, eps vs a scalar statistics-module loop",
            layer_norm(x, gamma, beta, eps), reference, rtol=1e-12, atol=1e-13)

# The default eps is 1e-5 (torch.nn.LayerNorm's default; the paper has none). Test it where it
# matters: tokens scaled down to a variance of ~1.6e-5, comparable to eps.
x_small = 1e-3 * x
reference_small = np.array([[gamma[i] * (row[i] - statistics.fmean(row))
                             / (statistics.pvariance(row) + 1e-5) ** 0.5 + beta[i] for i in range(d)]
                            for row in x_small.tolist()])
check_close("default eps = 1e-5 on small-variance tokens vs the scalar loop",
            layer_norm(x_small, gamma, beta), reference_small, rtol=1e-12, atol=1e-13)

y = layer_norm(x, 1.0, 0.0, eps=0.0)
check_true("normalized tokens have mean 0 and population variance 1",
           np.allclose(y.mean(axis=-1), 0, atol=1e-12) and np.allclose(y.var(axis=-1), 1, atol=1e-12))
check_close("invariant to x -> 2.5 x + 7 (eps = 0)", layer_norm(2.5 * x + 7.0, gamma, beta, 0.0),
            layer_norm(x, gamma, beta, 0.0), rtol=1e-10, atol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402

xt = torch.tensor(x)
check_close("F.layer_norm(x, (d,), gamma, beta) = LN: eps = 1e-5 inside the root, variance over d",
            torch.nn.functional.layer_norm(xt, (d,), torch.tensor(gamma), torch.tensor(beta)).numpy(),
            layer_norm(x, gamma, beta), rtol=1e-12, atol=1e-13)
unbiased = (xt - xt.mean(-1, keepdim=True)) / torch.sqrt(xt.var(-1, keepdim=True))  # eps 0, gain 1
check_close("pitfall: torch.var divides by d - 1 unless correction=0, so LN written with it is "
            "sqrt((d - 1) / d) times the card's", unbiased.numpy(),
            layer_norm(x, 1.0, 0.0, eps=0.0) * np.sqrt((d - 1) / d), rtol=1e-12, atol=1e-14)
# --- end in code ---
