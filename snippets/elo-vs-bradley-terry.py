"""Bradley-Terry maximum likelihood on the Elo scale, as arena leaderboards fit it, against scikit-learn's
unpenalized logistic regression on the same battles, the score equations, a simulation with known
ratings, and the online Elo update, whose result depends on the order of the battles."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

SCALE, ANCHOR = 400.0, 1000.0   # Elo points per factor of 10 in the odds; the mean rating


# --- formula ---
def bt_ratings(a, b, score_a, m):
    """Maximum-likelihood ratings R with P(a beats b) = 1 / (1 + 10^((R_b - R_a)/400)), mean 1000.

    `score_a` is 1 for a win of a, 0 for a loss, 1/2 for a tie (half a win to each side). Zermelo's
    fixed point for strengths pi = 10^(R/400): pi_i <- W_i / sum_j n_ij / (pi_i + pi_j). The step is
    homogeneous (c pi goes to c pi'), so the level of pi is left free and fixed by the anchor at the end.
    """
    games = np.zeros((m, m))
    np.add.at(games, (a, b), 1.0)  # equivalent: a common factor on all n_ij rescales every pi alike
    games = games + games.T                       # n_ij: battles between i and j, either side first
    wins = np.bincount(a, score_a, m) + np.bincount(b, 1.0 - score_a, m)
    pi = np.ones(m)
    for _ in range(3000):  # equivalent: converged to rounding (checked by the score equations)
        pairs = games / (pi[:, None] + pi[None, :])
        per_model = pairs @ np.ones(m)             # sum_j n_ij / (pi_i + pi_j)
        pi = wins / per_model
    r = SCALE * np.log10(pi)
    return r - r.mean() + ANCHOR
# --- end formula ---


def online_elo(a, b, score_a, m, k_factor=4.0):
    """The sequential Elo update (the elo-rating card), battle by battle, from 1000 for everyone."""
    r = np.full(m, ANCHOR)
    for i, j, s in zip(a, b, score_a, strict=True):
        e = expit((r[i] - r[j]) * np.log(10.0) / SCALE)
        r[i] += k_factor * (s - e)
        r[j] -= k_factor * (s - e)
    return r


rng = np.random.default_rng(0)
m, n = 6, 6000
true_r = ANCHOR + np.array([-260.0, -120.0, -30.0, 40.0, 150.0, 220.0])
true_r -= true_r.mean() - ANCHOR
a = rng.integers(0, m, n)
b = (a + rng.integers(1, m, n)) % m            # an opponent other than a
p_a = expit((true_r[a] - true_r[b]) * np.log(10.0) / SCALE)
u = rng.random(n)
# 10% of battles tied, taken evenly from wins and losses so that a's expected score stays p_a.
score_a = np.where(u < p_a - 0.05, 1.0, np.where(u < p_a + 0.05, 0.5, 0.0))
r_hat = bt_ratings(a, b, score_a, m)

# Route 1: scikit-learn. Chatbot Arena's own fit: one row per battle with +ln 10 in a's column and -ln 10
# in b's, no intercept, no penalty; each battle entered twice so a tie becomes one win and one loss.
x = np.zeros((2 * n, m))
x[np.arange(2 * n), np.r_[a, a]] = np.log(10.0)
x[np.arange(2 * n), np.r_[b, b]] = -np.log(10.0)
y = np.r_[score_a > 0, score_a == 1.0].astype(float)
lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-12, max_iter=10_000).fit(x, y)
r_sk = SCALE * (lr.coef_[0] - lr.coef_[0].mean()) + ANCHOR
# lbfgs stops at a gradient of size g; the error in beta is then at most g / lambda, lambda the smallest
# non-zero eigenvalue of the Hessian of the mean log-loss at the optimum (computed from the data).
prob = expit(x @ lr.coef_[0])
grad = x.T @ (prob - y) / (2 * n)
hess = (x * (prob * (1 - prob))[:, None]).T @ x / (2 * n)
lam = np.sort(np.linalg.eigvalsh(hess))[1]
bound = SCALE * 2 * np.linalg.norm(grad) / lam + 1e-9
check_close("BT ratings vs sklearn LogisticRegression (no penalty) x 400 + 1000", r_hat, r_sk, rtol=0,
            atol=bound)
check_true("the solver bound is tight enough to matter (under 0.01 Elo points)", bound < 0.01,
           f"bound {bound:.1e} points")

# Route 2: the score equations. At the maximum each model's expected score equals its observed score.
# Sums of n terms of size ~1: rtol 1e-10.
pe = expit((r_hat[a] - r_hat[b]) * np.log(10.0) / SCALE)
obs = np.bincount(a, score_a, m) + np.bincount(b, 1 - score_a, m)
check_close("expected scores at the fit equal observed scores (score equations)",
            np.bincount(a, pe, m) + np.bincount(b, 1 - pe, m), obs, rtol=1e-10)
check_close("mean rating is the anchor 1000", r_hat.mean(), ANCHOR, rtol=1e-12)

# Route 3: simulation. With known ratings, the fit lands within 4 standard errors; the standard error
# of each rating comes from the inverse Fisher information of the fit, in Elo points.
info = (x * (prob * (1 - prob))[:, None]).T @ x / 2      # battles entered twice: half the weight each
cov = np.linalg.pinv(info) * SCALE**2
se = np.sqrt(np.diag(cov))
check_close("fitted ratings recover the true ratings (in standard errors, at most 4)", (r_hat - true_r) / se,
            np.zeros(m), rtol=0, atol=4.0)

# Order: BT sees the battles as a set, Elo as a sequence.
rev = np.arange(n)[::-1]
shuffled = rng.permutation(n)
# Counts of whole and half wins are exact in floating point, so the order cannot even change rounding.
check_close("BT is the same for the battles reversed", bt_ratings(a[rev], b[rev], score_a[rev], m), r_hat,
            rtol=1e-12)
check_close("BT is the same for the battles shuffled",
            bt_ratings(a[shuffled], b[shuffled], score_a[shuffled], m), r_hat, rtol=1e-12)
elo_fwd = online_elo(a, b, score_a, m)
elo_rev = online_elo(a[rev], b[rev], score_a[rev], m)
check_true("online Elo gives different ratings when the battles are reversed (over 1 point)",
           np.max(np.abs(elo_fwd - elo_rev)) > 1.0, f"largest change {np.max(np.abs(elo_fwd - elo_rev)):.1f}")
# A model that improved halfway: Elo, sorted by time, weights its recent form; BT averages both halves.
late = np.arange(n) >= n // 2
p2 = expit((true_r[a] - true_r[b] + 300 * ((a == 0) & late) - 300 * ((b == 0) & late)) * np.log(10.0) / SCALE)
s2 = (rng.random(n) < p2).astype(float)
check_true("Elo in time order rates the improved model higher than the BT fit does",
           online_elo(a, b, s2, m)[0] > bt_ratings(a, b, s2, m)[0] + 20,
           f"Elo {online_elo(a, b, s2, m)[0]:.0f}, BT {bt_ratings(a, b, s2, m)[0]:.0f}")

fig, ax = figure("Ratings from the same 6000 battles", "model", "rating (Elo points)")
xs = np.arange(m)
ax.errorbar(xs - 0.15, r_hat, yerr=1.96 * se, fmt="o", capsize=3, label="Bradley–Terry MLE, 95% interval")
ax.plot(xs, elo_fwd, "s", label="online Elo, battles in order")
ax.plot(xs + 0.15, elo_rev, "^", label="online Elo, reversed")
ax.plot(xs, true_r, "k_", markersize=14, label="true rating")
ax.legend(fontsize=8)
