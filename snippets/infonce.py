"""InfoNCE: checked against scipy cross-entropy of a softmax, and the MI bound log N - L_N on a toy joint."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import entropy


# --- formula ---
def infonce(scores: np.ndarray, positive: np.ndarray, tau: float = 1.0) -> np.ndarray:
    """Per-row InfoNCE loss: scores[i, j] = s(q_i, d_j), positive[i] = index of d_i^+."""
    z = scores / tau
    z_max = z.max(axis=1, keepdims=True)
    log_denominator = z_max[:, 0] + np.log(np.sum(np.exp(z - z_max), axis=1))
    return log_denominator - z[np.arange(len(z)), positive]
# --- end formula ---


rng = np.random.default_rng(0)

# In-batch negatives: 8 queries, 8 passages, positives on the diagonal, cosine scores.
q = rng.normal(size=(8, 16))
d = q + 0.8 * rng.normal(size=(8, 16))
q /= np.linalg.norm(q, axis=1, keepdims=True)
d /= np.linalg.norm(d, axis=1, keepdims=True)
scores = q @ d.T
tau = 0.05
loss = infonce(scores, np.arange(8), tau)
reference = [entropy(np.eye(8)[i], softmax(scores[i] / tau)) for i in range(8)]
check_close("InfoNCE vs scipy cross-entropy of one-hot target and softmax", loss, reference)
check_close("default temperature 1: InfoNCE vs scipy cross-entropy of softmax(scores)",
            infonce(scores, np.arange(8)),
            [entropy(np.eye(8)[i], softmax(scores[i])) for i in range(8)])
# Wide logits (scores x 400 at tau = 0.05: a span of thousands) must not overflow.
wide = infonce(400 * scores, np.arange(8), tau)
check_close("wide logits: InfoNCE vs -scipy log_softmax at the positive", wide,
            -log_softmax(400 * scores / tau, axis=1)[np.arange(8), np.arange(8)], rtol=1e-9)
check_close("indistinguishable candidates: loss = log N",
            infonce(np.zeros((3, 8)), np.array([0, 4, 7])), np.full(3, np.log(8)))

# Toy joint of (x, y) on 6 x 6 values with the optimal critic s(x, y) = log p(y | x) / p(y).
joint = 0.6 * np.eye(6) / 6 + 0.4 * rng.dirichlet(np.ones(36)).reshape(6, 6)
px, py = joint.sum(axis=1), joint.sum(axis=0)
mi = float(np.sum(joint * np.log(joint / np.outer(px, py))))
check_close("toy joint: MI from the definition vs H(X) + H(Y) - H(X,Y) (scipy)", mi,
            entropy(px) + entropy(py) - entropy(joint.ravel()))
critic = np.log(joint / np.outer(px, py))


def mean_loss(n: int, batches: int) -> tuple[float, float]:
    """Monte-Carlo InfoNCE with batch size n: pairs from the joint, other y's in the batch are negatives."""
    flat = rng.choice(36, size=(batches, n), p=joint.ravel())
    x, y = flat // 6, flat % 6
    s = critic[x[:, :, None], y[:, None, :]].reshape(batches * n, n)
    per = infonce(s, np.tile(np.arange(n), batches)).reshape(batches, n).mean(axis=1)
    return float(per.mean()), float(per.std() / np.sqrt(batches))


sizes = [2, 4, 8, 16, 32, 64, 128, 256]
bounds = []
for n in sizes:
    loss_n, se = mean_loss(n, batches=max(200, 40_000 // n))
    bounds.append(np.log(n) - loss_n)
    check_true(f"N = {n}: log N - L_N <= I(X;Y) (within 3 standard errors) and <= log N",
               bounds[-1] <= mi + 3 * se and bounds[-1] <= np.log(n),
               f"bound {bounds[-1]:.4f}, MI {mi:.4f}, log N {np.log(n):.4f}")
check_close("bound is nearly tight at N = 256 with the optimal critic", bounds[-1], mi, rtol=0.05)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# In-batch negatives: row i's positive is column i, so the targets are arange(8). float64
# log-softmax over 8 entries, then a mean of 8: 1e-12. A row's loss is a difference of logits up
# to |S / tau| in size, so a loss near 0 is exact only to a few ulps of that: atol 1e-12 |S / tau|.
check_close("F.cross_entropy(scores / tau, arange(N)) = L_N, the mean over queries",
            F.cross_entropy(torch.tensor(scores) / tau, torch.arange(8)).item(),
            infonce(scores, np.arange(8), tau).mean(), rtol=1e-12)
check_close("pitfall: reduction='none' gives the per-query losses, the default averages them",
            F.cross_entropy(torch.tensor(scores) / tau, torch.arange(8), reduction="none").numpy(),
            infonce(scores, np.arange(8), tau), rtol=1e-12, atol=1e-12 * np.abs(scores / tau).max())
check_close("pitfall: scores without / tau are logits at temperature 1, another loss",
            F.cross_entropy(torch.tensor(scores), torch.arange(8)).item(),
            infonce(scores, np.arange(8), 1.0).mean(), rtol=1e-12)
# --- end in code ---

fig, ax = figure("InfoNCE bound on a toy joint", "number of candidates N", "nats")
ax.semilogx(sizes, bounds, "o-", base=2, label="$\\log N - \\mathcal{L}_N$ (optimal critic)")
ax.axhline(mi, color="k", ls="--", label="true $I(X;Y)$")
ax.semilogx(sizes, np.log(sizes), ":", base=2, label="$\\log N$ ceiling")
ax.set_ylim(0, mi * 1.4)
ax.legend()
