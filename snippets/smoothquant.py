"""SmoothQuant: X W is unchanged exactly, the per-channel maxima of X and W are balanced (closed forms for
any alpha), and W8A8 per-tensor int8 error drops on activations with outlier channels."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def smoothing_factors(X, W, alpha=0.5):
    """s_j = max|X[:, j]|^alpha / max|W[j, :]|^(1 - alpha) for each input channel j."""
    return np.max(np.abs(X), axis=0) ** alpha / np.max(np.abs(W), axis=1) ** (1 - alpha)


def smooth(X, W, s):
    """X_hat = X diag(s)^-1, W_hat = diag(s) W."""
    return X / s[None, :], W * s[:, None]
# --- end formula ---


def int8_absmax(A):
    """Per-tensor symmetric int8 fake quantization (the W8A8 setting), by brute force over the 255 codes."""
    step = np.abs(A).max() / 127
    levels = step * np.arange(-127, 128)
    return levels[np.argmin(np.abs(A.ravel()[:, None] - levels[None, :]), axis=1)].reshape(A.shape)


rng = np.random.default_rng(0)
T, C_in, C_out = 64, 24, 16
X = rng.normal(size=(T, C_in))
outliers = [3, 17]
X[:, outliers] *= 60.0                                  # a few channels with very large activations
W = rng.normal(size=(C_in, C_out)) * rng.uniform(0.05, 0.3, size=(C_in, 1))

# 1. The transform is exact: (X diag(s)^-1)(diag(s) W) = X W, for any alpha.
for alpha in (0.5, 0.8):
    Xs, Ws = smooth(X, W, smoothing_factors(X, W, alpha))
    check_close(f"alpha = {alpha}: X_hat W_hat == X W", Xs @ Ws, X @ W, rtol=1e-12, atol=1e-12)

# 2. Balance: with a_j = max|X_j| and w_j = max|W_j| the new maxima are a_j^(1-alpha) w_j^(1-alpha)
#    and a_j^alpha w_j^alpha. At the default alpha = 0.5 both equal sqrt(a_j w_j).
a, w = np.abs(X).max(0), np.abs(W).max(1)
Xs, Ws = smooth(X, W, smoothing_factors(X, W))
check_close("default alpha = 0.5: max|X_hat_j| == max|W_hat_j| == sqrt(max|X_j| max|W_j|)",
            np.stack([np.abs(Xs).max(0), np.abs(Ws).max(1)]), np.stack([np.sqrt(a * w)] * 2), rtol=1e-12)
for alpha in (0.25, 0.75, 1.0):
    Xs_a, Ws_a = smooth(X, W, smoothing_factors(X, W, alpha))
    check_close(f"alpha = {alpha}: maxima (a w)^(1-alpha) and (a w)^alpha",
                np.stack([np.abs(Xs_a).max(0), np.abs(Ws_a).max(1)]),
                np.stack([(a * w) ** (1 - alpha), (a * w) ** alpha]), rtol=1e-12)
check_close("alpha = 1: every activation channel has max 1 (all difficulty moved to W)",
            np.abs(smooth(X, W, smoothing_factors(X, W, 1.0))[0]).max(0), np.ones(C_in), rtol=1e-12)

# 3. What it buys: per-tensor int8 quantization of both operands (W8A8). Outlier channels dominate the
#    activation scale before smoothing; after it, the error of X W is much smaller.
err_plain = np.linalg.norm(int8_absmax(X) @ int8_absmax(W) - X @ W)
err_smooth = np.linalg.norm(int8_absmax(Xs) @ int8_absmax(Ws) - X @ W)
check_true("W8A8 error of X W: smoothed < 0.5 x plain", err_smooth < 0.5 * err_plain,
           f"{err_smooth:.3f} vs {err_plain:.3f}")
spread_before = a.max() / a.min()
spread_after = np.abs(Xs).max(0).max() / np.abs(Xs).max(0).min()
check_true("the activation channel-max spread shrinks (to about its square root)",
           spread_after < 1.5 * np.sqrt(spread_before * (w.max() / w.min())),
           f"{spread_before:.0f} -> {spread_after:.1f}")

fig, ax = figure("Per-channel maxima before and after smoothing (alpha = 0.5)", "input channel j",
                 "max |value| over the channel")
ax.semilogy(a, "o-", label="activations X")
ax.semilogy(w, "s-", label="weights W")
ax.semilogy(np.abs(Xs).max(0), "^--", label="smoothed X = smoothed W")
ax.legend(fontsize=8)
