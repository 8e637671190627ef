"""RankNet: the pairwise cross-entropy against scipy's xlogy/expit and scikit-learn's log_loss, its
closed form in o = s_i - s_j, the lambda gradient by finite differences, and stability at |o| = 800."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, xlogy
from sklearn.metrics import log_loss


# --- formula ---
def ranknet_pair_loss(s_i, s_j, p_target, sigma: float = 1.0):
    """-P log P_ij - (1 - P) log(1 - P_ij), P_ij = sigmoid(sigma (s_i - s_j)), in log-sum-exp form."""
    o = sigma * (np.asarray(s_i, dtype=float) - s_j)
    return p_target * np.logaddexp(0.0, -o) + (1 - p_target) * np.logaddexp(0.0, o)


def ranknet_lambda_ij(s_i, s_j, S_ij, sigma: float = 1.0):
    """dC/ds_i for target P = (1 + S_ij) / 2 (Burges 2010, Sec. 2)."""
    return sigma * (0.5 * (1 - S_ij) - 1 / (1 + np.exp(sigma * (s_i - s_j))))


def ranknet_list(scores, labels, sigma: float = 1.0):
    """Total cost over the pairs with different labels (i more relevant than j), and lambda_i = dC/ds_i."""
    cost, lambdas = 0.0, np.zeros(len(scores))
    for i in range(len(scores)):
        for j in range(len(scores)):
            if labels[i] > labels[j]:
                cost += ranknet_pair_loss(scores[i], scores[j], 1.0, sigma)
                lam = ranknet_lambda_ij(scores[i], scores[j], 1.0, sigma)
                lambdas[i] += lam
                lambdas[j] -= lam
    return float(cost), lambdas
# --- end formula ---


rng = np.random.default_rng(0)
s_i, s_j = rng.normal(0, 2, 40), rng.normal(0, 2, 40)
targets = rng.choice([0.0, 0.5, 1.0, 0.3], size=40)

# 1. The cross-entropy written directly with scipy (moderate scores, so the naive form is accurate).
for sigma in (1.0, 2.5):
    p_ij = expit(sigma * (s_i - s_j))
    direct = -xlogy(targets, p_ij) - xlogy(1 - targets, 1 - p_ij)
    check_close(f"pair loss vs -P log P_ij - (1 - P) log(1 - P_ij) with scipy, sigma = {sigma}",
                ranknet_pair_loss(s_i, s_j, targets, sigma), direct, rtol=1e-10)

# 2. Hard targets: the mean pair loss is scikit-learn's log loss of the pair probabilities.
hard = (targets == 1.0).astype(float)
check_close("hard targets: mean pair loss vs sklearn log_loss(target, P_ij)",
            np.mean(ranknet_pair_loss(s_i, s_j, hard)), log_loss(hard, expit(s_i - s_j), labels=[0, 1]),
            rtol=1e-10)

# 3. Burges et al. (2005): with o = s_i - s_j, C = -P o + log(1 + e^o).
o = s_i - s_j
check_close("closed form C = -P o + log(1 + e^o) (Burges et al. 2005)",
            ranknet_pair_loss(s_i, s_j, targets), -targets * o + np.log1p(np.exp(o)), rtol=1e-10)

# 4. Far from zero the naive form overflows; the loss must be |o| on the wrong side, ~0 on the right one.
check_close("o = -800, P = 1: cost 800; o = +800, P = 1: cost 0; o = 800, P = 1/2: cost 400",
            ranknet_pair_loss(np.array([-800.0, 800.0, 800.0]), 0.0, np.array([1.0, 1.0, 0.5])),
            [800.0, 0.0, 400.0], rtol=1e-12, atol=1e-300)

# 5. Symmetry: swapping the two items and the target gives the same cost.
check_close("C(s_i, s_j, P) = C(s_j, s_i, 1 - P)", ranknet_pair_loss(s_i, s_j, targets),
            ranknet_pair_loss(s_j, s_i, 1 - targets), rtol=1e-12)

# 6. lambda_ij = dC/ds_i by central finite differences, for S_ij = 1, 0, -1 and two values of sigma.
h = 1e-6
for S in (1.0, 0.0, -1.0):
    for sigma in (1.0, 2.5):
        p = (1 + S) / 2
        fd = (ranknet_pair_loss(s_i + h, s_j, p, sigma) - ranknet_pair_loss(s_i - h, s_j, p, sigma)) / (2 * h)
        check_close(f"lambda_ij vs finite differences, S_ij = {S:+.0f}, sigma = {sigma}",
                    ranknet_lambda_ij(s_i, s_j, S, sigma), fd, rtol=1e-6, atol=1e-9)

# 7. A whole toy query: dense scores of the 32 documents for q6 and their graded labels.
scores = tc.doc_embeddings() @ tc.query_embedding("q6") * 5
labels = tc.grades("q6")
cost, lambdas = ranknet_list(scores, labels, sigma=1.5)
n_pairs = sum(labels[i] > labels[j] for i in range(32) for j in range(32))
probs = expit(1.5 * (scores[:, None] - scores[None, :]))
check_close(f"q6: total cost over its {n_pairs} ordered pairs vs -sum log sigmoid(1.5 (s_i - s_j))",
            cost, -np.sum(np.log(probs)[labels[:, None] > labels[None, :]]), rtol=1e-10)
fd = np.array([(ranknet_list(scores + h * e, labels, 1.5)[0] - ranknet_list(scores - h * e, labels, 1.5)[0])
               / (2 * h) for e in np.eye(32)])
check_close("q6: lambda_i = sum of lambda_ij - sum of lambda_ji vs finite differences of the total cost",
            lambdas, fd, rtol=1e-5, atol=1e-7)
# Defaults (sigma = 1, the 2005 paper's slope): lambda_ij = -sigmoid(s_j - s_i) for S_ij = 1.
check_close("default sigma = 1: lambda_ij(S = 1) = -expit(s_j - s_i)", ranknet_lambda_ij(s_i, s_j, 1.0),
            -expit(s_j - s_i), rtol=1e-12)
check_close("default sigma = 1: q6 total cost vs -sum log expit(s_i - s_j) over its pairs",
            ranknet_list(scores, labels)[0],
            -np.sum(np.log(expit(scores[:, None] - scores[None, :]))[labels[:, None] > labels[None, :]]),
            rtol=1e-10)
check_true("lambdas sum to zero and push every relevant document up (lambda < 0 for grade 3)",
           abs(lambdas.sum()) < 1e-9 and bool(np.all(lambdas[labels == 3] < 0)))

gap = np.linspace(-6, 6, 241)
fig, ax = figure("RankNet cost of one pair", "score difference  s_i − s_j  (σ = 1)", "cost C")
for p in (1.0, 0.5, 0.0):
    ax.plot(gap, ranknet_pair_loss(gap, 0.0, p), label=f"target P = {p:g}")
ax.plot(gap, np.maximum(0, 1 - gap), ":", color="gray", label="pairwise hinge, margin 1")
ax.set_ylim(0, 6)
ax.legend()

# The page's calculator is checked against ranknet_pair_loss and ranknet_lambda_ij on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): score gaps of both signs and large,
# targets 0, 1/2 and 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda s_i, s_j, S, sigma: {"C": float(ranknet_pair_loss(s_i, s_j, (1 + S) / 2, sigma)),
                                           "lam": float(ranknet_lambda_ij(s_i, s_j, S, sigma))},
               cardcalc.grid(s_i=(-30.0, -1.0, 0.0, 2.0, 30.0), s_j=(0.0, 1.5), S=(-1, 0, 1),
                             sigma=(0.5, 1.0, 2.0)))
