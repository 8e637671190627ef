"""RWKV-4 WKV operator: the numerically stable recurrence (running maximum exponent) checked against the
direct weighted-sum formula, via scipy.special.logsumexp on keys spanning > 1000 and via plain exp on
small keys."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp


# --- formula ---
def wkv_recurrent(w, u, k, v):
    """wkv_t = (sum_{i<t} e^{-(t-1-i) w + k_i} v_i + e^{u + k_t} v_t) / (same with v = 1), per channel.
    State: a, b scaled by e^{-p}, with p the largest exponent seen, so nothing overflows."""
    T, C = k.shape
    a = np.zeros(C)
    b = np.zeros(C)
    p = np.full(C, -np.inf)
    out = np.empty((T, C))
    for t in range(T):
        q = np.maximum(p, u + k[t])
        e1, e2 = np.exp(p - q), np.exp(u + k[t] - q)
        out[t] = (e1 * a + e2 * v[t]) / (e1 * b + e2)
        q2 = np.maximum(p - w, k[t])
        e1, e2 = np.exp(p - w - q2), np.exp(k[t] - q2)
        a = e1 * a + e2 * v[t]
        b = e1 * b + e2
        p = q2
    return out
# --- end formula ---


def wkv_direct(w, u, k, v, stable=True):
    """The defining sum, evaluated separately for every t and channel."""
    T, C = k.shape
    out = np.empty((T, C))
    for t in range(T):
        for c in range(C):
            expo = np.append(-(t - 1 - np.arange(t)) * w[c] + k[:t, c], u[c] + k[t, c])
            vals = v[: t + 1, c]
            if stable:
                num, sign = logsumexp(expo, b=vals, return_sign=True)
                out[t, c] = sign * np.exp(num - logsumexp(expo))
            else:
                out[t, c] = np.sum(np.exp(expo) * vals) / np.sum(np.exp(expo))
    return out


rng = np.random.default_rng(0)
T, C = 40, 4
w = np.array([0.05, 0.7, 2.0, 9.0])      # decay per channel (positive)
u = np.array([0.5, -1.2, 3.0, 0.0])      # bonus for the current token
v = rng.normal(size=(T, C))

# 1. Moderate keys: plain exponentials are safe, compare with the literal formula.
k_small = rng.normal(size=(T, C))
check_close("stable recurrence == direct sum (plain exp)", wkv_recurrent(w, u, k_small, v),
            wkv_direct(w, u, k_small, v, stable=False), rtol=1e-11)

# 2. Keys spanning > 1000: e^{k} overflows float64, the running-max form must still be exact.
k_wide = rng.uniform(-800.0, 800.0, size=(T, C))
with np.errstate(over="ignore", invalid="ignore"):
    naive = wkv_direct(w, u, k_wide, v, stable=False)
check_true("plain exp overflows on these keys", not np.all(np.isfinite(naive)))
got = wkv_recurrent(w, u, k_wide, v)
check_close("stable recurrence == logsumexp direct sum, keys in [-800, 800]", got,
            wkv_direct(w, u, k_wide, v), rtol=1e-9, atol=1e-12)

# 3. Very large decay and a huge bonus dominate: wkv_t -> v_t; a huge key at step 0 with tiny decay
#    dominates later steps -> v_0.
check_close("u >> everything: wkv_t = v_t", wkv_recurrent(w, np.full(C, 800.0), k_small, v), v, rtol=1e-12)
k_big0 = k_small.copy()
k_big0[0] = 700.0
out = wkv_recurrent(np.full(C, 1e-3), u, k_big0, v)
check_close("dominant first key, slow decay: wkv_t = v_0 for t >= 1", out[1:], np.tile(v[0], (T - 1, 1)),
            rtol=1e-9)

# 4. It is a weighted average: constant values pass through, outputs stay inside [min v, max v].
check_close("constant v passes through", wkv_recurrent(w, u, k_wide, np.full((T, C), 2.5)),
            np.full((T, C), 2.5), rtol=1e-12)
check_true("convex combination of v_0..v_t",
           all(np.all((got[t] >= v[: t + 1].min(0) - 1e-12) & (got[t] <= v[: t + 1].max(0) + 1e-12))
               for t in range(T)))

# 5. Keys that exactly offset the decay (k_i = -i w) and u = w give every token the same weight, so wkv_t is
#    the running mean of v; with w = 10 the raw exponents reach -400, far below the running-max scale.
w_eq = np.full(C, 10.0)
k_eq = -10.0 * np.arange(T)[:, None] * np.ones((1, C))
running_mean = np.cumsum(v, axis=0) / np.arange(1, T + 1)[:, None]
check_close("equal weights: wkv_t = mean(v_0..v_t)", wkv_recurrent(w_eq, w_eq, k_eq, v), running_mean,
            rtol=1e-10, atol=1e-13)
