"""Product quantization of the toy corpus's token embeddings: sub-codebooks trained with scipy's kmeans2,
the encoder against scipy.cluster.vq.vq per subspace and against brute force over the whole Cartesian
product codebook, distortion as a sum over subspaces, and distortion falling as codebooks grow."""

from itertools import product

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.cluster.vq import kmeans2, vq


# --- formula ---
def subvectors(X, M: int):
    """Split D-dimensional rows into M consecutive sub-vectors of D / M dimensions: (n, M, D/M)."""
    return X.reshape(len(X), M, X.shape[1] // M)


def pq_encode(X, codebooks):
    """Code of each row: for every subspace m, the index of the nearest centroid of codebook m."""
    U = subvectors(X, len(codebooks))
    codes = []
    for m, cb in enumerate(codebooks):
        # |u - c|^2 = |u|^2 - 2 u.c + |c|^2; |u|^2 is the same for every centroid, so it is left out
        d2 = -2 * U[:, m] @ cb.T + np.sum(cb**2, axis=1)
        codes.append(np.argmin(d2, axis=1))
    return np.stack(codes, axis=1)


def pq_decode(codes, codebooks):
    """Reconstruction q(x): the selected centroids, concatenated."""
    return np.concatenate([cb[codes[:, m]] for m, cb in enumerate(codebooks)], axis=1)


def distortion(X, codebooks):
    """Mean squared quantization error E |x - q(x)|^2."""
    return float(np.mean(np.sum((X - pq_decode(pq_encode(X, codebooks), codebooks)) ** 2, axis=1)))


def code_bits(M: int, ksub: int) -> float:
    """Storage per vector: M centroid indices of log2(k*) bits each."""
    return M * np.log2(ksub)


def compression(D: int, M: int, ksub: int) -> float:
    """How many times smaller the code is than the D float32 coordinates it replaces."""
    return 32 * D / code_bits(M, ksub)
# --- end formula ---


def train(X, M, ksub, seed=0):
    """One k-means codebook per subspace (scipy kmeans2, k-means++ start, fixed seed)."""
    U = subvectors(X, M)
    return [kmeans2(U[:, m], ksub, iter=20, minit="++", seed=seed + m)[0] for m in range(M)]


X = np.stack([tc.embed(t) for t in tc.vocabulary()])      # 449 token vectors, D = 32
M, ksub = 4, 16
books = train(X, M, ksub)
codes = pq_encode(X, books)

# 1. Per subspace, the code is scipy's vector quantization of that sub-vector.
U = subvectors(X, M)
check_true("codes = scipy.cluster.vq.vq of each sub-vector (4 subspaces, 16 centroids each)",
           all(np.array_equal(codes[:, m], vq(U[:, m], books[m])[0]) for m in range(M)))
check_close("sub-vectors are consecutive slices: u_2(x) = x[16:24]", subvectors(X, M)[:, 2], X[:, 16:24],
            rtol=1e-12)

# 2. The product quantizer is a k-means quantizer with 16^4 = 65536 implicit centroids (all
#    concatenations); since squared distances add over subspaces, encoding subspace by subspace
#    finds the nearest of them. Check by brute force on a smaller product (4 x 4^4 = 256 centroids).
small = train(X, 4, 4)
grid = np.array([np.concatenate([small[m][k] for m, k in enumerate(combo)])
                 for combo in product(range(4), repeat=4)])
nearest = vq(X[:60], grid)[0]
check_true("encoding = nearest of all 256 product centroids (brute force, 60 vectors)",
           np.array_equal(pq_decode(pq_encode(X[:60], small), small), grid[nearest]))

# 3. Distortion: the squared error splits into the subspaces' errors; M = 1 is plain k-means.
err = X - pq_decode(codes, books)
per_sub = [np.mean(vq(U[:, m], books[m])[1] ** 2) for m in range(M)]
check_close("distortion = sum of the subspaces' mean squared vq errors", distortion(X, books), sum(per_sub),
            rtol=1e-10)
check_close("distortion = mean |x - q(x)|^2 computed from the reconstruction", distortion(X, books),
            np.mean(np.sum(err**2, axis=1)), rtol=1e-12)
one = train(X, 1, 16)
check_close("M = 1: PQ is k-means; distortion = mean squared vq distance", distortion(X, one),
            np.mean(vq(X, one[0])[1] ** 2), rtol=1e-10)

# 4. More centroids per subspace, less distortion (same M = 4); more subspaces at the same k*, less too.
ks = [2, 4, 8, 16, 32, 64]
by_k = [distortion(X, train(X, 4, k)) for k in ks]
by_m = {m: [distortion(X, train(X, m, k)) for k in ks] for m in (2, 8)}
check_true("distortion decreases as k* grows (M = 4)", bool(np.all(np.diff(by_k) < 0)),
           " > ".join(f"{v:.3f}" for v in by_k))
check_true("at each k*, M = 8 subspaces distort less than M = 4, and M = 4 less than M = 2",
           bool(np.all(np.array(by_m[8]) < np.array(by_k)) and np.all(np.array(by_k) < np.array(by_m[2]))))

# 5. Code size, by packing: each of the 4 codes below 16 fits in its 4 low bits, so a vector packs into
#    2 bytes, from which the codes come back; the float32 vector takes 128 bytes.
low_bits = np.unpackbits(codes.astype(np.uint8)[:, :, None], axis=2)[:, :, 4:].reshape(len(codes), -1)
packed = np.packbits(low_bits, axis=1)
unpacked = np.packbits(np.unpackbits(packed, axis=1).reshape(len(codes), M, 4), axis=2)[:, :, 0] >> 4
check_true("4-bit codes packed two to a byte decode to the same codes", np.array_equal(unpacked, codes))
check_close("code size M log2(k*) = the packed bits per vector (4 subspaces, 16 centroids: 16 bits)",
            code_bits(M, ksub), packed.shape[1] * 8, rtol=1e-12)
check_close("compression = float32 bytes / packed code bytes per vector (128 / 2 = 64)",
            compression(X.shape[1], M, ksub), X.astype(np.float32)[0].nbytes / packed.shape[1], rtol=1e-12)
check_close("the text's example: D = 768, M = 8, k* = 256 -> 8 bytes for a 3072-byte float vector",
            [code_bits(8, 256) / 8, compression(768, 8, 256)], [8.0, 3072 / 8], rtol=1e-12)
check_close("and M log2(k*) = log2 of the number of product centroids (256 of them for M = 4, k* = 4)",
            code_bits(4, 4), np.log2(len(grid)), rtol=1e-12)

# The page's calculator is checked against code_bits and compression on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows), with k* a power of two and not.
import cardcalc  # noqa: E402

cardcalc.table(lambda D, M, ks: {"bits": code_bits(M, ks), "bytes": code_bits(M, ks) / 8,
                                 "ratio": compression(D, M, ks)},
               cardcalc.grid(D=(32, 768, 4096), M=(1, 4, 8, 96), ks=(2, 16, 256, 1000)))

fig, ax = figure("Product quantization of 449 token embeddings (D = 32)", "bits per vector  M log2(k*)",
                 "mean squared error  E|x − q(x)|²")
for m, curve in ((2, by_m[2]), (4, by_k), (8, by_m[8])):
    ax.plot(m * np.log2(ks), curve, "o-", ms=3, label=f"M = {m} subspaces")
ax.legend()
