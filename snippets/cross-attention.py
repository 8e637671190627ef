"""Cross-attention: queries from x, keys/values from y of another length, checked against a
per-query loop, source-order invariance, key-padding masks and the self-attention special case."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


# --- formula ---
def cross_attention(x, y, w_q, w_k, w_v, y_valid=None):
    """softmax((x W^Q)(y W^K)^T / sqrt(d_k)) (y W^V); x: [n_x, d_x], y: [n_y, d_y].

    y_valid (optional, bool [n_y]) marks real source tokens; padded ones get a score of -inf.
    """
    q = x @ w_q
    k = y @ w_k
    v = y @ w_v
    scores = q @ k.T / np.sqrt(w_q.shape[1])
    if y_valid is not None:
        scores = np.where(y_valid[None, :], scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ v
# --- end formula ---


rng = np.random.default_rng(0)
n_x, n_y, d_x, d_y, d_k, d_v = 4, 11, 6, 9, 5, 3        # every size different
x = rng.normal(size=(n_x, d_x))                           # decoder / query side
y = rng.normal(size=(n_y, d_y))                           # encoder / source side
WQ = rng.normal(size=(d_x, d_k))
WK = rng.normal(size=(d_y, d_k))
WV = rng.normal(size=(d_y, d_v))
out = cross_attention(x, y, WQ, WK, WV)
check_true("output has one row per query and d_v columns", out.shape == (n_x, d_v), str(out.shape))

# Reference: scalar loops, one query at a time, with scipy's softmax.
ref = np.zeros((n_x, d_v))
for i in range(n_x):
    q_i = [sum(x[i, a] * WQ[a, c] for a in range(d_x)) for c in range(d_k)]
    keys = y @ WK
    s = np.array([sum(q_i[c] * keys[j, c] for c in range(d_k)) for j in range(n_y)]) / np.sqrt(d_k)
    ref[i] = scipy_softmax(s) @ (y @ WV)
check_close("matrix form vs per-query loop (n_x=4, n_y=11)", out, ref, rtol=1e-12, atol=1e-14)

# The source is a set: shuffling its tokens changes nothing. Queries are independent:
# shuffling them shuffles the output rows, and changing one query changes only its row.
perm_y = rng.permutation(n_y)
check_close("invariant to reordering the source tokens", cross_attention(x, y[perm_y], WQ, WK, WV),
            out, rtol=1e-12, atol=1e-14)
perm_x = rng.permutation(n_x)
check_close("equivariant to reordering the queries", cross_attention(x[perm_x], y, WQ, WK, WV),
            out[perm_x], rtol=1e-12, atol=1e-14)
x2 = x.copy()
x2[2] = rng.normal(size=d_x)
out2 = cross_attention(x2, y, WQ, WK, WV)
check_close("changing query 2 leaves the other rows unchanged", np.delete(out2, 2, axis=0),
            np.delete(out, 2, axis=0), rtol=1e-13)

# Key-padding mask: append 5 junk source tokens and mask them; the result must not move.
y_pad = np.vstack([y, 50 * rng.normal(size=(5, d_y))])
valid = np.arange(n_y + 5) < n_y
check_close("padded source with key-padding mask = unpadded source",
            cross_attention(x, y_pad, WQ, WK, WV, y_valid=valid), out, rtol=1e-12, atol=1e-14)
check_true("without the mask the padding leaks in",
           np.abs(cross_attention(x, y_pad, WQ, WK, WV) - out).max() > 1e-3)

# With x = y (and matching widths) cross-attention is self-attention, softmax over the same sequence.
Wq_s = rng.normal(size=(d_y, d_k))
self_ref = scipy_softmax((y @ Wq_s) @ (y @ WK).T / np.sqrt(d_k), axis=1) @ (y @ WV)
check_close("x = y reduces to self-attention", cross_attention(y, y, Wq_s, WK, WV), self_ref,
            rtol=1e-12, atol=1e-14)

# A single source token: every query returns its value vector.
check_close("n_y = 1: every query returns the one value", cross_attention(x, y[:1], WQ, WK, WV),
            np.repeat(y[:1] @ WV, n_x, axis=0), rtol=1e-13)

# Wide scores (span > 1000): scipy's stable softmax still agrees.
big = 40.0 * x
s_big = (big @ WQ) @ (y @ WK).T / np.sqrt(d_k)
check_close(f"scores spanning {np.ptp(s_big):.0f}: matches scipy", cross_attention(big, y, WQ, WK, WV),
            scipy_softmax(s_big, axis=1) @ (y @ WV), rtol=1e-12, atol=1e-14)
