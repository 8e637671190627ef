"""NT-Xent (SimCLR): vectorized loss over 2N views against an explicit double loop in the paper's
(2k-1, 2k) pairing, with the k != i exclusion, the temperature and cosine similarity checked."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cosine as cosine_distance
from scipy.special import logsumexp


# --- formula ---
def nt_xent(z1: np.ndarray, z2: np.ndarray, tau: float) -> float:
    """Mean of l(i, j) over all 2N ordered positive pairs; z1[k] and z2[k] are two views of item k."""
    n = z1.shape[0]
    z = np.concatenate([z1, z2], axis=0)
    z = z / np.linalg.norm(z, axis=1, keepdims=True)        # sim = cosine similarity
    logits = z @ z.T / tau
    np.fill_diagonal(logits, -np.inf)                       # the sum runs over k != i
    logits = logits - logits.max(axis=1, keepdims=True)
    log_prob = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    positive = np.concatenate([np.arange(n, 2 * n), np.arange(n)])  # the other view of the same item
    return float(-np.mean(log_prob[np.arange(2 * n), positive]))
# --- end formula ---


def reference(z1, z2, tau):
    """Paper's indexing: views 2k-1 and 2k (1-based) are a pair; L = 1/(2N) sum_k [l(2k-1,2k) + l(2k,2k-1)].
    Cosine from scipy, the denominator by an explicit loop over k != i, log-sum-exp from scipy."""
    views = []
    for a, b in zip(z1, z2, strict=True):
        views += [a, b]
    m = len(views)

    def ell(i, j):
        terms = [(1.0 - cosine_distance(views[i], views[k])) / tau for k in range(m) if k != i]
        return -((1.0 - cosine_distance(views[i], views[j])) / tau - logsumexp(terms))

    return sum(ell(2 * k, 2 * k + 1) + ell(2 * k + 1, 2 * k) for k in range(m // 2)) / m


rng = np.random.default_rng(0)
N, d = 5, 8
h = rng.normal(size=(N, d))
z1 = h + 0.6 * rng.normal(size=(N, d))
z2 = 1.7 * h + 0.6 * rng.normal(size=(N, d)) + 0.3

for tau in [1.0, 0.5, 0.1]:
    check_close(f"tau = {tau}: vectorized vs double loop over 2N = {2 * N} views", nt_xent(z1, z2, tau),
                reference(z1, z2, tau), rtol=1e-12)
check_close("tau = 0.001 (logits up to 1000: needs the max shift)", nt_xent(z1, z2, 0.001),
            reference(z1, z2, 0.001), rtol=1e-12)
z1b, z2b = rng.normal(size=(3, 16)), rng.normal(size=(3, 16))
check_close("N = 3, d = 16, unrelated views", nt_xent(z1b, z2b, 0.2), reference(z1b, z2b, 0.2), rtol=1e-12)

# Exact cases. Identical embeddings: every candidate ties, loss = log(2N - 1) (2N - 1 candidates, self
# excluded). Orthonormal items with identical views: positive cos 1, the 2N - 2 negatives cos 0.
same = np.ones((4, 6))
check_close("all embeddings equal: log(2N - 1)", nt_xent(same, same, 0.3), math.log(7), rtol=1e-12)
e = np.eye(6)[:4]
for tau in [1.0, 0.25]:
    check_close(f"orthonormal items, tau = {tau}: log(1 + (2N-2) exp(-1/tau))", nt_xent(e, 3 * e, tau),
                math.log(1 + 6 * math.exp(-1 / tau)), rtol=1e-12)

# Properties: cosine makes it scale-invariant per vector; both directions are averaged, so swapping
# the two views, or permuting items consistently, changes nothing.
scales = rng.uniform(0.1, 10, size=(N, 1))
check_close("invariant to rescaling each embedding", nt_xent(scales * z1, z2, 0.5), nt_xent(z1, z2, 0.5),
            rtol=1e-12)
check_close("symmetric in the two views", nt_xent(z2, z1, 0.5), nt_xent(z1, z2, 0.5), rtol=1e-12)
perm = rng.permutation(N)
check_close("invariant to permuting items", nt_xent(z1[perm], z2[perm], 0.5), nt_xent(z1, z2, 0.5),
            rtol=1e-12)
check_true("a mismatched pairing raises the loss", nt_xent(z1, z2[perm], 0.5) > nt_xent(z1, z2, 0.5) + 0.1,
           f"{nt_xent(z1, z2[perm], 0.5):.3f} vs {nt_xent(z1, z2, 0.5):.3f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def torch_nt_xent(view1, view2, temperature, mask_self=True):
    """The usual PyTorch recipe: cosine logits of all 2N views, self-pairs masked, cross_entropy."""
    views = F.normalize(torch.tensor(np.concatenate([view1, view2])), dim=1)
    logits = views @ views.T / temperature
    if mask_self:
        logits.fill_diagonal_(-torch.inf)
    n_items = len(view1)
    positives = torch.cat([torch.arange(n_items, 2 * n_items), torch.arange(n_items)])
    return F.cross_entropy(logits, positives).item()


# float64 log-softmax over 10 entries per row, then a mean of 10: 1e-12.
check_close("F.cross_entropy(cosine logits / tau, other view), self masked = NT-Xent",
            torch_nt_xent(z1, z2, 0.5), nt_xent(z1, z2, 0.5), rtol=1e-12)
check_true("pitfall: leaving the self-similarity 1/tau in the denominator raises the loss",
           torch_nt_xent(z1, z2, 0.5, mask_self=False) > nt_xent(z1, z2, 0.5) + 0.1,
           f"{torch_nt_xent(z1, z2, 0.5, mask_self=False):.4f} vs {nt_xent(z1, z2, 0.5):.4f} nats")
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
# optax.ntxent(embeddings, labels): rows with equal labels are positives; two views per label is
# SimCLR's pairing. Same float64 log-softmax sums: 1e-12.
views, item_labels = np.concatenate([z1, z2]), np.concatenate([np.arange(N), np.arange(N)])
check_close("optax.ntxent(views, item labels, temperature=tau) = NT-Xent",
            float(optax.ntxent(views, item_labels, temperature=0.5)), nt_xent(z1, z2, 0.5), rtol=1e-12)
check_close("pitfall: the default temperature is 0.07",
            float(optax.ntxent(views, item_labels)), nt_xent(z1, z2, 0.07), rtol=1e-12)
# --- end in code ---

fig, ax = figure("NT-Xent vs temperature", "temperature $\\tau$", "loss (nats)")
taus = np.geomspace(0.02, 2, 60)
for noise in [0.3, 1.0, 3.0]:
    a = rng.normal(size=(32, 16))
    b = a + noise * rng.normal(size=(32, 16))
    ax.semilogx(taus, [nt_xent(a, b, t) for t in taus], label=f"view noise {noise}")
ax.axhline(math.log(63), color="gray", ls=":", label="$\\log(2N-1)$, N = 32")
ax.legend()
