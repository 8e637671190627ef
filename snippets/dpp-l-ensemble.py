"""DPP L-ensemble: P(Y) = det(L_Y)/det(L+I) vs enumeration, spectral size law, exact fractions, geometry."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from packing_fixture import all_subsets, toy_candidates, toy_dpp_kernel
from scipy.linalg import cholesky


# --- formula ---
def dpp_log_prob(L, Y):
    """log P(Y) = log det(L_Y) - log det(L + I), with log det(L + I) = sum_n log(1 + lam_n) over the
    eigenvalues of L, so large kernels do not overflow. Y is a tuple of item indices; det of the
    empty matrix is 1."""
    Y = list(Y)
    log_num = np.linalg.slogdet(L[np.ix_(Y, Y)])[1] if Y else 0.0
    log_norm = np.sum(np.log1p(np.linalg.eigvalsh(L)))
    return log_num - log_norm


def dpp_prob(L, Y):
    """Probability that an L-ensemble DPP returns exactly the set Y."""
    return np.exp(dpp_log_prob(L, Y))
# --- end formula ---


# 1. Exact case: L = [[2, 1], [1, 2]], det(L + I) = 8: P = 1/8, 2/8, 2/8, 3/8 for {}, {1}, {2}, {1, 2}.
L2 = np.array([[2.0, 1.0], [1.0, 2.0]])
exact = [Fraction(1, 8), Fraction(2, 8), Fraction(2, 8), Fraction(3, 8)]
check_close("2-item kernel: P({}), P({1}), P({2}), P({1,2}) = 1/8, 1/4, 1/4, 3/8",
            [dpp_prob(L2, Y) for Y in [(), (0,), (1,), (0, 1)]], [float(f) for f in exact], rtol=1e-12)

# 2. Toy corpus kernel (6 documents for q1): the 64 probabilities are non-negative and sum to 1.
L = toy_dpp_kernel("q1", 6)
n = len(L)
subsets = all_subsets(n)
probs = np.array([dpp_prob(L, Y) for Y in subsets])
check_true("all 64 subset probabilities are >= 0", bool(np.all(probs >= -1e-15)))
check_close("probabilities over all 2^6 subsets sum to 1", probs.sum(), 1.0, rtol=1e-12)

# 3. Spectral route: the size |Y| of an L-ensemble sample has P(|Y| = k) = e_k(lam) / prod(1 + lam),
#    with e_k the elementary symmetric polynomials of L's eigenvalues (coefficients of prod(x + lam_i)).
lam = np.linalg.eigvalsh(L)
e = np.poly(-lam)  # coefficients of prod(x + lam_i), highest power first: e[k] = e_k(lam)
size = np.array([len(Y) for Y in subsets])
check_close("P(|Y| = k) from enumeration vs e_k(eigenvalues) / prod(1 + eigenvalues)",
            [probs[size == k].sum() for k in range(n + 1)], e / np.prod(1 + lam), rtol=1e-9)

# 4. Geometry: with L_ij = g_i g_j cos(d_i, d_j), P({i,j}) P({}) / (P({i}) P({j})) = 1 - cos^2(d_i, d_j)
#    (the squared sine of the angle between the two embeddings), cosines taken from the corpus directly.
_, _, sim = toy_candidates("q1", 6)
p = {Y: pr for Y, pr in zip(subsets, probs, strict=True)}
ratio = [p[(i, j)] * p[()] / (p[(i,)] * p[(j,)]) for i in range(n) for j in range(i + 1, n)]
check_close("pair repulsion equals 1 - cos^2 of the embeddings", ratio,
            [1 - sim[i, j] ** 2 for i in range(n) for j in range(i + 1, n)], rtol=1e-9)

# 5. Two identical items can never be drawn together.
dup = np.array([[1.0, 1.0, 0.3], [1.0, 1.0, 0.3], [0.3, 0.3, 1.0]])
check_close("duplicate items: P({0, 1}) = 0", dpp_prob(dup, (0, 1)), 0.0, atol=1e-12)
check_true("duplicate items: a diverse pair keeps positive probability", dpp_prob(dup, (0, 2)) > 0.05)

# 6. A large kernel: 400 items with det(L + I) ~ 1e500 (overflows float64); log P(empty set) is still
#    exact, compared with -log det(L + I) from scipy's Cholesky factor (2 sum log diag).
B = np.random.default_rng(0).normal(size=(400, 400)) / 4
big = B @ B.T
chol = cholesky(big + np.eye(400), lower=True)
with np.errstate(over="ignore"):
    plain_det = np.linalg.det(big + np.eye(400))
check_true("det(L + I) overflows float64 here", not np.isfinite(plain_det))
check_close("log P(empty) = -log det(L + I) via scipy Cholesky", dpp_log_prob(big, ()),
            -2 * np.sum(np.log(np.diag(chol))), rtol=1e-10)
check_close("log P of a 3-item set on the large kernel vs Cholesky route",
            dpp_log_prob(big, (0, 7, 99)),
            2 * np.sum(np.log(np.diag(cholesky(big[np.ix_([0, 7, 99], [0, 7, 99])], lower=True))))
            - 2 * np.sum(np.log(np.diag(chol))), rtol=1e-10)

fig, ax = figure("DPP on the toy corpus (q1, 6 docs): probability of each pair",
                 "cos(d_i, d_j)", "P(Y = {i, j})")
pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
ax.scatter([sim[i, j] for i, j in pairs], [p[(i, j)] for i, j in pairs])
