"""Multi-head attention: batched reshape form checked against a per-head loop, a sum form, H = 1."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


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


rng = np.random.default_rng(0)
T, d, H = 6, 32, 4
d_h = d // H
x = rng.normal(size=(T, d))
WQ, WK, WV, WO = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4))
out = multi_head_attention(x, WQ, WK, WV, WO, H)

# Independent route: the definition, one head at a time with its own column block of W^Q, W^K, W^V.
head_outputs = []
for h in range(H):
    cols = slice(h * d_h, (h + 1) * d_h)
    qh, kh, vh = x @ WQ[:, cols], x @ WK[:, cols], x @ WV[:, cols]
    head_outputs.append(scipy_softmax(qh @ kh.T / np.sqrt(d_h), axis=1) @ vh)
reference = np.concatenate(head_outputs, axis=1) @ WO
check_close("reshape/batched form vs per-head loop + Concat + W^O", out, reference, rtol=1e-10,
            atol=1e-13)

# Concat(heads) W^O equals the sum over heads of head_h times its row block of W^O.
summed = sum(head_outputs[h] @ WO[h * d_h:(h + 1) * d_h] for h in range(H))
check_close("Concat(head_h) W^O = sum_h head_h W^O_h", reference, summed, rtol=1e-10, atol=1e-13)

# With one head the layer is plain single-head attention at width d.
single = scipy_softmax((x @ WQ) @ (x @ WK).T / np.sqrt(d), axis=1) @ (x @ WV) @ WO
check_close("H = 1 reduces to single-head attention", multi_head_attention(x, WQ, WK, WV, WO, 1),
            single, rtol=1e-10, atol=1e-13)
check_true("heads differ from one full-width head (H = 4 vs H = 1)",
           np.abs(out - single).max() > 1e-3, f"max difference {np.abs(out - single).max():.3f}")
