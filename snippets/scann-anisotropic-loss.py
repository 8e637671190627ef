"""ScaNN's anisotropic (score-aware) quantization loss: the decomposition h_par |r_par|^2 + h_perp |r_perp|^2
against a Monte Carlo average over uniformly random queries, the weight integrals against incomplete
beta functions, the isotropic case, the large-d limit of eta for a threshold weight, and a codeword
choice that differs from nearest-neighbour quantization."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.special import betainc, betaln

QUAD = {"limit": 200, "epsabs": 0.0, "epsrel": 1e-12}   # quadrature settings (numerics, not the formula)


# --- formula ---
def residual_parts(x, x_tilde):
    """r = x - x_tilde split into its component along x (r_par) and orthogonal to x (r_perp)."""
    r = x - x_tilde
    r_par = (r @ x) / (x @ x) * x
    return r_par, r - r_par


def h_weights(w, norm_x: float, d: int, breaks=None):
    """h_par = (d - 1) int_0^pi w(|x| cos t)(sin^{d-2} t - sin^d t) dt and
    h_perp = int_0^pi w(|x| cos t) sin^d t dt; `breaks`: angles where w jumps (for the quadrature)."""
    h_par = (d - 1) * quad(lambda t: w(norm_x * np.cos(t)) * (np.sin(t) ** (d - 2) - np.sin(t) ** d),
                           0, np.pi, points=breaks, **QUAD)[0]
    h_perp = quad(lambda t: w(norm_x * np.cos(t)) * np.sin(t) ** d, 0, np.pi, points=breaks, **QUAD)[0]
    return h_par, h_perp


def anisotropic_loss(x, x_tilde, h_par: float, h_perp: float) -> float:
    r_par, r_perp = residual_parts(x, x_tilde)
    return float(h_par * (r_par @ r_par) + h_perp * (r_perp @ r_perp))


def eta_threshold_limit(T: float, norm_x: float) -> float:
    """Large-d limit of eta / (d - 1) = h_par / ((d - 1) h_perp) for w(t) = 1[t >= T]."""
    s = (T / norm_x) ** 2
    return s / (1 - s)
# --- end formula ---


rng = np.random.default_rng(0)
T = 0.3


def threshold(t):
    return 1.0 if t >= T else 0.0


def sin_power_integral(n, theta0):
    """int_0^theta0 sin^n t dt = B(sin^2 theta0; (n + 1)/2, 1/2) / 2 for theta0 <= pi/2 (log-space)."""
    a = (n + 1) / 2
    return 0.5 * betainc(a, 0.5, np.sin(theta0) ** 2) * np.exp(betaln(a, 0.5))


# 1. The weight integrals for the threshold weight against incomplete beta functions.
for d in (8, 64, 256):
    th0 = np.arccos(T)                                 # |x| = 1: w = 1 exactly for t <= arccos(T)
    ref_par = (d - 1) * (sin_power_integral(d - 2, th0) - sin_power_integral(d, th0))
    check_close(f"d = {d}: (h_par, h_perp) by quadrature vs incomplete beta functions",
                h_weights(threshold, 1.0, d, [th0]), [ref_par, sin_power_integral(d, th0)], rtol=1e-9)

# 2. The loss is E_q[w(<q, x>) <q, x - x_tilde>^2] over q uniform on the unit sphere, up to the common
#    constant (d - 1) * int_0^pi sin^{d-2} = (d - 1) B((d - 1)/2, 1/2). Monte Carlo, d = 8, 1.5M queries.
d = 8
x = rng.normal(size=d)
x *= 0.8 / np.linalg.norm(x)                           # |x| = 0.8
x_tilde = x + rng.normal(0, 0.3, d)
q = rng.normal(size=(1_500_000, d))
q /= np.linalg.norm(q, axis=1, keepdims=True)
samples = (q @ x >= T) * (q @ (x - x_tilde)) ** 2
const = (d - 1) * np.exp(betaln((d - 1) / 2, 0.5))
check_close("loss / ((d-1) B) vs Monte Carlo E[1(<q,x> >= T) <q, r>^2] (4 standard errors)",
            anisotropic_loss(x, x_tilde, *h_weights(threshold, 0.8, d, [np.arccos(T / 0.8)])) / const,
            samples.mean(),
            rtol=0, atol=4 * samples.std() / np.sqrt(samples.size))

# 3. The decomposition itself, and the isotropic weight w = 1 (h_par = h_perp: plain reconstruction error).
r_par, r_perp = residual_parts(x, x_tilde)
check_close("r_par + r_perp = r, r_perp orthogonal to x, r_par parallel to x",
            [*(r_par + r_perp), r_perp @ x, np.linalg.norm(np.cross(r_par[:3], x[:3]))],
            [*(x - x_tilde), 0.0, 0.0], rtol=1e-12, atol=1e-14)
h1 = h_weights(lambda t: 1.0, 0.8, d)
check_close("w = 1: h_par = h_perp, so the loss is h |x - x_tilde|^2",
            [h1[0], anisotropic_loss(x, x_tilde, *h1)],
            [h1[1], h1[1] * np.sum((x - x_tilde) ** 2)], rtol=1e-9)

# 4. Large d: eta / (d - 1) -> (T/|x|)^2 / (1 - (T/|x|)^2) for the threshold weight (incomplete beta
#    functions, accurate where quadrature of sin^d is not); the gap shrinks roughly like 1/d.
gaps = []
for dd in (100, 1000, 4000):                    # beyond ~5000 the incomplete beta underflows
    th0 = np.arccos(T / 0.8)
    ratio = sin_power_integral(dd - 2, th0) / sin_power_integral(dd, th0) - 1
    gaps.append(abs(ratio / eta_threshold_limit(T, 0.8) - 1))
check_true("|x| = 0.8, T = 0.3: relative gap to the limit shrinks with d and is below 0.5% at d = 4000",
           gaps[0] > gaps[1] > gaps[2] and gaps[2] < 5e-3, ", ".join(f"{g:.4f}" for g in gaps))
check_close("limit value at T/|x| = 0.3/0.8: 0.140625 / 0.859375", eta_threshold_limit(T, 0.8),
            0.140625 / 0.859375,
            rtol=1e-12)

# 5. Why it matters: x = (1, 0); codeword A = (1, 0.5) errs only across x, B = (0.7, 0) only along x.
#    Nearest-neighbour quantization picks B (|r| 0.3 < 0.5); with eta = h_par/h_perp = 4 the anisotropic
#    loss picks A, and A has the smaller inner-product error on the queries that score x highly.
x2, A, B = np.array([1.0, 0.0]), np.array([1.0, 0.5]), np.array([0.7, 0.0])
picks = [anisotropic_loss(x2, c, 4.0, 1.0) for c in (A, B)]
check_close("anisotropic losses of A and B with h_par = 4, h_perp = 1: 0.25 and 0.36", picks, [0.25, 0.36],
            rtol=1e-12)
ang = rng.uniform(-0.4, 0.4, 10000)                 # queries within ~23 degrees of x
qq = np.column_stack([np.cos(ang), np.sin(ang)])
err = [np.mean((qq @ (x2 - c)) ** 2) for c in (A, B)]
check_true("on high-scoring queries A's inner-product error is smaller although |x - A| > |x - B|",
           err[0] < err[1] and np.linalg.norm(x2 - A) > np.linalg.norm(x2 - B),
           f"A {err[0]:.4f}, B {err[1]:.4f}")

ratios = np.linspace(0.05, 0.9, 60)
fig, ax = figure("ScaNN threshold weight: how much more parallel error costs", "T / |x|",
                 "η / (d − 1) = h∥ / ((d − 1) h⊥)")
ax.plot(ratios, [eta_threshold_limit(r, 1.0) for r in ratios], label="limit d → ∞")
for dd in (16, 128):
    ax.plot(ratios, [(sin_power_integral(dd - 2, np.arccos(r)) / sin_power_integral(dd, np.arccos(r)) - 1)
                     for r in ratios], "--", label=f"d = {dd}")
ax.set_yscale("log")
ax.legend()
