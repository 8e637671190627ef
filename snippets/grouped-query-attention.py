"""Grouped-query attention: repeat-kv form vs the per-head definition with g(h), GQA-H = MHA,
GQA-1 = MQA, cache ratio G/H, and mean-pooling a multi-head checkpoint into groups."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax as scipy_softmax


# --- formula ---
def kv_head_of(n_heads, n_groups):
    """g(h) for h = 0..H-1: the query heads are split into G contiguous groups of H/G heads."""
    return np.arange(n_heads) // (n_heads // n_groups)


def grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_groups):
    """W^Q: d x H d_h (H query heads); W^K, W^V: d x G d_h (G key/value heads)."""
    t = x.shape[0]
    d_h = w_q.shape[1] // n_heads
    q = (x @ w_q).reshape(t, n_heads, d_h).transpose(1, 0, 2)    # [H, T, d_h]
    k = (x @ w_k).reshape(t, n_groups, d_h).transpose(1, 0, 2)   # [G, T, d_h]
    v = (x @ w_v).reshape(t, n_groups, d_h).transpose(1, 0, 2)   # [G, T, d_h]
    k = k[kv_head_of(n_heads, n_groups)]                          # [H, T, d_h]: head h reads g(h)
    v = v[kv_head_of(n_heads, n_groups)]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_h)
    scores = scores - scores.max(axis=2, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=2, keepdims=True)
    return (w @ v).transpose(1, 0, 2).reshape(t, n_heads * d_h) @ w_o


def mean_pool_kv(w_kv, n_heads, n_groups):
    """Uptraining conversion: average the K (or V) projection blocks of the heads in each group."""
    d, width = w_kv.shape
    d_h = width // n_heads
    return w_kv.reshape(d, n_groups, n_heads // n_groups, d_h).mean(axis=2).reshape(d, n_groups * d_h)
# --- end formula ---


rng = np.random.default_rng(0)
T, H, d_h = 6, 8, 4
d = 24                                    # model width different from H d_h on purpose
x = rng.normal(size=(T, d))
WQ = rng.normal(size=(d, H * d_h)) / np.sqrt(d)
WO = rng.normal(size=(H * d_h, d)) / np.sqrt(d)


def per_head_reference(x, wq, wk, wv, wo, n_heads, g_of_h):
    """head_h = Attention(x W_h^Q, x W_{g(h)}^K, x W_{g(h)}^V), scipy softmax, then Concat W^O."""
    heads = []
    for h in range(n_heads):
        g = g_of_h(h)
        qh = x @ wq[:, h * d_h:(h + 1) * d_h]
        kh, vh = x @ wk[:, g * d_h:(g + 1) * d_h], x @ wv[:, g * d_h:(g + 1) * d_h]
        heads.append(scipy_softmax(qh @ kh.T / np.sqrt(d_h), axis=1) @ vh)
    return np.concatenate(heads, axis=1) @ wo


# Group assignment: with H = 8 and G = 2, heads 0-3 read KV head 0 and heads 4-7 read KV head 1.
check_true("g(h) for H = 8, G = 2", kv_head_of(8, 2).tolist() == [0, 0, 0, 0, 1, 1, 1, 1])
check_true("g(h) for H = 8, G = 4", kv_head_of(8, 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3])

for G in (1, 2, 4, 8):
    WK = rng.normal(size=(d, G * d_h)) / np.sqrt(d)
    WV = rng.normal(size=(d, G * d_h)) / np.sqrt(d)
    ref = per_head_reference(x, WQ, WK, WV, WO, H, lambda h, G=G: (h * G) // H)
    check_close(f"GQA-{G}: repeat-kv form vs per-head loop with g(h) = floor(h G / H)",
                grouped_query_attention(x, WQ, WK, WV, WO, H, G), ref, rtol=1e-12, atol=1e-14)

# GQA-H is multi-head attention: every head has its own key and value block.
WK8 = rng.normal(size=(d, H * d_h)) / np.sqrt(d)
WV8 = rng.normal(size=(d, H * d_h)) / np.sqrt(d)
mha = per_head_reference(x, WQ, WK8, WV8, WO, H, lambda h: h)
check_close("GQA with G = H equals multi-head attention",
            grouped_query_attention(x, WQ, WK8, WV8, WO, H, H), mha, rtol=1e-12, atol=1e-14)

# GQA-1 is multi-query attention: one key and one value head, read by all.
WK1 = rng.normal(size=(d, d_h)) / np.sqrt(d)
WV1 = rng.normal(size=(d, d_h)) / np.sqrt(d)
mqa = np.concatenate([scipy_softmax((x @ WQ[:, h * d_h:(h + 1) * d_h]) @ (x @ WK1).T / np.sqrt(d_h),
                                    axis=1) @ (x @ WV1) for h in range(H)], axis=1) @ WO
check_close("GQA with G = 1 equals multi-query attention",
            grouped_query_attention(x, WQ, WK1, WV1, WO, H, 1), mqa, rtol=1e-12, atol=1e-14)

# Wide scores (span > 1000): the row-max shift keeps exp finite.
xw = 25.0 * x
span = np.ptp((xw @ WQ[:, :d_h]) @ (xw @ WK8[:, :d_h]).T / np.sqrt(d_h))
check_close(f"scores spanning {span:.0f}: G = H still equals the loop",
            grouped_query_attention(xw, WQ, WK8, WV8, WO, H, H),
            per_head_reference(xw, WQ, WK8, WV8, WO, H, lambda h: h), rtol=1e-11, atol=1e-12)

# KV cache: G key heads + G value heads of width d_h per position: a fraction G/H of MHA's.
for G in (1, 2, 4, 8):
    k_cache = (x @ rng.normal(size=(d, G * d_h))).reshape(T, G, d_h)
    check_close(f"cache ratio GQA-{G} / MHA = G/H", 2 * k_cache.size / (2 * T * H * d_h), G / H,
                rtol=1e-15)

# Uptraining (Ainslie et al., Sec. 2.1): mean-pool the K and V head blocks within each group.
G = 2
pooled = mean_pool_kv(WK8, H, G)
manual = np.concatenate([np.mean([WK8[:, h * d_h:(h + 1) * d_h] for h in range(g * 4, g * 4 + 4)],
                                 axis=0) for g in range(G)], axis=1)
check_close("mean-pooled K projection = average of the 4 head blocks in each group", pooled, manual,
            rtol=1e-13)
# If the heads of a group already share K/V projections, pooling loses nothing: GQA == MHA.
WK_shared = np.repeat(rng.normal(size=(d, G, 1, d_h)), H // G, axis=2).reshape(d, H * d_h)
WV_shared = np.repeat(rng.normal(size=(d, G, 1, d_h)), H // G, axis=2).reshape(d, H * d_h)
check_close("pooling heads that are already tied within groups is exact",
            grouped_query_attention(x, WQ, mean_pool_kv(WK_shared, H, G), mean_pool_kv(WV_shared, H, G),
                                    WO, H, G),
            per_head_reference(x, WQ, WK_shared, WV_shared, WO, H, lambda h: h), rtol=1e-12, atol=1e-14)

# The page's calculator is checked against kv_head_of on these (H, G) pairs: G read off as the number of
# distinct key/value heads g(h) reaches and H/G as the size of each group, from MQA (G = 1) to MHA (G = H).
import cardcalc  # noqa: E402


def cache_budget(h, h_kv, d_h):
    """The cache numbers per position and layer, its fraction of MHA's and the group size, from g(h)."""
    groups = np.bincount(kv_head_of(h, h_kv))
    return {"n_kv": 2 * groups.size * d_h, "f": groups.size / h, "r": groups[0]}


