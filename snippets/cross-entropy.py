"""Cross-entropy: checked against scipy H(P) + KL, Monte-Carlo, batch mean loss, and one-hot NLL."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax
from scipy.stats import entropy


# --- formula ---
def cross_entropy(p: np.ndarray, q: np.ndarray) -> float:
    """H(P, Q) = -sum_x P(x) log Q(x) in nats; outcomes with P(x) = 0 contribute nothing."""
    support = p > 0
    return float(-np.sum(p[support] * np.log(q[support])))
# --- end formula ---


rng = np.random.default_rng(0)
V = 10
p = rng.dirichlet(np.ones(V))
q = rng.dirichlet(np.ones(V))

# scipy.stats.entropy(p) is H(P); entropy(p, q) is D_KL(P || Q).
check_close("H(P,Q) vs scipy entropy(p) + entropy(p, q)", cross_entropy(p, q),
            entropy(p) + entropy(p, q), rtol=1e-12)

samples = rng.choice(V, size=400_000, p=p)
check_close("H(P,Q) vs Monte-Carlo mean of -log Q(x), x ~ P (400k draws)", cross_entropy(p, q),
            np.mean(-np.log(q[samples])), rtol=0.01)

# The training loss on a labelled batch is the cross-entropy of the batch's empirical distribution.
labels = rng.choice(V, size=257, p=p)
empirical = np.bincount(labels, minlength=V) / labels.size
check_close("mean log-loss of a batch = H(empirical P, Q)", np.mean(-np.log(q[labels])),
            cross_entropy(empirical, q), rtol=1e-12)

# One-hot target: the sum collapses to -log Q(y), the negative log-likelihood of the label.
z = rng.normal(scale=3.0, size=V)
y = 3
check_close("one-hot target gives -log_softmax(z)[y]",
            cross_entropy(np.eye(V)[y], np.exp(log_softmax(z))), -log_softmax(z)[y], rtol=1e-12)

check_true("Gibbs: H(P,Q) >= H(P), equality at Q = P",
           cross_entropy(p, q) > entropy(p) and abs(cross_entropy(p, p) - entropy(p)) < 1e-12,
           f"H(P,Q) = {cross_entropy(p, q):.4f}, H(P) = {entropy(p):.4f} nats")
check_true("not symmetric: H(P,Q) != H(Q,P)", abs(cross_entropy(p, q) - cross_entropy(q, p)) > 1e-3,
           f"{cross_entropy(p, q):.4f} vs {cross_entropy(q, p):.4f} nats")
