"""Inception Score: exp of mean KL vs scipy entropy(p, q), the mutual-information form, and bounds 1 and K."""

import numpy as np
from cardcheck import check_close, check_true


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

# --- in code: scipy ---
from scipy.stats import entropy  # noqa: E402

# entropy(p, q) is the KL divergence, in nats, of each distribution along `axis`; q broadcasts.
# Sums of ten terms, then a mean and exp: a few ulps, so rtol 1e-12.
per_sample = entropy(probs, marginal, axis=1)
check_close("exp(mean(entropy(p(y|x), p(y), axis=1))) = IS", np.exp(per_sample.mean()),
            inception_score(probs), rtol=1e-12)
check_close("... and per row it is KL(p(y|x) || p(y)) of the card's sum",
            per_sample, [np.sum(row * np.log(row / marginal)) for row in probs], rtol=1e-12)
# E_x KL(p(y|x) || p(y)) = H(p(y)) - E_x H(p(y|x)), the mutual information I(x; y).
check_close("IS = exp(entropy(p(y)) - mean(entropy(p(y|x), axis=1)))",
            np.exp(entropy(marginal) - np.mean(entropy(probs, axis=1))), inception_score(probs), rtol=1e-12)
columns = entropy(probs, marginal)
check_true("pitfall: the default axis=0 reads each class column of the 2000 x 10 array as a distribution",
           columns.shape == (k,) and not np.isclose(np.exp(columns.mean()), inception_score(probs)),
           f"{columns.shape[0]} divergences, exp of their mean {np.exp(columns.mean()):.3f} "
           f"vs IS {inception_score(probs):.3f}")
check_close("pitfall: base=2 gives bits, so IS = 2 ** mean, not exp(mean)",
            2 ** entropy(probs, marginal, axis=1, base=2).mean(), inception_score(probs), rtol=1e-12)
# --- end in code ---
