"""Multi-query attention: batched form vs the per-head definition, vs MHA with tied K/V heads,
incremental decoding from a one-head KV cache, and the cache size ratio 1/H."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


# --- formula ---
def multi_query_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    """H query heads (W^Q: d x H d_h), one shared key head and value head (W^K, W^V: d x d_h)."""
    t = x.shape[0]
    d_h = w_k.shape[1]
    q = (x @ w_q).reshape(t, n_heads, d_h).transpose(1, 0, 2)   # [H, T, d_h]
    k = x @ w_k                                                   # [T, d_h], shared by all heads
    v = x @ w_v                                                   # [T, d_h], shared by all heads
    scores = q @ k.T / np.sqrt(d_h)                               # [H, T, T]
    if causal:
        scores = np.where(np.arange(t)[None, :] <= np.arange(t)[:, None], scores, -np.inf)
    scores = scores - scores.max(axis=2, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=2, keepdims=True)
    heads = w @ v                                                 # [H, T, d_h]
    return heads.transpose(1, 0, 2).reshape(t, n_heads * d_h) @ w_o


def kv_cache_elements(seq_len, d_h, kv_heads=1):
    """Numbers stored per layer: a key and a value of width d_h, per KV head, per position."""
    return 2 * kv_heads * d_h * seq_len
# --- end formula ---


rng = np.random.default_rng(0)
T, H, d_h = 7, 4, 5
d = H * d_h
x = rng.normal(size=(T, d))
WQ = rng.normal(size=(d, H * d_h)) / np.sqrt(d)
WK = rng.normal(size=(d, d_h)) / np.sqrt(d)
WV = rng.normal(size=(d, d_h)) / np.sqrt(d)
WO = rng.normal(size=(H * d_h, d)) / np.sqrt(d)
out = multi_query_attention(x, WQ, WK, WV, WO, H)

# Reference 1: the definition, head by head: head_h = Attention(x W_h^Q, x W^K, x W^V).
heads = []
for h in range(H):
    qh = x @ WQ[:, h * d_h:(h + 1) * d_h]
    heads.append(scipy_softmax(qh @ (x @ WK).T / np.sqrt(d_h), axis=1) @ (x @ WV))
check_close("batched MQA vs per-head loop with shared K, V", out,
            np.concatenate(heads, axis=1) @ WO, rtol=1e-12, atol=1e-14)

# Wide scores (span > 1000): the max shift keeps exp finite.
xw = 30.0 * x
heads_w = [scipy_softmax((xw @ WQ[:, h * d_h:(h + 1) * d_h]) @ (xw @ WK).T / np.sqrt(d_h), axis=1)
           @ (xw @ WV) for h in range(H)]
span = np.ptp((xw @ WQ[:, :d_h]) @ (xw @ WK).T / np.sqrt(d_h))
check_close(f"scores spanning {span:.0f}: per-head loop still agrees",
            multi_query_attention(xw, WQ, WK, WV, WO, H), np.concatenate(heads_w, axis=1) @ WO,
            rtol=1e-11, atol=1e-12)

# Reference 2: an ordinary multi-head layer whose H key heads (and value heads) are all copies.
WK_tied, WV_tied = np.tile(WK, (1, H)), np.tile(WV, (1, H))
mha = []
for h in range(H):
    c = slice(h * d_h, (h + 1) * d_h)
    s = (x @ WQ[:, c]) @ (x @ WK_tied[:, c]).T / np.sqrt(d_h)
    mha.append(scipy_softmax(s, axis=1) @ (x @ WV_tied[:, c]))
check_close("MQA = MHA with every K/V head tied", out, np.concatenate(mha, axis=1) @ WO,
            rtol=1e-12, atol=1e-14)

# Reference 3: incremental decoding. The cache holds ONE key and value row per position;
# step t attends from its H queries to cache[:t+1] and must equal row t of the causal pass.
full = multi_query_attention(x, WQ, WK, WV, WO, H, causal=True)
k_cache, v_cache = np.empty((0, d_h)), np.empty((0, d_h))
steps = []
for t in range(T):
    k_cache = np.vstack([k_cache, x[t] @ WK])
    v_cache = np.vstack([v_cache, x[t] @ WV])
    q_t = (x[t] @ WQ).reshape(H, d_h)
    o_t = np.concatenate([scipy_softmax(q_t[h] @ k_cache.T / np.sqrt(d_h)) @ v_cache
                          for h in range(H)])
    steps.append(o_t @ WO)
check_close("step-by-step decoding from a one-head KV cache = causal MQA", full, np.array(steps),
            rtol=1e-12, atol=1e-14)
check_close("first causal row attends only to itself", full[0],
            np.tile(x[0] @ WV, H) @ WO, rtol=1e-12)

# KV-cache size: MQA stores 2 d_h numbers per position per layer; MHA stores 2 H d_h.
check_close("cache elements after decoding T tokens", kv_cache_elements(T, d_h),
            k_cache.size + v_cache.size, rtol=0)
for h_q in (8, 32, 64):
    check_close(f"cache ratio MQA / MHA = 1/H at H = {h_q}",
                kv_cache_elements(4096, 128) / kv_cache_elements(4096, 128, kv_heads=h_q),
                1 / h_q, rtol=1e-15)

# K/V projection parameters shrink from 2 d^2 to 2 d d_h; queries and output are unchanged.
check_true("K/V projection parameters: 2 d d_h = 2 d^2 / H",
           WK.size + WV.size == 2 * d * d // H, f"{WK.size + WV.size} vs {2 * d * d // H}")

# The page's calculator is checked against kv_cache_elements for one position, with one KV head and with H.
import cardcalc  # noqa: E402

cardcalc.table(lambda H, d_h: {"n_mqa": kv_cache_elements(1, d_h),
                               "n_mha": kv_cache_elements(1, d_h, kv_heads=H)},
               cardcalc.grid(H=(1, 8, 71, 128), d_h=(1, 64, 128, 256)))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Queries as [H, T, d_h]; the one key head and value head as [1, T, d_h], which broadcasts over H.
q_heads = torch.tensor((x @ WQ).reshape(T, H, d_h).transpose(1, 0, 2))
k_one, v_one = torch.tensor(x @ WK)[None], torch.tensor(x @ WV)[None]


def merged(heads):
    """[H, T', d_h] head outputs -> Concat(head_1 .. head_H) W^O."""
    return heads.numpy().transpose(1, 0, 2).reshape(heads.shape[1], H * d_h) @ WO


# Width-5 dot products and softmaxes over 7 keys, a few ulps each: the 1e-12 of the checks above.
check_close("F.scaled_dot_product_attention(Q, K, V), K and V with one head = MQA",
            merged(F.scaled_dot_product_attention(q_heads, k_one, v_one)), out, rtol=1e-12, atol=1e-14)
check_close("enable_gqa=True with one key/value head: the same, causal",
            merged(F.scaled_dot_product_attention(q_heads, k_one, v_one, is_causal=True, enable_gqa=True)),
            full,
            rtol=1e-12, atol=1e-14)
# Decoding: the newest token's H queries against the whole one-head cache need no mask at all.
q_last = q_heads[:, -1:]
check_close("decoding step: sdpa(q_T, K_cache, V_cache) with no mask = last causal row",
            merged(F.scaled_dot_product_attention(q_last, k_one, v_one))[0], full[-1], rtol=1e-12, atol=1e-14)
# is_causal aligns its mask to the top left: one query against T keys sees key 0 only.
check_close("pitfall: is_causal=True on a one-query decoding step lets it see only the first key",
            merged(F.scaled_dot_product_attention(q_last, k_one, v_one, is_causal=True))[0],
            np.tile(x[0] @ WV, H) @ WO, rtol=1e-12, atol=1e-14)
# --- end in code ---
