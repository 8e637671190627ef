"""ListNet top-one loss: against scipy's softmax/log_softmax, the top-one probability as a marginal of the
Plackett-Luce permutation distribution (enumerating all permutations), its gradient P_s - P_y by finite
differences, its minimum (the entropy of P_y) and stability on scores spanning 2000."""

from itertools import permutations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import entropy


# --- formula ---
def top_one_probability(scores):
    """P_s(j) = exp(s_j) / sum_k exp(s_k), shifted by the maximum for stability."""
    e = np.exp(scores - np.max(scores))
    return e / np.sum(e)


def listnet_loss(labels, scores):
    """Cross-entropy between the top-one distributions of the labels and of the scores."""
    shifted = scores - np.max(scores)
    log_p = shifted - np.log(np.sum(np.exp(shifted)))
    return float(-np.sum(top_one_probability(labels) * log_p))
# --- end formula ---


rng = np.random.default_rng(0)
E = tc.doc_embeddings()
labels = tc.grades("q6").astype(float)
scores = E @ tc.query_embedding("q6") * 6

# 1. The loss written with scipy's softmax and log_softmax, on the toy query q6 and random lists.
check_close("q6 (32 documents): loss vs -sum softmax(y) * log_softmax(s) (scipy)",
            listnet_loss(labels, scores), -np.sum(softmax(labels) * log_softmax(scores)), rtol=1e-12)
for n in (2, 7, 20):
    y, s = rng.integers(0, 4, n).astype(float), rng.normal(0, 3, n)
    check_close(f"random list of {n}: loss vs scipy", listnet_loss(y, s),
                -np.sum(softmax(y) * log_softmax(s)), rtol=1e-12)

# 2. The top-one probability is the chance that j comes first under the Plackett-Luce permutation
#    model: sum the probabilities of all 5! permutations that start with j.
s5 = rng.normal(0, 1.5, 5)


def plackett_luce(perm, s):
    p = 1.0
    for i in range(len(perm)):
        rest = np.exp([s[k] for k in perm[i:]])
        p *= np.exp(s[perm[i]]) / rest.sum()
    return p


marginal = np.zeros(5)
for perm in permutations(range(5)):
    marginal[perm[0]] += plackett_luce(perm, s5)
check_close("top-one probability vs Plackett-Luce marginal over all 120 permutations",
            top_one_probability(s5), marginal, rtol=1e-12)

# 3. Gradient with respect to the scores: P_s - P_y (central finite differences).
h = 1e-6
fd = np.array([(listnet_loss(labels, scores + h * e) - listnet_loss(labels, scores - h * e)) / (2 * h)
               for e in np.eye(32)])
check_close("dL/ds = P_s - P_y vs finite differences (q6)", softmax(scores) - softmax(labels), fd,
            rtol=1e-6, atol=1e-9)

# 4. Minimum: at s = y + c the loss equals the entropy of P_y (Gibbs' inequality elsewhere).
check_close("L(y, y + 7) = H(P_y) (scipy.stats.entropy)", listnet_loss(labels, labels + 7),
            entropy(softmax(labels)), rtol=1e-12)
check_true("L(y, s) > H(P_y) for the dense scores of q6",
           listnet_loss(labels, scores) > entropy(softmax(labels)) + 1e-3)

# 5. Scores spanning 2000 (a naive exp overflows) against scipy's log_softmax.
wide = np.array([900.0, -1100.0, 850.0, 0.0, 899.0])
yw = np.array([3.0, 0.0, 2.0, 1.0, 3.0])
check_close("scores from -1100 to 900: finite and equal to scipy's value", listnet_loss(yw, wide),
            -np.sum(softmax(yw) * log_softmax(wide)), rtol=1e-12)
check_close("labels spanning 1500 (a one-hot target in effect): loss = -log_softmax(s)[argmax y]",
            listnet_loss(np.array([0.0, 1500.0, 3.0]), np.array([1.0, 2.0, 0.5])),
            -log_softmax(np.array([1.0, 2.0, 0.5]))[1], rtol=1e-12)

fig, ax = figure("Top-one probabilities on toy query q6", "document (sorted by grade, then score)",
                 "top-one probability")
order = np.lexsort((-scores, -labels))
ax.bar(np.arange(32) - 0.2, softmax(labels)[order], width=0.4, label="from the grades, $P_y$")
ax.bar(np.arange(32) + 0.2, softmax(scores)[order], width=0.4, label="from dense scores × 6, $P_s$")
ax.legend()
