"""Classifier-free guidance: extrapolated eps vs the eps of p_t(x) p_t(c|x)^w on an exact two-class model."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp
from scipy.stats import norm

# Two classes, Gaussian data p(x|c) = N(MU[c], S^2), noised as x_t = sqrt(abar) x_0 + sqrt(1-abar) eps.
MU, S, PRIOR = np.array([-1.0, 1.5]), 0.7, np.array([0.6, 0.4])


def cond_params(abar):
    return np.sqrt(abar) * MU, np.sqrt(abar * S**2 + 1.0 - abar)


def eps_cond(x, c, abar):
    """Exact conditional noise prediction eps(x_t, c) = -sqrt(1-abar) * score of p_t(x|c)."""
    means, sd = cond_params(abar)
    return np.sqrt(1.0 - abar) * (x - means[c]) / sd**2


def eps_uncond(x, abar):
    """Exact unconditional prediction E_c[eps | x_t] (posterior-weighted over classes)."""
    means, sd = cond_params(abar)
    logp = norm.logpdf(x[:, None], means, sd) + np.log(PRIOR)
    post = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
    return np.sum(post * np.stack([eps_cond(x, c, abar) for c in (0, 1)], axis=1), axis=1)


# --- formula ---
# few mutants: eps_u + w (eps_c - eps_u): three operators and nothing else
def cfg(eps_c, eps_u, w):
    """Guided prediction: unconditional plus w times the conditional-minus-unconditional direction."""
    return eps_u + w * (eps_c - eps_u)
# --- end formula ---


def log_tilted(x, c, w, abar):
    """log p_t(x) + w log p_t(c|x), up to a constant."""
    means, sd = cond_params(abar)
    logj = norm.logpdf(x[:, None], means, sd) + np.log(PRIOR)
    log_px = logsumexp(logj, axis=1)
    return log_px + w * (logj[:, c] - log_px)


x = np.linspace(-3.0, 3.0, 25)
h = 1e-5
scales = (0.0, 1.0, 3.0, 7.5)
for abar in (0.8, 0.3):
    guided = [cfg(eps_cond(x, 1, abar), eps_uncond(x, abar), w) for w in scales]
    score_fd = [(log_tilted(x + h, 1, w, abar) - log_tilted(x - h, 1, w, abar)) / (2 * h) for w in scales]
    check_close(f"CFG eps vs -sqrt(1-abar) grad log[p(x) p(c|x)^w] (finite diff), abar={abar}, w={scales}",
                guided, -np.sqrt(1.0 - abar) * np.array(score_fd), rtol=1e-6, atol=1e-7)

# Ho & Salimans write (1 + w') eps(c) - w' eps(null): the same thing with w = 1 + w'.
w_paper = 2.0
check_close("seed convention w = 1 + w' reproduces the paper's (1+w')eps_c - w' eps_u",
            cfg(eps_cond(x, 1, 0.5), eps_uncond(x, 0.5), 1.0 + w_paper),
            (1 + w_paper) * eps_cond(x, 1, 0.5) - w_paper * eps_uncond(x, 0.5))

# Sharpening at t = 0: mass of the tilted density on the region the classifier calls class 1.
grid = np.linspace(-5.0, 6.0, 4001)
conf = []
fig, ax = figure("Classifier-free guidance sharpens the conditional", "x",
                 "density of p(x) p(c|x)^w (normalized)")
for w in (0.0, 1.0, 3.0, 7.5):
    logd = log_tilted(grid, 1, w, 1.0)
    dens = np.exp(logd - logd.max())
    dens /= np.trapezoid(dens, grid)
    post1 = np.exp(log_tilted(grid, 1, 1.0, 1.0) - log_tilted(grid, 1, 0.0, 1.0))
    conf.append(np.trapezoid(dens * post1, grid))
    ax.plot(grid, dens, label=f"w = {w}")
ax.set_xlim(-4, 5)
ax.legend()
check_true("average classifier confidence p(c|x) grows with w", np.all(np.diff(conf) > 0),
           "E[p(c|x)] = " + ", ".join(f"{v:.3f}" for v in conf))

# The page's calculator is checked against cfg on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): one coordinate, w = 0 (unconditional), 1 (conditional) and beyond.
import cardcalc  # noqa: E402

cardcalc.table(lambda eps_c, eps_u, w: {"eps_g": float(cfg(eps_c, eps_u, w))},
               cardcalc.grid(eps_c=(-1.0, 0.0, 0.4), eps_u=(-0.5, 0.0, 0.1), w=(0.0, 1.0, 3.0, 7.5)))
