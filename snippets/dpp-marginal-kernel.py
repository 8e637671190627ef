"""DPP marginal kernel K = L(L+I)^-1: det(K_A) vs enumerated inclusion probabilities, spectrum, exact case."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from packing_fixture import all_subsets, toy_dpp_kernel
from scipy.linalg import eigh


# --- formula ---
def marginal_kernel(L):
    """K = L (L + I)^{-1}, the marginal kernel of the L-ensemble with kernel L. L and (L + I)^{-1}
    commute, so K = (L + I)^{-1} L, computed by a linear solve rather than an explicit inverse."""
    return np.linalg.solve(L + np.eye(len(L)), L)


def inclusion_prob(K, A):
    """P(A is a subset of Y) = det(K_A); the empty set is always included."""
    A = list(A)
    return np.linalg.det(K[np.ix_(A, A)]) if A else 1.0


def exclusion_prob(K, A):
    """P(no item of A is in Y) = det(I - K_A)."""
    A = list(A)
    return np.linalg.det(np.eye(len(A)) - K[np.ix_(A, A)]) if A else 1.0
# --- end formula ---


# 1. Exact case: L = [[2, 1], [1, 2]] gives K = [[5, 1], [1, 5]] / 8, so P(1 in Y) = 5/8 and
#    P({1, 2} in Y) = 24/64 = 3/8 (which is P(Y = {1, 2}) = det L / det(L + I) = 3/8).
L2 = np.array([[2.0, 1.0], [1.0, 2.0]])
check_close("exact K for L = [[2,1],[1,2]]", marginal_kernel(L2), np.array([[5.0, 1.0], [1.0, 5.0]]) / 8,
            rtol=1e-12)
check_close("exact case: P(item 1 not in Y) = 3/8, P(neither) = P(Y empty) = 1/8",
            [exclusion_prob(marginal_kernel(L2), (0,)), exclusion_prob(marginal_kernel(L2), (0, 1))],
            [3 / 8, 1 / 8], rtol=1e-12)
check_close("P(item 1 in Y) = 5/8 and P({1,2} in Y) = 3/8",
            [inclusion_prob(marginal_kernel(L2), (0,)), inclusion_prob(marginal_kernel(L2), (0, 1))],
            [float(Fraction(5, 8)), float(Fraction(3, 8))], rtol=1e-12)

# 2. Enumeration: P(A in Y) = sum over all Y containing A of det(L_Y) / det(L + I), for all 64 sets A
#    of a 6-document kernel from the toy corpus (non-symmetric test sets too: singletons, pairs, all).
L = toy_dpp_kernel("q1", 6)
n = len(L)
subsets = all_subsets(n)
Z = np.linalg.det(L + np.eye(n))
p_exact = {Y: (np.linalg.det(L[np.ix_(Y, Y)]) if Y else 1.0) / Z for Y in subsets}
K = marginal_kernel(L)
by_enum = [sum(pr for Y, pr in p_exact.items() if set(A) <= set(Y)) for A in subsets]
check_close("det(K_A) equals the enumerated inclusion probability for all 64 sets A",
            [inclusion_prob(K, A) for A in subsets], by_enum, rtol=1e-9)

by_enum_out = [sum(pr for Y, pr in p_exact.items() if not set(A) & set(Y)) for A in subsets]
check_close("det(I - K_A) equals the enumerated probability that Y avoids A, for all 64 sets A",
            [exclusion_prob(K, A) for A in subsets], by_enum_out, rtol=1e-9)
check_close("avoiding everything is the empty draw: det(I - K) = 1 / det(L + I)",
            exclusion_prob(K, tuple(range(n))), 1 / Z, rtol=1e-9)

# 3. Spectrum: K has L's eigenvectors and eigenvalues lam / (1 + lam) in [0, 1) (scipy.linalg.eigh).
lam = eigh(L, eigvals_only=True)
check_close("eigenvalues of K are lam / (1 + lam)", np.sort(eigh((K + K.T) / 2, eigvals_only=True)),
            np.sort(lam / (1 + lam)), rtol=1e-9)
check_close("K is symmetric", K, K.T, rtol=1e-10, atol=1e-12)

# 4. Expected sample size E|Y| = tr K = sum lam / (1 + lam), against enumeration.
check_close("trace of K equals the enumerated expected size", np.trace(K),
            sum(len(Y) * pr for Y, pr in p_exact.items()), rtol=1e-10)

# 5. Negative correlation: P(i and j) <= P(i) P(j) for every pair.
gap = [inclusion_prob(K, (i, j)) - inclusion_prob(K, (i,)) * inclusion_prob(K, (j,))
       for i in range(n) for j in range(i + 1, n)]
check_true("every pair is negatively correlated: K_ii K_jj - K_ij^2 <= K_ii K_jj", max(gap) <= 1e-12)

fig, ax = figure("Inclusion probability as the whole kernel is scaled, L -> c L", "scale factor c",
                 "P(i in Y) = K_ii")
scale = np.linspace(0.05, 3, 40)
ax.plot(scale, [np.diag(marginal_kernel(s * L))[0] for s in scale], label="item 0")
ax.plot(scale, [np.diag(marginal_kernel(s * L))[5] for s in scale], label="item 5")
ax.legend()
