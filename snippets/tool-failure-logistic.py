"""Logistic failure-probability model for tool calls: stable sigmoid, log loss, Newton fit and chain
failure, checked against scipy.special.expit, scikit-learn's LogisticRegression, finite differences,
known generating weights and Monte-Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import approx_fprime
from scipy.special import expit
from sklearn.linear_model import LogisticRegression


# --- formula ---
def sigmoid(z):
    """sigma(z) = 1 / (1 + e^-z), evaluated without overflow for any z."""
    z = np.asarray(z, dtype=float)
    out = np.empty_like(z)
    split = 0.0  # equivalent: both branches are exact for |z| <= 1, so where they meet in it is free
    pos = z >= split
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def fail_prob(w, b, phi):
    """P(fail | context, tool) = sigma(w^T phi(context, tool) + b)."""
    return sigmoid(np.asarray(phi, dtype=float) @ w + b)


def log_loss(w, b, phi, y):
    """Mean negative log-likelihood of outcomes y (1 = failed): log(1 + e^z) - y z."""
    z = np.asarray(phi, dtype=float) @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def fit(phi, y, l2, steps=60):  # equivalent: 60 or 61 Newton steps both end at machine precision
    """Newton's method on sum_i loss_i + (l2 / 2) ||w||^2; the bias b is not penalized."""
    x = np.hstack([phi, np.ones((len(y), 1))])
    theta = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = sigmoid(x @ theta)
        grad = x.T @ (p - y) + reg * theta
        hess = (x.T * (p * (1.0 - p))) @ x + np.diag(reg)
        theta = theta - np.linalg.solve(hess, grad)
    return theta[:-1], theta[-1]


def chain_failure(step_fail_probs):
    """P(a chain of independent steps fails) = 1 - prod_i (1 - p_i)."""
    return 1.0 - np.prod(1.0 - np.asarray(step_fail_probs, dtype=float))
# --- end formula ---


rng = np.random.default_rng(0)

# Stable sigmoid over logits spanning +-800 (naive exp overflows at |z| > 709).
z = np.concatenate([np.linspace(-800, 800, 41), [-1e-3, 0.0, 1e-3, 37.0, -37.0]])
check_close("sigmoid vs scipy.special.expit for z in [-800, 800] (atol for subnormals)", sigmoid(z), expit(z),
            rtol=1e-12, atol=1e-300)
check_true("no overflow at the ends: sigmoid(-800) < 1e-300 and sigmoid(800) = 1",
           0.0 <= sigmoid(np.array([-800.0]))[0] < 1e-300 and sigmoid(np.array([800.0]))[0] == 1.0)

# Synthetic tool-call log: features = [timeout-prone tool, long argument, retries so far, network error].
n, true_w, true_b = 6000, np.array([1.2, 0.8, -0.5, 2.0]), -1.5
phi = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n), rng.poisson(1.0, n),
                       rng.integers(0, 2, n)]).astype(float)
y = (rng.random(n) < expit(phi @ true_w + true_b)).astype(float)

w_hat, b_hat = fit(phi, y, l2=1.0)
sk = LogisticRegression(C=1.0, tol=1e-12, max_iter=10000).fit(phi, y)
check_close("Newton fit vs sklearn LogisticRegression(C = 1): weights", w_hat, sk.coef_[0], rtol=1e-5)
check_close("Newton fit vs sklearn LogisticRegression(C = 1): bias", b_hat, sk.intercept_[0], rtol=1e-5)
check_close("fitted failure probabilities vs sklearn predict_proba", fail_prob(w_hat, b_hat, phi[:50]),
            sk.predict_proba(phi[:50])[:, 1], rtol=1e-5)
sk_weak = LogisticRegression(C=0.01, tol=1e-12, max_iter=10000).fit(phi, y)
check_close("strong penalty (l2 = 100 <-> C = 0.01) also matches sklearn",
            np.append(*fit(phi, y, l2=100.0)), np.append(sk_weak.coef_[0], sk_weak.intercept_[0]), rtol=1e-5)
check_close("recovers the generating weights within 0.15 on 6000 calls", np.append(w_hat, b_hat),
            np.append(true_w, true_b), atol=0.15)

# One Newton step from zero is a weighted least-squares (IRLS) solve: weights p(1 - p) = 1/4 and
# working response (y - 1/2) / (1/4); the ridge term enters as extra rows sqrt(l2) * I.
x_aug = np.hstack([phi, np.ones((n, 1))])
ridge = np.sqrt(np.diag([1.0] * 4 + [0.0]))
design = np.vstack([0.5 * x_aug, ridge])
target = np.concatenate([0.5 * (y - 0.5) / 0.25, np.zeros(5)])
irls = np.linalg.lstsq(design, target, rcond=None)[0]
check_close("first Newton step = weighted least squares from numpy.linalg.lstsq",
            np.append(*fit(phi, y, 1.0, 1)), irls, rtol=1e-8)

# The fitted optimum has zero gradient of the penalized loss: check by finite differences.
def penalized(theta):
    return n * log_loss(theta[:-1], theta[-1], phi, y) + 0.5 * np.sum(theta[:-1] ** 2)


theta_hat = np.append(w_hat, b_hat)
fd = approx_fprime(theta_hat, penalized, 1e-6)
check_true("finite-difference gradient of the penalized loss vanishes at the fit", np.max(np.abs(fd)) < 1e-2,
           f"max |grad| {np.max(np.abs(fd)):.1e}")
z_true = phi @ true_w + true_b
check_close("log loss vs scipy log-likelihood of expit probabilities", log_loss(true_w, true_b, phi, y),
            -np.mean(y * np.log(expit(z_true)) + (1 - y) * np.log(expit(-z_true))), rtol=1e-10)

# Chain of steps: P(some step fails), vs simulation and the compounding-success card's p^k form.
p_steps = fail_prob(w_hat, b_hat, phi[:6])
sims = (rng.random((200000, 6)) < p_steps).any(axis=1).mean()
check_close("chain failure 1 - prod(1 - p_i) vs simulation (4 standard errors)", chain_failure(p_steps), sims,
            atol=4 * np.sqrt(0.25 / 200000))
check_close("equal steps: 1 - (1 - 0.1)^10 = 0.6513215599", chain_failure([0.1] * 10), 0.6513215599,
            rtol=1e-9)

fig, ax = figure("Predicted failure probability of a tool call", "logit w^T phi + b", "P(fail)")
grid = np.linspace(-6, 6, 200)
ax.plot(grid, sigmoid(grid))
zz = phi @ w_hat + b_hat
bins = np.linspace(-4, 4, 17)
idx = np.digitize(zz, bins)
centers = [zz[idx == i].mean() for i in range(1, len(bins)) if np.sum(idx == i) > 30]
rates = [y[idx == i].mean() for i in range(1, len(bins)) if np.sum(idx == i) > 30]
ax.plot(centers, rates, "o", label="observed failure rate per logit bin")
ax.legend()
