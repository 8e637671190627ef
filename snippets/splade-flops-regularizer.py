"""FLOPS regularizer: against explicit double sums, its pairwise form (mean number of weighted term
co-occurrences over all document pairs of the batch), the expected number of multiplications of an
inverted-index lookup by Monte Carlo, its gradient, and its preference for spread-out activations."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def flops_regularizer(W):
    """sum over vocabulary terms j of (mean over the N documents of the batch of |w_ij|)^2."""
    mean_activation = np.mean(np.abs(W), axis=0)
    return float(np.sum(mean_activation**2))


def l1_regularizer(W):
    """The L1 alternative: mean over documents of sum_j |w_ij|."""
    return float(np.mean(np.sum(np.abs(W), axis=1)))
# --- end formula ---


rng = np.random.default_rng(0)
N, V = 24, 300
# Non-negative sparse weights as SPLADE produces them, with a few "popular" terms used by most documents.
popularity = np.where(np.arange(V) < 10, 0.8, 0.03)
W = (rng.random((N, V)) < popularity) * rng.exponential(1.0, (N, V))

# 1. Explicit double loop.
loops = sum((sum(abs(W[i, j]) for i in range(N)) / N) ** 2 for j in range(V))
check_close("FLOPS vs sum_j (1/N sum_i |w_ij|)^2 with explicit loops", flops_regularizer(W), loops,
            rtol=1e-12)
check_close("L1 vs (1/N) sum_i sum_j |w_ij| with explicit loops", l1_regularizer(W),
            sum(abs(W[i, j]) for i in range(N) for j in range(V)) / N, rtol=1e-12)

# 2. Pairwise form: (1/N^2) sum over all ordered pairs (i, k) of sum_j |w_ij| |w_kj|, i.e. the mean of
#    the N x N matrix |W| |W|^T; signed weights enter through their absolute values.
signed = W * rng.choice([-1.0, 1.0], size=W.shape)
check_close("FLOPS = mean of |W| |W|^T over all document pairs (signed weights)", flops_regularizer(signed),
            np.mean(np.abs(signed) @ np.abs(signed).T), rtol=1e-12)
check_close("L1 of the signed weights equals L1 of their magnitudes", l1_regularizer(signed),
            l1_regularizer(W),
            rtol=1e-12)

# 3. What it relaxes: if term j is non-zero with probability p_j independently in query and document,
#    an inverted-index match costs sum_j p_j^2 multiplications on average. For 0/1 activations the
#    regularizer is sum_j pbar_j^2; compare with simulated lookups between independent documents.
binary = (rng.random((4000, V)) < popularity).astype(float)
pbar2 = flops_regularizer(binary)
a, b = rng.integers(0, 4000, 20000), rng.integers(0, 4000, 20000)
keep = a != b
ops = np.sum(binary[a[keep]] * binary[b[keep]], axis=1)
se = ops.std() / np.sqrt(ops.size)
check_close("0/1 activations: FLOPS = expected multiplications per query-document match (Monte Carlo)",
            pbar2, ops.mean(), rtol=0, atol=4 * se)

# 4. Gradient (positive weights): d FLOPS / d w_ij = 2 * mean_j / N.
h = 1e-6
i, j = 3, 5
E_ij = np.zeros_like(W)
E_ij[i, j] = 1.0
W_pos = W + 0.1
fd = (flops_regularizer(W_pos + h * E_ij) - flops_regularizer(W_pos - h * E_ij)) / (2 * h)
check_close("gradient 2 * mean activation of the term / N vs finite differences", fd,
            2 * W_pos[:, j].mean() / N, rtol=1e-6)

# 5. Same L1 mass, different FLOPS: concentrating it on one shared term costs far more than spreading it
#    over distinct terms, which is the point of the regularizer (L1 cannot tell the two apart).
shared = np.zeros((N, V))
shared[:, 0] = 1.0                      # every document uses term 0
spread = np.zeros((N, V))
spread[np.arange(N), np.arange(N)] = 1.0   # each document its own term
check_close("same L1 (1 per document) for both batches", [l1_regularizer(shared), l1_regularizer(spread)],
            [1.0, 1.0], rtol=1e-12)
check_close("FLOPS: 1 when all share one term, 1/N when terms are distinct",
            [flops_regularizer(shared), flops_regularizer(spread)], [1.0, 1 / N], rtol=1e-12)
check_true("on the random batch, the 10 popular terms carry most of the FLOPS",
           np.sum(np.mean(W, axis=0)[:10] ** 2) > 0.5 * flops_regularizer(W))

fig, ax = figure("Where the FLOPS penalty comes from (random batch)", "vocabulary term j",
                 "mean activation² of term j")
ax.bar(np.arange(40), np.mean(W, axis=0)[:40] ** 2)
ax.axvline(9.5, color="gray", ls=":")
ax.text(10.5, 0.9 * (np.mean(W, axis=0)[:10] ** 2).max(), "terms 0–9 used by most documents", fontsize=8)
