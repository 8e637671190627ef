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

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# scaled_dot_product_attention takes the projections; queries and keys may differ in number.
q_t, k_t, v_t = torch.tensor(x @ WQ), torch.tensor(y @ WK), torch.tensor(y @ WV)
# Dot products of width 5 and softmaxes over 11 keys, a few ulps each: 1e-12, as the loop above.
check_close("F.scaled_dot_product_attention(x W^Q, y W^K, y W^V) = CrossAttn, 4 queries over 11 keys",
            F.scaled_dot_product_attention(q_t, k_t, v_t).numpy(), out, rtol=1e-12, atol=1e-14)
pad_k, pad_v = torch.tensor(y_pad @ WK), torch.tensor(y_pad @ WV)
check_close("its boolean attn_mask is True where a query may attend: attn_mask = y_valid",
            F.scaled_dot_product_attention(q_t, pad_k, pad_v, attn_mask=torch.tensor(valid)[None]).numpy(),
            out,
            rtol=1e-12, atol=1e-14)
# nn.MultiheadAttention(query=x, key=y, value=y): kdim = vdim = d_y lets the source be wider than x, but
# every projection is embed_dim = d_x wide, so the layer gets weights of its own shapes (drawn here
# from their own generator) and an identity output projection; its weights act as x W^T.
w_rng = np.random.default_rng(1)
WQ6, WK6, WV6 = w_rng.normal(size=(d_x, d_x)), w_rng.normal(size=(d_y, d_x)), w_rng.normal(size=(d_y, d_x))
layer = torch.nn.MultiheadAttention(d_x, 1, kdim=d_y, vdim=d_y, bias=False, batch_first=True,
                                    dtype=torch.float64)
with torch.no_grad():
    layer.q_proj_weight.copy_(torch.tensor(WQ6.T))
    layer.k_proj_weight.copy_(torch.tensor(WK6.T))
    layer.v_proj_weight.copy_(torch.tensor(WV6.T))
    layer.out_proj.weight.copy_(torch.eye(d_x, dtype=torch.float64))
xb, yb = torch.tensor(x)[None], torch.tensor(y_pad)[None]
card6 = cross_attention(x, y_pad, WQ6, WK6, WV6, y_valid=valid)
check_close("nn.MultiheadAttention(d_x, 1, kdim=d_y, vdim=d_y)(x, y, y, key_padding_mask=~y_valid) = card",
            layer(xb, yb, yb, key_padding_mask=torch.tensor(~valid)[None])[0][0].detach().numpy(), card6,
            rtol=1e-12, atol=1e-14)
# key_padding_mask marks with True the source tokens to IGNORE: the card's y_valid passed as is
# attends to the 5 padding tokens only.
check_close("pitfall: key_padding_mask=y_valid (True = real token) attends to the padding instead",
            layer(xb, yb, yb, key_padding_mask=torch.tensor(valid)[None])[0][0].detach().numpy(),
            cross_attention(x, y_pad, WQ6, WK6, WV6, y_valid=~valid), rtol=1e-12, atol=1e-14)
# --- end in code ---
