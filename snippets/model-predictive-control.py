"""Model predictive control: plan a whole action sequence over a finite horizon, apply its first action.
Linear-quadratic case: the first action of the stacked least-squares plan equals the finite-horizon Riccati
recursion and tends to the LQR gain of scipy.linalg.solve_discrete_are as the horizon grows. Discrete case:
exhaustive search over plans equals finite-horizon dynamic programming on a deterministic MDP, and is
strictly worse than closed-loop planning on a stochastic one."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import random_mdp
from scipy.linalg import solve_discrete_are


# --- formula ---
def mpc_action_lq(A, B, Qc, Rc, x0, H):
    """argmin over u_0..u_{H-1} of sum_{k=0}^{H-1} (x_k' Q x_k + u_k' R u_k) + x_H' Q x_H subject to
    x_{k+1} = A x_k + B u_k, returning u_0. The states are linear in the stacked controls, X = F x0 + G U
    (rows k = 1..H), so the plan solves one linear system (G' Qbar G + Rbar) U = -G' Qbar F x0."""
    n, m = B.shape
    F = np.vstack([np.linalg.matrix_power(A, k) for k in range(1, H + 1)])
    G = np.zeros((H * n, H * m))
    for k in range(1, H + 1):
        for j in range(k):
            G[(k - 1) * n:k * n, j * m:(j + 1) * m] = np.linalg.matrix_power(A, k - 1 - j) @ B
    Qbar = np.kron(np.eye(H), Qc)
    Rbar = np.kron(np.eye(H), Rc)
    U = np.linalg.solve(G.T @ Qbar @ G + Rbar, -G.T @ Qbar @ F @ x0)
    return U[:m]


def mpc_action_discrete(P, R, gamma, s0, H):
    """a_t = first action of argmax over a_0..a_{H-1} of E[sum_{k<H} gamma^k r_k], by enumerating all |A|^H
    open-loop plans; the expectation propagates the state distribution through P. Returns (a_0, value)."""
    S, n_actions = R.shape
    best_value, best_first = -np.inf, None
    for plan in itertools.product(range(n_actions), repeat=H):
        dist = np.eye(S)[s0]
        value = 0.0
        for k, a in enumerate(plan):
            value += gamma ** k * (dist @ R[:, a])
            dist = dist @ P[:, a, :]
        if value > best_value:
            best_value, best_first = value, plan[0]
    return best_first, best_value
# --- end formula ---


def riccati_gain(A, B, Qc, Rc, H):
    """Finite-horizon LQR by the backward Riccati recursion (terminal cost Q): u_0 = -K_0 x_0."""
    P = Qc
    for _ in range(H):
        K = np.linalg.solve(Rc + B.T @ P @ B, B.T @ P @ A)
        P = Qc + A.T @ P @ (A - B @ K)
    return K


def finite_horizon_dp(P, R, gamma, H):
    """Closed-loop backward induction: Q_H(s, a) = r(s, a) + gamma sum_s' P(s'|s, a) max_a' Q_{H-1}(s', a').
    Returns Q_H."""
    V = np.zeros(R.shape[0])
    for _ in range(H):
        Q = R + gamma * P @ V
        V = Q.max(axis=1)
    return Q


rng = np.random.default_rng(0)

# 1. Linear-quadratic: an open-loop unstable system (eigenvalue 1.2), Q = I, R = 0.5 I, two inputs on a
#    3-state system. For every horizon the MPC action equals -K_0 x0 from the Riccati recursion (dynamic
#    programming, an independent route), and it converges to the infinite-horizon LQR action -K x0, with
#    K from the discrete algebraic Riccati equation (scipy.linalg.solve_discrete_are).
A = np.array([[1.2, 0.5, 0.0], [0.0, 0.8, 0.3], [0.1, 0.0, 0.9]])
B = np.array([[0.0, 0.2], [1.0, 0.0], [0.0, 1.0]])
Qc, Rc = np.eye(3), 0.5 * np.eye(2)
x0 = np.array([1.0, -2.0, 0.5])
for H in (1, 2, 5, 12):
    check_close(f"H = {H}: MPC first action = finite-horizon Riccati -K_0 x0",
                mpc_action_lq(A, B, Qc, Rc, x0, H),
                -riccati_gain(A, B, Qc, Rc, H) @ x0, rtol=1e-9, atol=1e-12)
P_are = solve_discrete_are(A, B, Qc, Rc)
K_lqr = np.linalg.solve(Rc + B.T @ P_are @ B, B.T @ P_are @ A)
horizons = np.arange(1, 41)
gaps = np.array([np.abs(mpc_action_lq(A, B, Qc, Rc, x0, H) + K_lqr @ x0).max() for H in horizons])
check_close("H = 40: MPC first action = LQR action -K x0 (solve_discrete_are), within 1e-6",
            mpc_action_lq(A, B, Qc, Rc, x0, 40),
            -K_lqr @ x0, rtol=0, atol=1e-6)
check_true("the gap to LQR shrinks with the horizon (H = 1 vs 5 vs 40)", gaps[0] > gaps[4] > gaps[39],
           f"gaps {gaps[0]:.2e}, {gaps[4]:.2e}, {gaps[39]:.2e}")
# By hand for H = 1 with a scalar system x' = 2x + u, q = 1, r = 1: minimise r u^2 + q (2x + u)^2 -> u = -x.
check_close("scalar H = 1 by hand: x' = 2x + u, q = r = 1 gives u = -x", mpc_action_lq(np.array([[2.0]]),
            np.array([[1.0]]), np.eye(1), np.eye(1), np.array([3.0]), 1), [-3.0], rtol=1e-12)
# Receding horizon: applying the H = 5 plan's first action at every step stabilises the unstable system.
x = x0.copy()
for _ in range(60):
    x = A @ x + B @ mpc_action_lq(A, B, Qc, Rc, x, 5)
check_true("closed loop with H = 5 drives the state to 0", np.abs(x).max() < 1e-6,
           f"|x_60| = {np.abs(x).max():.1e}")

# 2. Discrete: a deterministic random MDP (5 states, 3 actions, next state drawn once per (s, a)).
#    Exhaustive search over all 3^H plans gives the first action and value of finite-horizon dynamic
#    programming from every state, for H = 1..4.
S, nA, gamma = 5, 3, 0.9
P_det = np.zeros((S, nA, S))
P_det[np.arange(S)[:, None], np.arange(nA)[None, :], rng.integers(S, size=(S, nA))] = 1.0
R = rng.normal(size=(S, nA))
ok = True
for H in range(1, 5):
    Q_dp = finite_horizon_dp(P_det, R, gamma, H)
    for s in range(S):
        a0, value = mpc_action_discrete(P_det, R, gamma, s, H)
        ok &= bool(a0 == int(Q_dp[s].argmax()) and np.isclose(value, Q_dp[s].max(), rtol=1e-12))
check_true("deterministic MDP: MPC first action and plan value = finite-horizon DP, H = 1..4, all states", ok)
a0, value = mpc_action_discrete(P_det, R, 0.5, 0, 2)
check_close("H = 2, gamma = 0.5, from state 0: plan value = DP value", value,
            finite_horizon_dp(P_det, R, 0.5, 2)[0].max(), rtol=1e-12)

# 3. Stochastic MDP: the open-loop plan cannot react to where the system lands, so its value is at most the
#    closed-loop (DP) value, strictly lower from some state.
mdp = random_mdp(rng, n_states=4, n_actions=3, gamma=0.9)
H = 4
open_loop = np.array([mpc_action_discrete(mdp.P, mdp.R, mdp.gamma, s, H)[1] for s in range(4)])
closed = finite_horizon_dp(mdp.P, mdp.R, mdp.gamma, H).max(axis=1)
check_true("stochastic MDP: open-loop plan value <= closed-loop value in every state",
           bool(np.all(open_loop <= closed + 1e-12)))
check_true("... strictly lower somewhere", (closed - open_loop).max() > 1e-3,
           f"largest gap {(closed - open_loop).max():.3f}")

fig, ax = figure("LQ system: MPC first action vs the LQR action", "horizon H", "max |u_0(H) - u_LQR|")
ax.semilogy(horizons, gaps + 1e-17)
