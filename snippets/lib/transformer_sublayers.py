"""Transformer sublayers shared by the block snippets (pre-norm, post-norm): LayerNorm, causal
multi-head self-attention and the GELU MLP, written out plainly so each block snippet composes them."""

import numpy as np
from scipy.special import ndtr

EPS = 1e-5


def ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + EPS) + b


def attn(x, p):
    """Causal multi-head self-attention, H heads of width d/H."""
    T, d = x.shape
    H = p["H"]
    q, k, v = ((x @ p[w]).reshape(T, H, d // H).transpose(1, 0, 2) for w in ("Wq", "Wk", "Wv"))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(d // H)
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    o = (w / w.sum(-1, keepdims=True)) @ v
    return o.transpose(1, 0, 2).reshape(T, d) @ p["Wo"]


def mlp(x, p):
    u = x @ p["W1"] + p["c1"]
    return (u * ndtr(u)) @ p["W2"] + p["c2"]              # GELU
