"""Mamba-2's state space duality: the scalar-times-identity SSM run as a recurrence, as the masked
quadratic form (L o C B^T) X with the 1-semiseparable mask L_ij = a_i ... a_(j+1), and chunk by chunk.
Checked against a brute-force sum of explicit products, the general SSM with N x N matrices A_t = a_t I
(numpy's multi_dot), scipy's lfilter for constant a, the rank-one structure of L's lower blocks, and
each other."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.signal import lfilter

# --- formula ---


def ssd_recurrent(a, B, C, X):
    """h_t = a_t h_(t-1) + B_t x_t^T (state N x P), y_t = h_t^T C_t: the linear, O(T) mode."""
    h = np.zeros((B.shape[1], X.shape[1]))
    Y = np.empty_like(X)
    for t in range(len(a)):
        h = a[t] * h + np.outer(B[t], X[t])
        Y[t] = h.T @ C[t]
    return Y


def decay_mask(a):
    """L = 1SS(a): L_ij = a_i a_(i-1) ... a_(j+1) for i >= j (1 on the diagonal), 0 above it;
    from differences of the cumulative log a, so long products underflow gracefully."""
    cum = np.cumsum(np.log(a))
    gap = cum[:, None] - cum[None, :]
    below = np.tril(np.ones((len(a), len(a)), dtype=bool))
    safe_gap = np.where(below, gap, 0.0)  # equivalent: fills only entries zeroed next line (keeps exp finite)
    return np.where(below, np.exp(safe_gap), 0.0)


def ssd_quadratic(a, B, C, X):
    """Y = (L o C B^T) X: the attention-like, O(T^2) mode."""
    return (decay_mask(a) * (C @ B.T)) @ X


def ssd_chunked(a, B, C, X, Q):
    """Quadratic inside chunks of Q steps, recurrence across them: Y = Y_diag + Y_off."""
    T = len(a)
    Y = np.empty_like(X)
    H = np.zeros((B.shape[1], X.shape[1]))               # state at the end of the previous chunk
    for s in range(0, T, Q):
        e = min(s + Q, T)
        ac, Bc, Cc, Xc = a[s:e], B[s:e], C[s:e], X[s:e]
        L = decay_mask(ac)
        into = np.cumprod(ac)                            # a_s ... a_t: decay from the chunk's start to t
        Y[s:e] = (L * (Cc @ Bc.T)) @ Xc + into[:, None] * (Cc @ H)
        to_end = L[-1]                                   # a_(e-1) ... a_(j+1): from step j to the chunk's end
        H = into[-1] * H + Bc.T @ (to_end[:, None] * Xc)
    return Y
# --- end formula ---


rng = np.random.default_rng(0)
T, N, P = 24, 4, 3
a = rng.uniform(0.5, 0.99, size=T)
B, C, X = rng.normal(size=(T, N)), rng.normal(size=(T, N)), rng.normal(size=(T, P))


def brute_force(a, B, C, X):
    """y_t = sum_(j <= t) (prod_(k = j+1..t) a_k) (C_t . B_j) x_j, products by math.prod, sums by hand."""
    Y = np.zeros_like(X)
    for t in range(len(a)):
        for j in range(t + 1):
            Y[t] += math.prod(a[j + 1:t + 1]) * float(C[t] @ B[j]) * X[j]
    return Y


def general_ssm(a, B, C, X):
    """The SSM's matrix form for any A_t: M_tj = C_t^T A_t ... A_(j+1) B_j, here with A_t = a_t I_N as
    full N x N matrices multiplied by numpy's multi_dot."""
    A = [a_t * np.eye(B.shape[1]) for a_t in a]
    M = np.zeros((len(a), len(a)))
    for t in range(len(a)):
        for j in range(t + 1):
            M[t, j] = np.linalg.multi_dot([C[t][None], *A[j + 1:t + 1][::-1], B[j][:, None]])[0, 0]
    return M @ X


# 1. Linear mode against the brute-force sum, the quadratic mode against the general SSM's matrix form.
#    Sums of at most 24 products of O(1) terms: 1e-12.
ref = brute_force(a, B, C, X)
check_close("recurrence = brute-force sum of explicit decay products", ssd_recurrent(a, B, C, X), ref,
            rtol=1e-12, atol=1e-12)
check_close("(L o C B^T) X = general SSM matrix with A_t = a_t I (multi_dot)", ssd_quadratic(a, B, C, X),
            general_ssm(a, B, C, X), rtol=1e-12, atol=1e-12)
