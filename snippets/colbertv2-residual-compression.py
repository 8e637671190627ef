"""ColBERTv2 residual compression: the nearest centroid against scipy, the bucket cutoffs and values against
quantiles read off the sorted residuals, each code against a count of the cutoffs below it, the reconstruction
error of every coordinate against the width of its bucket (brute force), and the stored bytes against packed
bits."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist


# --- formula ---
def nearest_centroid(V, C):
    """Largest inner product, which for unit vectors and unit centroids is the smallest Euclidean distance."""
    return np.argmax(V @ C.T, axis=1)


def bucket_codec(residuals, nbits):
    """Cutoffs at the quantiles k / 2^b (k = 1 .. 2^b - 1) and bucket values at (k + 1/2) / 2^b
    (k = 0 .. 2^b - 1) of the held-out residuals, all dimensions pooled, as ColBERTv2's indexer computes
    them."""
    levels = np.arange(2**nbits) / 2**nbits
    return np.quantile(residuals, levels[1:]), np.quantile(residuals, levels + 0.5 / 2**nbits)


def compress(V, C, cutoffs):
    """(t, codes): the centroid id and, per dimension, the bucket of the residual r = v - C_t."""
    t = nearest_centroid(V, C)
    return t, np.searchsorted(cutoffs, V - C[t], side="left")


def decompress(t, codes, C, weights):
    """v~ = C_t + r~, each residual coordinate replaced by its bucket's value."""
    return C[t] + weights[codes]


def bytes_per_vector(dim, nbits, id_bytes=4):
    return id_bytes + -(-dim * nbits // 8)       # the bits of all dimensions, rounded up to whole bytes
# --- end formula ---


rng = np.random.default_rng(0)
D, K = 32, 16
C = rng.normal(size=(K, D))
C /= np.linalg.norm(C, axis=1, keepdims=True)


def sample(n):
    """Unit vectors clustered around the centroids."""
    V = C[rng.integers(0, K, size=n)] + 0.15 * rng.normal(size=(n, D))
    return V / np.linalg.norm(V, axis=1, keepdims=True)


heldout, V = sample(600), sample(400)

# 1. Centroid ids: scipy's Euclidean distances, argmin.
check_true("nearest centroid = argmin of scipy's Euclidean distance",
           np.array_equal(nearest_centroid(V, C), np.argmin(cdist(V, C), axis=1)))

residual_h = heldout - C[nearest_centroid(heldout, C)]
pooled = np.sort(residual_h.ravel())


def quantile_by_hand(p):
    """The linear-interpolation quantile read off the sorted values: position p (n - 1)."""
    pos = p * (len(pooled) - 1)
    lo = int(np.floor(pos))
    return pooled[lo] + (pos - lo) * (pooled[min(lo + 1, len(pooled) - 1)] - pooled[lo])


for nbits in (1, 2):
    cutoffs, weights = bucket_codec(residual_h, nbits)
    n = 2**nbits
    # 2. Quantiles, by interpolating the sorted residuals: one interpolation, a few ulps.
    check_close(f"b = {nbits}: cutoffs and bucket values = quantiles of the sorted residuals",
                np.concatenate([cutoffs, weights]),
                [quantile_by_hand(k / n) for k in range(1, n)]
                + [quantile_by_hand((k + 0.5) / n) for k in range(n)],
                rtol=1e-12, atol=1e-15)
    # 3. Codes: the number of cutoffs strictly below the residual (ties go to the lower bucket).
    t, codes = compress(V, C, cutoffs)
    r = V - C[t]
    by_count = np.array([[sum(c < x for c in cutoffs) for x in row] for row in r[:50]])
    check_true(f"b = {nbits}: every code = number of cutoffs below the residual (50 x {D} values)",
               np.array_equal(codes[:50], by_count))
    check_true(f"b = {nbits}: codes use all {n} buckets and fit in {nbits} bit(s)",
               set(np.unique(codes)) == set(range(n)))
    # 4. Error bound, brute force: each bucket value lies inside its bucket, so a residual coordinate in
    #    bucket k is reconstructed within that bucket's width. Outer buckets end at the held-out extremes.
    edges = np.concatenate([[pooled[0]], cutoffs, [pooled[-1]]])
    check_true(f"b = {nbits}: each bucket value lies inside its bucket",
               np.all((edges[:-1] <= weights) & (weights <= edges[1:])))
    rec = decompress(t, codes, C, weights)
    err = np.abs(rec - V)
    width = (edges[1:] - edges[:-1])[codes]
    inside = (r >= pooled[0]) & (r <= pooled[-1])
    check_true(f"b = {nbits}: |v~_j - v_j| <= width of its bucket for every coordinate "
               "in the held-out range",
               np.all(err[inside] <= width[inside] * (1 + 1e-12)),
               f"max ratio {np.max(err[inside] / width[inside]):.3f}")
    check_close(f"b = {nbits}: v~ - v = r~ - r (the centroid cancels)", rec - V, weights[codes] - r, rtol=0,
                atol=1e-15)
    # 5. Storage: pack the codes' bits and count the bytes, plus a 4-byte centroid id.
    bits = ((codes[:1, :, None] >> np.arange(nbits)) & 1).reshape(1, -1).astype(np.uint8)
    check_close(f"b = {nbits}, D = {D}: bytes per vector = 4 + packed bits", bytes_per_vector(D, nbits),
                4 + np.packbits(bits, axis=1).shape[1], rtol=0)
check_close("D = 30, b = 1: 4 + 4 bytes (30 bits round up to 4 bytes), as np.packbits stores them",
            bytes_per_vector(30, 1), 4 + np.packbits(np.zeros((1, 30), dtype=np.uint8), axis=1).shape[1],
            rtol=0)
check_close("D = 128: 20 bytes at 1 bit, 36 at 2 bits per dimension",
            [bytes_per_vector(128, 1), bytes_per_vector(128, 2)], [20, 36], rtol=0)

# Error against the bits spent: the centroid alone, then 1, 2 and 3 bits per dimension.
mse = [np.mean((C[nearest_centroid(V, C)] - V) ** 2)]
for nbits in (1, 2, 3):
    cutoffs, weights = bucket_codec(residual_h, nbits)
    mse.append(np.mean((decompress(*compress(V, C, cutoffs), C, weights) - V) ** 2))
check_true("each extra bit lowers the reconstruction error", np.all(np.diff(mse) < 0),
           f"MSE {np.round(mse, 6)}")

# The page's calculator is checked against bytes_per_vector on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): D b a multiple of 8 and not (the bits round up to whole bytes).
import cardcalc  # noqa: E402

cardcalc.table(lambda D, b: {"bytes": bytes_per_vector(D, b), "ratio": 2 * D / bytes_per_vector(D, b)},
               cardcalc.grid(D=(1, 30, 64, 128, 768), b=(1, 2, 3, 8)))

fig, ax = figure("Residual compression error", "bits per dimension (0 = centroid only)", "mean squared error")
ax.semilogy([0, 1, 2, 3], mse, marker="o")
