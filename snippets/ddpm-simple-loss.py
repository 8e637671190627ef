"""DDPM simple loss: MC value vs analytic minimum (Gaussian data), fitted vs E[eps|x_t], ELBO identity."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

T = 1000
betas = np.linspace(1e-4, 0.02, T)
abar = np.cumprod(1 - betas)


# --- formula ---
def simple_loss(eps_model, x0: np.ndarray, rng: np.random.Generator) -> float:
    """Monte-Carlo L_simple: E over t ~ U{1..T}, x_0, eps of
    || eps - eps_model(sqrt(abar_t) x_0 + sqrt(1-abar_t) eps, t) ||^2."""
    n, d = x0.shape
    t = rng.integers(1, T + 1, size=n)
    eps = rng.standard_normal((n, d))
    a = np.sqrt(abar[t - 1])[:, None]
    x_t = a * x0 + np.sqrt(1 - abar[t - 1])[:, None] * eps
    return float(np.mean(np.sum((eps - eps_model(x_t, t)) ** 2, axis=1)))
# --- end formula ---


# Toy data x_0 ~ N(mu, s^2 I): the best noise predictor is E[eps | x_t], linear in x_t.
d, mu, s = 3, 0.5, 0.4


def optimal_eps(x_t: np.ndarray, t: np.ndarray, mu: float = mu, s: float = s) -> np.ndarray:
    """E[eps | x_t, t] for data N(mu, s^2 I), by Gaussian conditioning (s = 0: a point mass at mu)."""
    a2, b2 = abar[t - 1][:, None], 1 - abar[t - 1][:, None]
    return np.sqrt(b2) * (x_t - np.sqrt(a2) * mu) / (a2 * s**2 + b2)


rng = np.random.default_rng(0)
x0 = mu + s * rng.standard_normal((400_000, d))

# 1. Irreducible loss at step t is d * abar s^2 / (abar s^2 + 1 - abar); average it over t ~ U{1..T}.
floor = d * np.mean(abar * s**2 / (abar * s**2 + 1 - abar))
check_close("MC L_simple of the Bayes-optimal predictor vs analytic minimum",
            simple_loss(optimal_eps, x0, rng), floor, rtol=0.01)
worse = simple_loss(lambda x, t: 1.1 * optimal_eps(x, t), x0, rng)
check_true("scaling the optimal predictor by 1.1 raises the loss", worse > floor * 1.01,
           f"{worse:.4f} vs minimum {floor:.4f}")

# Point-mass data (s = 0): x_t then determines eps exactly, E[eps | x_t] = eps, and the loss of that
# predictor is 0 up to rounding, but only if x_t was built with the alpha_bar of the drawn t.
point = np.full((50_000, d), mu)
check_close("data at a single point: the exact predictor has L_simple = 0",
            simple_loss(lambda x, t: optimal_eps(x, t, s=0.0), point, rng), 0.0, atol=1e-20)

# The steps are drawn uniformly from {1, ..., T}: a predictor that records the t it is asked about.
asked = []
simple_loss(lambda x, t: asked.append(t) or np.zeros_like(x), x0, rng)
counts = np.bincount(np.concatenate(asked), minlength=T + 1)
check_true("t ~ U{1..T}: every step 1..T is drawn (400 times each on average), never 0 or T + 1",
           counts[0] == 0 and len(counts) == T + 1 and bool(np.all(counts[1:] > 0)),
           f"min t = {np.concatenate(asked).min()}, max t = {np.concatenate(asked).max()}, "
           f"counts from {counts[1:].min()} to {counts[1:].max()}")

# 2. Minimizing the loss at one t by least squares recovers E[eps | x_t]
#    (slope sqrt(1-abar)/(abar s^2 + 1-abar)).
t = 250
eps = rng.standard_normal(200_000)
x_t = np.sqrt(abar[t - 1]) * x0[:200_000, 0] + np.sqrt(1 - abar[t - 1]) * eps
slope, intercept = np.polyfit(x_t, eps, 1)
probe = np.array([-1.0, 0.0, 1.0])
check_close("t = 250: least-squares eps predictor vs E[eps | x_t]", slope * probe + intercept,
            optimal_eps(probe[:, None], np.full(3, t))[:, 0], atol=5e-3)

# 3. Relation to the noise: with mu_theta = (x_t - beta_t/sqrt(1-abar_t) eps_theta)/sqrt(alpha_t), the mean
#    error of the ELBO term equals a t-dependent multiple of the noise error (Ho et al. eqs. 8-12).
for t in (1, 10, 300, 1000):
    x0v, epsv, eps_hat = rng.standard_normal((3, 4))
    ab, ab_prev, b = abar[t - 1], (abar[t - 2] if t > 1 else 1.0), betas[t - 1]
    xt = np.sqrt(ab) * x0v + np.sqrt(1 - ab) * epsv
    mu_post = np.sqrt(ab_prev) * b / (1 - ab) * x0v + np.sqrt(1 - b) * (1 - ab_prev) / (1 - ab) * xt
    mu_model = (xt - b / np.sqrt(1 - ab) * eps_hat) / np.sqrt(1 - b)
    check_close(f"t = {t}: ||mu~ - mu_theta||^2 = beta^2/(alpha(1-abar)) ||eps - eps_theta||^2",
                np.sum((mu_post - mu_model) ** 2),
                b**2 / ((1 - b) * (1 - ab)) * np.sum((epsv - eps_hat) ** 2),
                rtol=1e-9)

# The weight that L_simple drops: the ELBO term with sigma_t^2 = beta_t weights each t by this factor.
ts = np.arange(2, T + 1)
weight = betas[ts - 1] ** 2 / (2 * betas[ts - 1] * (1 - betas[ts - 1]) * (1 - abar[ts - 1]))
fig, ax = figure("ELBO weight per step, relative to L_simple", "step t",
                 r"$\beta_t / (2\alpha_t(1-\bar\alpha_t))$")
ax.semilogy(ts, weight)
