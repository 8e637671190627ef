"""Flow change of variables vs scipy (affine -> MVN, exp -> lognormal); log-det vs numerical Jacobian."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.integrate import quad
from scipy.stats import lognorm, multivariate_normal, norm


# --- formula ---
# few mutants: base log-density summed over dimensions plus the log-determinant: three sites
def flow_log_density(x: np.ndarray, f_inv, log_abs_det_jac_inv) -> np.ndarray:
    """log p_X(x) = log p_Z(f^{-1}(x)) + log |det d f^{-1} / dx|, base p_Z = N(0, I)."""
    z = f_inv(x)
    return norm.logpdf(z).sum(axis=-1) + log_abs_det_jac_inv(x)
# --- end formula ---


rng = np.random.default_rng(0)

# 1) Affine flow x = A z + b: the result must be N(b, A A^T).
A = rng.normal(size=(3, 3)) + 2 * np.eye(3)
b = rng.normal(size=3)
A_inv = np.linalg.inv(A)
x = rng.normal(size=(50, 3)) * 2
affine = flow_log_density(x, lambda t: (t - b) @ A_inv.T,
                          lambda t: np.full(len(t), -np.linalg.slogdet(A)[1]))
check_close("affine flow vs scipy multivariate_normal(b, A A^T).logpdf", affine,
            multivariate_normal(b, A @ A.T).logpdf(x), rtol=1e-10)

# 2) x = exp(mu + s z) elementwise is lognormal; the log-det is -sum log(s x).
mu, s = 0.3, 0.6
xpos = rng.uniform(0.05, 6.0, size=(200, 1))
logn = flow_log_density(xpos, lambda t: (np.log(t) - mu) / s, lambda t: -np.log(s * t).sum(axis=-1))
check_close("exp flow vs scipy.stats.lognorm.logpdf", logn,
            lognorm.logpdf(xpos[:, 0], s, scale=np.exp(mu)), rtol=1e-10)


# 3) Nonlinear 2-D flow x = f(z) = sinh(W z + c): analytic log-det of f^{-1} vs finite differences.
W, c = rng.normal(size=(2, 2)) + np.eye(2), rng.normal(size=2)
W_inv = np.linalg.inv(W)


def f_inv(t: np.ndarray) -> np.ndarray:
    return (np.arcsinh(t) - c) @ W_inv.T


def log_det_inv(t: np.ndarray) -> np.ndarray:
    # d arcsinh(t)/dt = 1 / sqrt(1 + t^2), then the linear map W^{-1}.
    return -0.5 * np.log1p(t**2).sum(axis=-1) - np.linalg.slogdet(W)[1]


pts, h = rng.normal(size=(20, 2)) * 2, 1e-5
numeric = []
for p in pts:
    jac = np.column_stack([(f_inv(p + h * e) - f_inv(p - h * e)) / (2 * h) for e in np.eye(2)])
    numeric.append(np.linalg.slogdet(jac)[1])
check_close("analytic log|det df^-1/dx| vs central-difference Jacobian", log_det_inv(pts), numeric,
            rtol=1e-7)
# 1-D picture: push N(0, 1) through x = sinh(1.2 z + 0.5) and compare with a histogram of samples.
z = rng.standard_normal(200_000)
samples = np.sinh(1.2 * z + 0.5)
xs = np.linspace(-6, 10, 600)


def dens_1d(t: np.ndarray) -> np.ndarray:
    return np.exp(norm.logpdf((np.arcsinh(t) - 0.5) / 1.2) - np.log(1.2) - 0.5 * np.log1p(t**2))


check_close("the 1-D flow density integrates to 1 (scipy quad)", quad(dens_1d, -np.inf, np.inf)[0],
            1.0, rtol=1e-8)
dens = dens_1d(xs)
fig, ax = figure("Change of variables: N(0,1) pushed through sinh(1.2 z + 0.5)", "x", "density")
ax.hist(samples, bins=400, range=(-6, 10), density=True, alpha=0.4, label="samples of f(z)")
ax.plot(xs, dens, "k", label="log p_Z(f⁻¹(x)) + log|det|, exponentiated")
ax.set_xlim(-6, 10)
ax.legend()