cardcalc.table(cache_budget, [{"h": H, "h_kv": G, "d_h": d_h} for H, G in
                              ((1, 1), (8, 1), (8, 2), (8, 8), (32, 8), (64, 8), (96, 96), (71, 1))
                              for d_h in (64, 128)])

# The In code sections' inputs: G = 2 key/value heads for the H = 8 query heads.
G = 2
draw = np.random.default_rng(1)
WK2, WV2 = draw.normal(size=(d, G * d_h)) / np.sqrt(d), draw.normal(size=(d, G * d_h)) / np.sqrt(d)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# H = 8 query heads over G = 2 key/value heads, in the [heads, T, d_h] layout torch takes.
card_gqa = grouped_query_attention(x, WQ, WK2, WV2, WO, H, G)
q_heads = torch.tensor((x @ WQ).reshape(T, H, d_h).transpose(1, 0, 2))
k_heads = torch.tensor((x @ WK2).reshape(T, G, d_h).transpose(1, 0, 2))
v_heads = torch.tensor((x @ WV2).reshape(T, G, d_h).transpose(1, 0, 2))


def merged(heads):
    """[H, T, d_h] head outputs -> Concat(head_1 .. head_H) W^O."""
    return np.asarray(heads).transpose(1, 0, 2).reshape(T, H * d_h) @ WO


