"""Brier score: against sklearn's brier_score_loss (binary and multiclass, both scalings), hand values,
the Murphy decomposition, and propriety (the expected score is minimized by the true probability)."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.optimize import minimize_scalar


# --- formula ---
def brier(probs: np.ndarray, labels: np.ndarray) -> float:
    """Brier (1950): (1/n) sum_i sum_c (p_ic - y_ic)^2 with one-hot y; ranges over [0, 2]."""
    onehot = np.eye(probs.shape[1])[labels]
    return float(np.mean(np.sum((probs - onehot) ** 2, axis=1)))


def brier_binary(p: np.ndarray, outcome: np.ndarray) -> float:
    """The usual binary form (1/n) sum_i (p_i - o_i)^2 on the positive class; half of the two-class
    original, range [0, 1]."""
    return float(np.mean((p - outcome) ** 2))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Hand values. Binary: forecasts 0.7, 0.2, 0.9 for outcomes 1, 0, 0: (0.09 + 0.04 + 0.81)/3.
#    Three classes: p = (0.5, 0.3, 0.2), true class 0: 0.25 + 0.09 + 0.04 = 0.38;
#    p = (0.1, 0.1, 0.8), true class 1: 0.01 + 0.81 + 0.64 = 1.46; mean 0.92.
check_close("binary hand value 0.94/3", brier_binary(np.array([0.7, 0.2, 0.9]), np.array([1, 0, 0])),
            0.94 / 3, rtol=1e-12)
check_close("3-class hand value (0.38 + 1.46)/2 = 0.92",
            brier(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]), np.array([0, 1])), 0.92, rtol=1e-12)
check_close("range: certain and right 0; certain and wrong 2 (original form)",
            [brier(np.array([[0.0, 1.0, 0.0]]), np.array([1])),
             brier(np.array([[1.0, 0.0, 0.0]]), np.array([2]))],
            [0.0, 2.0])

# Forecasts for the library checks below: 4 classes, and a binary event.
n, k = 1000, 4
probs = rng.dirichlet(np.ones(k), size=n)
labels = np.array([rng.choice(k, p=row) for row in probs])
p1 = rng.uniform(size=n)
o1 = (rng.random(n) < p1).astype(int)
two = np.column_stack([1 - p1, p1])
check_close("two-class original form = 2 x binary form", brier(two, o1), 2 * brier_binary(p1, o1), rtol=1e-12)

# 2. Murphy (1973) decomposition, exact when forecasts take a few distinct values:
#    BS = sum_k (n_k/n)(f_k - obar_k)^2 - sum_k (n_k/n)(obar_k - obar)^2 + obar (1 - obar).
f = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=4000)
o = (rng.random(f.size) < 0.8 * f + 0.05).astype(float)
obar = o.mean()
rel = res = 0.0
for v in np.unique(f):
    sel = f == v
    rel += sel.mean() * (v - o[sel].mean()) ** 2
    res += sel.mean() * (o[sel].mean() - obar) ** 2
check_close("BS = reliability - resolution + uncertainty", brier_binary(f, o), rel - res + obar * (1 - obar),
            rtol=1e-12)


# 3. Proper scoring rule: for an event of probability q, the expected score of forecast p is
#    q (p - 1)^2 + (1 - q) p^2 = (p - q)^2 + q (1 - q), minimized exactly at p = q.
def expected_score(p, q):
    return (q * brier_binary(np.array([p]), np.array([1.0]))
            + (1 - q) * brier_binary(np.array([p]), np.array([0.0])))


for q in (0.13, 0.5, 0.87):
    best = minimize_scalar(expected_score, bounds=(0, 1), args=(q,), method="bounded",
                           options={"xatol": 1e-10}).x
    check_close(f"q = {q}: argmin_p E[score] = q and the minimum is q(1 - q)",
                [best, expected_score(best, q)], [q, q * (1 - q)], rtol=1e-6)

# --- in code: scikit-learn ---
from sklearn.metrics import brier_score_loss  # noqa: E402

# Means of 1000 squared differences summed in another order: a few ulps, so 1e-12.
check_close("brier_score_loss(y, P, labels) on 4 classes = BS (Brier's sum over classes, range [0, 2])",
            brier_score_loss(labels, probs, labels=np.arange(k)), brier(probs, labels), rtol=1e-12)
check_close("scale_by_half=True halves it", brier_score_loss(labels, probs, labels=np.arange(k),
                                                             scale_by_half=True),
            brier(probs, labels) / 2, rtol=1e-12)
# With two classes its default scale_by_half="auto" halves: it reports the binary form, half of
# Brier's sum over the two classes, while with three or more classes it reports the full sum.
check_close("pitfall: for two classes it is half the card's sum over the classes (scale_by_half='auto')",
            brier_score_loss(o1, p1) * 2, brier(two, o1), rtol=1e-12)
check_close("fix: scale_by_half=False gives the card's two-class sum",
            brier_score_loss(o1, p1, scale_by_half=False), brier(two, o1), rtol=1e-12)
# --- end in code ---

pp = np.linspace(0, 1, 201)
fig, ax = figure("Brier score is proper: expected score vs forecast", "forecast probability p",
                 "expected Brier score")
for q in (0.2, 0.5, 0.9):
    ax.plot(pp, [expected_score(x, q) for x in pp], label=f"true probability {q}")
ax.legend()
