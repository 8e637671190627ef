"""Multi-head attention: batched reshape form vs a per-head loop, a hand-solved case, a sum form, H = 1."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import expit
from scipy.special import softmax as scipy_softmax


# --- formula ---
def multi_head_attention(x, wq, wk, wv, wo, n_heads):
    """Block form: full-width projections, reshape to (H, T, d/H), batched attention, merge, W^O."""
    t, d = x.shape
    d_h = d // n_heads

    def split(m):  # [T, d] -> [H, T, d_h]: split the feature axis, then move heads first
        return m.reshape(t, n_heads, d_h).transpose(1, 0, 2)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_h)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    heads = w @ v                                    # [H, T, d_h]
    return heads.transpose(1, 0, 2).reshape(t, d) @ wo
# --- end formula ---


rng = np.random.default_rng(0)
T, d, H = 6, 32, 4
d_h = d // H
x = rng.normal(size=(T, d))
WQ, WK, WV, WO = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4))
out = multi_head_attention(x, WQ, WK, WV, WO, H)

# Independent route: the definition, one head at a time with its own column block of W^Q, W^K, W^V.
def per_head(x, n_heads):
    """Each head through scipy's softmax, with d_k = d / H."""
    dh = x.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * dh, (h + 1) * dh)
        qh, kh, vh = x @ WQ[:, cols], x @ WK[:, cols], x @ WV[:, cols]
        outs.append(scipy_softmax(qh @ kh.T / np.sqrt(dh), axis=1) @ vh)
    return outs


head_outputs = per_head(x, H)
reference = np.concatenate(head_outputs, axis=1) @ WO
check_close("reshape/batched form vs per-head loop + Concat + W^O", out, reference, rtol=1e-10,
            atol=1e-13)

# Wide scores (inputs scaled by 40: logits spanning thousands) must not overflow the softmax.
x_wide = 40 * x
check_close("wide inputs (scores span > 1000): batched form vs per-head scipy softmax",
            multi_head_attention(x_wide, WQ, WK, WV, WO, H),
            np.concatenate(per_head(x_wide, H), axis=1) @ WO, rtol=1e-9, atol=1e-9)

# A case solved by hand, fixing the 1/sqrt(d_k) scale with d_k = d/H (Vaswani et al.: d_k = d/h).
# d = 8, H = 2 (d_k = 4), W^Q = W^K = W^V = W^O = I, two tokens
#   x_1 = (2, 0, 0, 0 | 0, 0, 0, 0),  x_2 = (0, 0, 0, 0 | 0, 0, 0, 3).
# Head 1, query 1: scores (4, 0)/sqrt(4) = (2, 0), weight sigma(2) on x_1 -> (2 sigma(2), 0, 0, 0);
#         query 2: scores (0, 0), uniform -> (1, 0, 0, 0).
# Head 2, query 1: uniform -> (0, 0, 0, 1.5); query 2: scores (0, 9)/2, weight sigma(4.5) on x_2.
# A 1/sqrt(d) scale (or none) gives sigma(4/sqrt 8) (or sigma(4)) instead.
eye = np.eye(8)
x_hand = np.array([[2.0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 3.0]])
expected = np.array([[2 * expit(2.0), 0, 0, 0, 0, 0, 0, 1.5], [1.0, 0, 0, 0, 0, 0, 0, 3 * expit(4.5)]])
check_close("hand-solved two-token, two-head case (scale 1/sqrt(d/H))",
            multi_head_attention(x_hand, eye, eye, eye, eye, 2), expected, rtol=1e-12, atol=1e-15)
check_close("same case with a non-symmetric W^O: output = hand rows @ W^O",
            multi_head_attention(x_hand, eye, eye, eye, WO[:8, :8], 2), expected @ WO[:8, :8],
            rtol=1e-12, atol=1e-15)

# Concat(heads) W^O equals the sum over heads of head_h times its row block of W^O.
summed = sum(head_outputs[h] @ WO[h * d_h:(h + 1) * d_h] for h in range(H))
check_close("Concat(head_h) W^O = sum_h head_h W^O_h", reference, summed, rtol=1e-10, atol=1e-13)

# With one head the layer is plain single-head attention at width d.
single = scipy_softmax((x @ WQ) @ (x @ WK).T / np.sqrt(d), axis=1) @ (x @ WV) @ WO
check_close("H = 1 reduces to single-head attention", multi_head_attention(x, WQ, WK, WV, WO, 1),
            single, rtol=1e-10, atol=1e-13)
check_true("heads differ from one full-width head (H = 4 vs H = 1)",
           np.abs(out - single).max() > 1e-3, f"max difference {np.abs(out - single).max():.3f}")

# --- in code: torch ---
import torch  # noqa: E402

# nn.Linear-style weights act as x W^T, so the card's W^Q, W^K, W^V stack transposed into
# in_proj_weight, and W^O goes in transposed as out_proj.weight.
layer = torch.nn.MultiheadAttention(d, H, bias=False, batch_first=True, dtype=torch.float64)
with torch.no_grad():
    layer.in_proj_weight.copy_(torch.tensor(np.vstack([WQ.T, WK.T, WV.T])))
    layer.out_proj.weight.copy_(torch.tensor(WO.T))
xt = torch.tensor(x)[None]                                   # [batch 1, T, d]
torch_out, torch_weights = layer(xt, xt, xt)
# Products of width 32 and softmaxes over 6 keys, each a few ulps: the 1e-10 of the check above.
check_close("nn.MultiheadAttention(d, H, bias=False, batch_first=True) = MultiHead(X, X, X)",
            torch_out[0].detach().numpy(), out, rtol=1e-10, atol=1e-13)
# The weights it returns are the heads' weights averaged, not any one head's.
head_weights = [scipy_softmax((x @ WQ[:, h * d_h:(h + 1) * d_h]) @ (x @ WK[:, h * d_h:(h + 1) * d_h]).T
                              / np.sqrt(d_h), axis=1) for h in range(H)]
check_close("pitfall: need_weights returns the mean of the H heads' weights (average_attn_weights)",
            torch_weights[0].detach().numpy(), np.mean(head_weights, axis=0), rtol=1e-10, atol=1e-13)
# Left out, batch_first is False: a [1, T, d] batch reads as T sequences of one token, so each token
# attends only to itself and the layer returns x W^V W^O.
layer.batch_first = False
check_close("pitfall: batch_first=False reads [1, T, d] as T one-token sequences: x W^V W^O",
            layer(xt, xt, xt)[0][0].detach().numpy(), x @ WV @ WO, rtol=1e-10, atol=1e-13)
# --- end in code ---
