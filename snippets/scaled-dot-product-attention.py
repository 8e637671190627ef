"""Scaled dot-product attention: matrix form vs a per-query loop with scipy's softmax."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


# --- formula ---
def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(Q K^T / sqrt(d_k)) V, with the softmax over key positions (max-shifted);
    leading axes (batch, heads) broadcast."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v
# --- end formula ---


rng = np.random.default_rng(0)
n_q, n_k, d_k, d_v = 5, 7, 16, 3
Q = rng.normal(size=(n_q, d_k))
K = rng.normal(size=(n_k, d_k))
V = rng.normal(size=(n_k, d_v))
out = attention(Q, K, V)

# Independent route 1: scalar loops over queries and keys, with scipy's softmax.
loop = np.zeros((n_q, d_v))
for i in range(n_q):
    s = np.array([sum(Q[i, c] * K[j, c] for c in range(d_k)) for j in range(n_k)]) / d_k**0.5
    w = scipy_softmax(s)
    for j in range(n_k):
        loop[i] += w[j] * V[j]
check_close("matrix form vs per-query loop with scipy softmax", out, loop, rtol=1e-12, atol=1e-14)

# Independent route 2: with one-hot values each output column is the weight on that key,
# so the outputs must be the softmax of the scaled scores, rows summing to one.
weights = attention(Q, K, np.eye(n_k))
check_close("attention weights vs scipy softmax of QK^T/sqrt(d_k)", weights,
            scipy_softmax(Q @ K.T / np.sqrt(d_k), axis=1), rtol=1e-12)
check_true("outputs lie inside the range of the values",
           bool(np.all(out <= V.max(axis=0) + 1e-12) and np.all(out >= V.min(axis=0) - 1e-12)))

# Permuting the keys and values together leaves the output unchanged (attention is a set operation).
perm = rng.permutation(n_k)
check_close("invariance to a joint permutation of keys and values",
            attention(Q, K[perm], V[perm]), out, rtol=1e-12, atol=1e-14)

# Several heads at once (leading axis H = 3), each against the per-query loop above run head by head;
# and wide scores (inputs scaled by 30, logits spanning thousands), where exp must not overflow.
Qh, Kh, Vh = rng.normal(size=(3, n_q, d_k)), rng.normal(size=(3, n_k, d_k)), rng.normal(size=(3, n_k, d_v))
per_head = np.stack([scipy_softmax(Qh[h] @ Kh[h].T / np.sqrt(d_k), axis=1) @ Vh[h] for h in range(3)])
check_close("batched over 3 heads vs head-by-head scipy softmax", attention(Qh, Kh, Vh), per_head,
            rtol=1e-12, atol=1e-14)
wide = attention(30 * Q, 30 * K, V)
check_close("wide scores (span > 1000): matrix form vs scipy softmax", wide,
            scipy_softmax(900 * Q @ K.T / np.sqrt(d_k), axis=1) @ V, rtol=1e-9, atol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# A mask in the card's terms: query i may attend to keys 0 .. i + 2, i.e. the card's formula over
# those keys alone.
allowed = np.tril(np.ones((n_q, n_k), dtype=bool), k=2)
seen = np.stack([attention(Q[i], K[allowed[i]], V[allowed[i]]) for i in range(n_q)])
q_t, k_t, v_t = (torch.tensor(a)[None] for a in (Q, K, V))  # (batch 1, positions, features)
check_close("F.scaled_dot_product_attention(Q, K, V) = the card",
            F.scaled_dot_product_attention(q_t, k_t, v_t)[0].numpy(), out, rtol=1e-12, atol=1e-14)
check_close("its boolean attn_mask is True where a query MAY attend",
            F.scaled_dot_product_attention(q_t, k_t, v_t, attn_mask=torch.tensor(allowed))[0].numpy(), seen,
            rtol=1e-12, atol=1e-14)
# nn.MultiheadAttention, one head, projections set to the identity, so it computes the card's
# formula; its value width is the model width, so the keys serve as the values here.
mha = torch.nn.MultiheadAttention(d_k, 1, bias=False, batch_first=True, dtype=torch.float64)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.eye(d_k).repeat(3, 1))
    mha.out_proj.weight.copy_(torch.eye(d_k))
seen_keys = np.stack([attention(Q[i], K[allowed[i]], K[allowed[i]]) for i in range(n_q)])
masked_out, _ = mha(q_t, k_t, k_t, attn_mask=torch.tensor(~allowed), need_weights=False)
check_close("pitfall: nn.MultiheadAttention's boolean attn_mask is True where a query may NOT attend",
            masked_out[0].detach().numpy(), seen_keys, rtol=1e-12, atol=1e-14)
same_mask, _ = mha(q_t, k_t, k_t, attn_mask=torch.tensor(allowed), need_weights=False)
check_true("so the mask that is right for F.scaled_dot_product_attention is inverted there",
           np.abs(same_mask[0].detach().numpy() - seen_keys).max() > 1e-3)
# --- end in code ---