check_close("duality: quadratic mode = recurrence", ssd_quadratic(a, B, C, X), ssd_recurrent(a, B, C, X),
            rtol=1e-12, atol=1e-12)

# 2. The mask itself: L_ij = a_i ... a_(j+1) entry by entry, 1 on the diagonal, 0 above; and every
#    submatrix of its lower triangle has rank one (1-semiseparable), while C B^T masked by it has rank
#    at most N there.
L = decay_mask(a)
L_ref = np.array([[math.prod(a[j + 1:i + 1]) if i >= j else 0.0 for j in range(T)] for i in range(T)])
check_close("L_ij = prod_(k=j+1..i) a_k below the diagonal, 1 on it, 0 above", L, L_ref, rtol=1e-12, atol=0)
ranks = {int(np.linalg.matrix_rank(L[i:, :i + 1])) for i in range(T)}
check_true("every block L[i:, :i+1] (on and below the diagonal) has rank 1", ranks == {1}, f"ranks {ranks}")
M = L * (C @ B.T)
ranks_M = max(np.linalg.matrix_rank(M[i:, :i + 1]) for i in range(T))
check_true(f"M = L o C B^T: lower blocks have rank <= N = {N}", ranks_M <= N, f"largest rank {ranks_M}")

# 3. Chunked mode for chunk lengths that divide T, that do not, one step and the whole sequence.
for Q in (1, 4, 5, 8, 24):
    check_close(f"chunks of {Q}: Y_diag + Y_off = recurrence", ssd_chunked(a, B, C, X, Q), ref,
                rtol=1e-12, atol=1e-12)

# 4. Constant a (time-invariant): each state entry is a first-order IIR filter, h = lfilter([1], [1, -a], u)
#    with u_t = B_t x_t^T, so y_t = h_t^T C_t from scipy's filter.
a0 = 0.8
u = np.einsum("tn,tp->tnp", B, X)
h = lfilter([1.0], [1.0, -a0], u, axis=0)
check_close("constant a = 0.8: all three modes = scipy lfilter on the state", np.stack(
    [ssd_recurrent(np.full(T, a0), B, C, X), ssd_quadratic(np.full(T, a0), B, C, X),
     ssd_chunked(np.full(T, a0), B, C, X, 5)]), np.stack([np.einsum("tnp,tn->tp", h, C)] * 3),
    rtol=1e-12, atol=1e-12)

# 5. Strong forgetting over a long sequence: with a_t ~ 1e-3 over 200 steps the products reach 1e-600,
#    below the smallest double; the log-space mask still gives the right (tiny or zero) decays, where a
#    ratio of cumulative products would give 0 / 0.
T2 = 200
a2 = rng.uniform(5e-4, 2e-3, size=T2)
B2, C2, X2 = rng.normal(size=(T2, N)), rng.normal(size=(T2, N)), rng.normal(size=(T2, P))
Y2 = ssd_quadratic(a2, B2, C2, X2)
check_true("a ~ 1e-3, T = 200: the quadratic mode stays finite", bool(np.all(np.isfinite(Y2))))
check_close("a ~ 1e-3, T = 200: quadratic = recurrence = chunks of 16", np.stack(
    [Y2, ssd_chunked(a2, B2, C2, X2, 16)]), np.stack([ssd_recurrent(a2, B2, C2, X2)] * 2),
    rtol=1e-12, atol=1e-12)

# 6. a = 1 everywhere: no decay, L is the causal all-ones mask and the layer is unnormalized causal
#    linear attention, y_t = sum_(j<=t) (C_t . B_j) x_j, a cumulative sum.
ones = np.ones(T)
check_close("a = 1: y = cumulative sum of (C_t . B_j) x_j, causal linear attention",
            ssd_quadratic(ones, B, C, X),
            np.array([sum(float(C[t] @ B[j]) * X[j] for j in range(t + 1)) for t in range(T)]),
            rtol=1e-12, atol=1e-12)

fig, ax = figure("Decay mask row L[23, j] of the SSD form",
                 "earlier position j", "decay L[23, j]")
ax.semilogy(np.arange(T), decay_mask(a)[-1], marker="o", label="random a_t in (0.5, 0.99)")
ax.semilogy(np.arange(T), decay_mask(np.full(T, a0))[-1], ls="--", label="constant a = 0.8")
ax.legend()
