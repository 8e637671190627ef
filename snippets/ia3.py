"""IA3: rescaled keys, values and FFN activations equal a frozen model with modified weight matrices (merge),
ones reproduce the base model, the key scale can move to the queries, GELU blocks merging into W1."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import erf, softmax


# --- formula ---
def ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads):
    """Causal multi-head attention with keys and values rescaled feature-wise: K = l_k * (X Wk),
    V = l_v * (X Wv); l_k and l_v have one entry per feature of the key / value projection."""
    T, d = X.shape[0], Wq.shape[1]
    dh = d // heads
    Q = (X @ Wq).reshape(T, heads, dh).transpose(1, 0, 2)
    K = ((X @ Wk) * l_k).reshape(T, heads, dh).transpose(1, 0, 2)
    V = ((X @ Wv) * l_v).reshape(T, heads, dh).transpose(1, 0, 2)
    s = np.where(np.tril(np.ones((T, T), bool)), Q @ K.transpose(0, 2, 1) / np.sqrt(dh), -np.inf)
    w = np.exp(s - np.max(s, axis=2, keepdims=True))
    out = (w / np.sum(w, axis=2, keepdims=True)) @ V
    return out.transpose(1, 0, 2).reshape(T, d)


def ia3_ffn(X, W1, W2, l_ff, act):
    """(l_ff * act(X W1)) W2: the hidden activations of the feed-forward block rescaled per unit."""
    return (act(X @ W1) * l_ff) @ W2
# --- end formula ---


def gelu(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def relu(x):
    return np.maximum(x, 0.0)


def reference_attention(X, Wq, Wk, Wv, heads):
    """Plain causal multi-head attention with scipy's softmax, per head."""
    T, d = X.shape[0], Wq.shape[1]
    dh = d // heads
    outs = []
    for h in range(heads):
        sl = slice(h * dh, (h + 1) * dh)
        logits = (X @ Wq[:, sl]) @ (X @ Wk[:, sl]).T / np.sqrt(dh)
        s = np.where(np.tril(np.ones((T, T), bool)), logits, -np.inf)
        outs.append(softmax(s, axis=1) @ (X @ Wv[:, sl]))
    return np.concatenate(outs, axis=1)


rng = np.random.default_rng(0)
T, d, heads, d_ff = 7, 16, 2, 40
X = rng.normal(size=(T, d))
Wq, Wk, Wv = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
W1, W2 = rng.normal(size=(d, d_ff)) / np.sqrt(d), rng.normal(size=(d_ff, d)) / np.sqrt(d_ff)
l_k, l_v, l_ff = (rng.uniform(0.3, 2.0, size=n) for n in (d, d, d_ff))

# 1. Initialization: all scales 1 gives the frozen model.
check_close("l = 1: attention unchanged", ia3_attention(X, Wq, Wk, Wv, np.ones(d), np.ones(d), heads),
            reference_attention(X, Wq, Wk, Wv, heads), rtol=1e-12)
check_close("l = 1: feed-forward unchanged", ia3_ffn(X, W1, W2, np.ones(d_ff), gelu), gelu(X @ W1) @ W2,
            rtol=1e-12)

# 2. Merging: rescaling the outputs of a projection is the same as scaling the columns of its weight
#    (x W) * l = x (W diag(l)). So the adapted layer is the frozen layer with Wk, Wv replaced.
check_close("IA3 attention = plain attention with W_k diag(l_k), W_v diag(l_v)",
            ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(X, Wq, Wk * l_k, Wv * l_v, heads), rtol=1e-12)
check_close("IA3 feed-forward = act(X W1) (diag(l_ff) W2): merged into W2's rows",
            ia3_ffn(X, W1, W2, l_ff, gelu), gelu(X @ W1) @ (l_ff[:, None] * W2), rtol=1e-12)

# 3. The key scale acts like a query scale: Q (l * K)^T = (l * Q) K^T, so it could equally go into W_q.
check_close("l_k on keys = l_k on queries", ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(X, Wq * l_k, Wk, Wv * l_v, heads), rtol=1e-12)
check_true("key scales change the attention pattern (not a no-op)",
           float(np.abs(ia3_attention(X, Wq, Wk, Wv, l_k, np.ones(d), heads)
                        - reference_attention(X, Wq, Wk, Wv, heads)).max()) > 1e-3)

# Large activations (logits in the thousands): the max shift keeps the softmax finite.
Xb = 30.0 * X
check_close("logits in the thousands: vs scipy softmax route", ia3_attention(Xb, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(Xb, Wq, Wk * l_k, Wv * l_v, heads), rtol=1e-10, atol=1e-12)

# 4. The feed-forward scale sits after the nonlinearity. For ReLU and positive scales it could be
#    pushed into W1 (ReLU(l z) = l ReLU(z)); for GELU it cannot.
check_close("ReLU: (l * relu(X W1)) W2 = relu(X W1 diag(l)) W2", ia3_ffn(X, W1, W2, l_ff, relu),
            relu(X @ (W1 * l_ff)) @ W2, rtol=1e-12)
gap = np.abs(ia3_ffn(X, W1, W2, l_ff, gelu) - gelu(X @ (W1 * l_ff)) @ W2).max()
check_true("GELU: scaling W1 instead gives a different layer", gap > 1e-3, f"max difference {gap:.3f}")

# 5. Trainable parameters per transformer block: d_k + d_v + d_ff (here 16 + 16 + 40 = 72), against
#    2 d^2 + 2 d^2 + 2 d d_ff = 2304 frozen weights in the block's attention and feed-forward matrices.
check_true("parameters per block: d_k + d_v + d_ff = 72 vs 2304 frozen",
           l_k.size + l_v.size + l_ff.size == 72 and 4 * d * d + 2 * d * d_ff == 2304)
