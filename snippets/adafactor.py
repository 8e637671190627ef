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

# --- in code: torch ---
import torch  # noqa: E402

# A gradient whose square is the card's V, taken once: Adafactor's first beta2 is 1 - 1^-0.8 = 0, so its
# statistics are exactly those of V. One step from theta0; a handful of float64 operations per entry,
# so rtol 1e-12 is thousands of ulps.
G = np.sqrt(V)
theta0 = V - 1.0
x = torch.tensor(theta0, requires_grad=True)
opt = torch.optim.Adafactor([x], lr=0.01)
x.grad = torch.tensor(G)
opt.step()
state = opt.state[x]
check_close("Adafactor's row_var, col_var are the row and column means: m row_var = R, n col_var = C",
            np.concatenate([m * state["row_var"].numpy().ravel(), n * state["col_var"].numpy().ravel()]),
            np.concatenate([V.sum(axis=1), V.sum(axis=0)]), rtol=1e-12)
direction = G / np.sqrt(V_hat)
rms = lambda a: np.sqrt(np.mean(a**2))  # noqa: E731
check_close("pitfall: lr is not the step size: the step is min(lr, 1/sqrt t) max(1e-3, RMS(theta)) "
            "G / sqrt(V_hat), then clipped to RMS 1",
            theta0 - x.detach().numpy(), 0.01 * max(1e-3, rms(theta0)) * direction / max(1.0, rms(direction)),
            rtol=1e-12)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
# Same one step of G = sqrt(V); optax adds eps1 = 1e-30 to G^2, 1e-30 relative to V's entries here.


def factored_rms_step(**options):
    """optax.scale_by_factored_rms's first update of G (its first decay is 0, so it sees G^2 alone)."""
    scaling = optax.scale_by_factored_rms(**options)
    params = jax.numpy.asarray(theta0)
    return np.asarray(scaling.update(jax.numpy.asarray(G), scaling.init(params), params)[0])


check_close("scale_by_factored_rms(min_dim_size_to_factor=1) scales G by 1 / sqrt(V_hat)",
            factored_rms_step(min_dim_size_to_factor=1), G / np.sqrt(V_hat), rtol=1e-12)
check_close("pitfall: by default only matrices with two dimensions >= 128 are factored: this 4 x 6 "
            "keeps the full V", factored_rms_step(), G / np.sqrt(V), rtol=1e-12)
# --- end in code ---
