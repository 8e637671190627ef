"""Affine coupling: exact inverse; log|det J| = sum s vs a finite-difference Jacobian."""

import numpy as np
from cardcheck import check_close, check_true

rng = np.random.default_rng(0)
D, d, H = 6, 3, 16                          # input size, size of the untouched half h_A, hidden width
W1, b1 = rng.normal(size=(H, d)), rng.normal(size=H)
Ws, Wt = 0.3 * rng.normal(size=(D - d, H)), rng.normal(size=(D - d, H))


def s_and_t(h_a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scale and shift networks of h_A only (a small tanh MLP; they never need to be inverted)."""
    hidden = np.tanh(W1 @ h_a + b1)
    return np.tanh(Ws @ hidden), Wt @ hidden


# --- formula ---
def coupling_forward(h: np.ndarray) -> tuple[np.ndarray, float]:
    """y_A = h_A, y_B = h_B * exp(s(h_A)) + t(h_A); returns y and log|det dy/dh| = sum_j s_j."""
    h_a, h_b = h[:d], h[d:]
    s, t = s_and_t(h_a)
    return np.concatenate([h_a, h_b * np.exp(s) + t]), float(s.sum())


def coupling_inverse(y: np.ndarray) -> np.ndarray:
    """h_A = y_A, h_B = (y_B - t(y_A)) * exp(-s(y_A)); no inverse of s or t is needed."""
    y_a, y_b = y[:d], y[d:]
    s, t = s_and_t(y_a)
    return np.concatenate([y_a, (y_b - t) * np.exp(-s)])
# --- end formula ---


def numerical_jacobian(f, h: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.column_stack([(f(h + eps * e)[0] - f(h - eps * e)[0]) / (2 * eps) for e in np.eye(D)])


points = rng.normal(size=(10, D))
round_trip = np.array([coupling_inverse(coupling_forward(h)[0]) for h in points])
check_close("inverse(forward(h)) = h", round_trip, points, rtol=0, atol=1e-12)

log_dets = [coupling_forward(h)[1] for h in points]
fd_log_dets = [np.linalg.slogdet(numerical_jacobian(coupling_forward, h))[1] for h in points]
check_close("log|det J| = sum_j s_j(h_A) vs slogdet of a finite-difference Jacobian", log_dets,
            fd_log_dets, rtol=1e-7, atol=1e-8)

J = numerical_jacobian(coupling_forward, points[0])
s0, _ = s_and_t(points[0][:d])
check_true("J is block lower-triangular: dy_A/dh_B = 0 and dy_A/dh_A = I",
           np.allclose(J[:d, d:], 0, atol=1e-9) and np.allclose(J[:d, :d], np.eye(d), atol=1e-9))
check_close("diagonal of the dy_B/dh_B block = exp(s(h_A))", np.diag(J[d:, d:]), np.exp(s0),
            rtol=1e-7)
