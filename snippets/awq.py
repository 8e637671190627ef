"""AWQ: the per-input-channel scale search s = s_X^alpha, checked against a brute-force grid quantizer,
the identity (W diag s)(diag s^-1 X) = WX, and round-to-nearest on inputs with salient channels."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

BITS, GROUP = 3, 16


# --- formula ---
def quantize_groups(W, bits=BITS, group=GROUP):
    """Eq. (1), per group of `group` inputs in each row: Delta = max|w| / 2^(N-1),
    w_hat = Delta round(w / Delta), codes clipped to the signed N-bit range (only the top can overflow)."""
    G = W.reshape(W.shape[0], W.shape[1] // group, group)
    delta = np.max(np.abs(G), axis=-1, keepdims=True) / 2 ** (bits - 1)
    codes = np.minimum(np.round(G / delta), 2 ** (bits - 1) - 1)   # round(w / Delta) >= -2^(N-1) already
    return (delta * codes).reshape(W.shape)


def awq_loss(W, X, s):
    """Eq. (4): || Q(W diag(s)) (diag(s)^-1 X) - W X ||^2 (squared Frobenius norm)."""
    return np.sum((quantize_groups(W * s[None, :]) @ (X / s[:, None]) - W @ X) ** 2)


def awq_search(W, X, n_grid=20):
    """Eq. (5): s = s_X^alpha with s_X the mean |activation| of each input channel, alpha on a grid in
    [0, 1) (i / n_grid, i < n_grid); scales normalized by sqrt(max s * min s) as in the reference code."""
    s_x = np.mean(np.abs(X), axis=1)
    best = (np.inf, None, None)
    for i in range(n_grid):
        alpha = i / n_grid
        s = s_x**alpha
        s = s / np.sqrt(np.max(s) * np.min(s))
        loss = awq_loss(W, X, s)
        if loss < best[0]:
            best = (loss, alpha, s)
    return (*best, s_x)
# --- end formula ---


def brute_quantize(W, bits=BITS, group=GROUP):
    """Reference quantizer: in each group, the nearest of the 2^N levels Delta k, found by enumeration."""
    G = W.reshape(W.shape[0], -1, group)
    k = np.arange(-(2 ** (bits - 1)), 2 ** (bits - 1))
    levels = np.abs(G).max(axis=-1, keepdims=True) / 2 ** (bits - 1) * k          # (rows, groups, 2^N)
    pick = np.argmin(np.abs(G[..., :, None] - levels[..., None, :]), axis=-1)      # (rows, groups, group)
    return np.take_along_axis(levels, pick, axis=-1).reshape(W.shape)


rng = np.random.default_rng(0)
d_out, d_in, T = 24, 64, 256
X = rng.normal(size=(d_in, T)) * rng.uniform(0.5, 1.5, size=(d_in, 1))
salient = rng.choice(d_in, size=2, replace=False)
X[salient] *= 12.0                                   # a few input channels with large activations
W = rng.normal(size=(d_out, d_in)) * 0.1

# 1. The quantizer against enumeration of the grid (ties aside, nearest level = clipped rounding).
for bits in (3, 4, 2):
    check_close(f"{bits}-bit group quantizer == nearest of the 2^{bits} levels (brute force)",
                quantize_groups(W, bits), brute_quantize(W, bits), rtol=1e-12, atol=1e-15)

# 2. The loss, for scales s = 1 (plain round-to-nearest) and for random scales, against the brute-force route.
rtn_loss = np.sum((brute_quantize(W) @ X - W @ X) ** 2)
check_close("L(1) == round-to-nearest output error", awq_loss(W, X, np.ones(d_in)), rtn_loss, rtol=1e-10)
s_rand = rng.uniform(0.5, 2.0, size=d_in)
check_close("L(s) for random s == brute-force Q(W diag s) diag(s)^-1 X vs W X", awq_loss(W, X, s_rand),
            np.sum((brute_quantize(W * s_rand) @ np.diag(1 / s_rand) @ X - W @ X) ** 2), rtol=1e-10)

# 3. The search: the chosen alpha is the best of the 20 grid values, recomputed by brute force.
loss, alpha, s, s_x_found = awq_search(W, X)
s_x = np.linalg.norm(X, ord=1, axis=1) / T
check_close("s_X == mean |activation| per input channel (L1 norm / T)", s_x_found, s_x, rtol=1e-12)
grid_losses = []
for a in np.arange(20) / 20:
    sa = s_x**a / np.sqrt(s_x.max() ** a * s_x.min() ** a)
    grid_losses.append(np.sum((brute_quantize(W * sa) @ (X / sa[:, None]) - W @ X) ** 2))
check_close("alpha* and L(s*) == argmin and min over the grid (brute force)", [alpha, loss],
            [np.argmin(grid_losses) / 20, min(grid_losses)], rtol=1e-10)
check_close("s* = s_X^alpha*, centred so that max(s) min(s) = 1", [s.max() * s.min(), *(s / s_x**alpha)[:1]],
            [1.0, 1 / np.sqrt(s_x.max() ** alpha * s_x.min() ** alpha)], rtol=1e-12)
check_close("a one-point grid (alpha = 0 only) is round-to-nearest", awq_search(W, X, n_grid=1)[:2],
            [rtn_loss, 0.0], rtol=1e-10)
check_true("alpha* > 0: scaling helps on inputs with salient channels", alpha > 0, f"alpha* = {alpha}")
check_true("AWQ output error < 0.85 x round-to-nearest", loss < 0.85 * rtn_loss,
           f"{loss:.3f} vs {rtn_loss:.3f}")
check_true("salient input channels get the largest scales",
           set(np.argsort(s)[-2:]) == set(salient.tolist()))

# 4. Without activation outliers (s_X constant) every alpha gives the same scales, all equal to 1.
X_flat = np.sign(rng.normal(size=(d_in, T)))
_, _, s_flat, _ = awq_search(W, X_flat)
check_close("constant |X|: s* = 1 for every channel", s_flat, np.ones(d_in), rtol=1e-12)

# 5. Weights inversely proportional to the activation scale: full equalization is best, so the search
#    ends at the top of its grid, alpha = 0.95 (the reference grid i/20, i < 20, never reaches 1).
X_inv = rng.normal(size=(d_in, T)) * np.exp(rng.uniform(-1.5, 1.5, size=(d_in, 1)))
W_inv = rng.normal(size=(d_out, d_in)) * 0.1 / (np.linalg.norm(X_inv, ord=1, axis=1) / T)
check_close("W ~ 1 / s_X: alpha* = 0.95, the last grid point", awq_search(W_inv, X_inv)[1], 0.95, rtol=1e-12)

fig, ax = figure("AWQ grid search (3-bit, groups of 16)", r"$\alpha$ in $s = s_X^{\alpha}$",
                 "output error / round-to-nearest")
ax.plot(np.arange(20) / 20, np.array(grid_losses) / rtn_loss, "o-")
ax.axvline(alpha, color="gray", ls=":", label=rf"$\alpha^* = {alpha}$")
ax.legend()
