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

# --- in code: scikit-learn ---
from sklearn.metrics import log_loss  # noqa: E402

# log_loss(labels, rows of Q) is the mean of -log Q(label): H(empirical P, Q). 257 float64 logs
# summed, a few ulps each: 1e-12 holds with room.
batch_q = np.tile(q, (labels.size, 1))
check_close("log_loss(labels, Q, labels=range(V)) = H(empirical P, Q)",
            log_loss(labels, batch_q, labels=np.arange(V)), cross_entropy(empirical, q), rtol=1e-12)
check_close("pitfall: normalize=False returns the sum, 257 times H(empirical P, Q)",
            log_loss(labels, batch_q, labels=np.arange(V), normalize=False),
            labels.size * cross_entropy(empirical, q), rtol=1e-12)
# Where Q gives a label zero probability, the card's loss is infinite; log_loss clips Q to
# [eps, 1 - eps] first, so it reports -log(eps) = 36.04 nats instead.
q_zero = np.array([[0.0, 1.0]])
with np.errstate(divide="ignore"):
    check_true("pitfall: Q(y) = 0 gives an infinite cross-entropy, but log_loss a finite -log(eps)",
               np.isinf(cross_entropy(np.array([1.0, 0.0]), q_zero[0]))
               and np.isclose(log_loss([0], q_zero, labels=[0, 1]), -np.log(np.finfo(float).eps)),
               f"log_loss gives {log_loss([0], q_zero, labels=[0, 1]):.2f} nats")
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# F.cross_entropy(logits, target probabilities): log Q, shifted by any constant, serves as logits.
# float64 over 10 terms; torch's log-softmax re-normalizes log Q, a few ulps of |log Q| (< 10)
# per term apart, so 1e-12 of H (> 1) holds.
logits_q, target_p = torch.tensor(np.log(q) + 5.0)[None, :], torch.tensor(p)[None, :]
check_close("F.cross_entropy(log Q + c, P) = H(P, Q)",
            F.cross_entropy(logits_q, target_p).item(), cross_entropy(p, q), rtol=1e-12)
check_close("pitfall: passing probabilities Q as input applies softmax to them: H(P, softmax(Q))",
            F.cross_entropy(torch.tensor(q)[None, :], target_p).item(),
            cross_entropy(p, np.exp(log_softmax(q))), rtol=1e-12)
check_close("F.cross_entropy(logits z, label y) = -log softmax(z)[y]",
            F.cross_entropy(torch.tensor(z)[None, :], torch.tensor([y])).item(),
            cross_entropy(np.eye(V)[y], np.exp(log_softmax(z))), rtol=1e-12)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
# optax.softmax_cross_entropy(logits, probabilities) returns one loss per row and no reduction.
# Same float64 log-softmax over 10 terms as torch's: 1e-12.
rows_logits, rows_p = np.stack([np.log(q), np.log(p)]), np.stack([p, q])
check_close("optax.softmax_cross_entropy(log Q, P) = H(P, Q), per row with no reduction",
            np.asarray(optax.softmax_cross_entropy(rows_logits, rows_p)),
            [cross_entropy(p, q), cross_entropy(q, p)], rtol=1e-12)
check_close("optax.softmax_cross_entropy_with_integer_labels(z, y) = -log softmax(z)[y]",
            float(optax.softmax_cross_entropy_with_integer_labels(z[None, :], np.array([y]))[0]),
            cross_entropy(np.eye(V)[y], np.exp(log_softmax(z))), rtol=1e-12)
# --- end in code ---
