"""Logistic risk model P(y = 1 | x) = sigma(w^T phi(x) + b) for tool-call failure and safety screening:
stable sigmoid vs scipy expit at +-800, log loss vs scikit-learn, gradient vs finite differences, Newton
fit vs LogisticRegression (penalised and not) and vs a weighted least-squares first step, mean prediction
= base rate, held-out calibration, and chain failure 1 - prod(1 - p_i) vs Monte-Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss


# --- formula ---
def sigmoid(z):
    """sigma(z) = 1 / (1 + e^-z) without overflow: e^-|z| never exceeds 1."""
    ez = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + ez), ez / (1.0 + ez))


def risk(w, b, phi):
    """P(y = 1 | x) = sigma(w^T phi(x) + b) for each row phi(x) of phi."""
    return sigmoid(phi @ w + b)


def design(phi, l2):
    """Features with a constant column for the bias; the L2 penalty skips the bias."""
    x = np.hstack([phi, np.ones((len(phi), 1))])
    reg = np.full(x.shape[1], l2)
    reg[-1] = 0.0
    return x, reg


def objective(theta, x, y, reg):
    """sum_i [log(1 + e^z_i) - y_i z_i] + (l2 / 2) ||w||^2 with z = x theta, theta = (w, b)."""
    z = x @ theta
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(reg * theta ** 2)


def gradient(theta, x, y, reg):
    return x.T @ (sigmoid(x @ theta) - y) + reg * theta


def hessian(theta, x, reg):
    p = sigmoid(x @ theta)
    return (x.T * (p * (1.0 - p))) @ x + np.diag(reg)


def fit(phi, y, l2, steps):
    """Newton's method (IRLS) from zero; returns (w, b)."""
    x, reg = design(phi, l2)
    theta = np.zeros(x.shape[1])
    for _ in range(steps):
        theta = theta - np.linalg.solve(hessian(theta, x, reg), gradient(theta, x, y, reg))
    return theta[:-1], theta[-1]


def chain_failure(p_steps):
    """P(at least one of several independent steps fails) = 1 - prod_i (1 - p_i)."""
    return 1.0 - np.prod(1.0 - p_steps)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The link, on logits spanning +-800 (a naive exp(-z) overflows below -709).
z = np.concatenate([np.linspace(-800.0, 800.0, 41), [-37.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 37.0]])
check_close("sigmoid vs scipy.special.expit, z in [-800, 800] (atol for subnormals)", sigmoid(z), expit(z),
            rtol=1e-14, atol=1e-300)
check_true("no overflow at the ends: sigmoid(-800) < 1e-300 and sigmoid(800) = 1",
           0.0 <= sigmoid(-800.0) < 1e-300 and sigmoid(800.0) == 1.0)

# 2. Use 1: a log of 6000 tool calls, features [flaky tool, argument length (z-score), retries so far,
#    network error], label 1 = the call failed.
n, w_tool, b_tool = 6000, np.array([1.2, 0.8, -0.5, 2.0]), -1.5
phi = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n), rng.poisson(1.0, n),
                       rng.integers(0, 2, n)]).astype(float)
y = (rng.random(n) < expit(phi @ w_tool + b_tool)).astype(float)
x, reg = design(phi, 1.0)
theta0 = np.append(w_tool, b_tool)

check_close("data term of the objective (l2 = 0) vs sklearn.metrics.log_loss(normalize=False)",
            objective(theta0, x, y, reg * 0.0), log_loss(y, expit(x @ theta0), normalize=False), rtol=1e-10)
theta1 = rng.normal(size=5)  # away from any optimum, so the gradient is far from zero
fd = np.array([(objective(theta1 + 1e-5 * e, x[:300], y[:300], reg)
                - objective(theta1 - 1e-5 * e, x[:300], y[:300], reg)) / 2e-5 for e in np.eye(5)])
check_close("gradient of the penalised objective vs central finite differences (300 calls)",
            gradient(theta1, x[:300], y[:300], reg), fd, rtol=1e-6, atol=1e-6)

w_hat, b_hat = fit(phi, y, 1.0, 25)
sk = LogisticRegression(C=1.0, tol=1e-12, max_iter=10000).fit(phi, y)
check_close("Newton fit (l2 = 1) vs sklearn LogisticRegression(C = 1): weights and bias",
            np.append(w_hat, b_hat), np.append(sk.coef_[0], sk.intercept_[0]), rtol=1e-6)
