"""Hyena operator with implicit long filters: FFT long convolution checked against numpy.convolve, the whole
order-2 operator against a direct double loop, the implicit filter against a scalar evaluation with the
math module, and causality by brute force."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def positional_features(L, K):
    """e(t) = (t / 100, sin(w_k t), cos(w_k t)) with w_k = 0.05 (k + 1), k = 0..K-1: shape (L, 2K + 1)."""
    t = np.arange(L)[:, None]
    w = 0.05 * (np.arange(K) + 1)
    return np.hstack([t / 100.0, np.sin(w * t), np.cos(w * t)])


def implicit_filter(L, K, W1, b1, W2, alpha):
    """h_t = exp(-alpha t) * FFN(e(t)), FFN(e) = sin(e W1 + b1) W2: one filter per channel, any length L."""
    z = np.sin(positional_features(L, K) @ W1 + b1) @ W2
    return z * np.exp(-alpha * np.arange(L)[:, None])


def long_conv(h, z):
    """Causal convolution per channel, (h * z)_t = sum_{s <= t} h_{t-s} z_s, by FFT of length 2L."""
    L = z.shape[0]
    return np.fft.irfft(np.fft.rfft(h, 2 * L, axis=0) * np.fft.rfft(z, 2 * L, axis=0), 2 * L, axis=0)[:L]


def hyena(u, Wv, Wxs, filters):
    """z^1 = v = u Wv;  z^{n+1}_t = x^n_t * (h^n * z^n)_t with x^n = u Wx_n;  y = z^{N+1}."""
    z = u @ Wv
    for Wx, h in zip(Wxs, filters, strict=True):
        z = (u @ Wx) * long_conv(h, z)
    return z
# --- end formula ---


rng = np.random.default_rng(0)
L, Dm, K, F = 48, 3, 4, 8
u = rng.normal(size=(L, Dm))
Wv = rng.normal(size=(Dm, Dm))
Wxs = [rng.normal(size=(Dm, Dm)) for _ in range(2)]
params = [(rng.normal(size=(2 * K + 1, F)), rng.normal(size=F), rng.normal(size=(F, Dm)) / 3,
           np.array([0.01, 0.05, 0.2])) for _ in range(2)]
filters = [implicit_filter(L, K, *p) for p in params]


# 1. Implicit filter against a scalar evaluation of its definition.
def filter_scalar(t, c, W1, b1, W2, alpha):
    e = [t / 100.0] + [math.sin(0.05 * (k + 1) * t) for k in range(K)] + [math.cos(0.05 * (k + 1) * t)
                                                                           for k in range(K)]
    hidden = [math.sin(sum(e[i] * W1[i, f] for i in range(2 * K + 1)) + b1[f]) for f in range(F)]
    return math.exp(-alpha[c] * t) * sum(hidden[f] * W2[f, c] for f in range(F))


for n in range(2):
    ref = np.array([[filter_scalar(t, c, *params[n]) for c in range(Dm)] for t in range(L)])
    check_close(f"implicit filter {n + 1} == scalar evaluation", filters[n], ref, rtol=1e-11, atol=1e-13)
check_close("filter length is free: h(L=48) is the prefix of h(L=96)",
            implicit_filter(2 * L, K, *params[0])[:L], filters[0], rtol=1e-12)

# 2. FFT long convolution against numpy.convolve, channel by channel (input with a long span).
z = rng.normal(size=(L, Dm)) * np.linspace(5.0, 0.2, L)[:, None]
conv_ref = np.stack([np.convolve(filters[0][:, c], z[:, c])[:L] for c in range(Dm)], axis=1)
check_close("FFT long convolution == numpy.convolve", long_conv(filters[0], z), conv_ref, rtol=1e-10,
            atol=1e-12)

# 3. The order-2 operator against a direct double loop over positions.
zz = u @ Wv
for n in range(2):
    x = u @ Wxs[n]
    new = np.zeros_like(zz)
    for t in range(L):
        for s in range(t + 1):
            new[t] += filters[n][t - s] * zz[s]
    zz = x * new
y = hyena(u, Wv, Wxs, filters)
check_close("Hyena (order 2) == direct loops", y, zz, rtol=1e-10, atol=1e-12)

# 4. Causality by brute force: changing the input at step j leaves every earlier output unchanged.
for j in (5, 30):
    u2 = u.copy()
    u2[j] += rng.normal(size=Dm)
    d = np.abs(hyena(u2, Wv, Wxs, filters) - y)
    check_true(f"causal: change at step {j} leaves y_<{j} unchanged, moves y_{j}",
               d[:j].max(initial=0.0) < 1e-12 and d[j].max() > 1e-6, f"before {d[:j].max(initial=0.0):.1e}")

fig, ax = figure("Implicit Hyena filters (one per channel)", "lag t", r"$h_t$")
long_h = implicit_filter(400, K, *params[0])
for c, style in zip(range(Dm), ("-", "--", ":"), strict=True):
    ax.plot(long_h[:, c], style, label=rf"window $\alpha = {params[0][3][c]}$")
ax.legend()
