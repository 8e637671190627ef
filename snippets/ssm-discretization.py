"""SSM discretization (ZOH and bilinear): checked against scipy.signal.cont2discrete, scipy.linalg.expm
(augmented-matrix route) and the exact solution of the ODE for a piecewise-constant input."""

import numpy as np
from cardcheck import check_close
from scipy.integrate import solve_ivp
from scipy.linalg import expm
from scipy.signal import cont2discrete


# --- formula ---
def discretize_zoh(A, B, delta):
    """Abar = exp(delta A), Bbar = (delta A)^{-1} (exp(delta A) - I) delta B."""
    n = len(A)
    dA = delta * A
    Abar = expm(dA)
    Bbar = np.linalg.solve(dA, (Abar - np.eye(n)) @ (delta * B))
    return Abar, Bbar


def discretize_bilinear(A, B, delta):
    """Abar = (I - delta/2 A)^{-1} (I + delta/2 A), Bbar = (I - delta/2 A)^{-1} delta B."""
    n = len(A)
    left = np.eye(n) - 0.5 * delta * A
    Abar = np.linalg.solve(left, np.eye(n) + 0.5 * delta * A)
    Bbar = np.linalg.solve(left, delta * B)
    return Abar, Bbar


def ssm_recurrence(Abar, Bbar, C, D, u):
    """x_k = Abar x_{k-1} + Bbar u_k, y_k = C x_k + D u_k, from x_{-1} = 0."""
    x = np.zeros(len(Abar))
    ys = []
    for k in range(len(u)):
        x = Abar @ x + Bbar[:, 0] * u[k]
        ys.append(C @ x + D * u[k])
    return np.array(ys)
# --- end formula ---


rng = np.random.default_rng(0)
N = 4
A = rng.normal(size=(N, N)) - 3.0 * np.eye(N)  # non-symmetric, stable
B = rng.normal(size=(N, 1))
C = rng.normal(size=N)
D = 0.7
delta = 0.13

# 1. ZOH and bilinear against scipy.signal.cont2discrete.
Ad, Bd, _, _, _ = cont2discrete((A, B, C[None, :], np.array([[D]])), delta, method="zoh")
Az, Bz = discretize_zoh(A, B, delta)
check_close("ZOH Abar vs cont2discrete", Az, Ad, rtol=1e-10, atol=1e-13)
check_close("ZOH Bbar vs cont2discrete", Bz, Bd, rtol=1e-10, atol=1e-13)
Ad, Bd, _, _, _ = cont2discrete((A, B, C[None, :], np.array([[D]])), delta, method="bilinear")
Ab, Bb = discretize_bilinear(A, B, delta)
check_close("bilinear Abar vs cont2discrete", Ab, Ad, rtol=1e-10, atol=1e-13)
check_close("bilinear Bbar vs cont2discrete", Bb, Bd, rtol=1e-10, atol=1e-13)
inv = np.linalg.inv(np.eye(N) - delta / 2 * A)
check_close("bilinear Bbar vs explicit inverse", Bb, inv @ (delta * B), rtol=1e-10, atol=1e-13)
check_close("bilinear Abar vs explicit inverse", Ab, inv @ (np.eye(N) + delta / 2 * A), rtol=1e-10)

# 2. ZOH against the augmented-matrix exponential expm([[A, B], [0, 0]] delta) = [[Abar, Bbar], [0, I]].
M = np.zeros((N + 1, N + 1))
M[:N, :N], M[:N, N:] = A, B
E = expm(delta * M)
check_close("ZOH vs augmented expm", np.hstack(discretize_zoh(A, B, delta)), E[:N, :], rtol=1e-10, atol=1e-13)

# 3. With a piecewise-constant input, ZOH is exact: integrate the ODE x' = A x + B u and sample.
L = 12
u = rng.normal(size=L)
y_zoh = ssm_recurrence(Az, Bz, C, D, u)


x = np.zeros(N)
y_ode = []
for k in range(L):
    # input u_k is held over (k delta, (k+1) delta]; the state at the end of that interval is x_k.
    sol = solve_ivp(lambda t, s, uk=u[k]: A @ s + B[:, 0] * uk, (0, delta), x, rtol=1e-12, atol=1e-14)
    x = sol.y[:, -1]
    y_ode.append(C @ x + D * u[k])
check_close("ZOH recurrence == exact ODE solution sampled every delta", y_zoh, np.array(y_ode), rtol=1e-8,
            atol=1e-10)

# 4. Bilinear approximates ZOH to O(delta^3) per step: halving delta shrinks the gap ~8x.
gaps = []
for dt in (0.002, 0.001):
    gaps.append(np.abs(discretize_bilinear(A, B, dt)[0] - discretize_zoh(A, B, dt)[0]).max())
check_close("bilinear vs ZOH Abar gap ratio ~ 8 (third order)", gaps[0] / gaps[1], 8.0, rtol=0.02)
