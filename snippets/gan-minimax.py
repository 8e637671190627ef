"""GAN value: sampling z vs quadrature over p_g; max over D vs -log 4 at p_g = p_data."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from scipy.stats import norm

# Data N(0, 1); generator G(z) = mu + sd * z with z ~ N(0, 1); logistic discriminator D(x) = sigmoid(a x + c).


# --- formula ---
# few mutants: two sample means of log-sigmoids, one of a negated logit, added: four sites
def value(logit_real: np.ndarray, logit_fake: np.ndarray) -> float:
    """V(D, G) = E_data[log D(x)] + E_z[log(1 - D(G(z)))] as sample means, for D = sigmoid(logit):
    log D = log_expit(logit) and log(1 - D) = log_expit(-logit), both without cancellation."""
    return float(np.mean(log_expit(logit_real)) + np.mean(log_expit(-logit_fake)))
# --- end formula ---


def value_mc(a: float, c: float, mu: float, sd: float, x: np.ndarray, z: np.ndarray) -> float:
    """V for the logistic discriminator sigmoid(a x + c) and the generator G(z) = mu + sd z."""
    fake = mu + sd * z
    return value(a * x + c, a * fake + c)


def value_exact(a: float, c: float, mu: float, sd: float) -> float:
    """The same value as integrals over p_data and over the generator's density p_g."""
    real = quad(lambda t: norm.pdf(t) * log_expit(a * t + c), -12, 12)[0]
    fake = quad(lambda t: norm.pdf(t, mu, sd) * log_expit(-(a * t + c)), mu - 12 * sd, mu + 12 * sd)[0]
    return real + fake


rng = np.random.default_rng(0)
x = rng.standard_normal(1_000_000)
z = rng.standard_normal(1_000_000)
a, c, mu, sd = 1.3, -0.4, 1.5, 0.8
check_close("V(D, G) by sampling z vs by integrating over p_g", value_mc(a, c, mu, sd, x, z),
            value_exact(a, c, mu, sd), atol=3e-3)

check_close("D = 1/2 everywhere (logits 0) gives V = 2 log(1/2) = -log 4", value(np.zeros(5), np.zeros(7)),
            -np.log(4), rtol=1e-15)
# A confident wrong discriminator: logits +-40 on the wrong side cost about 40 nats per term.
check_close("D(x) = sigmoid(-40) on data and sigmoid(40) on fakes: V = 2 log sigmoid(-40) (scipy expit)",
            value(np.full(3, -40.0), np.full(4, 40.0)), 2 * np.log(expit(-40.0)), rtol=1e-13)


GRID = np.linspace(-15, 15, 30_001)


def best_response(mu: float, sd: float) -> float:
    """max_D V(D, G) over quadratic-logit discriminators (this family contains the optimal D)."""
    p_data, p_g = norm.pdf(GRID), norm.pdf(GRID, mu, sd)

    def neg_v(w: np.ndarray) -> float:
        logit = w[0] * GRID**2 + w[1] * GRID + w[2]
        return -np.trapezoid(p_data * log_expit(logit) + p_g * log_expit(-logit), GRID)
    start = np.array([0.3, -0.5, 0.2])              # deliberately not the answer
    return -minimize(neg_v, start, method="BFGS", options={"gtol": 1e-10}).fun


check_close("max_D V = -log 4 when p_g = p_data (D = 1/2 is the best reply)", best_response(0.0, 1.0),
            -np.log(4), atol=1e-8)
worse = [best_response(m, s) for m, s in [(1.5, 0.8), (0.5, 1.0), (0.0, 2.0)]]
check_true("max_D V > -log 4 for every generator with p_g != p_data",
           all(v > -np.log(4) + 1e-3 for v in worse), ", ".join(f"{v:.4f}" for v in worse))
