"""Pairwise hinge (Ranking SVM) loss on the toy corpus: scikit-learn's hinge_loss on score differences,
the margin-scaling identity, its subgradient by finite differences, and the Ranking SVM objective
minimized at scikit-learn's LinearSVC solution trained on pair differences."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import hinge_loss
from sklearn.svm import LinearSVC


# --- formula ---
def pairwise_hinge(scores, labels, margin: float = 1.0) -> float:
    """Sum over pairs (i more relevant than j) of max(0, margin - (s_i - s_j))."""
    gaps = np.subtract.outer(scores, scores)
    return float(np.sum(np.maximum(0.0, margin - gaps)[np.greater.outer(labels, labels)]))


def ranking_svm_objective(w, phis, labels_list, C: float) -> float:
    """Joachims' Ranking SVM: 1/2 |w|^2 + C * sum of pairwise hinge losses (margin 1) over queries."""
    hinge = sum(pairwise_hinge(phi @ w, y) for phi, y in zip(phis, labels_list, strict=True))
    return 0.5 * float(w @ w) + C * hinge
# --- end formula ---


E = tc.doc_embeddings()
dense = {q: E @ tc.query_embedding(q) * 10 for q in tc.QUERIES}
grades = {q: tc.grades(q) for q in tc.QUERIES}


def pair_differences(values, y):
    i, j = np.nonzero(np.greater.outer(y, y))
    return values[i] - values[j]


# 1. Against scikit-learn's hinge_loss on the score differences. Each ordered pair is a +1 example;
#    every second one is presented flipped, (-difference, -1), which has the same hinge, because
#    hinge_loss needs both classes present.
diffs = np.concatenate([pair_differences(dense[q], grades[q]) for q in tc.QUERIES])
sign = np.where(np.arange(diffs.size) % 2 == 0, 1.0, -1.0)
check_close(f"6 queries, {diffs.size} ordered pairs: sum of pair losses vs sklearn hinge_loss x n_pairs",
            sum(pairwise_hinge(dense[q], grades[q]) for q in tc.QUERIES),
            hinge_loss(sign, sign * diffs) * diffs.size, rtol=1e-12)

# 2. Other margins: the loss is homogeneous, L_m(s) = m L_1(s / m).
for m in (0.25, 3.0):
    check_close(f"margin {m}: L_m(s) = m L_1(s/m), q2",
                pairwise_hinge(dense["q2"], grades["q2"], m),
                m * pairwise_hinge(dense["q2"] / m, grades["q2"]),
                rtol=1e-12)
check_close("margin 3, all 6 queries, vs sklearn hinge_loss of the differences divided by 3, times 3",
            sum(pairwise_hinge(dense[q], grades[q], 3.0) for q in tc.QUERIES),
            3 * hinge_loss(sign, sign * diffs / 3) * diffs.size, rtol=1e-12)

# 3. Hand values: labels (2, 1, 0), scores (3, 2.5, 0.2): gaps 0.5 (active, 0.5), 2.8 and 2.3 (zero).
check_close("hand value: pairs (a,b), (a,c), (b,c) with gaps 0.5, 2.8, 2.3 -> 0.5 + 0 + 0",
            pairwise_hinge(np.array([3.0, 2.5, 0.2]), np.array([2, 1, 0])), 0.5, rtol=1e-12)
check_close("inverted pair: gap -1 with margin 1 costs 2; equal grades are not a pair",
            pairwise_hinge(np.array([0.0, 1.0, 5.0]), np.array([1, 0, 1])), 2.0 + 0.0, rtol=1e-12)

# 4. Subgradient: away from the kinks, dL/ds_i = (# active pairs where i is worse) - (# where i is better).
s, y = dense["q4"], grades["q4"]
active = (1.0 - np.subtract.outer(s, s) > 0) & np.greater.outer(y, y)
h = 1e-7
fd = np.array([(pairwise_hinge(s + h * e, y) - pairwise_hinge(s - h * e, y)) / (2 * h) for e in np.eye(32)])
check_close("q4: finite differences = (# active pairs as the worse) - (# active pairs as the better)",
            fd, active.sum(axis=0) - active.sum(axis=1), rtol=1e-6, atol=1e-6)

# 5. Ranking SVM: train scikit-learn's LinearSVC (hinge, no intercept) on pair differences of three
#    features; its solution must minimize the Ranking SVM objective written above.
def features(qid):
    terms = set(tc.query_tokens(qid))
    coverage = [len(terms & set(d)) / len(terms) for d in tc.doc_tokens()]
    return np.column_stack([E @ tc.query_embedding(qid), tc.bm25_reference(tc.query_tokens(qid)) / 10,
                            coverage])


phis = [features(q) for q in tc.QUERIES]
ys = [grades[q] for q in tc.QUERIES]
X = np.concatenate([pair_differences(p, y) for p, y in zip(phis, ys, strict=True)])
flip = np.where(np.arange(len(X)) % 2 == 0, 1.0, -1.0)     # LinearSVC needs both classes
C = 0.05
svm = LinearSVC(loss="hinge", C=C, fit_intercept=False, tol=1e-12, max_iter=200_000)
svm.fit(X * flip[:, None], flip)
w_star = svm.coef_.ravel()
obj_star = ranking_svm_objective(w_star, phis, ys, C)
rng = np.random.default_rng(0)
worse = [ranking_svm_objective(w_star + 0.02 * np.linalg.norm(w_star) * rng.normal(size=3), phis, ys, C)
         for _ in range(40)]
check_true("Ranking SVM objective is lowest at LinearSVC's w (40 random 2% perturbations are worse)",
           min(worse) > obj_star, f"objective {obj_star:.4f}, best perturbed {min(worse):.4f}")
check_close("objective at LinearSVC's w vs 1/2|w|^2 + C * n_pairs * sklearn hinge_loss",
            obj_star, 0.5 * w_star @ w_star + C * len(X) * hinge_loss(flip, (X * flip[:, None]) @ w_star),
            rtol=1e-12)

gap = np.linspace(-3, 4, 281)
fig, ax = figure("Loss of one pair (d⁺ should outrank d⁻)", "score gap  s(q, d⁺) − s(q, d⁻)", "loss")
for m in (0.5, 1.0, 2.0):
    ax.plot(gap, np.maximum(0, m - gap), label=f"hinge, margin m = {m:g}")
ax.plot(gap, (gap <= 0).astype(float), ":", color="gray", label="0–1 (pair inverted)")
ax.plot(gap, np.logaddexp(0, -gap), "--", label="logistic (RankNet)")
ax.set_ylim(0, 4)
ax.legend()

# The page's calculator is checked against pairwise_hinge on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), one pair: gaps short of, at and beyond the margin.
import cardcalc  # noqa: E402

cardcalc.table(lambda s_pos, s_neg, m: pairwise_hinge(np.array([s_pos, s_neg]), np.array([1, 0]), m),
               cardcalc.grid(s_pos=(-2.0, 0.0, 0.5, 1.0, 3.0), s_neg=(-1.0, 0.0), m=(0.0, 1.0, 2.0)))
