"""MAUVE: divergence-curve points vs scipy's KL, the mixture as the minimizer of the weighted KL sum,
the area for disjoint supports in closed form, and the P = Q and symmetry limits."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import gamma, rel_entr, softmax
from scipy.stats import entropy


# --- formula ---
def kl(p: np.ndarray, q: np.ndarray) -> float:
    """KL(p || q) of two histograms; +inf when q = 0 somewhere p > 0."""
    support = p > 0
    if np.any(q[support] == 0):
        return np.inf
    return float(np.sum(p[support] * np.log(p[support] / q[support])))


def divergence_curve(p, q, lambdas, c: float = 5.0) -> np.ndarray:
    """Points (exp(-c KL(Q || R)), exp(-c KL(P || R))) with R = lambda P + (1 - lambda) Q."""
    pts = []
    for lam in lambdas:
        r = lam * p + (1 - lam) * q
        pts.append((np.exp(-c * kl(q, r)), np.exp(-c * kl(p, r))))
    return np.array(pts)


def mauve(p, q, num: int = 25, c: float = 5.0) -> float:
    """Area under the divergence curve on num equally spaced lambdas in [0, 1], closed by the end
    points (1, 0) and (0, 1); as in the reference implementation (which uses lambdas from 1e-6 to
    1 - 1e-6), the trapezoid areas along x and along y are averaged."""
    lambdas = np.linspace(0.0, 1.0, num)
    pts = np.vstack([[1.0, 0.0], divergence_curve(p, q, lambdas, c), [0.0, 1.0]])
    x, y = pts[:, 0], pts[:, 1]
    ix, iy = np.argsort(x), np.argsort(y)
    return 0.5 * (np.trapezoid(y[ix], x[ix]) + np.trapezoid(x[iy], y[iy]))
# --- end formula ---


rng = np.random.default_rng(0)
k = 12
p = rng.dirichlet(np.ones(k))
q = rng.dirichlet(0.5 * np.ones(k))

# 1. Curve points vs KL divergences computed by scipy.stats.entropy, with the default c = 5.
lams = np.array([0.1, 0.3, 0.5, 0.8])
direct = np.array([(np.exp(-5 * entropy(q, lam * p + (1 - lam) * q)),
                    np.exp(-5 * entropy(p, lam * p + (1 - lam) * q))) for lam in lams])
check_close("curve points vs exp(-5 KL) from scipy.stats.entropy", divergence_curve(p, q, lams), direct,
            rtol=1e-12)
check_close("KL vs scipy.stats.entropy", [kl(p, q), kl(q, p)], [entropy(p, q), entropy(q, p)], rtol=1e-12)
check_true("KL is +inf when Q is 0 where P is not, finite the other way round",
           kl(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
           and kl(np.array([1.0, 0.0]), np.array([0.5, 0.5])) == np.log(2)
           and kl(np.array([1.0, 0.0]), np.array([1.0, 0.0])) == 0.0)

# 2. Why the mixture: for each lambda, R = lambda P + (1 - lambda) Q minimizes
#    lambda KL(P || R) + (1 - lambda) KL(Q || R) over all histograms R. Check against a numerical
#    minimization (softmax parametrization) and against 200 random histograms.
for lam in (0.2, 0.7):
    def obj(theta, lam=lam):
        r = softmax(theta)
        return lam * np.sum(rel_entr(p, r)) + (1 - lam) * np.sum(rel_entr(q, r))     # scipy's KL terms
    res = minimize(obj, np.zeros(k), method="BFGS", options={"gtol": 1e-10})
    check_close(f"lambda = {lam}: argmin_R of the weighted KL sum == lambda P + (1 - lambda) Q",
                softmax(res.x), lam * p + (1 - lam) * q, rtol=1e-6, atol=1e-7)
    pt = divergence_curve(p, q, [lam])[0]
    best = lam * (-np.log(pt[1]) / 5) + (1 - lam) * (-np.log(pt[0]) / 5)
    rand = [obj(np.log(rng.dirichlet(np.ones(k)))) for _ in range(200)]
    check_true(f"lambda = {lam}: no random R beats the curve point's weighted KL", min(rand) >= best - 1e-12)

# 3. Limits: identical histograms score 1; swapping P and Q mirrors the curve and keeps the area.
check_close("MAUVE(P, P) = 1", mauve(p, p), 1.0, rtol=1e-12)
check_close("MAUVE(P, Q) == MAUVE(Q, P)", mauve(q, p), mauve(p, q), rtol=1e-12)
check_true("MAUVE(P, Q) strictly between 0 and 1", 0 < mauve(p, q) < 1, f"{mauve(p, q):.4f}")

# 4. Disjoint supports: KL(Q || R) = -log(1 - lambda), KL(P || R) = -log lambda, so the curve is
#    x = (1 - lambda)^c, y = lambda^c, and its area is Gamma(c + 1)^2 / Gamma(2c + 1): 1/2 for c = 1
#    (the straight line x + y = 1) and 1/252 for c = 5.
pd = np.array([0.5, 0.5, 0.0, 0.0])
qd = np.array([0.0, 0.0, 0.3, 0.7])
lam_grid = np.array([0.25, 0.5, 0.9])
check_close("disjoint supports: curve = ((1 - lambda)^5, lambda^5)", divergence_curve(pd, qd, lam_grid),
            np.column_stack([(1 - lam_grid) ** 5, lam_grid**5]), rtol=1e-9)
check_close("disjoint supports, c = 1 and the default c = 5: area vs Gamma(c+1)^2 / Gamma(2c+1) = 1/2, 1/252",
            [mauve(pd, qd, num=4000, c=1.0), mauve(pd, qd, num=4000)],
            [gamma(2.0) ** 2 / gamma(3.0), gamma(6.0) ** 2 / gamma(11.0)], rtol=1e-5)
check_close("... and 1/252 by hand", gamma(6.0) ** 2 / gamma(11.0), 1 / 252, rtol=1e-12)

# 5. The scaling constant matters: a larger c lowers the score of the same pair.
check_true("MAUVE decreases as c grows (c = 1, 5, 10)",
           mauve(p, q, c=1.0) > mauve(p, q, c=5.0) > mauve(p, q, c=10.0))

fig, ax = figure("MAUVE divergence curves (c = 5)", r"$\exp(-c\,\mathrm{KL}(Q \Vert R_\lambda))$",
                 r"$\exp(-c\,\mathrm{KL}(P \Vert R_\lambda))$")
lam_fine = np.linspace(1e-4, 1 - 1e-4, 300)
for t in (0.1, 0.5, 1.0):
    qt = (1 - t) * p + t * q
    curve = divergence_curve(p, qt, lam_fine)
    ax.plot(curve[:, 0], curve[:, 1], label=f"Q = {1 - t:.1f} P + {t:.1f} Q0: MAUVE {mauve(p, qt):.3f}")
ax.set_xlim(0, 1.02)
ax.set_ylim(0, 1.02)
ax.legend(fontsize=8)
