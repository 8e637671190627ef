"""GPTQ: the column-by-column OBS update with a Cholesky factor of H^-1, checked against quantizing one
column at a time and re-solving the rest exactly with numpy.linalg.lstsq, and against round-to-nearest."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

BITS = 4


def row_grid(W, bits=BITS):
    """Asymmetric min-max grid of each row (GPTQ's default quantizer): scale and integer zero point."""
    lo, hi = np.minimum(W.min(1), 0), np.maximum(W.max(1), 0)
    s = (hi - lo) / (2**bits - 1)
    return s, np.round(-lo / s)


# --- formula ---
def quant(w, s, z, bits=BITS):
    """Round-to-nearest on the row grids: s (clip(round(w / s) + z, 0, 2^b - 1) - z)."""
    return s * (np.clip(np.round(w / s) + z, 0, 2**bits - 1) - z)


def obs_update(w, q, quantized, H_inv):
    """Optimal change of all weights of a row when weight q is set to `quantized` (Eq. 2):
    delta = -(w_q - quant(w_q)) / [H^-1]_qq * H^-1[:, q], and the error it costs."""
    delta = -(w[q] - quantized) / H_inv[q, q] * H_inv[:, q]
    loss = (w[q] - quantized) ** 2 / H_inv[q, q] / 2
    return delta, loss


def gptq(W, X, s, z, percdamp=0.01):
    """GPTQ (Algorithm 1 without lazy blocks): columns in order, error spread with the upper
    Cholesky factor of H^-1, H = 2 X X^T + lambda I, lambda = percdamp * mean(diag H)."""
    W = W.copy()
    d = W.shape[1]
    H = 2 * X @ X.T
    H = H + percdamp * np.mean(np.diag(H)) * np.eye(d)
    U = np.linalg.cholesky(np.linalg.inv(H)).T          # H^-1 = U^T U, U upper triangular
    Q = np.zeros_like(W)
    losses = np.zeros_like(W)
    for j in range(d):
        Q[:, j] = quant(W[:, j], s, z)
        err = (W[:, j] - Q[:, j]) / U[j, j]
        losses[:, j] = err**2 / 2
        W[:, j:] -= np.outer(err, U[j, j:])
    return Q, losses
# --- end formula ---


def nearest_on_grid(w, s, z):
    """Brute force over the 2^b codes of each row."""
    levels = s[:, None] * (np.arange(2**BITS)[None, :] - z[:, None])
    return levels[np.arange(len(w)), np.argmin(np.abs(w[:, None] - levels), axis=1)]


rng = np.random.default_rng(0)
rows, d, n = 6, 16, 120
mix = rng.normal(size=(d, d)) + np.eye(d)
X = mix @ rng.normal(size=(d, n))      # correlated input features
W = rng.normal(size=(rows, d)) * 0.5
s, z = row_grid(W)

# 1. One OBS step against exact re-solving: fix weight q of every row to its grid value and solve for
#    the other weights by least squares; the closed form must give the same weights and error.
H = 2 * X @ X.T
H_inv = np.linalg.inv(H)
q = 3
rest = np.delete(np.arange(d), q)
for r in range(rows):
    wq = nearest_on_grid(W[:, q], s, z)[r]
    delta, loss = obs_update(W[r], q, wq, H_inv)
    target = W[r] @ X - wq * X[q]
    sol = np.linalg.lstsq(X[rest].T, target, rcond=None)[0]
    check_close(f"row {r}: OBS update == lstsq re-solve of the other 15 weights", (W[r] + delta)[rest], sol,
                rtol=1e-8, atol=1e-10)
    check_close(f"row {r}: updated weight q equals its grid value", W[r, q] + delta[q], wq, rtol=1e-12)
    check_close(f"row {r}: OBS error == ||(w - w_new) X||^2", loss,
                np.sum(((W[r] - (W[r] + delta)) @ X) ** 2), rtol=1e-8)

# 2. The whole procedure against its definition: quantize column j, then re-solve all later columns
#    exactly given the quantized ones (lstsq on X augmented with sqrt(lambda/2) I, which adds the
#    damping lambda I to H = 2 X X^T).
for percdamp in (0.0, 0.01):   # 0.01 is GPTQ's default dampening, used through the default argument
    Q, losses = gptq(W, X, s, z) if percdamp == 0.01 else gptq(W, X, s, z, percdamp)
    lam = percdamp * np.trace(2 * X @ X.T) / d
    Xa = np.hstack([X, np.sqrt(lam / 2) * np.eye(d)])
    ref_Q = np.zeros_like(W)
    cur = W.copy()
    for j in range(d):
        ref_Q[:, j] = nearest_on_grid(cur[:, j], s, z)
        if j + 1 < d:
            target = W @ Xa - ref_Q[:, :j + 1] @ Xa[:j + 1]
            cur[:, j + 1:] = np.linalg.lstsq(Xa[j + 1:].T, target.T, rcond=None)[0].T
    check_close(f"damp {percdamp}: GPTQ codes == sequential quantize + lstsq re-solve", Q, ref_Q,
                rtol=1e-9, atol=1e-12)
    check_close(f"damp {percdamp}: summed OBS errors == final ||(W - Q) X_aug||^2", losses.sum(),
                np.sum(((W - Q) @ Xa) ** 2), rtol=1e-7)

# 3. GPTQ versus round-to-nearest on the same grid: lower output error on correlated inputs.
Q, _ = gptq(W, X, s, z, 0.0)
rtn = np.stack([nearest_on_grid(W[:, j], s, z) for j in range(d)], axis=1)
e_gptq, e_rtn = np.sum(((W - Q) @ X) ** 2), np.sum(((W - rtn) @ X) ** 2)
check_true("output error: GPTQ < 0.75 x round-to-nearest", e_gptq < 0.75 * e_rtn,
           f"{e_gptq:.3f} vs {e_rtn:.3f}")
check_close("first column is plain round-to-nearest (nothing quantized before it)", Q[:, 0], rtn[:, 0],
            rtol=1e-12)

cum_gptq = [np.sum(((W[:, :j] - Q[:, :j]) @ X[:j]) ** 2) for j in range(1, d + 1)]
cum_rtn = [np.sum(((W[:, :j] - rtn[:, :j]) @ X[:j]) ** 2) for j in range(1, d + 1)]
fig, ax = figure("4-bit weights: output error of the first j quantized columns", "columns quantized j",
                 "output error of columns 1..j")
ax.plot(range(1, d + 1), cum_rtn, "o-", label="round to nearest")
ax.plot(range(1, d + 1), cum_gptq, "s-", label="GPTQ (errors pushed to later columns)")
ax.legend()
