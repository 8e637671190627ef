"""LambdaRank: |ΔNDCG| of every pair against scikit-learn's ndcg_score recomputed after swapping the two
documents, the lambdas against finite differences of the NDCG-weighted RankNet cost, and training a
linear scorer on the toy corpus with them."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_expit
from sklearn.metrics import ndcg_score


# --- formula ---
def delta_ndcg(labels, scores):
    """|NDCG change| when documents i and j swap rank positions (gain 2^y - 1, discount log2(1 + rank))."""
    n = len(scores)
    ranks = np.empty(n)
    ranks[np.argsort(-scores)] = np.arange(1, n + 1)
    gain = 2.0**labels - 1
    discount = 1 / np.log2(1 + ranks)
    ideal = np.sum(np.sort(gain)[::-1] / np.log2(np.arange(2, n + 2)))
    return np.abs(np.subtract.outer(gain, gain) * np.subtract.outer(discount, discount)) / ideal


def lambdarank_lambdas(scores, labels, sigma: float = 1.0):
    """lambda_i = sum over pairs (i above j in the labels) of lambda_ij, minus those where i is below,
    with lambda_ij = -sigma / (1 + exp(sigma (s_i - s_j))) |ΔNDCG_ij|."""
    lam = -sigma / (1 + np.exp(sigma * np.subtract.outer(scores, scores))) * delta_ndcg(labels, scores)
    lam = np.where(np.greater.outer(labels, labels), lam, 0.0)
    return lam.sum(axis=1) - lam.sum(axis=0)
# --- end formula ---


def ndcg_exp(labels, scores):
    """NDCG with gain 2^y - 1 through scikit-learn (its gain is the label itself, so pass 2^y - 1)."""
    return ndcg_score([2.0**labels - 1], [scores])


E = tc.doc_embeddings()
labels = tc.grades("q6").astype(float)
scores = E @ tc.query_embedding("q6") * 4

# 1. |ΔNDCG_ij| against recomputing NDCG after swapping the two documents' scores, for all 496 pairs.
base = ndcg_exp(labels, scores)
swapped = np.zeros((32, 32))
for i in range(32):
    for j in range(i + 1, 32):
        s = scores.copy()
        s[[i, j]] = s[[j, i]]
        swapped[i, j] = swapped[j, i] = abs(ndcg_exp(labels, s) - base)
check_close("q6: |ΔNDCG| of all 496 pairs vs sklearn ndcg_score after swapping the two documents",
            delta_ndcg(labels, scores), swapped, rtol=1e-9, atol=1e-15)
check_true("swapping two documents of equal grade changes nothing; some unequal swaps change NDCG by > 0.1",
           swapped[labels[:, None] == labels[None, :]].max() < 1e-15 and swapped.max() > 0.1)

# 2. The lambdas are the gradient of the RankNet cost with each pair weighted by its (frozen) |ΔNDCG|.
for sigma in (1.0, 2.0):
    def weighted_cost(s, sigma=sigma):
        pair = labels[:, None] > labels[None, :]
        return -np.sum((swapped * log_expit(sigma * (s[:, None] - s[None, :])))[pair])
    h = 1e-6
    fd = np.array([(weighted_cost(scores + h * e) - weighted_cost(scores - h * e)) / (2 * h)
                   for e in np.eye(32)])
    check_close(f"lambda_i vs finite differences of the |ΔNDCG|-weighted RankNet cost, sigma = {sigma}",
                lambdarank_lambdas(scores, labels, sigma) if sigma != 1.0
                else lambdarank_lambdas(scores, labels),
                fd, rtol=1e-6, atol=1e-9)

lam = lambdarank_lambdas(scores, labels)
check_true("lambdas sum to zero; the grade-3 document d17 (dense rank 4) is pushed up hardest",
           abs(lam.sum()) < 1e-12 and int(np.argmin(lam)) == tc.DOC_IDS.index("d17"),
           f"lambda of d17 = {lam[tc.DOC_IDS.index('d17')]:.4f}")


# 3. Training a linear scorer w . phi(q, d) on all six toy queries by s <- s - eta * lambda.
def features(qid):
    terms = set(tc.query_tokens(qid))
    coverage = [len(terms & set(d)) / len(terms) for d in tc.doc_tokens()]
    return np.column_stack([E @ tc.query_embedding(qid), tc.bm25_reference(tc.query_tokens(qid)) / 10,
                            coverage])


phi = {q: features(q) for q in tc.QUERIES}
lab = {q: tc.grades(q).astype(float) for q in tc.QUERIES}


def ndcg10(labels_q, s):
    """NDCG@10, gain 2^y - 1 (a direct loop, cheaper than sklearn for the training curve)."""
    gains = 2.0 ** labels_q - 1
    disc = 1 / np.log2(np.arange(2, 12))
    return np.sum(gains[np.argsort(-s)][:10] * disc) / np.sum(np.sort(gains)[::-1][:10] * disc)


w_probe = np.array([0.3, -1.0, 2.0])
check_close("NDCG@10 helper for the training curve vs sklearn ndcg_score(k = 10), 6 queries",
            [ndcg10(lab[q], phi[q] @ w_probe) for q in tc.QUERIES],
            [ndcg_score([2.0**lab[q] - 1], [phi[q] @ w_probe], k=10) for q in tc.QUERIES], rtol=1e-12)


def mean_ndcg10(w):
    return np.mean([ndcg10(lab[q], phi[q] @ w) for q in tc.QUERIES])


history = {}
for name, weighted in (("LambdaRank", True), ("RankNet", False)):
    w = np.array([-1.0, 0.0, 0.0])  # a bad start: ranks by dissimilarity
    curve = [mean_ndcg10(w)]
    for _ in range(40):
        grad = np.zeros(3)
        for q in tc.QUERIES:
            s = phi[q] @ w
            if weighted:
                lam_q = lambdarank_lambdas(s, lab[q])
            else:  # RankNet: lambda_ij without the |ΔNDCG| factor
                lam_q = np.where(lab[q][:, None] > lab[q][None, :],
                                 -1 / (1 + np.exp(s[:, None] - s[None, :])), 0)
                lam_q = lam_q.sum(axis=1) - lam_q.sum(axis=0)
            grad += lam_q @ phi[q]
        w -= 0.1 * grad / np.linalg.norm(grad)     # fixed step length along the gradient
        curve.append(mean_ndcg10(w))
    history[name] = curve
check_true("40 LambdaRank steps raise the mean NDCG@10 of the six queries",
           history["LambdaRank"][-1] > history["LambdaRank"][0] + 0.3,
           f"{history['LambdaRank'][0]:.3f} -> {history['LambdaRank'][-1]:.3f}")

# The page's calculator is checked against lambdarank_lambdas on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows). In a two-document query labelled (1, 0), lambda_i is the one pair's
# lambda_ij at that query's |ΔNDCG|; lambda_ij is linear in |ΔNDCG|, so it is rescaled to the input's.
# The grid takes pairs ordered both ways, ties, saturated sigmoids and |ΔNDCG| from 0 to 1.
import cardcalc  # noqa: E402


def pair_lambda(sigma, s_i, s_j, dN):
    scores, labels = np.array([s_i, s_j]), np.array([1.0, 0.0])
    two_doc = delta_ndcg(labels, scores)[0, 1]
    return float(lambdarank_lambdas(scores, labels, sigma)[0] / two_doc * dN)


cardcalc.table(pair_lambda, cardcalc.grid(sigma=(0.5, 1.0, 4.0), s_i=(-30.0, 0.2, 1.0, 3.0),
                                          s_j=(-2.0, 1.0, 30.0), dN=(0.0, 0.3, 1.0)))


fig, ax = figure("Training a 3-feature linear ranker (steps of length 0.1)", "gradient step",
                 "mean NDCG@10 (gain 2^y − 1)")
for name, curve in history.items():
    ax.plot(curve, label=name)
ax.legend()