check_close("P(fail | x) vs sklearn predict_proba", risk(w_hat, b_hat, phi[:50]),
            sk.predict_proba(phi[:50])[:, 1], rtol=1e-6)
sk_strong = LogisticRegression(C=0.01, tol=1e-12, max_iter=10000).fit(phi, y)
check_close("strong penalty (l2 = 100 <-> C = 0.01) also matches sklearn", np.append(*fit(phi, y, 100.0, 25)),
            np.append(sk_strong.coef_[0], sk_strong.intercept_[0]), rtol=1e-6)
check_close("recovers the generating weights and bias within 0.15 on 6000 calls", np.append(w_hat, b_hat),
            theta0, atol=0.15)
check_close("bias is unpenalised, so even the penalised fit predicts the base rate on average",
            risk(w_hat, b_hat, phi).mean(), y.mean(), rtol=1e-10)

# One Newton step from zero is a weighted least-squares solve (IRLS): weights p(1 - p) = 1/4, working
# response (y - 1/2) / (1/4); the ridge enters as extra rows sqrt(l2) on the weights only.
ridge_rows = np.diag([1.0, 1.0, 1.0, 1.0, 0.0])
wls = np.linalg.lstsq(np.vstack([0.5 * x, ridge_rows]),
                      np.concatenate([0.5 * (y - 0.5) / 0.25, np.zeros(5)]), rcond=None)[0]
check_close("first Newton step = weighted least squares (numpy.linalg.lstsq)",
            np.append(*fit(phi, y, 1.0, 1)), wls, rtol=1e-9)

# A plan of 6 calls: P(some call fails), by simulation and by an exact value.
p_steps = risk(w_hat, b_hat, phi[:6])
sims = (rng.random((200000, 6)) < p_steps).any(axis=1).mean()
check_close("chain failure 1 - prod(1 - p_i) vs Monte-Carlo (4 standard errors)", chain_failure(p_steps),
            sims, atol=4 * np.sqrt(0.25 / 200000))
check_close("ten steps at p = 0.1: 1 - 0.9^10 = 0.6513215599", chain_failure(np.full(10, 0.1)), 0.6513215599,
            rtol=1e-9)

# 3. Use 2: a safety head on 8-d representations h_x (3000 labelled inputs, about 1 in 6 unsafe),
#    fitted without penalty.
d = 8
H = rng.normal(size=(3000, d))
w_safe = rng.normal(size=d)
y_safe = (rng.random(3000) < expit(H @ w_safe - 2.0)).astype(float)
w_s, b_s = fit(H, y_safe, 0.0, 25)
sk0 = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=200).fit(H, y_safe)
check_close("unpenalised Newton fit vs sklearn LogisticRegression(C = inf)", np.append(w_s, b_s),
            np.append(sk0.coef_[0], sk0.intercept_[0]), rtol=0, atol=1e-6)
check_close("calibrated in the large: mean P(unsafe) = fraction unsafe (score equation for b)",
            risk(w_s, b_s, H).mean(), y_safe.mean(), rtol=0, atol=1e-12)

# Held-out reliability: in quintile bins of predicted risk, the observed unsafe rate tracks the prediction.
Ht = rng.normal(size=(20000, d))
yt = rng.random(20000) < expit(Ht @ w_safe - 2.0)
pt = risk(w_s, b_s, Ht)
bins = np.minimum(np.searchsorted(np.quantile(pt, np.linspace(0, 1, 6)), pt, side="right") - 1, 4)
pred_mean = np.array([pt[bins == k].mean() for k in range(5)])
observed = np.array([yt[bins == k].mean() for k in range(5)])
check_close("held-out reliability: observed rate per quintile vs mean prediction (0.03)", observed, pred_mean,
            rtol=0, atol=0.03)

fig, ax = figure("Logistic risk model, held-out reliability", "mean predicted P(y = 1)", "observed rate")
ax.plot(pred_mean, observed, "o-", label="safety head, quintile bins")
ax.plot([0, 1], [0, 1], "k--", lw=0.6, label="perfect calibration")
ax.legend()

# The page's calculator is checked against sigmoid and objective on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): logits of both signs, zero and far into the tails, both labels.
import cardcalc  # noqa: E402

cardcalc.table(lambda z, y: {"P": float(sigmoid(z)),
                             "loss": objective(np.array([z]), np.ones((1, 1)), np.array([y]), np.zeros(1))},
               cardcalc.grid(z=(-700.0, -3.0, -0.5, 0.0, 0.5, 3.0, 700.0), y=(0, 1)))
