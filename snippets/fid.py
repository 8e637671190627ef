"""FID: sqrtm formula vs an eigenvalue route, the 1-D and commuting closed forms, and sorted-sample W2."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.linalg import sqrtm


# --- formula ---
def frechet_distance(mu_r, sigma_r, mu_g, sigma_g) -> float:
    """Squared Fréchet distance between N(mu_r, sigma_r) and N(mu_g, sigma_g), as in Heusel et al."""
    covmean = sqrtm(sigma_r @ sigma_g)
    covmean = np.real(covmean)  # sqrtm can return tiny imaginary parts from round-off
    diff = mu_r - mu_g
    return float(diff @ diff + np.trace(sigma_r + sigma_g - 2.0 * covmean))
# --- end formula ---


def random_spd(rng, d):
    a = rng.normal(size=(d, d))
    return a @ a.T / d + 0.1 * np.eye(d)


rng = np.random.default_rng(0)
d = 6
mu_r, mu_g = rng.normal(size=d), rng.normal(size=d)
s_r, s_g = random_spd(rng, d), random_spd(rng, d)

# Route 1: Tr((S_r S_g)^{1/2}) is the sum of square roots of the (real, non-negative)
# eigenvalues of S_r S_g, equivalently of the symmetric matrix S_r^{1/2} S_g S_r^{1/2}.
w, v = np.linalg.eigh(s_r)
root_r = v @ np.diag(np.sqrt(w)) @ v.T
middle_eigs = np.linalg.eigvalsh(root_r @ s_g @ root_r)
trace_sqrt = np.sum(np.sqrt(np.clip(middle_eigs, 0, None)))
eig_route = np.sum((mu_r - mu_g) ** 2) + np.trace(s_r) + np.trace(s_g) - 2 * trace_sqrt
check_close("FID (sqrtm of product) vs symmetric eigenvalue route",
            frechet_distance(mu_r, s_r, mu_g, s_g), eig_route, rtol=1e-8)

# Route 2: one dimension, where it reduces to (m1 - m2)^2 + (s1 - s2)^2.
m1, sd1, m2, sd2 = 0.3, 1.7, -1.1, 0.6
one_d = frechet_distance(np.array([m1]), np.array([[sd1**2]]), np.array([m2]), np.array([[sd2**2]]))
check_close("1-D case vs (m1-m2)^2 + (s1-s2)^2", one_d, (m1 - m2) ** 2 + (sd1 - sd2) ** 2)

# Route 3: commuting covariances (same eigenvectors) give ||mu diff||^2 + ||S_r^1/2 - S_g^1/2||_F^2.
q, _ = np.linalg.qr(rng.normal(size=(d, d)))
lam_r, lam_g = rng.uniform(0.2, 3.0, d), rng.uniform(0.2, 3.0, d)
c_r, c_g = q @ np.diag(lam_r) @ q.T, q @ np.diag(lam_g) @ q.T
commuting = np.sum((mu_r - mu_g) ** 2) + np.sum((np.sqrt(lam_r) - np.sqrt(lam_g)) ** 2)
check_close("commuting covariances vs Frobenius norm of root difference",
            frechet_distance(mu_r, c_r, mu_g, c_g), commuting, rtol=1e-8)

# Route 4: sampling. In 1-D the squared 2-Wasserstein distance is the mean squared gap
# between matched quantiles, i.e. between sorted samples of equal size.
n = 400_000
x = np.sort(rng.normal(m1, sd1, n))
y = np.sort(rng.normal(m2, sd2, n))
check_close("1-D FID vs Monte-Carlo W2^2 from sorted samples", one_d, np.mean((x - y) ** 2),
            rtol=0.01)

check_true("FID(P, P) = 0 and FID > 0 for different Gaussians",
           abs(frechet_distance(mu_r, s_r, mu_r, s_r)) < 1e-8
           and frechet_distance(mu_r, s_r, mu_g, s_g) > 0)
check_true("symmetric in its two arguments",
           abs(frechet_distance(mu_r, s_r, mu_g, s_g) - frechet_distance(mu_g, s_g, mu_r, s_r)) < 1e-8)

# --- in code: scipy ---
import warnings  # noqa: E402

from scipy.linalg import sqrtm  # noqa: E402, F811  (the card's formula calls it too)

# The common FID code takes sqrtm(Sigma_r @ Sigma_g) and keeps its real part. With fewer images than
# features both covariances are singular (here 3 images of 6 features each side), and so is the product.
few = np.random.default_rng(1)
f_r, f_g = few.normal(size=(3, d)), few.normal(size=(3, d)) + 0.5
cov_r, cov_g = np.cov(f_r, rowvar=False), np.cov(f_g, rowvar=False)
product = cov_r @ cov_g
root = sqrtm(product)
# A zero eigenvalue comes out as +-eps ||A|| after round-off, and its square root as about
# sqrt(eps ||A||). The trace of the root is the sum of the roots of the computed eigenvalues (the Schur
# method roots the triangular factor's diagonal), so its imaginary part, and its error, stay below d
# of those. Single entries can carry more: the product's eigenvectors are far from orthogonal.
bound = d * np.sqrt(64 * np.finfo(float).eps * np.linalg.norm(product))
imaginary = abs(float(np.imag(np.trace(root))))
check_true("pitfall: on a singular product sqrtm may return complex128; its trace's imaginary part is tiny",
           imaginary <= bound, f"{root.dtype}, imaginary part of the trace {imaginary:.1e} "
           f"(bound {bound:.1e}), largest of an entry {np.max(np.abs(np.imag(root))):.1e}")
eigs = np.linalg.eigvals(product).real
check_close("fix: Tr(real(sqrtm(Sigma_r Sigma_g))) = sum of square roots of the product's eigenvalues",
            np.trace(np.real(root)), np.sum(np.sqrt(np.clip(eigs, 0, None))), rtol=0, atol=2 * bound)
diff_fg = f_r.mean(axis=0) - f_g.mean(axis=0)
check_close("the card's FID (real part kept) on the singular covariances, via the eigenvalues",
            frechet_distance(f_r.mean(axis=0), cov_r, f_g.mean(axis=0), cov_g),
            diff_fg @ diff_fg + np.trace(cov_r + cov_g) - 2 * np.sum(np.sqrt(np.clip(eigs, 0, None))),
            rtol=0, atol=4 * bound)
# pytorch-fid and TTUR's fid.py write `covmean, _ = sqrtm(..., disp=False)`: a tuple (root, error
# estimate), deprecated since SciPy 1.16 and to be removed in 1.18.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_style = sqrtm(s_r @ s_g, disp=False)
check_true("pitfall: disp=False returns (root, error estimate) with a DeprecationWarning",
           isinstance(old_style, tuple) and len(old_style) == 2
           and np.array_equal(old_style[0], sqrtm(s_r @ s_g))
           and any(issubclass(w.category, DeprecationWarning) for w in caught))
# --- end in code ---
