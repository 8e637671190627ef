"""Emergence-style logistic fit: the sigmoid in log-compute against scipy.special.expit, its midpoint and
slope, a maximum-likelihood fit with scikit-learn, and Schaeffer et al.'s point that an all-or-nothing metric
on k tokens turns a smooth per-token improvement into a sharp logistic-looking jump."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import curve_fit
from scipy.special import expit
from sklearn.linear_model import LogisticRegression


# --- formula ---
def p_success(log_c, a, b):
    """P(success | C) = 1 / (1 + exp(-a (log C - b))), natural log of compute."""
    return 1.0 / (1.0 + np.exp(-a * (log_c - b)))


def exact_match(p_token, k):
    """Probability that all k answer tokens are right when each is right with probability p_token."""
    return p_token**k
# --- end formula ---


x = np.linspace(40, 60, 201)                  # ln C for C from ~2e17 to ~1e26 FLOPs
a, b = 1.3, 50.0

# 1. The curve against scipy's logistic function, its midpoint, symmetry and slope a/4 at the midpoint.
check_close("P == scipy.special.expit(a (log C - b))", p_success(x, a, b), expit(a * (x - b)), rtol=1e-13)
check_close("P(log C = b) = 1/2", p_success(b, a, b), 0.5, rtol=1e-15)
check_close("P(b + t) + P(b - t) = 1",
            p_success(b + x - 50, a, b) + p_success(b - (x - 50), a, b), np.ones_like(x),
            rtol=1e-13)
h = 1e-5
check_close("dP/dlogC at the midpoint = a/4 (finite differences)",
            (p_success(b + h, a, b) - p_success(b - h, a, b)) / (2 * h), a / 4, rtol=1e-8)
check_close("log10 instead of ln: the same curve needs slope a ln 10",
            p_success(x / np.log(10), a * np.log(10), b / np.log(10)), p_success(x, a, b), rtol=1e-12)

# 2. Fitting. (i) curve_fit on noiseless success rates returns (a, b); (ii) scikit-learn's (essentially
#    unpenalized) logistic regression on 0/1 outcomes recovers them within sampling error, and its
#    predicted probabilities are this formula with its coefficients.
(a_fit, b_fit), _ = curve_fit(p_success, x, p_success(x, a, b), p0=(0.5, 45.0))
check_close("curve_fit on noiseless rates recovers (a, b)", [a_fit, b_fit], [a, b], rtol=1e-6)
rng = np.random.default_rng(0)
xs = rng.uniform(40, 60, size=6000)
ys = rng.random(6000) < p_success(xs, a, b)
clf = LogisticRegression(C=1e12, max_iter=1000).fit(xs[:, None], ys)
a_ml, b_ml = clf.coef_[0, 0], -clf.intercept_[0] / clf.coef_[0, 0]
check_close("sklearn MLE recovers a and b (6000 Bernoulli outcomes, 10% / 1% tolerance)", [a_ml, b_ml / 10],
            [a, b / 10], rtol=0.1)
check_close("sklearn predict_proba == P with the fitted (a, b)", clf.predict_proba(x[:, None])[:, 1],
            p_success(x, a_ml, b_ml), rtol=1e-10)

# 3. Schaeffer et al.: a per-token loss that falls as a power of compute, L = A C^-r, gives per-token
#    accuracy p = exp(-L) and exact match p^k on a k = 10 token answer. Exact match sits near 0 for a
#    quarter of the range and then rises, which a logistic in log C describes well; yet
#    -ln(exact match) = k L is an exact power law in C, so nothing abrupt happened to the model.
A, r, k = 0.7, 0.2, 10
loss = A * np.exp(-r * (x - 40))             # per-token loss on the answer, proportional to C^-0.2
p_tok = np.exp(-loss)
em = exact_match(p_tok, k)
check_close("exact match == product of 10 independent per-token successes (Monte Carlo, 20000 draws)",
            (rng.random((20000, k)) < p_tok[150]).all(axis=1).mean(), em[150], rtol=0.03)
slope, icpt = np.polyfit(x - 40, np.log(-np.log(em)), 1)
check_close("ln(-ln EM) is a straight line in ln C: slope -r, intercept ln(k A)", [slope, icpt],
            [-r, np.log(k * A)], rtol=1e-9)
check_true("first quarter of the range: exact match < 0.1 while per-token accuracy climbs from 0.50 to 0.75",
           bool(em[:50].max() < 0.1 and p_tok[0] < 0.5 and p_tok[49] > 0.75),
           f"EM max {em[:50].max():.3f}; p from {p_tok[0]:.2f} to {p_tok[49]:.2f}")
(a_em, b_em), _ = curve_fit(p_success, x, em, p0=(0.5, 50.0))
check_true("a logistic in ln C fits exact match to within 0.05",
           np.abs(p_success(x, a_em, b_em) - em).max() < 0.05,
           f"max residual {np.abs(p_success(x, a_em, b_em) - em).max():.3f}")
check_close("k = 1 leaves the metric unchanged", exact_match(p_tok, 1), p_tok, rtol=1e-15)

fig, ax = figure("Same model, two metrics (Schaeffer et al.)", "ln C (training FLOPs)", "score")
ax.plot(x, p_tok, label="per-token accuracy")
ax.plot(x, em, label="exact match, 10 tokens")
ax.plot(x, p_success(x, a_em, b_em), "--", label="logistic fit to exact match")
ax.legend()

# The page's calculator is checked against p_success and exact_match on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows): compute below, at and above the midpoint, and both routes
# to exact match (e^{-kL} is p_tok^k with p_tok = e^{-L}).
import cardcalc  # noqa: E402

cardcalc.table(lambda C, a, b, L, k: {"P": float(p_success(np.log(C), a, b)),
                                      "P_EM": float(exact_match(np.exp(-L), k))},
               cardcalc.grid(C=(1e18, np.exp(50.0), 1e24), a=(0.5, 1.3), b=(40.0, 50.0), L=(0.0, 0.1, 2.0),
                             k=(1, 10)))
