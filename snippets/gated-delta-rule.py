"""Gated delta rule: the state update S_t = S_{t-1} alpha_t (I - beta_t k_t k_t^T) + beta_t v_t k_t^T
against one gradient step of online least squares (gradient by finite differences), against the unrolled
product of transition matrices, and its limits: key-value overwrite for orthonormal keys, DeltaNet at
alpha = 1."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def gated_delta_step(S, k, v, alpha, beta):
    """S is d_v x d_k; k (unit norm) and v are vectors; alpha in (0, 1] decays, beta in [0, 1] writes."""
    d_k = len(k)
    return S @ (alpha * (np.eye(d_k) - beta * np.outer(k, k))) + beta * np.outer(v, k)


def gated_delta_outputs(K, V, Q, alphas, betas):
    """Run the recurrence from S_0 = 0 and read o_t = S_t q_t."""
    S = np.zeros((V.shape[1], K.shape[1]))
    out = []
    for k, v, q, a, b in zip(K, V, Q, alphas, betas, strict=True):
        S = gated_delta_step(S, k, v, a, b)
        out.append(S @ q)
    return np.array(out), S
# --- end formula ---


rng = np.random.default_rng(0)
T, d_k, d_v = 12, 6, 4


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


K = unit(rng.normal(size=(T, d_k)))
V = rng.normal(size=(T, d_v))
Q = unit(rng.normal(size=(T, d_k)))
alphas = rng.uniform(0.7, 1.0, T)
betas = rng.uniform(0.1, 0.9, T)

# Route 1: one step of online least squares. The loss L(S) = 1/2 |S k - v|^2 at the decayed state
# alpha S_{t-1}; a gradient step of size beta gives the update. Gradient by central differences entry by
# entry: L is a quadratic of size ~1, so with h = 1e-5 the error floor is 64 eps / h, about 1.4e-9
# (truncation is zero).
S_prev = rng.normal(size=(d_v, d_k))
k, v, a, b = K[0], V[0], 0.85, 0.6


def loss(S):
    return 0.5 * np.sum((S @ k - v) ** 2)


h = 1e-5
start = a * S_prev
grad = np.zeros_like(start)
for i in range(d_v):
    for j in range(d_k):
        e = np.zeros_like(start)
        e[i, j] = h
        grad[i, j] = (loss(start + e) - loss(start - e)) / (2 * h)
check_close("update = alpha S minus beta times the numerical gradient of 1/2 |S k - v|^2 at alpha S",
            gated_delta_step(S_prev, k, v, a, b), start - b * grad, rtol=1e-8, atol=1e-8)

# Route 2: unrolled. S_T = sum_i beta_i v_i k_i^T prod_{j > i} alpha_j (I - beta_j k_j k_j^T), the transition
# matrices multiplied out first, then applied to each write.
out, S_T = gated_delta_outputs(K, V, Q, alphas, betas)
unrolled = np.zeros((d_v, d_k))
for i in range(T):
    A = np.eye(d_k)
    for j in range(i + 1, T):
        A = A @ (alphas[j] * (np.eye(d_k) - betas[j] * np.outer(K[j], K[j])))
    unrolled += betas[i] * np.outer(V[i], K[i]) @ A
# Products of a dozen contractions in another order: a few ulps each, so 1e-12 is ample.
check_close("final state = unrolled sum of writes times later transitions", S_T, unrolled, rtol=1e-12,
            atol=1e-14)
check_close("outputs o_t = S_t q_t read from the unrolled states", out[-1], unrolled @ Q[-1], rtol=1e-12,
            atol=1e-14)

# Limits. beta = 0: pure decay, S_t = alpha_t S_{t-1}. alpha = 1: DeltaNet, S (I - beta k k^T) + beta v k^T.
check_close("beta = 0: the state only decays", gated_delta_step(S_prev, k, v, 0.7, 0.0), 0.7 * S_prev,
            rtol=1e-15)
check_close("alpha = 1: the delta rule S - beta (S k - v) k^T", gated_delta_step(S_prev, k, v, 1.0, b),
            S_prev - b * np.outer(S_prev @ k - v, k), rtol=1e-13, atol=1e-15)
# beta = 1, alpha = 1, orthonormal keys: the memory is exact, and writing a key again replaces its value
# (linear attention's sum would return the two values added).
basis = np.linalg.qr(rng.normal(size=(d_k, d_k)))[0].T
S = np.zeros((d_v, d_k))
vals = rng.normal(size=(d_k, d_v))
for kk, vv in zip(basis, vals, strict=True):
    S = gated_delta_step(S, kk, vv, 1.0, 1.0)
check_close("orthonormal keys, beta = 1: S k_i returns v_i for every key", basis @ S.T, vals, rtol=1e-12,
            atol=1e-14)
new_v = rng.normal(size=d_v)
S2 = gated_delta_step(S, basis[2], new_v, 1.0, 1.0)
check_close("writing key 2 again replaces its value", S2 @ basis[2], new_v, rtol=1e-12, atol=1e-14)
check_close("...and leaves the other keys' values",
            np.delete(basis, 2, axis=0) @ S2.T, np.delete(vals, 2, axis=0), rtol=1e-12, atol=1e-14)
# The gate forgets: after a write, n steps with alpha = 0.5 and beta = 0 scale the read-out by 0.5^n.
S3 = S
for _ in range(4):
    S3 = gated_delta_step(S3, basis[0], new_v, 0.5, 0.0)
check_close("four steps of alpha = 0.5, no writes: every value scaled by 1/16", basis @ S3.T, vals / 16,
            rtol=1e-12, atol=1e-14)
check_true("the transition alpha (I - beta k k^T) contracts: spectral norm alpha for beta in [0, 1], unit k",
           abs(np.linalg.norm(a * (np.eye(d_k) - b * np.outer(k, k)), 2) - a) < 1e-14)

# How much of the first write survives later random writes, with and without the gate.
keys = unit(rng.normal(size=(40, d_k)))
values = rng.normal(size=(40, d_v))
fig, ax = figure("What remains of the first value as later keys are written", "tokens written after it",
                 "|S_t k_1| / |v_1|")
for alpha, style in ((1.0, "-"), (0.9, "--")):
    S = gated_delta_step(np.zeros((d_v, d_k)), keys[0], values[0], 1.0, 1.0)
    kept = []
    for t in range(1, 40):
        S = gated_delta_step(S, keys[t], values[t], alpha, 0.5)
        kept.append(np.linalg.norm(S @ keys[0]) / np.linalg.norm(values[0]))
    ax.plot(np.arange(1, 40), kept, style, label=f"α = {alpha}, β = 0.5")
ax.legend(fontsize=8)
