"""PQ distances on the toy corpus's token embeddings: ADC table lookups against the exact distance to the
decoded vectors (scipy cdist), SDC likewise, the triangle-inequality error bounds for every pair, and
nearest-neighbour recall of ADC against SDC."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from matplotlib import pyplot as plt
from scipy.cluster.vq import kmeans2, vq
from scipy.spatial.distance import cdist


# --- formula ---
def adc_tables(x, codebooks):
    """Per subspace m, squared distances from the query's sub-vector u_m(x) to every centroid."""
    U = x.reshape(len(codebooks), x.size // len(codebooks))
    return np.stack([np.sum((cb - U[m]) ** 2, axis=1) for m, cb in enumerate(codebooks)])


def adc_distances(x, codes, codebooks):
    """Asymmetric distance: the query stays exact, database vectors are codes; M table lookups each."""
    T = adc_tables(x, codebooks)
    return np.sqrt(np.sum(T[np.arange(len(codebooks)), codes], axis=1))


def sdc_distances(x_code, codes, codebooks):
    """Symmetric distance: the query is quantized too; centroid-to-centroid tables."""
    total = np.zeros(len(codes))
    for m, cb in enumerate(codebooks):
        table = np.sum((cb[:, None, :] - cb[None, :, :]) ** 2, axis=2)
        total += table[x_code[m], codes[:, m]]
    return np.sqrt(total)
# --- end formula ---


X = np.stack([tc.embed(t) for t in tc.vocabulary()])        # 449 database vectors, D = 32
Q = np.stack([tc.embed(d.title) for d in tc.DOCS])          # 32 queries: the document titles
M, ksub = 8, 16
U = X.reshape(len(X), M, -1)
books = [kmeans2(U[:, m], ksub, iter=20, minit="++", seed=m)[0] for m in range(M)]
codes = np.stack([vq(U[:, m], books[m])[0] for m in range(M)], axis=1)
recon = np.concatenate([books[m][codes[:, m]] for m in range(M)], axis=1)        # q(y)
q_codes = np.stack([vq(Q.reshape(len(Q), M, -1)[:, m], books[m])[0] for m in range(M)], axis=1)
q_recon = np.concatenate([books[m][q_codes[:, m]] for m in range(M)], axis=1)    # q(x)

adc = np.stack([adc_distances(x, codes, books) for x in Q])
sdc = np.stack([sdc_distances(c, codes, books) for c in q_codes])
exact = cdist(Q, X)

# 1. ADC is the exact distance from the query to the reconstructed database vector, SDC the distance
#    between the two reconstructions; the lookup tables must reproduce both.
check_close("ADC lookups = |x - q(y)| (scipy cdist to the decoded vectors), 32 x 449", adc, cdist(Q, recon),
            rtol=1e-10)
check_close("SDC lookups = |q(x) - q(y)| (scipy cdist between decoded vectors)", sdc, cdist(q_recon, recon),
            rtol=1e-10, atol=1e-12)
check_close("ADC table for query 0: row m = squared distances of u_m(x) to codebook m (cdist)",
            adc_tables(Q[0], books), np.stack([cdist(Q[0].reshape(M, -1)[m:m + 1], books[m], "sqeuclidean")[0]
                                               for m in range(M)]), rtol=1e-10, atol=1e-15)

# 2. Error bounds from the triangle inequality, for all 32 x 449 pairs:
#    |d(x, y) - ADC| <= |y - q(y)|,  |d(x, y) - SDC| <= |x - q(x)| + |y - q(y)|.
err_y = np.linalg.norm(X - recon, axis=1)
err_x = np.linalg.norm(Q - q_recon, axis=1)
check_true("ADC error <= quantization error of the database vector (every pair)",
           bool(np.all(np.abs(exact - adc) <= err_y[None, :] + 1e-12)),
           f"largest ratio {np.max(np.abs(exact - adc) / err_y[None, :]):.3f}")
check_true("SDC error <= sum of both quantization errors (every pair)",
           bool(np.all(np.abs(exact - sdc) <= err_x[:, None] + err_y[None, :] + 1e-12)))
check_true("ADC is closer to the exact distance than SDC on average",
           np.mean(np.abs(exact - adc)) < np.mean(np.abs(exact - sdc)),
           f"mean |error|: ADC {np.mean(np.abs(exact - adc)):.4f}, SDC {np.mean(np.abs(exact - sdc)):.4f}")

# 3. Nearest-neighbour search: recall@10 of the ADC and SDC rankings against exact distances.
truth = np.argsort(exact, axis=1)[:, :10]


def recall10(D):
    top = np.argsort(D, axis=1)[:, :10]
    return np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top, truth, strict=True)])


r_adc, r_sdc = recall10(adc), recall10(sdc)
check_true("recall@10: ADC >= SDC, both well above chance (10/449)", r_adc >= r_sdc > 0.2,
           f"ADC {r_adc:.2f}, SDC {r_sdc:.2f}")

# 2 x 14,368 points are drawn as one image inside the SVG (rasterized, at the 200 dpi the build gives a
# figure it must save as an image), with the axes and text still vector: as one vector path per point the
# SVG is 4 MB, over the size limit, and the build would render the whole figure twice to end with a PNG.
plt.rcParams["savefig.dpi"] = 200
fig, ax = figure("PQ distance estimates, M = 8, k* = 16", "exact distance  d(x, y)",
                 "estimated distance")
ax.plot(exact.ravel(), sdc.ravel(), ".", ms=1, alpha=0.4, rasterized=True, label="SDC (query quantized too)")
ax.plot(exact.ravel(), adc.ravel(), ".", ms=1, alpha=0.4, rasterized=True, label="ADC (query exact)")
ax.plot([0, 2], [0, 2], "k:", lw=1)
ax.legend(markerscale=8)
