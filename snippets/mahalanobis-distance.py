"""Mahalanobis distance: vs scipy, whitening by Cholesky, its Euclidean cases, and the chi-square law."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import cholesky, solve_triangular
from scipy.spatial.distance import euclidean, mahalanobis, seuclidean
from scipy.stats import chi2, kstest


# --- formula ---
# few mutants: the square root of one quadratic form in x - y; einsum and inv have no twin
def mahalanobis_distance(x: np.ndarray, y: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """sqrt((x - y)^T cov^{-1} (x - y)) along the last axis."""
    diff = x - y
    return np.sqrt(np.einsum("...i,ij,...j->...", diff, np.linalg.inv(cov), diff))
# --- end formula ---


rng = np.random.default_rng(0)
D = 5
A = rng.normal(size=(D, D))
cov = A @ A.T + 0.5 * np.eye(D)          # a correlated, non-diagonal covariance
mean = rng.normal(size=D)
x = rng.normal(size=(8, D)) * 2.0 + 1.0

got = mahalanobis_distance(x, mean, cov)

# --- in code: scipy ---
# Both invert a 5 x 5 covariance (condition number 14 here): a few dozen ulps, so 1e-10 holds with room.
check_close("scipy mahalanobis(u, v, VI=inv(cov)): 8 points",
            [mahalanobis(p, mean, np.linalg.inv(cov)) for p in x], got, rtol=1e-10)
check_close("pitfall: passing cov itself as VI gives the distance under the covariance cov^-1",
            mahalanobis(x[0], mean, cov), mahalanobis_distance(x[0], mean, np.linalg.inv(cov)), rtol=1e-10)
# --- end in code ---
# Whitening: with cov = L L^T, the distance is the Euclidean length of L^{-1} (x - y).
L = cholesky(cov, lower=True)
whitened = solve_triangular(L, (x - mean).T, lower=True).T
check_close("vs Euclidean length after whitening by the Cholesky factor", got,
            np.linalg.norm(whitened, axis=1), rtol=1e-10)
check_close("identity covariance: the Euclidean distance (scipy)",
            mahalanobis_distance(x[0], x[1], np.eye(D)), euclidean(x[0], x[1]), rtol=1e-12)
var = rng.uniform(0.1, 9.0, size=D)
check_close("diagonal covariance: the standardized Euclidean distance (scipy seuclidean)",
            mahalanobis_distance(x[0], x[1], np.diag(var)), seuclidean(x[0], x[1], var), rtol=1e-12)
check_close("2-D hand value: diff (1, 1), cov [[2, 1], [1, 2]] -> sqrt(2/3)",
            mahalanobis_distance(np.array([1.0, 1.0]), np.zeros(2), np.array([[2.0, 1.0], [1.0, 2.0]])),
            np.sqrt(2 / 3), rtol=1e-14)
check_true("invariant under an invertible linear map applied to points and covariance",
           np.allclose(mahalanobis_distance(x @ A.T, mean @ A.T, A @ cov @ A.T), got, rtol=1e-8))

# For x ~ N(mean, cov), the squared distance to the mean is chi-square with D degrees of freedom.
samples = rng.multivariate_normal(mean, cov, size=20_000)
d2 = mahalanobis_distance(samples, mean, cov) ** 2
check_close("Monte Carlo: E[d^2] = D for Gaussian samples (20 000 draws, 4 standard errors)", d2.mean(),
            float(D), atol=4 * np.sqrt(2 * D / len(d2)))

# --- in code: scikit-learn ---
from sklearn.covariance import EmpiricalCovariance  # noqa: E402

# It estimates the mean and the maximum-likelihood covariance (divided by n) of the data it is fitted on.
sample = samples[:200]
fitted = EmpiricalCovariance().fit(sample)
ml_cov = np.cov(sample, rowvar=False, ddof=0)
check_close("pitfall: EmpiricalCovariance().fit(X).mahalanobis(X) returns SQUARED distances",
            fitted.mahalanobis(sample[:8]),
            mahalanobis_distance(sample[:8], sample.mean(axis=0), ml_cov) ** 2, rtol=1e-10)
check_close("pitfall: its covariance divides by n, so d^2 is n/(n-1) times that under np.cov's (n-1)",
            fitted.mahalanobis(sample[:8]) * (199 / 200),
            mahalanobis_distance(sample[:8], sample.mean(axis=0), np.cov(sample, rowvar=False)) ** 2,
            rtol=1e-10)
# --- end in code ---

ks = kstest(d2, chi2(D).cdf)
check_true("KS test does not reject d^2 ~ chi-square(D)", ks.pvalue > 0.001,
           f"statistic {ks.statistic:.4f}, p = {ks.pvalue:.2f}")

# Toy corpus: 32 document embeddings in 32 dimensions give a singular sample covariance
# (rank <= 31), so it cannot be inverted; shrinking towards the identity fixes that.
E = tc.doc_embeddings()
sample_cov = np.cov(E, rowvar=False)
rank = np.linalg.matrix_rank(sample_cov)
shrunk = 0.5 * sample_cov + 0.5 * np.trace(sample_cov) / tc.EMBED_DIM * np.eye(tc.EMBED_DIM)
dq = mahalanobis_distance(E, tc.query_embedding("q5"), shrunk)
check_true("toy corpus: sample covariance of 32 embeddings is singular; with shrinkage d08 is still "
           "nearest to q5", rank < tc.EMBED_DIM and int(np.argmin(dq)) == 7,
           f"rank {rank} of {tc.EMBED_DIM}; nearest {tc.DOC_IDS[int(np.argmin(dq))]}")

fig, ax = figure("Mahalanobis distance 1, 2 and 3 from the mean", "$x_1$", "$x_2$",
                 size=(5.0, 4.2))
cov2 = cov[:2, :2]
pts = rng.multivariate_normal(np.zeros(2), cov2, size=600)
ax.scatter(pts[:, 0], pts[:, 1], s=4, alpha=0.4, color="gray")
t = np.linspace(0, 2 * np.pi, 400)
circle = np.stack([np.cos(t), np.sin(t)])
L2 = cholesky(cov2, lower=True)
for r in (1, 2, 3):
    ring = r * (L2 @ circle)
    ax.plot(ring[0], ring[1], label=f"$d_M$ = {r}")
ax.set_aspect("equal")
ax.legend(fontsize=8)
