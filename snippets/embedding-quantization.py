"""Binary and int8 embedding quantization: Hamming distance as a popcount of XOR against scipy's Hamming
distance, the identity D - 2H = the dot product of the +-1 codes, the int8 bucket error against half a
bucket by brute force (and sentence-transformers' truncating rule, one bucket), and rescoring against a
brute-force ranking, with its recall against the exact float search."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist


# --- formula ---
def binarize(X):
    """Sign thresholding: bit j is 1 where x_j > 0, packed eight to a byte."""
    return np.packbits(X > 0, axis=1)


def hamming(Bq, Bd):
    """H(q, d) = popcount(b(q) XOR b(d)) for every query row against every document row."""
    return np.bitwise_count(Bq[:, None, :] ^ Bd[None, :, :]).sum(axis=2, dtype=np.int64)


def calibrate(X):
    """Per-dimension range [l_j, u_j] from calibration embeddings."""
    return X.min(axis=0), X.max(axis=0)


def bucket_width(lo, hi):
    """s_j = (u_j - l_j) / 255: 256 codes, so 255 buckets between the calibrated ends."""
    return (hi - lo) / 255


def int8_codes(X, lo, hi):
    """q_j = round((x_j - l_j) / s_j) - 128, clipped to [-128, 127]."""
    step = bucket_width(lo, hi)
    return np.clip(np.round((X - lo) / step) - 128, -128, 127).astype(np.int8)


def dequantize(Q, lo, hi):
    return lo + (Q.astype(float) + 128) * (hi - lo) / 255


def search_and_rescore(q, Bq, Bd, k, rescore_multiplier):
    """Shortlist the k * multiplier documents nearest in Hamming distance, then rank them by the float
    query's inner product with their +-1 codes (BPR's reranking) and keep the top k: (ids, scores)."""
    H = hamming(Bq[None, :], Bd)[0]
    shortlist = np.argsort(H, kind="stable")[: k * rescore_multiplier]
    signs = 2.0 * np.unpackbits(Bd[shortlist], axis=1)[:, : len(q)] - 1.0
    scores = signs @ q
    order = np.argsort(-scores, kind="stable")[:k]
    return shortlist[order], scores[order]
# --- end formula ---


rng = np.random.default_rng(0)
D, n_docs = 64, 400
docs = rng.normal(size=(n_docs, D))
queries = docs[:20] + 0.6 * rng.normal(size=(20, D))          # each query near one document
Bd, Bq = binarize(docs), binarize(queries)

# 1. Hamming distance: popcount of the XOR of packed bytes against scipy's Hamming distance (a fraction of
#    disagreeing positions, times D) on the unpacked booleans. Integers: exact.
H = hamming(Bq, Bd)
ref = np.rint(cdist(queries > 0, docs > 0, metric="hamming") * D)
check_close("popcount(b_q XOR b_d) = scipy Hamming distance x D", H, ref, rtol=0, atol=0)
check_true("bit j is x_j > 0: unpacking gives the sign pattern back",
           np.array_equal(np.unpackbits(Bd, axis=1).astype(bool), docs > 0))

# 2. The +-1 codes h = sign(x): their dot product is D - 2H (agreeing positions count +1, the others -1).
dots = np.sign(queries) @ np.sign(docs).T
check_close("sign(q) . sign(d) = D - 2 H", dots, D - 2 * H, rtol=0, atol=0)

# 3. int8: calibrate on 1000 embeddings, quantize 5000 others drawn inside the calibrated range. Inside the
#    range each coordinate is recovered to within half a bucket s_j / 2 (plus a few ulps of the affine map).
calib = rng.normal(size=(1000, D))
lo, hi = calibrate(calib)
check_close("calibration range = per-dimension min and max", np.stack([lo, hi]),
            np.stack([[min(calib[:, j]) for j in range(D)], [max(calib[:, j]) for j in range(D)]]), rtol=0)
X = lo + (hi - lo) * rng.random(size=(5000, D))
Q = int8_codes(X, lo, hi)
err = np.abs(dequantize(Q, lo, hi) - X)
half_bucket = (hi - lo) / 255 / 2
check_true("|x - dequant(q(x))| <= s_j / 2 in every dimension (5000 x 64 values)",
           np.all(err <= half_bucket * (1 + 1e-9)),
           f"max error / half bucket {np.max(err / half_bucket):.6f}")
check_true("the bound is reached (worst case within 1% of s_j / 2)", np.max(err / half_bucket) > 0.99)
check_close("the calibration extremes map to -128 and 127", [int8_codes(lo[None], lo, hi).min(),
            int8_codes(hi[None], lo, hi).max()], [-128, 127], rtol=0)
outside = int8_codes(np.stack([lo - 1.0, hi + 1.0]), lo, hi)
check_true("values outside the range clip to -128 and 127",
           np.all(outside[0] == -128) & np.all(outside[1] == 127))
# sentence-transformers' rule casts ((x - l) / s - 128) to int8, truncating toward zero: one bucket off at
# most.
library = ((X - lo) / ((hi - lo) / 255) - 128).astype(np.int8)
check_true("the library's truncating rule differs from rounding by at most one code",
           np.max(np.abs(library.astype(int) - Q.astype(int))) == 1)

# 4. Rescoring: brute force. The exact top 10 by float inner product; binary search alone; binary shortlist of
#    40 rescored; and the rescored list against a sort written with Python's sorted.
k, mult = 10, 4
exact = np.argsort(-(queries @ docs.T), axis=1)[:, :k]
binary_only = np.argsort(H, axis=1, kind="stable")[:, :k]
rescored = np.array([search_and_rescore(queries[i], Bq[i], Bd, k, mult)[0] for i in range(len(queries))])


def brute_rescore(q, X, Hrow, m):
    """Python's sorted: the m k nearest in Hamming distance (ties by index), then by q . sign(x)."""
    cand = sorted(range(len(X)), key=lambda j: (Hrow[j], j))[: k * m]
    best = sorted(cand, key=lambda j: -float(np.dot(q, np.sign(X[j]))))[:k]
    return best, [float(np.dot(q, np.sign(X[j]))) for j in best]


