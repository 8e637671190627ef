"""Adafactor's factored second moment: V_hat = R C / (1^T R) from row and column sums. Exact for rank-1
V, equal to the I-divergence-optimal rank-1 fit (scipy.optimize), consistent with the running
averages, and the mean-based form used by libraries."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.optimize import minimize


# --- formula ---
def factored_estimate(R: np.ndarray, C: np.ndarray) -> np.ndarray:
    """V_hat = R C / (1_n^T R), with R the n row sums and C the m column sums."""
    return np.outer(R, C) / np.sum(R)


def accumulate(R, C, G, beta2, eps1=1e-30):
    """Running averages of the row and column sums of G^2 + eps1 (Shazeer & Stern, Algorithm 4)."""
    G2 = G**2 + eps1
    R = beta2 * R + (1.0 - beta2) * np.sum(G2, axis=1)
    C = beta2 * C + (1.0 - beta2) * np.sum(G2, axis=0)
    return R, C
# --- end formula ---


def i_divergence(V, W):
    """Generalized KL (I-divergence) sum V log(V/W) - V + W."""
    return float(np.sum(V * np.log(V / W) - V + W))


rng = np.random.default_rng(0)
n, m = 4, 6

# 1. Exact when V is rank one (outer product of positive vectors).
a, b = rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, m)
V1 = np.outer(a, b)
check_close("rank-1 V is reproduced exactly", factored_estimate(V1.sum(axis=1), V1.sum(axis=0)), V1,
            rtol=1e-12)

# 2. For a general positive V it is the rank-1 matrix closest in I-divergence: brute-force minimization
#    over positive factors (log-parametrized) with scipy finds the same product.
V = rng.gamma(2.0, size=(n, m))
V_hat = factored_estimate(V.sum(axis=1), V.sum(axis=0))


def objective(x):
    r, s = np.exp(x[:n]), np.exp(x[n:])
    W = np.outer(r, s)
    ratio = 1.0 - V / W                               # d/dW of the divergence
    return i_divergence(V, W), np.concatenate([(ratio * W).sum(axis=1), (ratio * W).sum(axis=0)])


best = minimize(objective, np.zeros(n + m), jac=True, method="BFGS", options={"gtol": 1e-12})
W_opt = np.outer(np.exp(best.x[:n]), np.exp(best.x[n:]))
check_close("R C / 1^T R = argmin of the I-divergence over rank-1 matrices (scipy BFGS)", V_hat, W_opt,
            rtol=1e-6)
check_close("...with the same minimum value", i_divergence(V, V_hat), best.fun, rtol=1e-9)
trials = [i_divergence(V, V_hat * np.outer(np.exp(0.05 * rng.normal(size=n)),
                                           np.exp(0.05 * rng.normal(size=m))))
          for _ in range(200)]
check_true("200 random perturbations of the factors all do worse", min(trials) > i_divergence(V, V_hat),
           f"best perturbed {min(trials):.6f} vs {i_divergence(V, V_hat):.6f}")
check_close("V_hat keeps V's row sums and column sums", [V_hat.sum(axis=1), V_hat.sum(axis=0)[:n]],
            [V.sum(axis=1), V.sum(axis=0)[:n]], rtol=1e-12)
check_true("not exact for a full-rank V", np.abs(V_hat - V).max() > 0.1,
           f"max error {np.abs(V_hat - V).max():.2f}")
check_close("scales with V", factored_estimate(3 * V.sum(axis=1), 3 * V.sum(axis=0)), 3 * V_hat, rtol=1e-12)

# 3. Library form with means (Hugging Face, and the seed with r-bar = mean of r): identical.
r, c = V.mean(axis=1), V.mean(axis=0)
check_close("r_i c_j / mean(r) with r, c row and column means = R C / 1^T R",
            np.outer(r, c) / r.mean(), V_hat, rtol=1e-12)
swapped = np.outer(V.sum(axis=1) / n, V.sum(axis=0) / m) / np.mean(V.sum(axis=1) / n)
check_true("dividing row sums by n and column sums by m (swapped) is off by a factor n/m for n != m",
           np.allclose(swapped * m / n, V_hat, rtol=1e-12) and not np.allclose(swapped, V_hat))

# 4. Running averages: accumulating row/column sums of G^2 equals summing the full EMA of G^2
#    (Adam's v), because sums and averages commute; the estimate is the factorization of that EMA.
R, C = np.zeros(n), np.zeros(m)
Vfull = np.zeros((n, m))
for t in range(1, 21):
    G = rng.normal(size=(n, m)) * np.arange(1, m + 1)
    beta2 = 1.0 - t ** -0.8                           # Adafactor's increasing decay
    R, C = accumulate(R, C, G, beta2)
    Vfull = beta2 * Vfull + (1 - beta2) * (G**2 + 1e-30)
check_close("accumulated R, C = row/column sums of the full EMA of G^2", np.concatenate([R, C]),
            np.concatenate([Vfull.sum(axis=1), Vfull.sum(axis=0)]), rtol=1e-12)
check_close("zero gradients leave eps1 = 1e-30 per entry: R = (1 - beta2) m eps1",
            accumulate(np.zeros(n), np.zeros(m), np.zeros((n, m)), 0.9)[0], np.full(n, 0.1 * m * 1e-30),
            rtol=1e-12)

# 5. Memory: n + m numbers instead of n m, e.g. a 4096 x 16384 MLP matrix.
rows, cols = 4096, 16384
check_true("4096 x 16384: 20 480 statistics instead of 67 108 864 (0.03%)",
           rows + cols == 20_480 and rows * cols == 67_108_864, f"ratio {(rows + cols) / (rows * cols):.2e}")
