"""Classifier guidance: Bayes score split vs finite differences; scaled guidance: Langevin vs quadrature."""

import numpy as np
from cardcheck import check_close
from scipy.special import logsumexp
from scipy.stats import norm

# Two classes, p(x|c) = N(MU[c], S^2), noised as x_t = sqrt(abar) x_0 + sqrt(1 - abar) eps.
MU, S, PRIOR = np.array([-1.0, 1.5]), 0.7, np.array([0.6, 0.4])


def params(abar):
    return np.sqrt(abar) * MU, np.sqrt(abar * S**2 + 1.0 - abar)


def log_joint(x, abar):
    means, sd = params(abar)
    return norm.logpdf(x[:, None], means, sd) + np.log(PRIOR)


def log_px(x, abar):
    return logsumexp(log_joint(x, abar), axis=1)


def log_classifier(x, c, abar):
    """log p_t(c | x): the noisy-input classifier (exact here, learned in practice)."""
    lj = log_joint(x, abar)
    return lj[:, c] - logsumexp(lj, axis=1)


def fd(fn, x, h=1e-5):
    return (fn(x + h) - fn(x - h)) / (2 * h)


# --- formula ---
def guided_score(x, c, abar, scale):
    """grad log p_t(x) + scale * grad log p_t(c|x)."""
    return fd(lambda y: log_px(y, abar), x) + scale * fd(lambda y: log_classifier(y, c, abar), x)


def guided_eps(eps_uncond, grad_log_classifier, abar, scale):
    """Dhariwal & Nichol's eps form: eps(x_t) - scale * sqrt(1 - abar) * grad log p_t(c|x_t)."""
    return eps_uncond - scale * np.sqrt(1 - abar) * grad_log_classifier
# --- end formula ---


def exact_scores(x, c, abar):
    """Closed-form scores of the mixture p_t(x) and of the class density p_t(x|c) (independent route)."""
    means, sd = params(abar)
    post = np.exp(log_joint(x, abar) - log_px(x, abar)[:, None])
    return np.sum(post * -(x[:, None] - means), axis=1) / sd**2, -(x - means[c]) / sd**2


x = np.linspace(-3.0, 3.0, 31)
for abar in (1.0, 0.5, 0.1):
    marginal, conditional = exact_scores(x, 1, abar)
    check_close(f"grad log p(x) + grad log p(c|x) vs exact conditional score, abar={abar}",
                guided_score(x, 1, abar, 1.0), conditional, rtol=1e-6, atol=1e-7)
    # Scale s: the target p(x) p(c|x)^s has score (1 - s) grad log p(x) + s grad log p(x|c).
    check_close(f"scale 3 vs -2 x marginal score + 3 x conditional score (closed forms), abar={abar}",
                guided_score(x, 1, abar, 3.0), -2.0 * marginal + 3.0 * conditional, rtol=1e-6, atol=1e-6)

# The eps form: eps(x_t) = -sqrt(1 - abar) grad log p_t(x_t) is the unconditional noise prediction.
abar = 0.5
marginal, conditional = exact_scores(x, 1, abar)
eps_uncond = -np.sqrt(1 - abar) * marginal
grad_classifier = fd(lambda y: log_classifier(y, 1, abar), x)
check_close("eps-form guidance with scale 1 vs the conditional eps(x_t, c)",
            guided_eps(eps_uncond, grad_classifier, abar, 1.0), -np.sqrt(1 - abar) * conditional,
            rtol=1e-6, atol=1e-7)
check_close("eps-form guidance with scale 3 vs -sqrt(1 - abar) x (closed-form tilted score)",
            guided_eps(eps_uncond, grad_classifier, abar, 3.0),
            -np.sqrt(1 - abar) * (-2.0 * marginal + 3.0 * conditional), rtol=1e-6, atol=1e-6)

# Scale s > 1 targets p(x) p(c|x)^s: Langevin with the guided score vs quadrature of that density.
rng = np.random.default_rng(0)
scale, step, n_steps = 3.0, 4e-3, 1200


# --- formula ---
def fast_guided_score(y):
    """Closed-form version for the sampler: grad log p(x) + s (grad log p(x|c) - grad log p(x))."""
    w = np.exp(-0.5 * ((y[:, None] - MU) / S) ** 2) * PRIOR
    grad_log_px = np.sum(w * -(y[:, None] - MU), axis=1) / w.sum(axis=1) / S**2
    return grad_log_px + scale * (-(y - MU[1]) / S**2 - grad_log_px)
# --- end formula ---


probe = np.linspace(-4.0, 5.0, 37)
marginal, conditional = exact_scores(probe, 1, 1.0)
check_close(f"sampler's closed-form guided score vs (1 - s) score p(x) + s score p(x|c), s = {scale}",
            fast_guided_score(probe), (1 - scale) * marginal + scale * conditional, rtol=1e-12, atol=1e-12)

z = rng.standard_normal(5000)
for _ in range(n_steps):
    z = z + step * fast_guided_score(z) + np.sqrt(2 * step) * rng.standard_normal(z.size)
grid = np.linspace(-6.0, 7.0, 6001)
logd = log_px(grid, 1.0) + scale * log_classifier(grid, 1, 1.0)
dens = np.exp(logd - logd.max())
dens /= np.trapezoid(dens, grid)
mean_q = np.trapezoid(grid * dens, grid)
sd_q = np.sqrt(np.trapezoid((grid - mean_q) ** 2 * dens, grid))
check_close(f"Langevin with scale {scale}: (mean, sd) vs quadrature of p(x) p(c|x)^s",
            [z.mean(), z.std()], [mean_q, sd_q], rtol=0.04)