for i in (0, 7):
    ids, scores = search_and_rescore(queries[i], Bq[i], Bd, k, mult)
    ref_ids, ref_scores = brute_rescore(queries[i], docs, H[i], mult)
    check_true(f"query {i}: rescored list = brute force (Hamming shortlist of 40, sorted by q . sign(d))",
               list(ids) == ref_ids)
    # 64-term dot products of values ~1: a few ulps, so 1e-12.
    check_close(f"query {i}: rescored scores = q . sign(d) by brute force", scores, ref_scores, rtol=1e-12)
# Multiplier 1: the shortlist is exactly the k Hamming-nearest, only reordered.
check_true("multiplier 1: rescoring reorders the Hamming top 10 and adds nothing",
           all(set(search_and_rescore(queries[i], Bq[i], Bd, k, 1)[0]) == set(binary_only[i])
               for i in range(len(queries))))
# D = 60 is not a multiple of 8: the packed codes carry 4 padding bits that must not count as dimensions.
docs60, queries60 = docs[:, :60], queries[:, :60]
B60, Q60 = binarize(docs60), binarize(queries60)
H60 = hamming(Q60, B60)
check_close("D = 60 (padded bytes): Hamming = scipy x D", H60,
            np.rint(cdist(queries60 > 0, docs60 > 0, metric="hamming") * 60), rtol=0, atol=0)
ids60, scores60 = search_and_rescore(queries60[3], Q60[3], B60, k, mult)
ref60 = brute_rescore(queries60[3], docs60, H60[3], mult)
check_true("D = 60: rescored list = brute force", list(ids60) == ref60[0])
check_close("D = 60: rescored scores = brute force", scores60, ref60[1], rtol=1e-12)


def recall(found):
    return np.mean([len(set(found[i]) & set(exact[i])) / k for i in range(len(queries))])


r_bin, r_res = recall(binary_only), recall(rescored)
check_true("rescoring raises recall@10 against the exact float search", r_res > r_bin,
           f"binary only {r_bin:.3f}, rescored {r_res:.3f}")
check_true("the rescored list puts each query's source document first",
           all(rescored[i][0] == i for i in range(len(queries))))

mults = [1, 2, 4, 8, 16]
fig, ax = figure("Binary search with rescoring", "rescore multiplier (shortlist = multiplier x 10)",
                 "recall@10 vs exact float search")
ax.plot(mults, [recall(np.array([search_and_rescore(queries[i], Bq[i], Bd, k, m)[0]
                                 for i in range(len(queries))]))
                for m in mults], marker="o", label="Hamming shortlist, then q · sign(d)")
ax.axhline(r_bin, linestyle="--", color="gray", label="Hamming distance alone")
ax.set_xscale("log", base=2)
ax.legend()

# The page's calculator is checked against int8_codes and dequantize on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): values inside the range, at its ends, outside it on both sides
# (both clips), and on exact half-bucket ties (2.5, 3.5 and 4.5 buckets up), where NumPy rounds to the even
# code.
import cardcalc  # noqa: E402


def one_coordinate(x, lo, hi):
    """The code of one coordinate x under the range [lo, hi], and the value it decodes to."""
    code = int8_codes(np.array([[x]]), np.array([lo]), np.array([hi]))
    return {"code": int(code[0, 0]), "bucket": bucket_width(lo, hi),
            "back": float(dequantize(code, lo, hi)[0, 0])}


cardcalc.table(one_coordinate,
               cardcalc.grid(x=(-300.0, -1.0, 0.0, 0.0123, 2.5, 3.5, 131.3, 254.0, 255.0, 400.0),
                             lo=(0.0, -1.0), hi=(255.0, 254.0)))
