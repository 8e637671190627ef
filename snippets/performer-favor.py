"""FAVOR+: positive random features are exact in expectation (Gauss-Hermite quadrature), unbiased
by Monte Carlo, match Lemma 2's variance, and the attention error falls like 1/sqrt(m)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import softmax as scipy_softmax
from scipy.stats import ortho_group


# --- formula ---
def positive_random_features(x, omega, weights=None):
    """phi(x)_r = sqrt(c_r) exp(omega_r . x - |x|^2 / 2); c_r = 1/m for m random draws."""
    m = omega.shape[0]
    if weights is None:
        weights = np.full(m, 1.0 / m)
    return np.sqrt(weights) * np.exp(x @ omega.T - 0.5 * np.sum(x**2, axis=1, keepdims=True))


def favor_attention(q, k, v, omega, weights=None):
    """D^-1 phi(Q) (phi(K)^T V): softmax(QK^T/sqrt(d)) V without the L x L matrix; inputs
    are scaled by d^(-1/4) so that phi(q).phi(k) estimates exp(q.k / sqrt(d))."""
    scale = q.shape[1] ** -0.25
    qp = positive_random_features(q * scale, omega, weights)
    kp = positive_random_features(k * scale, omega, weights)
    numerator = qp @ (kp.T @ v)
    normalizer = qp @ kp.sum(axis=0)
    return numerator / normalizer[:, None]


def orthogonal_gaussian(m, d, rng):
    """m draws with rows exactly orthogonal within each block of d (rows of Haar-random orthogonal
    matrices), each rescaled to the length of an independent N(0, I_d) vector, so that every row
    is still N(0, I_d)."""
    n_blocks = -(-m // d)
    directions = ortho_group.rvs(d, size=n_blocks, random_state=rng).reshape(n_blocks * d, d)[:m]
    return directions * np.linalg.norm(rng.normal(size=(m, d)), axis=1)[:, None]
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Exact expectation by quadrature. With omega on a 2-D Gauss-Hermite grid and c_r the grid
#    weights, sum_r phi_r(x) phi_r(y) IS E_omega[...], which Lemma 1 says equals exp(x.y).
nodes, w1 = hermegauss(40)                                   # weight exp(-t^2/2), sum = sqrt(2 pi)
grid = np.array([[a, b] for a in nodes for b in nodes])
gw = np.array([wa * wb for wa in w1 for wb in w1]) / (2 * np.pi)
X, Y = rng.normal(size=(5, 2)), rng.normal(size=(6, 2))
kernel = positive_random_features(X, grid, gw) @ positive_random_features(Y, grid, gw).T
check_close("E[phi(x).phi(y)] = exp(x.y) (quadrature over omega, d = 2)", kernel, np.exp(X @ Y.T),
            rtol=1e-11)
single = positive_random_features(X, grid, np.ones(len(grid))) * positive_random_features(
    Y[:1], grid, np.ones(len(grid)))                         # one-draw estimator Y(omega_r)
A2 = np.sum((X + Y[:1]) ** 2, axis=1)
check_close("Lemma 2: E[Y^2] = exp(2 x.y) exp(|x+y|^2) (quadrature)", single**2 @ gw,
            np.exp(2 * X @ Y[0]) * np.exp(A2), rtol=1e-9)
check_true("every feature is positive", bool(np.all(positive_random_features(X, grid) > 0)))

# The same quadrature turns FAVOR+ attention into exact softmax attention (d = 2).
Q2, K2, V2 = rng.normal(size=(7, 2)), rng.normal(size=(9, 2)), rng.normal(size=(9, 3))
check_close("FAVOR+ with quadrature features = softmax(QK^T/sqrt(d))V exactly",
            favor_attention(Q2, K2, V2, grid, gw),
            scipy_softmax(Q2 @ K2.T / np.sqrt(2), axis=1) @ V2, rtol=1e-11)

# 2. With m random draws, the estimate is the sample mean of m one-draw estimates.
d = 16
q, k = 0.15 * rng.normal(size=(1, d)), 0.15 * rng.normal(size=(1, d))
om = rng.normal(size=(64, d))
check_close("phi(q).phi(k) = mean_r exp(w_r.(q+k)) exp(-(|q|^2+|k|^2)/2)",
            positive_random_features(q, om) @ positive_random_features(k, om).T,
            np.mean(np.exp(om @ (q + k).T)) * np.exp(-(q @ q.T + k @ k.T) / 2), rtol=1e-12)

# 3. Monte Carlo unbiasedness: 20000 independent sets of m = 8 features. The sample mean must lie
#    within 4 standard errors of exp(q.k); the sample variance within 12% (about 4 SE) of Lemma 2's MSE / m.
target = np.exp(q @ k.T).item()
draws = np.array([(positive_random_features(q, w) @ positive_random_features(k, w).T).item()
                  for w in rng.normal(size=(20000, 8, d))])
se = draws.std() / np.sqrt(len(draws))
check_true("iid features: mean over 20000 draws within 4 SE of exp(q.k)",
           abs(draws.mean() - target) < 4 * se, f"{draws.mean():.5f} vs {target:.5f}, SE {se:.1e}")
a2 = float(np.sum((q + k) ** 2))
check_close("sample variance vs Lemma 2: exp(|q+k|^2) SM^2 (1 - exp(-|q+k|^2)) / m", draws.var(),
            np.exp(a2) * target**2 * (1 - np.exp(-a2)) / 8, rtol=0.12)
orf = np.array([(positive_random_features(q, w) @ positive_random_features(k, w).T).item()
                for w in (orthogonal_gaussian(8, d, rng) for _ in range(20000))])
check_true("orthogonal features: mean within 4 SE of exp(q.k)",
           abs(orf.mean() - target) < 4 * orf.std() / np.sqrt(len(orf)), f"{orf.mean():.5f}")
check_true("orthogonal features have lower variance than iid", orf.var() < draws.var(),
           f"{orf.var():.2e} vs {draws.var():.2e}")

# Orthogonal draws: exactly orthogonal within a block, and marginally N(0, I).
W = orthogonal_gaussian(2 * d + 3, d, rng)
check_true("orthogonal_gaussian(m = 2d + 3) returns m rows", W.shape == (2 * d + 3, d), str(W.shape))
U = W[:d] / np.linalg.norm(W[:d], axis=1, keepdims=True)
check_close("directions in a block are orthonormal", U @ U.T, np.eye(d), rtol=0, atol=1e-12)
many = np.vstack([orthogonal_gaussian(d, d, rng) for _ in range(2000)])
check_close("second moment E[w w^T] = I (32000 rows, Monte Carlo)", many.T @ many / len(many),
            np.eye(d), rtol=0, atol=0.06)

# 4. Attention error vs number of features m.
L, d, d_v = 64, 16, 8
Q, K, V = (0.5 * rng.normal(size=(L, d)), 0.5 * rng.normal(size=(L, d)), rng.normal(size=(L, d_v)))
exact = scipy_softmax(Q @ K.T / np.sqrt(d), axis=1) @ V
ms = np.array([16, 64, 256, 1024, 4096])
err_iid, err_orf = [], []
for m in ms:
    e_i = [np.abs(favor_attention(Q, K, V, rng.normal(size=(m, d))) - exact).mean() for _ in range(8)]
    e_o = [np.abs(favor_attention(Q, K, V, orthogonal_gaussian(m, d, rng)) - exact).mean()
           for _ in range(8)]
    err_iid.append(np.mean(e_i))
    err_orf.append(np.mean(e_o))
slope = np.polyfit(np.log(ms), np.log(err_iid), 1)[0]
check_true("error shrinks with m at about m^(-1/2) (log-log slope in [-0.65, -0.35])",
           -0.65 < slope < -0.35, f"slope {slope:.2f}, error {err_iid[0]:.3f} -> {err_iid[-1]:.4f}")
check_true("orthogonal features: smaller error at every m", bool(np.all(np.array(err_orf) < err_iid)),
           " ".join(f"{a:.4f}<{b:.4f}" for a, b in zip(err_orf, err_iid, strict=True)))

# --- in code: torch ---
import torch  # noqa: E402


def torch_features(x, omega):
    """phi(x) = exp(omega x - |x|^2 / 2) / sqrt(m), written with torch."""
    return torch.exp(x @ omega.T - (x**2).sum(dim=-1, keepdim=True) / 2) / np.sqrt(omega.shape[0])


omega_t = torch.tensor(orthogonal_gaussian(64, d, np.random.default_rng(1)))
q_s, k_s = torch.tensor(Q) * d**-0.25, torch.tensor(K) * d**-0.25        # d^(-1/4) on each side: 1/sqrt(d)
phi_q, phi_k = torch_features(q_s, omega_t), torch_features(k_s, omega_t)
# Sums of 16 and 64 products of exponentials of O(1), a few ulps each: 1e-12.
check_close("phi(Q') (phi(K')^T V) / (phi(Q') phi(K')^T 1), written in torch = FAVOR+",
            ((phi_q @ (phi_k.T @ torch.tensor(V))) / (phi_q @ phi_k.sum(dim=0))[:, None]).numpy(),
            favor_attention(Q, K, V, omega_t.numpy()), rtol=1e-12, atol=1e-14)
# torch.nn.init.orthogonal_ gives orthonormal rows: unit length, where the card's draws must be
# N(0, I_d), about sqrt(d) long. Used as they are, the features estimate the wrong kernel.
gen = torch.Generator().manual_seed(0)
blocks = [torch.nn.init.orthogonal_(torch.empty(d, d, dtype=torch.float64), generator=gen)
          for _ in range(4000)]
check_close("torch.nn.init.orthogonal_ rows have length 1, not the N(0, I_d) draws' ~sqrt(d)",
            torch.linalg.vector_norm(blocks[0], dim=1).numpy(), np.ones(d), rtol=1e-12)
unit = np.array([(torch_features(torch.tensor(q), w) @ torch_features(torch.tensor(k), w).T).item()
                 for w in blocks])
lengths = torch.linalg.vector_norm(torch.randn(len(blocks), d, 1, generator=gen, dtype=torch.float64), dim=1)
scaled = np.array([(torch_features(torch.tensor(q), w * n) @ torch_features(torch.tensor(k), w * n).T).item()
                   for w, n in zip(blocks, lengths, strict=True)])
# Monte Carlo over 4000 blocks of 16 features: 4 standard errors, computed from the draws.
check_true("pitfall: unit-length rows estimate a kernel well below exp(q.k) (more than 20 SE off)",
           target - unit.mean() > 20 * unit.std() / np.sqrt(len(unit)),
           f"{unit.mean():.4f} vs exp(q.k) = {target:.4f}")
check_true("fix: each row times the length of an N(0, I_d) draw: within 4 SE of exp(q.k)",
           abs(scaled.mean() - target) < 4 * scaled.std() / np.sqrt(len(scaled)),
           f"{scaled.mean():.4f} vs {target:.4f}")
# --- end in code ---

fig, ax = figure("FAVOR+ vs exact softmax attention (L = 64, d = 16)",
                 "number of random features m", "mean |error| of the output")
ax.loglog(ms, err_iid, "o-", label="iid Gaussian features")
ax.loglog(ms, err_orf, "s-", label="orthogonal features")
ax.loglog(ms, err_iid[0] * np.sqrt(ms[0] / ms), ":", color="gray", label=r"$\propto m^{-1/2}$")
ax.legend()
