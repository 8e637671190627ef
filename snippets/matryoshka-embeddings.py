"""Matryoshka nested loss: the weighted sum over prefixes against each prefix's cross-entropy computed on
its own (a per-example loop with scipy's logsumexp), its gradient in the embedding by finite differences
(a coordinate feeds only the prefixes that contain it), and truncated retrieval as sentence-transformers'
truncate_dim computes it (cut, then renormalize) against scipy's cosine distance."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist
from scipy.special import logsumexp


# --- formula ---
def mrl_loss(z, y, heads, weights):
    """(1/N) sum_i sum_m c_m CE(W^(m) z_{i,1:m}; y_i); heads maps each size m to W^(m) of shape (L, m)."""
    total = 0.0
    for (m, W), c in zip(heads.items(), weights, strict=True):
        logits = z[:, :m] @ W.T
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
        total += c * -np.mean(log_probs[np.arange(len(y)), y])
    return total


def truncate(E, m):
    """The first m coordinates of each row, rescaled to unit length (sentence-transformers' truncate_dim)."""
    cut = E[:, :m]
    return cut / np.linalg.norm(cut, axis=1, keepdims=True)
# --- end formula ---


rng = np.random.default_rng(0)
N, d, L = 12, 32, 5
sizes = (4, 8, 16, 32)                      # halving down from d, as the paper's M = {8, 16, ..., 2048}
z = rng.normal(size=(N, d))
y = rng.integers(0, L, size=N)
heads = {m: rng.normal(size=(L, m)) / np.sqrt(m) for m in sizes}
c = np.array([0.5, 1.0, 2.0, 3.0])          # unequal weights, so a weight paired with the wrong size shows


def prefix_loss(m, z=z):
    """One prefix's cross-entropy on its own: a loop over examples, each logit a sum over the first m
    coordinates written out, the normalizer from scipy's logsumexp."""
    losses = []
    for i in range(N):
        logits = [sum(heads[m][k, j] * z[i, j] for j in range(m)) for k in range(L)]
        losses.append(logsumexp(logits) - logits[y[i]])
    return float(np.mean(losses))


# 1. The nested loss is the weighted sum of the separate losses. A few dozen terms of size ~1: 1e-12.
separate = [prefix_loss(m) for m in sizes]
check_close("L_MRL = sum_m c_m L_m, each prefix's loss computed on its own", mrl_loss(z, y, heads, c),
            float(np.dot(c, separate)), rtol=1e-12)
check_close("one size with weight 1 is the plain cross-entropy of that prefix",
            [mrl_loss(z, y, {m: heads[m]}, [1.0]) for m in sizes], separate, rtol=1e-12)
# Confident heads: logits in the thousands, where exp overflows unless the largest logit is taken out first.
big = 400.0 * z
check_close("logits ~1e3 (exp would overflow): still the sum of the separate losses",
            mrl_loss(big, y, heads, c), float(np.dot(c, [prefix_loss(m, big) for m in sizes])), rtol=1e-12)
check_true("the prefixes' losses differ (the check can tell the sizes apart)",
           np.min(np.diff(np.sort(separate))) > 1e-3, f"losses {np.round(separate, 3)}")

# 2. Gradient in the embedding, by central differences against the softmax cross-entropy gradient
#    (p - onehot(y)) W / N of each prefix: coordinate j receives c_m times it from every prefix m >= j, so
#    the first coordinates get gradient from all four heads and coordinates 17..32 from the last alone.
h = 1e-6
rows = (0, 5, 11)   # three examples, every coordinate: enough to see each prefix boundary
fd = np.zeros((len(rows), d))
for r, i in enumerate(rows):
    for j in range(d):
        e = np.zeros_like(z)
        e[i, j] = h
        fd[r, j] = (mrl_loss(z + e, y, heads, c) - mrl_loss(z - e, y, heads, c)) / (2 * h)
analytic = np.zeros_like(z)
for m, cm in zip(sizes, c, strict=True):
    logits = z[:, :m] @ heads[m].T
    p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    p[np.arange(N), y] -= 1.0
    analytic[:, :m] += cm * p @ heads[m] / N
# The loss is ~10, computed to a few dozen ulps: 64 eps |f| / h ~ 1.5e-7 bounds the rounding of the
# difference.
check_close("dL/dz by central differences = sum over prefixes containing the coordinate", fd,
            analytic[list(rows)], rtol=0, atol=64 * np.finfo(float).eps * 10 / h)

# 3. Truncated retrieval. Cosine similarity of the first m coordinates, from scipy's cosine distance on the
#    raw prefixes, against dot products of truncate(); and the same top-10 lists.
# An MRL-like spectrum: early coordinates carry most.
docs = rng.normal(size=(200, 64)) * np.exp(-np.arange(64) / 16)
queries = docs[:5] + 0.3 * rng.normal(size=(5, 64)) * np.exp(-np.arange(64) / 16)
for m in (8, 32):
    ours = truncate(queries, m) @ truncate(docs, m).T
    ref = 1.0 - cdist(queries[:, :m], docs[:, :m], metric="cosine")
    # Cosines of 8- and 32-dim vectors: a few ulps per term, so 1e-12 absolute.
    check_close(f"m = {m}: truncate-then-renormalize dot = scipy cosine of the prefixes", ours, ref, rtol=0,
                atol=1e-12)
    check_true(f"m = {m}: same top-10 lists as scipy's cosine",
               all(np.array_equal(np.argsort(-ours[q], kind="stable")[:10],
                                  np.argsort(-ref[q], kind="stable")[:10])
                   for q in range(5)))
check_close("truncate(E, d) of unit rows leaves them unchanged", truncate(truncate(docs, 64), 64),
            truncate(docs, 64), rtol=0, atol=1e-15)

# Pitfall: slicing an already unit-length full vector without renormalizing scales every document by
# |d_{1:m}| / |d|, which reorders the list.
unit = docs / np.linalg.norm(docs, axis=1, keepdims=True)
qunit = queries / np.linalg.norm(queries, axis=1, keepdims=True)
sliced = qunit[:, :8] @ unit[:, :8].T
cos8 = 1.0 - cdist(queries[:, :8], docs[:, :8], metric="cosine")
check_true("slicing a unit vector without renormalizing changes some top-10 list",
           any(set(np.argsort(-sliced[q])[:10]) != set(np.argsort(-cos8[q])[:10]) for q in range(5)))

# How much of the full-dimension top 10 each prefix recovers, with the MRL-like spectrum and isotropic
# vectors.
iso = rng.normal(size=(200, 64))
iso_q = iso[:5] + 0.3 * rng.normal(size=(5, 64))
ms = [2, 4, 8, 16, 32, 64]
# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows) with sizes measured on what truncate returns, in float16, float32 and float64.
import cardcalc  # noqa: E402

FLOAT_OF_BYTES = {2: np.float16, 4: np.float32, 8: np.float64}


def truncated_size(m, d, b):
    kept = truncate(np.ones((1, int(d)), dtype=FLOAT_OF_BYTES[int(b)]), int(m))
    return {"bytes": kept[0].nbytes, "saving": d / kept.shape[1]}


cardcalc.table(truncated_size, cardcalc.grid(m=(8, 64, 256, 768), d=(768, 1024), b=(2, 4, 8)))

fig, ax = figure("Truncated search against full-dimension search", "prefix size m",
                 "overlap with full top 10")
for label, D, Q in (("decaying spectrum (MRL-like)", docs, queries), ("isotropic", iso, iso_q)):
    full = truncate(Q, 64) @ truncate(D, 64).T
    top_full = [set(np.argsort(-full[q])[:10]) for q in range(5)]
    overlap = [np.mean([len(top_full[q] & set(np.argsort(-(truncate(Q, m) @ truncate(D, m).T)[q])[:10])) / 10
                        for q in range(5)]) for m in ms]
    ax.plot(ms, overlap, marker="o", label=label)
ax.set_xscale("log", base=2)
ax.legend()
