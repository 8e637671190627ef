"""Prefix tuning: attention over [K_p; K], [V_p; V] vs the gate decomposition of He et al. (scipy logsumexp),
vs prepending prompt states to a layer's input (P-tuning v2), causal mask, wide logits, parameter count."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp, softmax


# --- formula ---
def attention(q, k, v, allowed):
    """softmax(q k^T / sqrt(d_k)) v over the allowed key positions (boolean mask, one row per query)."""
    s = np.where(allowed, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
    s = s - np.max(s, axis=-1, keepdims=True)
    w = np.exp(s)
    return (w / np.sum(w, axis=-1, keepdims=True)) @ v


def prefix_attention(q, k, v, k_p, v_p):
    """Causal attention of the T tokens over p trainable prefix keys/values followed by their own.
    Every token sees the whole prefix; among the tokens, only earlier ones and itself."""
    T, p = q.shape[0], k_p.shape[0]
    allowed = np.concatenate([np.ones((T, p), bool), np.tril(np.ones((T, T), bool))], axis=1)
    return attention(q, np.concatenate([k_p, k]), np.concatenate([v_p, v]), allowed)
# --- end formula ---


rng = np.random.default_rng(0)
T, p, d_model, h = 6, 4, 16, 2
d_k = d_model // h
X = rng.normal(size=(T, d_model))
Wq, Wk, Wv = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(3))
Kp, Vp = rng.normal(size=(h, p, d_k)), rng.normal(size=(h, p, d_k))  # trainable, per layer and head

# 1. Gate decomposition (He et al. 2022): prefix attention = (1 - g) * ordinary causal attention
#    + g * attention over the prefix alone, g = mass of the prefix in the softmax, computed here with
#    scipy's logsumexp and softmax on each head.
for hd in range(h):
    sl = slice(hd * d_k, (hd + 1) * d_k)
    q, k, v = X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl]
    out = prefix_attention(q, k, v, Kp[hd], Vp[hd])
    s_pre = q @ Kp[hd].T / np.sqrt(d_k)
    s_own = np.where(np.tril(np.ones((T, T), bool)), q @ k.T / np.sqrt(d_k), -np.inf)
    lse_pre, lse_own = logsumexp(s_pre, axis=1), logsumexp(s_own, axis=1)
    g = np.exp(lse_pre - np.logaddexp(lse_pre, lse_own))[:, None]
    ref = (1 - g) * (softmax(s_own, axis=1) @ v) + g * (softmax(s_pre, axis=1) @ Vp[hd])
    check_close(f"head {hd}: prefix attention = (1 - g) Attn(own) + g Attn(prefix)", out, ref, rtol=1e-12)

# 2. P-tuning v2's "deep prompts": prepend p prompt states P to the layer's input sequence and keep
#    the outputs of the real tokens. That is prefix attention with K_p = P W_k and V_p = P W_v.
P = rng.normal(size=(p, d_model))
full = np.concatenate([P, X])
n = p + T
causal_full = np.tril(np.ones((n, n), bool))
for hd in range(h):
    sl = slice(hd * d_k, (hd + 1) * d_k)
    direct = softmax(np.where(causal_full, full @ Wq[:, sl] @ (full @ Wk[:, sl]).T / np.sqrt(d_k), -np.inf),
                     axis=1) @ (full @ Wv[:, sl])
    check_close(f"head {hd}: prepended prompt states = prefix keys/values P W_k, P W_v", direct[p:],
                prefix_attention(X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl], P @ Wk[:, sl], P @ Wv[:, sl]),
                rtol=1e-12)

# 3. The first token sees only the prefix and itself; with an empty prefix the layer is unchanged.
q, k, v = X @ Wq[:, :d_k], X @ Wk[:, :d_k], X @ Wv[:, :d_k]
w0 = softmax(np.concatenate([q[0] @ Kp[0].T, [q[0] @ k[0]]]) / np.sqrt(d_k))
tri = np.tril(np.ones((T, T), bool))
check_close("token 0 attends to the p prefix slots and to itself only",
            prefix_attention(q, k, v, Kp[0], Vp[0])[0], w0 @ np.concatenate([Vp[0], v[:1]]), rtol=1e-12)
empty = np.zeros((0, d_k))
check_close("empty prefix: ordinary causal attention", prefix_attention(q, k, v, empty, empty),
            softmax(np.where(tri, q @ k.T / np.sqrt(d_k), -np.inf), axis=1) @ v, rtol=1e-12)

# 4. Logits spanning thousands (a prefix key aligned with the queries): the max shift keeps it finite.
big_kp = 400.0 * q[:3].copy()
big = prefix_attention(q, k, v, big_kp, Vp[0][:3])
s_big = np.concatenate([q @ big_kp.T, np.where(np.tril(np.ones((T, T), bool)), q @ k.T, -np.inf)], 1)
check_true("wide logits stay finite", bool(np.all(np.isfinite(big))), f"largest logit {np.max(s_big):.0f}")
check_close("wide logits vs scipy softmax", big, softmax(s_big / np.sqrt(d_k), axis=1)
            @ np.concatenate([Vp[0][:3], v]), rtol=1e-10)

# 5. Trainable parameters: a key and a value vector of width d_model per prefix slot and layer,
#    2 p L d_model in all; GPT-2 medium (L = 24, d_model = 1024) with p = 10: 491,520.
check_true("parameter count 2 p L d_model = 491,520 for p = 10, L = 24, d_model = 1024",
           2 * 10 * 24 * 1024 == 491_520 and Kp.size + Vp.size == 2 * p * d_model)

fig, ax = figure("Share of attention on the prefix as its keys grow", "scale of the prefix keys",
                 "prefix gate g (mean over tokens)")
scales = np.linspace(0, 3, 31)
gates = []
for c in scales:
    s_pre = q @ (c * Kp[0]).T / np.sqrt(d_k)
    s_own = np.where(np.tril(np.ones((T, T), bool)), q @ k.T / np.sqrt(d_k), -np.inf)
    lp, lo = logsumexp(s_pre, 1), logsumexp(s_own, 1)
    gates.append(np.mean(np.exp(lp - np.logaddexp(lp, lo))))
ax.plot(scales, gates)
