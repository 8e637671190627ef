"""Cohen's kappa (and its quadratic-weighted form) against scikit-learn's cohen_kappa_score, with
the chance agreement p_e counted by brute force over every pair of one label from each rater."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def confusion(a, b, k):
    """k x k table of proportions: entry (i, j) is the share of items rater A put in i and B in j."""
    table = np.zeros((k, k))
    np.add.at(table, (a, b), 1.0)
    return table / len(a)


def kappa_from_agreement(p_o, p_e):
    """kappa = (p_o - p_e) / (1 - p_e): agreement above chance as a share of the most there could be."""
    return (p_o - p_e) / (1.0 - p_e)


def cohens_kappa(a, b, k):
    """kappa from the labels, p_o the diagonal mass, p_e the product of the marginals."""
    p = confusion(a, b, k)
    p_o = np.trace(p)
    p_e = np.sum(p.sum(axis=1) * p.sum(axis=0))
    return kappa_from_agreement(p_o, p_e), p_o, p_e


def weighted_kappa(a, b, k, power=2.0):
    """kappa_w = 1 - sum w_ij p_ij / sum w_ij e_ij with disagreement weights |i - j|^power (quadratic: 2)."""
    p = confusion(a, b, k)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    e = np.outer(rows, cols)  # equivalent: w is symmetric, so sum(w * e) = sum(w * e.T)
    cats = np.arange(k)
    w = np.abs(cats[:, None] - cats[None, :]) ** power
    return 1.0 - np.sum(w * p) / np.sum(w * e)
# --- end formula ---


rng = np.random.default_rng(0)


def rater_pair(n, k, agree, skew):
    """Labels of a human (skewed marginals) and a judge that copies the human with probability
    `agree`, else draws from its own, differently skewed, marginals."""
    human = rng.choice(k, n, p=skew / skew.sum())
    own = rng.choice(k, n, p=skew[::-1] / skew.sum())
    judge = np.where(rng.random(n) < agree, human, own)
    return human, judge


# Sums of at most a few thousand proportions: a few ulps each, so rtol 1e-12 (short sums).
pairs = []
for k, n, agree in [(2, 300, 0.6), (3, 500, 0.4), (5, 2000, 0.7), (7, 150, 0.2)]:
    skew = np.arange(1, k + 1, dtype=float) ** 1.5
    human, judge = rater_pair(n, k, agree, skew)
    pairs.append((human, judge, k))
    kappa, p_o, p_e = cohens_kappa(human, judge, k)
    # Chance agreement by brute force: pick one item's label from A and one (any) item's from B,
    # independently and uniformly; p_e is how often the two labels match, over all n^2 pairs.
    check_close(f"p_e vs brute force over all {n}^2 label pairs (k={k})", p_e,
                np.mean(human[:, None] == judge[None, :]), rtol=1e-12)
    check_close(f"p_o vs share of items labelled alike (k={k})", p_o, np.mean(human == judge),
                rtol=1e-12)
    check_close(f"kappa is symmetric in the two raters (k={k})", cohens_kappa(judge, human, k)[0], kappa,
                rtol=1e-12)

# Limits: identical labels give 1; two raters who label independently give 0 up to sampling error.
# The standard error of kappa under independence is about sqrt(p_e / (n (1 - p_e))) (Cohen's own
# large-sample formula): allow four of them.
labels = rng.choice(4, 1000)
check_close("identical labels give kappa = 1", cohens_kappa(labels, labels, 4)[0], 1.0, rtol=1e-12)
n_ind = 20_000
a_ind, b_ind = rng.choice(4, n_ind, p=[0.4, 0.3, 0.2, 0.1]), rng.choice(4, n_ind, p=[0.1, 0.2, 0.3, 0.4])
k_ind, _, pe_ind = cohens_kappa(a_ind, b_ind, 4)
check_close("independent raters give kappa near 0 (4 standard errors)", k_ind, 0.0,
            atol=4 * np.sqrt(pe_ind / (n_ind * (1 - pe_ind))))
# A skewed label distribution: 90% raw agreement can be no better than chance.
yes = np.r_[np.ones(90, int), np.zeros(10, int)]
other = np.r_[np.ones(90, int), np.zeros(10, int)][rng.permutation(100)]
check_true("high raw agreement, kappa below 0.3 under skewed labels",
           cohens_kappa(yes, other, 2)[1] >= 0.8 and cohens_kappa(yes, other, 2)[0] < 0.3,
           f"p_o {cohens_kappa(yes, other, 2)[1]:.2f}, kappa {cohens_kappa(yes, other, 2)[0]:.2f}")

# The card's example: both raters say "good" 90% of the time, so p_e = 0.9^2 + 0.1^2 = 0.82; at 90% raw
# agreement kappa is 0.08 / 0.18 = 4/9, and agreeing exactly as often as chance gives 0.
check_close("hand values: kappa(0.9, 0.82) = 4/9, kappa(0.82, 0.82) = 0, kappa(0.5, 0.82) = -16/9",
            [kappa_from_agreement(p_o, 0.82) for p_o in (0.9, 0.82, 0.5)], [4 / 9, 0.0, -16 / 9],
            rtol=1e-12, atol=1e-15)
# A judge that always gives one label: p_e equals p_o, so kappa is 0 whatever its raw agreement.
constant = np.ones(100, int)
check_close("a constant judge gets kappa = 0 despite 90% raw agreement", cohens_kappa(yes, constant, 2)[0],
            0.0, atol=1e-14)  # a few ulps of p_o and p_e (both 0.9), divided by 1 - p_e = 0.1

# The page's calculator is checked against kappa_from_agreement on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): kappa 1, 0 and negative, and chance agreement near 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda p_o, p_e: {"kappa": kappa_from_agreement(p_o, p_e)},
               cardcalc.grid(p_o=(0.0, 0.5, 0.82, 0.9, 1.0), p_e=(0.0, 0.5, 0.82, 0.99)))

# --- in code: scikit-learn ---
from itertools import combinations  # noqa: E402

from sklearn.metrics import cohen_kappa_score  # noqa: E402

# The same sums of proportions in another order: rtol 1e-12, as above.
check_close("cohen_kappa_score(A, B) = kappa on the four rater pairs",
            [cohen_kappa_score(a, b) for a, b, _ in pairs], [cohens_kappa(a, b, k)[0] for a, b, k in pairs],
            rtol=1e-12)
check_close("cohen_kappa_score(A, B, weights='quadratic') = kappa_w with w = (i - j)^2",
            [cohen_kappa_score(a, b, weights="quadratic") for a, b, _ in pairs],
            [weighted_kappa(a, b, k) for a, b, k in pairs], rtol=1e-12)
human, judge, k = pairs[2]  # five ordered grades
check_close("pitfall: weights='linear' is w = |i - j|, not the quadratic weights of QWK",
            cohen_kappa_score(human, judge, weights="linear"), weighted_kappa(human, judge, k, power=1.0),
            rtol=1e-12)
three = [cohen_kappa_score(human, judge, weights=w) for w in (None, "linear", "quadratic")]
check_true("... and the default weights=None (plain kappa), linear and quadratic all differ here",
           min(abs(x - y) for x, y in combinations(three, 2)) > 0.05, f"{three[0]:.3f}, {three[1]:.3f}, "
           f"{three[2]:.3f}: the judge's misses are far from the human's grade, so weighting lowers kappa")
# Its weights are built on the positions of the labels seen, not their values: with grade 3 unused,
# grades 2 and 4 sit one apart, as if the scale had four grades.
human4, judge4 = np.where(human == 3, 4, human), np.where(judge == 3, 4, judge)
squeezed = np.searchsorted([0, 1, 2, 4], human4), np.searchsorted([0, 1, 2, 4], judge4)
check_close("pitfall: a grade no rater used drops out of the weights: it is kappa_w on a 4-grade scale",
            cohen_kappa_score(human4, judge4, weights="quadratic"), weighted_kappa(*squeezed, 4), rtol=1e-12)
check_close("fix: labels=range(k) keeps the card's 5-grade weights",
            cohen_kappa_score(human4, judge4, weights="quadratic", labels=np.arange(5)),
            weighted_kappa(human4, judge4, 5), rtol=1e-12)
on_4, on_5 = weighted_kappa(*squeezed, 4), weighted_kappa(human4, judge4, 5)
check_true("... and the two differ", abs(on_4 - on_5) > 0.01, f"{on_4:.3f} vs {on_5:.3f}")
# --- end in code ---

agrees = np.linspace(0, 1, 21)
fig, ax = figure("Raw agreement vs Cohen's kappa (3 labels, skewed marginals)",
                 "copy probability of the judge", "agreement")
skew3 = np.array([8.0, 1.5, 0.5])
curves = np.array([cohens_kappa(*rater_pair(4000, 3, g, skew3), 3)[:2] for g in agrees])
ax.plot(agrees, curves[:, 1], label="raw agreement $p_o$")
ax.plot(agrees, curves[:, 0], label="Cohen's kappa")
ax.legend()
