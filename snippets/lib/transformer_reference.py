"""Independent route for the block snippets: LayerNorm, causal attention and the GELU MLP written
per position and per head (scipy's zscore and softmax, math.erf), nothing vectorised."""

import math

import numpy as np
from scipy.special import softmax as sp_softmax
from scipy.stats import zscore
from transformer_sublayers import EPS


def ln_row(r, g, b):
    """LayerNorm of one position, eps folded into zscore's population standard deviation."""
    return g * zscore(r) * np.std(r) / np.sqrt(np.var(r) + EPS) + b


def attention(X, p):
    """Causal multi-head self-attention, one query position and one head at a time."""
    T, d = X.shape
    H = p["H"]
    dh = d // H
    out = np.zeros((T, d))
    for t in range(T):
        heads = []
        for j in range(H):
            sl = slice(j * dh, (j + 1) * dh)
            qt = X[t] @ p["Wq"][:, sl]
            keys = [X[u] @ p["Wk"][:, sl] for u in range(t + 1)]
            vals = [X[u] @ p["Wv"][:, sl] for u in range(t + 1)]
            a = sp_softmax([qt @ kk / np.sqrt(dh) for kk in keys])
            heads.append(sum(ai * vv for ai, vv in zip(a, vals, strict=True)))
        out[t] = np.concatenate(heads) @ p["Wo"]
    return out


def ffn_row(r, p):
    """The GELU MLP of one position, GELU from math.erf."""
    u = r @ p["W1"] + p["c1"]
    return np.array([ui * 0.5 * (1 + math.erf(ui / math.sqrt(2))) for ui in u]) @ p["W2"] + p["c2"]
