"""Bradley–Terry: logistic form vs the original strength ratio, symmetry, and an ML fit to simulated data."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import expit


# --- formula ---
# few mutants: the sigmoid of one difference of two rewards: only the minus can be broken
def bt_prob(r_1: np.ndarray, r_2: np.ndarray) -> np.ndarray:
    """P(y_1 preferred to y_2) under Bradley–Terry with scalar rewards (scores) r_1, r_2."""
    return expit(r_1 - r_2)
# --- end formula ---


rng = np.random.default_rng(0)
r_a, r_b = rng.normal(size=1000) * 3, rng.normal(size=1000) * 3

# Bradley & Terry (1952) wrote the model with positive strengths pi_i: pi_1 / (pi_1 + pi_2).
pi_a, pi_b = np.exp(r_a), np.exp(r_b)
check_close("sigma(r1 - r2) vs original pi1 / (pi1 + pi2)", bt_prob(r_a, r_b), pi_a / (pi_a + pi_b))
check_close("P(1 > 2) + P(2 > 1) = 1", bt_prob(r_a, r_b) + bt_prob(r_b, r_a), np.ones_like(r_a))
shift = rng.normal(size=1000) * 10
check_close("adding a per-prompt constant to both rewards changes nothing",
            bt_prob(r_a + shift, r_b + shift), bt_prob(r_a, r_b))

# Simulate comparisons among K items with known scores, then fit scores by maximum likelihood.
K, n_pairs = 6, 100_000
true_r = rng.normal(size=K)
i = rng.integers(0, K, n_pairs)
j = (i + rng.integers(1, K, n_pairs)) % K  # a different item
first_wins = rng.random(n_pairs) < bt_prob(true_r[i], true_r[j])
win = np.where(first_wins, i, j)
lose = np.where(first_wins, j, i)


def neg_log_lik(r: np.ndarray) -> float:
    return float(-np.sum(np.log(bt_prob(r[win], r[lose]))))


def grad_nll(r: np.ndarray) -> np.ndarray:
    miss = 1.0 - bt_prob(r[win], r[lose])  # d/dr of -log sigma(r_w - r_l) is -miss at w, +miss at l
    return np.bincount(lose, miss, minlength=K) - np.bincount(win, miss, minlength=K)


fit = minimize(neg_log_lik, np.zeros(K), jac=grad_nll, method="BFGS").x
# Only differences are identified, so compare after centring both.
check_close("ML fit recovers the true score differences", fit - fit.mean(), true_r - true_r.mean(),
            atol=0.05)
check_true("fitted ordering of items matches the true ordering",
           bool(np.array_equal(np.argsort(fit), np.argsort(true_r))))

gap = np.linspace(-6, 6, 300)
fig, ax = figure("Bradley–Terry preference probability", "reward gap  r(x, y_1) - r(x, y_2)",
                 "P(y_1 preferred)")
ax.plot(gap, bt_prob(gap, 0.0))
ax.axhline(0.5, color="gray", lw=0.8)

# The page's calculator is checked against bt_prob on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): gaps of both signs, zero, and far into both tails.
import cardcalc  # noqa: E402

cardcalc.table(lambda r_1, r_2: float(bt_prob(r_1, r_2)),
               cardcalc.grid(r_1=(-40.0, -2.0, 0.0, 1.5, 40.0), r_2=(-3.0, 0.0, 0.5, 10.0)))
