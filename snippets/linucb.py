"""LinUCB with disjoint linear models (Li et al. 2010, Algorithm 1): the estimate A^-1 b is ridge regression
(numpy lstsq on the augmented system), the Sherman-Morrison inverse equals a fresh numpy inverse, and under a
Gaussian prior the score x^T theta + alpha sqrt(x^T A^-1 x) upper-bounds the true mean with the normal
coverage."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy import stats


# --- formula ---
def linucb_init(n_arms, d):
    """A_a = I_d (kept as its inverse), b_a = 0."""
    return np.tile(np.eye(d), (n_arms, 1, 1)), np.zeros((n_arms, d))


def linucb_scores(A_inv, b, x, alpha):
    """p_a = x_a^T theta_a + alpha sqrt(x_a^T A_a^-1 x_a), theta_a = A_a^-1 b_a.
    A_inv has shape (K, d, d), b and x (K, d)."""
    theta = np.einsum("kij,kj->ki", A_inv, b)
    mean = np.einsum("ki,ki->k", x, theta)
    width = np.sqrt(np.einsum("ki,kij,kj->k", x, A_inv, x))
    return mean + alpha * width, theta, width


def linucb_update(A_inv, b, arm, x, r):
    """A_a <- A_a + x x^T (Sherman-Morrison update of the inverse), b_a <- b_a + r x."""
    Ax = A_inv[arm] @ x
    A_inv[arm] -= np.outer(Ax, Ax) / (1.0 + x @ Ax)
    b[arm] += r * x


# --- end formula ---


rng = np.random.default_rng(0)
d, K = 4, 3

# 1. Feed 60 observations to arm 1 only; arm 1 must hold ridge regression (lambda = 1) of those data.
A_inv, b = linucb_init(K, d)
D = rng.normal(size=(60, d)) * np.array([3.0, 1.0, 0.2, 1.0])
theta_true = np.array([0.5, -1.0, 2.0, 0.3])
y = D @ theta_true + 0.5 * rng.normal(size=60)
for x_i, y_i in zip(D, y, strict=True):
    linucb_update(A_inv, b, 1, x_i, y_i)
check_close(
    "Sherman-Morrison A^-1 = numpy inv(I + D^T D)",
    A_inv[1],
    np.linalg.inv(np.eye(d) + D.T @ D),
    rtol=1e-9,
    atol=1e-12,
)
ridge = np.linalg.lstsq(np.vstack([D, np.eye(d)]), np.concatenate([y, np.zeros(d)]), rcond=None)[0]
xs = rng.normal(size=(K, d))
scores, theta, width = linucb_scores(A_inv, b, xs, 0.7)
check_close("theta_1 = A^-1 b = ridge solution (lstsq on [D; I] theta = [y; 0])", theta[1], ridge, rtol=1e-9)
check_close(
    "untouched arms keep A = I, b = 0: theta = 0 and width = ||x||",
    np.r_[theta[[0, 2]].ravel(), width[[0, 2]]],
    np.r_[np.zeros(2 * d), np.linalg.norm(xs[[0, 2]], axis=1)],
    rtol=1e-12,
    atol=1e-15,
)
check_true(
    "an unexplored arm wins on its bonus alone when alpha is large",
    int(np.argmax(linucb_scores(A_inv, b, xs, 50.0)[0])) != 1,
    f"scores {np.round(scores, 3)}",
)

# 2. Meaning of the width, Bayesian reading: theta* ~ N(0, I), y = D theta* + N(0, 1). The posterior of
#    theta* is N(A^-1 b, A^-1), so x^T theta* lies below the score with probability Phi(alpha).
M = 20000
Dn = rng.normal(size=(25, d))
A_inv, b = linucb_init(1, d)
for x_i in Dn:
    linucb_update(A_inv, b, 0, x_i, 0.0)
thetas = rng.normal(size=(M, d))
ys = thetas @ Dn.T + rng.normal(size=(M, 25))
x0 = np.array([0.3, -1.2, 0.8, 0.5])
A_all = np.repeat(A_inv, M, axis=0)
b_all = ys @ Dn
for alpha in (0.5, 1.645):
    s, _, w = linucb_scores(A_all, b_all, np.tile(x0, (M, 1)), alpha)
    cover = np.mean(thetas @ x0 <= s)
    check_close(
        f"alpha = {alpha}: P(x^T theta* <= score) = Phi(alpha) = {stats.norm.cdf(alpha):.3f} (MC)",
        cover,
        stats.norm.cdf(alpha),
        rtol=0,
        atol=4 * np.sqrt(0.25 / M),
    )
z = (thetas @ x0 - linucb_scores(A_all, b_all, np.tile(x0, (M, 1)), 0.0)[0]) / w
check_close("(x^T theta* - x^T theta_hat) / sqrt(x^T A^-1 x) has unit variance (MC)", z.std(), 1.0, rtol=0.03)

# 3. A short run: 3 arms with true parameters, d = 4, alpha = 1; LinUCB's choices approach the best arm.
thetas_true = rng.normal(size=(K, d))
A_inv, b = linucb_init(K, d)
T = 1500
regret = np.zeros(T)
for t in range(T):
    ctx = rng.normal(size=(K, d))
    arm = int(np.argmax(linucb_scores(A_inv, b, ctx, 1.0)[0]))
    true_means = np.einsum("ki,ki->k", ctx, thetas_true)
    linucb_update(A_inv, b, arm, ctx[arm], true_means[arm] + 0.5 * rng.normal())
    regret[t] = true_means.max() - true_means[arm]
check_true(
    "regret per round falls: last 300 rounds under a fifth of the first 300",
    regret[-300:].sum() < 0.2 * regret[:300].sum(),
    f"{regret[-300:].sum():.1f} vs {regret[:300].sum():.1f}",
)

fig, ax = figure("LinUCB, 3 arms, d = 4 (alpha = 1)", "round t", "cumulative regret")
ax.plot(np.cumsum(regret))
