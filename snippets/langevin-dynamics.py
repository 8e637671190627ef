"""Unadjusted Langevin: mixture samples vs moments and CDF (KS); step-size bias vs exact formula."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import kstest, norm

# Target: p(x) = 0.3 N(-1.5, 0.6^2) + 0.7 N(1, 0.8^2).
W, MU, SD = np.array([0.3, 0.7]), np.array([-1.5, 1.0]), np.array([0.6, 0.8])


def score(x: np.ndarray) -> np.ndarray:
    """grad_x log p(x) for the mixture: sum_k w_k N_k(x) (mu_k - x) / sd_k^2 over sum_k w_k N_k(x).
    One component at a time on the whole array (the same operations, in the same order, as an
    (n, 2) array summed over its short axis, at a fraction of the cost)."""
    weighted_grad, density = 0.0, 0.0
    for w, mu, sd in zip(W, MU, SD, strict=True):
        comp = w / sd * np.exp(-0.5 * ((x - mu) / sd) ** 2)
        weighted_grad = weighted_grad + comp * (mu - x) / sd**2
        density = density + comp
    return weighted_grad / density


# --- formula ---
def langevin_step(x: np.ndarray, score_fn, eta: float, rng) -> np.ndarray:
    """x <- x + (eta / 2) grad log p(x) + sqrt(eta) z, z ~ N(0, I): a draw from N(drifted x, eta I)."""
    return rng.normal(x + 0.5 * eta * score_fn(x), np.sqrt(eta))
# --- end formula ---


def langevin(x: np.ndarray, score_fn, eta: float, steps: int, rng: np.random.Generator) -> np.ndarray:
    """Run the update `steps` times on many chains in parallel."""
    for _ in range(steps):
        x = langevin_step(x, score_fn, eta, rng)
    return x


rng = np.random.default_rng(0)
chains = langevin(rng.uniform(-4, 4, size=20_000), score, eta=0.03, steps=600, rng=rng)

mean = W @ MU
var = W @ (SD**2 + MU**2) - mean**2
check_close("sample mean vs mixture mean (atol 0.03)", chains.mean(), mean, atol=0.03)
check_close("sample variance vs mixture variance (rtol 3%)", chains.var(), var, rtol=0.03)


def mixture_cdf(t: np.ndarray) -> np.ndarray:
    return (W * norm.cdf(t[:, None], MU, SD)).sum(1)


ks = kstest(chains, mixture_cdf).statistic
check_true("KS distance to the target CDF < 0.02", ks < 0.02, f"KS statistic {ks:.4f}")

# No Metropolis correction: for a N(0, s^2) target the chain settles at variance s^2 / (1 - eta / (4 s^2)).
s, eta = 1.0, 0.5
biased = langevin(rng.standard_normal(100_000) * s, lambda x: -x / s**2, eta=eta, steps=100, rng=rng)
check_close("ULA stationary variance vs s^2 / (1 - eta / (4 s^2)) at eta = 0.5 (rtol 2%)",
            biased.var(), s**2 / (1 - eta / (4 * s**2)), rtol=0.02)


class KernelSpy:
    """Stands in for the generator and records the Gaussian the step draws from (mean, std)."""

    def normal(self, loc, scale):
        self.loc, self.scale = loc, scale
        return loc


# The same result without sampling error: for a Gaussian target the step is the linear-Gaussian
# kernel x -> N(a x, b^2), whose stationary variance is b^2 / (1 - a^2). Read a and b off the step.
spy = KernelSpy()
stationary = []
for s_t, eta_t in [(1.0, 0.5), (2.0, 0.3), (0.7, 1e-3)]:
    langevin_step(np.array([1.0]), lambda x, s_t=s_t: -x / s_t**2, eta_t, spy)
    a, b = spy.loc[0], spy.scale
    stationary.append([b**2 / (1 - a**2), s_t**2 / (1 - eta_t / (4 * s_t**2))])
stationary = np.array(stationary)
check_close("Gaussian targets: stationary variance of the step's kernel vs s^2 / (1 - eta / (4 s^2)) exactly",
            stationary[:, 0], stationary[:, 1], rtol=1e-12)

xs = np.linspace(-4.5, 5, 500)
# The page's calculator is checked against langevin_step on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows). A generator's normal(loc, scale) is loc + scale times a standard normal
# draw; the stand-in below returns it for the given draw eps. Scores and draws of both signs, eta = 0.
import cardcalc  # noqa: E402


class GivenDraw:
    """An rng whose normal(loc, scale) uses the standard normal draw it was given."""

    def __init__(self, eps):
        self.eps = eps

    def normal(self, loc, scale):
        return loc + scale * self.eps


cardcalc.table(lambda x_t, eta, g, eps: float(langevin_step(x_t, lambda x: g, eta, GivenDraw(eps))),
               cardcalc.grid(x_t=(-1.0, 0.0, 2.0), eta=(0.0, 0.03, 1.0), g=(-4.0, 0.0, 1.0),
                             eps=(-1.5, 0.0, 0.5)))


fig, ax = figure("Langevin samples vs target density (η = 0.03, 600 steps)", "x", "density")
ax.hist(chains, bins=120, range=(-4.5, 5), density=True, alpha=0.4, label="20 000 chains")
ax.plot(xs, (W * norm.pdf(xs[:, None], MU, SD)).sum(1), "k", label="target p(x)")
ax.legend()
