"""Deterministic policy gradient (Silver et al. 2014, Theorem 1) on a linear-quadratic problem with a linear
actor a = K s, where Q^K and J(K) are known in closed form: the theorem's expectation, taken exactly over the
discounted state distribution (sigma points, exact for these quadratic integrands), matches central finite
differences of J(K); it vanishes at the optimal gain from the discounted Riccati equation
(scipy.linalg.solve_discrete_are); and ascending it reaches the optimal objective."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import K_LQ, LQ
from scipy.linalg import solve_discrete_are


# --- formula ---
def dpg_gradient(state_points, point_weights, K, grad_a_q, gamma):
    """grad_K J = sum_t gamma^t E_{s_t}[grad_K mu_K(s_t)^T grad_a Q(s_t, a)|_{a = mu_K(s_t)}]
    for mu_K(s) = K s, whose Jacobian d mu_j / d K_jk = s_k. state_points (T, N, ds): points with
    weights (N,) representing the distribution of s_t under the policy."""
    grad = np.zeros_like(K)
    for t in range(state_points.shape[0]):
        s = state_points[t]
        a = s @ K.T
        g = grad_a_q(s, a)
        grad = grad + gamma ** t * np.einsum("n,nj,nk->jk", point_weights, g, s)
    return grad
# --- end formula ---


def state_sigma_points(K, T):
    """Sigma points +-sqrt(d) L e_i of s_t ~ N(0, Sigma_t), Sigma_{t+1} = F Sigma_t F^T + W, F = A + B K:
    their average equals E[f(s_t)] exactly for polynomials f of degree <= 3."""
    F = LQ.A + LQ.B @ K
    d = F.shape[0]
    Sigma, pts = LQ.S0.copy(), []
    for _ in range(T):
        L = np.linalg.cholesky(Sigma)
        pts.append(np.sqrt(d) * np.concatenate([L.T, -L.T]))
        Sigma = F @ Sigma @ F.T + LQ.W
    return np.array(pts), np.full(2 * d, 1.0 / (2 * d))


def theorem_gradient(K, T=300):
    pts, w = state_sigma_points(K, T)
    return dpg_gradient(pts, w, K, LQ.action_gradient(K), LQ.gamma)


def fd_gradient(K, h=1e-6):
    G = np.zeros_like(K)
    for idx in np.ndindex(*K.shape):
        E = np.zeros_like(K)
        E[idx] = h
        G[idx] = (LQ.objective(K + E) - LQ.objective(K - E)) / (2 * h)
    return G


rng = np.random.default_rng(0)

# 1. Theorem 1 vs finite differences of the closed-form objective, at the fixture's gain and at random ones.
check_close("DPG theorem = finite differences of J(K) (K from the fixture)", theorem_gradient(K_LQ),
            fd_gradient(K_LQ), rtol=1e-6, atol=1e-8)
for k in range(2):
    Kr = K_LQ + rng.normal(0, 0.15, size=(2, 2))
    check_close(f"DPG theorem = finite differences of J(K) (random gain {k + 1})", theorem_gradient(Kr),
                fd_gradient(Kr), rtol=1e-6, atol=1e-8)

# 2. The gradient vanishes at the optimal linear gain (discounted Riccati equation, scaled by sqrt(gamma)).
g = LQ.gamma
P_star = solve_discrete_are(np.sqrt(g) * LQ.A, np.sqrt(g) * LQ.B, LQ.C, LQ.D)
K_star = -g * np.linalg.solve(LQ.D + g * LQ.B.T @ P_star @ LQ.B, LQ.B.T @ P_star @ LQ.A)
check_close("grad J = 0 at the Riccati-optimal gain", theorem_gradient(K_star), np.zeros((2, 2)), rtol=0,
            atol=1e-9)
check_true("... and it is not zero elsewhere", np.abs(theorem_gradient(K_LQ)).max() > 0.1,
           f"max |grad J(K_LQ)| = {np.abs(theorem_gradient(K_LQ)).max():.3f}")

# 3. Gradient ascent with the theorem's gradient climbs to the optimal objective.
K, curve = K_LQ.copy(), []
for _ in range(100):
    curve.append(LQ.objective(K))
    K = K + 0.02 * theorem_gradient(K, T=120)
check_close("ascent on the DPG reaches J(K*) (within 1e-3)", LQ.objective(K), LQ.objective(K_star), rtol=0,
            atol=1e-3)

fig, ax = figure("Deterministic policy gradient ascent, linear-quadratic problem", "iteration", "J(K)")
ax.plot(curve)
ax.axhline(LQ.objective(K_star), color="k", lw=0.6, ls="--", label="J(K*) from the Riccati equation")
ax.legend()