# Width-4 dot products and softmaxes over 6 keys: a few ulps, as the 1e-12 of the checks above.
check_close("F.scaled_dot_product_attention(Q, K, V, enable_gqa=True) = GQA-2",
            merged(F.scaled_dot_product_attention(q_heads, k_heads, v_heads, enable_gqa=True)),
            card_gqa, rtol=1e-12, atol=1e-14)
# Expanding K and V by hand: Tensor.repeat tiles the heads (0, 1, 0, 1, ...), so head h reads
# g(h) = h mod G instead of the card's contiguous floor(h G / H).
tiled = merged(F.scaled_dot_product_attention(q_heads, k_heads.repeat(H // G, 1, 1),
                                              v_heads.repeat(H // G, 1, 1)))
check_close("pitfall: K.repeat(H/G, 1, 1) pairs head h with KV head h mod G",
            tiled, per_head_reference(x, WQ, WK2, WV2, WO, H, lambda h: h % G), rtol=1e-12, atol=1e-14)
check_true("which is not the card's grouping", np.abs(tiled - card_gqa).max() > 1e-3,
           f"max difference {np.abs(tiled - card_gqa).max():.3g}")
check_close("fix: K.repeat_interleave(H/G, dim=0) gives the card's groups",
            merged(F.scaled_dot_product_attention(q_heads, k_heads.repeat_interleave(H // G, dim=0),
                                                  v_heads.repeat_interleave(H // G, dim=0))),
            card_gqa, rtol=1e-12, atol=1e-14)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64 inputs, as the card's numpy
# jax takes [batch, T, heads, d_h] and groups the H query heads contiguously over the G KV heads.
jax_heads = jax.nn.dot_product_attention(jax.numpy.asarray((x @ WQ).reshape(1, T, H, d_h)),
                                         jax.numpy.asarray((x @ WK2).reshape(1, T, G, d_h)),
                                         jax.numpy.asarray((x @ WV2).reshape(1, T, G, d_h)))
jax_gqa = np.asarray(jax_heads)[0].reshape(T, H * d_h) @ WO
# Its softmax runs in float32 even on float64 inputs: each weight is off by up to
# (max|s| + a few ulps) 2^-24 relative, a head output by that times max|v|, and a row of the
# result by that times the largest absolute column sum of W^O; twice that is the tolerance.
gqa_scores = np.einsum("thd,shd->hts", (x @ WQ).reshape(T, H, d_h),
                       (x @ WK2).reshape(T, G, d_h)[:, np.arange(H) // (H // G)]) / np.sqrt(d_h)
f32_atol = (2 * (np.abs(gqa_scores).max() + 4) * 2.0**-24 * np.abs(x @ WV2).max()
            * np.abs(WO).sum(axis=0).max())
check_close("jax.nn.dot_product_attention with G key/value heads = GQA-2, to float32's rounding",
            jax_gqa, grouped_query_attention(x, WQ, WK2, WV2, WO, H, G), rtol=0, atol=f32_atol)
# --- end in code ---
