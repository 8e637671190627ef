"""Inception Score: exp of mean KL vs scipy entropy(p, q), the mutual-information form, and bounds 1 and K."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import entropy


# --- formula ---
def inception_score(probs: np.ndarray) -> float:
    """probs[i, y] = p(y | x_i); the marginal p(y) is the average over the samples."""
    marginal = probs.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(probs > 0, probs * (np.log(probs) - np.log(marginal)), 0.0)
    return float(np.exp(terms.sum(axis=1).mean()))
# --- end formula ---


rng = np.random.default_rng(0)
n, k = 2000, 10
logits = rng.normal(scale=3.0, size=(n, k))
probs = np.exp(logits - logits.max(axis=1, keepdims=True))
probs /= probs.sum(axis=1, keepdims=True)
marginal = probs.mean(axis=0)

# Direct route: one KL divergence per sample with scipy, then average and exponentiate.
direct = np.exp(np.mean([entropy(p, marginal) for p in probs]))
check_close("IS vs exp(mean of scipy KL(p(y|x) || p(y)))", inception_score(probs), direct)

# Identity: E_x KL(p(y|x) || p(y)) = H(p(y)) - E_x H(p(y|x)), the mutual information I(x; y).
mi = entropy(marginal) - np.mean(entropy(probs, axis=1))
check_close("IS = exp(H(marginal) - mean conditional entropy)", inception_score(probs), np.exp(mi))

# Bounds: 1 when every prediction is the same; K when predictions are one-hot and classes balanced.
same = np.tile(rng.dirichlet(np.ones(k)), (n, 1))
one_hot = np.eye(k)[np.arange(n) % k]
check_close("identical predictions give IS = 1", inception_score(same), 1.0)
check_close("confident predictions over balanced classes give IS = K", inception_score(one_hot), float(k))
check_true("random classifier output lies strictly between 1 and K",
           1.0 < inception_score(probs) < k, f"IS = {inception_score(probs):.3f}, K = {k}")

# One-hot but collapsed onto 2 of the 10 classes: IS counts effective classes, so it drops to 2.
collapsed = np.eye(k)[np.arange(n) % 2]
check_close("mode collapse to 2 classes gives IS = 2", inception_score(collapsed), 2.0)
