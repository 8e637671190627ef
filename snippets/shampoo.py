"""Shampoo (matrix case): left and right statistics L_t, R_t summed from G G^T and G^T G, and the step
L_t^{-1/4} G_t R_t^{-1/4}. Checked against scipy's fractional_matrix_power (Schur-Pade, not an
eigendecomposition), the Kronecker form (L_t (x) R_t)^{-1/4} vec(G_t) on the full mn x mn matrix, explicit
sums of past gradients, a rank-one hand case, the polar factor (scipy.linalg.polar) in the limit eps -> 0,
and the paper's bound sum_t g_t g_t^T <= r (L_t^{1/2} (x) R_t^{1/2})."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import fractional_matrix_power, polar

# --- formula ---
ROOT = 4   # each side gets the inverse fourth root, so the two together act like an inverse square root


def inverse_root(M: np.ndarray, p: int = ROOT) -> np.ndarray:
    """M^{-1/p} of a symmetric positive definite matrix, from its eigendecomposition."""
    vals, vecs = np.linalg.eigh(M)
    return (vecs * vals ** (-1.0 / p)) @ vecs.T


def shampoo_init(shape, eps: float):
    """L_0 = eps I_m, R_0 = eps I_n for an m x n weight."""
    m, n = shape
    return eps * np.eye(m), eps * np.eye(n)


def shampoo_step(W, L, R, G, lr: float):
    """L_t = L_{t-1} + G G^T, R_t = R_{t-1} + G^T G, W_{t+1} = W_t - lr L_t^{-1/4} G R_t^{-1/4}."""
    L = L + G @ G.T
    R = R + G.T @ G
    return W - lr * inverse_root(L) @ G @ inverse_root(R), L, R
# --- end formula ---


rng = np.random.default_rng(0)
m, n, eps, lr = 6, 4, 0.1, 0.05


def spd(k: int) -> np.ndarray:
    """A well-conditioned symmetric positive definite matrix (eps I plus a few gradient outer products)."""
    A = rng.normal(size=(k, k + 3))
    return eps * np.eye(k) + A @ A.T


# 1. The inverse fourth root against scipy's fractional_matrix_power. Condition numbers here are ~1e2, and
#    x -> x^{-1/4} damps relative errors, so both routes agree to a few hundred ulps: 1e-11 relative.
for k in (4, 6):
    M = spd(k)
    check_close(f"{k}x{k}: M^(-1/4) = scipy fractional_matrix_power(M, -1/4)", inverse_root(M),
                fractional_matrix_power(M, -0.25).real, rtol=1e-11, atol=1e-13)
    X = inverse_root(M)
    check_close(f"{k}x{k}: (M^(-1/4))^4 M = I", np.linalg.matrix_power(X, 4) @ M, np.eye(k),
                rtol=0, atol=1e-11)

# 2. Five steps against explicit sums: L_t = eps I + sum_s G_s G_s^T, R_t = eps I + sum_s G_s^T G_s, each
#    step's inverse roots by scipy, and the step against the Kronecker form on vec(G) (row-major, so
#    vec(A G B) = (A (x) B^T) vec(G)): (L_t (x) R_t)^{-1/4} vec(G_t), one 24 x 24 fractional power.
grads = [rng.normal(size=(m, n)) for _ in range(5)]
W0 = rng.normal(size=(m, n))
W, L, R = W0.copy(), *shampoo_init((m, n), eps)
W_ref = W0.copy()
for t, G in enumerate(grads, start=1):
    W_prev = W
    W, L, R = shampoo_step(W, L, R, G, lr)
    L_ref = eps * np.eye(m) + sum(g @ g.T for g in grads[:t])
    R_ref = eps * np.eye(n) + sum(g.T @ g for g in grads[:t])
    L_root, R_root = fractional_matrix_power(L_ref, -0.25).real, fractional_matrix_power(R_ref, -0.25).real
    W_ref = W_ref - lr * L_root @ G @ R_root
    kron_step = fractional_matrix_power(np.kron(L_ref, R_ref), -0.25).real @ G.ravel()
    check_close(f"step {t}: W_t - W_(t+1) = lr (L_t (x) R_t)^(-1/4) vec(G_t)", (W_prev - W).ravel(),
                lr * kron_step, rtol=1e-10, atol=1e-13)
check_close("five steps: L_5, R_5 = eps I + explicit sums", np.concatenate([L.ravel(), R.ravel()]),
            np.concatenate([L_ref.ravel(), R_ref.ravel()]), rtol=1e-13)
check_close("five steps: W_6 against scipy's fractional powers of the explicit sums", W, W_ref,
            rtol=1e-11, atol=1e-13)

# 3. Hand case, rank one: G = s u v^T with unit u, v. Then L_1 = eps I + s^2 u u^T has eigenvalue eps + s^2
#    along u, likewise R_1 along v, so the step is s (eps + s^2)^{-1/2} u v^T exactly.
u = np.array([3.0, 4.0, 0, 0, 0, 0]) / 5
v = np.array([0, 1.0, 0, 0])
s = 2.0
W1, _, _ = shampoo_step(np.zeros((m, n)), *shampoo_init((m, n), eps), s * np.outer(u, v), 1.0)
check_close("rank one: step = s / sqrt(eps + s^2) u v^T (eps = 0.1, s = 2)", -W1,
            s / np.sqrt(eps + s**2) * np.outer(u, v), rtol=1e-13, atol=1e-15)

# 4. One step from eps -> 0 on a square full-rank G = U S V^T: L = U S^2 U^T, R = V S^2 V^T, so
#    L^{-1/4} G R^{-1/4} = U V^T, the polar factor (what Muon approximates). eps = 1e-12 against
#    singular values ~1 moves the result by ~1e-12; 1e-9 leaves room for the condition number.
G = rng.normal(size=(5, 5))
step, _, _ = shampoo_step(np.zeros((5, 5)), *shampoo_init((5, 5), 1e-12), G, 1.0)
check_close("first step, eps -> 0: -step = U V^T, scipy's polar factor", -step, polar(G)[0],
            rtol=0, atol=1e-9)

# 5. The paper's bound behind the exponent: with gradients of rank at most r,
#    eps I + (1/r) sum g g^T <= L_t^{1/2} (x) R_t^{1/2}: the Kronecker product dominates full-matrix
#    AdaGrad's statistics, so its inverse fourth roots (an inverse square root of the product) are a
#    valid AdaGrad-style preconditioner. Eigenvalues ~0.1..100: -1e-9 is rounding, not a violation.
r = min(m, n)
H = eps * np.eye(m * n) + sum(np.outer(g.ravel(), g.ravel()) for g in grads) / r
gap = np.kron(fractional_matrix_power(L_ref, 0.5).real, fractional_matrix_power(R_ref, 0.5).real) - H
lowest = np.linalg.eigvalsh(gap).min()
check_true("L^(1/2) (x) R^(1/2) - (eps I + sum g g^T / r) is positive semidefinite", bool(lowest > -1e-9),
           f"min eigenvalue {lowest:.3g}")

# --- in code: torch ---
import torch  # noqa: E402


def torch_inverse_root(M, dtype=torch.float64):
    """M^(-1/4) from torch.linalg.eigh: Q diag(lambda^(-1/4)) Q^T."""
    vals, vecs = torch.linalg.eigh(torch.tensor(M, dtype=dtype))
    return ((vecs * vals ** (-1.0 / ROOT)) @ vecs.T).double().numpy()


# Section 2's five-step statistics, condition ~1e2: as in check 1, a few hundred ulps, so rtol 1e-11.
check_close("torch.linalg.eigh roots: L_5^(-1/4) G_5 R_5^(-1/4) = the card's step direction",
            torch_inverse_root(L_ref) @ grads[-1] @ torch_inverse_root(R_ref),
            inverse_root(L_ref) @ grads[-1] @ inverse_root(R_ref), rtol=1e-11, atol=1e-13)
try:
    torch.linalg.matrix_power(torch.tensor(L_ref), -0.25)
    fractional_power_refused = False
except TypeError:
    fractional_power_refused = True
check_true("pitfall: torch.linalg.matrix_power takes integer powers only", fractional_power_refused)
# A first step on a 6 x 4 gradient leaves two of L's six eigenvalues at eps = 1e-8, far below float32's
# rounding of L's largest (2^-24 x ~10 ~ 1e-6): float32 eigh returns noise for them, of either sign, and a
# negative one makes its -1/4 power NaN.
L1 = shampoo_init((m, n), 1e-8)[0] + grads[0] @ grads[0].T
smallest32 = np.sort(torch.linalg.eigvalsh(torch.tensor(L1, dtype=torch.float32)).double().numpy())[:2]
check_true("pitfall: in float32 the eigenvalues eps = 1e-8 of L next to ~10 are rounding noise",
           bool(np.all(np.abs(smallest32 - 1e-8) > 1e-8)),
           f"float32 gives {smallest32[0]:.2e}, {smallest32[1]:.2e}; float64 {np.linalg.eigvalsh(L1)[:2]}; "
           f"L^(-1/4) in float32 has NaN: {bool(np.isnan(torch_inverse_root(L1, torch.float32)).any())}")
# --- end in code ---

fig, ax = figure("Step along a repeated rank-one gradient", "step t", "step size along u v^T")
G1 = s * np.outer(u, v)
L1, R1 = shampoo_init((m, n), eps)
sizes_paper, sizes_half = [], []
for _ in range(40):
    L1, R1 = L1 + G1 @ G1.T, R1 + G1.T @ G1
    sizes_paper.append(u @ inverse_root(L1) @ G1 @ inverse_root(R1) @ v)
    sizes_half.append(u @ inverse_root(L1, 2) @ G1 @ inverse_root(R1, 2) @ v)
steps = np.arange(1, 41)
ax.loglog(steps, sizes_paper, label="$L^{-1/4} G R^{-1/4}$ (paper): like $1/\\sqrt{t}$")
ax.loglog(steps, sizes_half, ls="--", label="$L^{-1/2} G R^{-1/2}$: like $1/t$")
ax.legend()
