"""Multi-head latent attention: the explicit form (DeepSeek-V2 Eqs. 9-19) against a per-head loop with
product matrices and complex-number RoPE, against an absorbed decode loop that caches only c^KV and
k^R, and the per-token cache sizes against the tensors such loops store, with the paper's numbers."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as sp_softmax


# --- formula ---
def rope(x, positions, base=10000.0):
    """Rotate each pair (x_2m, x_2m+1) of the last axis by position * base^(-2m / width); the
    second-to-last axis of x runs over positions."""
    theta = base ** (-np.arange(0, x.shape[-1], 2) / x.shape[-1])
    angle = positions[:, None] * theta
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * np.cos(angle) - odd * np.sin(angle)
    out[..., 1::2] = even * np.sin(angle) + odd * np.cos(angle)
    return out


def heads(x, n_h):
    """(T, n_h * w) -> (n_h, T, w): slice a projection into its heads."""
    return x.reshape(x.shape[0], n_h, x.shape[1] // n_h).transpose(1, 0, 2)


def mla(h, W, n_h, positions):
    """Causal MLA over the rows of h; W holds the paper's matrices, each (out, in) as it writes them."""
    T = h.shape[0]
    d_h = W["UK"].shape[0] // n_h
    d_hr = W["KR"].shape[0]
    c_kv = h @ W["DKV"].T                                    # Eq. 9: the latent, cached
    k_c = heads(c_kv @ W["UK"].T, n_h)                        # Eq. 10
    v_c = heads(c_kv @ W["UV"].T, n_h)                        # Eq. 11
    c_q = h @ W["DQ"].T                                       # Eq. 12
    q_c = heads(c_q @ W["UQ"].T, n_h)                         # Eq. 13
    q_r = rope(heads(c_q @ W["QR"].T, n_h), positions)        # Eq. 14: one rotary query per head
    k_r = rope(h @ W["KR"].T, positions)                      # Eq. 15: one rotary key, shared, cached
    q = np.concatenate([q_c, q_r], axis=-1)                   # Eq. 16
    k = np.concatenate([k_c, np.broadcast_to(k_r, (n_h, T, d_hr))], axis=-1)   # Eq. 17
    s = q @ k.transpose(0, 2, 1) / np.sqrt(d_h + d_hr)
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    o = (w / w.sum(axis=-1, keepdims=True)) @ v_c             # Eq. 18
    return o.transpose(1, 0, 2).reshape(T, n_h * d_h) @ W["O"].T   # Eq. 19


def cache_mha(n_h, d_h):
    """Elements cached per token per layer: a key and a value for every head."""
    return 2 * n_h * d_h


def cache_gqa(n_g, d_h):
    return 2 * n_g * d_h


def cache_mla(d_c, d_hr):
    return d_c + d_hr
# --- end formula ---


rng = np.random.default_rng(0)
d, n_h, d_h, d_hr, d_c, d_cq, T = 16, 4, 6, 4, 10, 12, 9
shapes = {"DKV": (d_c, d), "UK": (n_h * d_h, d_c), "UV": (n_h * d_h, d_c), "DQ": (d_cq, d),
          "UQ": (n_h * d_h, d_cq), "QR": (n_h * d_hr, d_cq), "KR": (d_hr, d), "O": (d, n_h * d_h)}
W = {name: rng.normal(size=s) / np.sqrt(s[1]) for name, s in shapes.items()}
h = rng.normal(size=(T, d))
pos = np.arange(T) + 40.0      # far enough out that every rotary frequency has turned


def rope_complex(x, p):
    """RoPE as complex multiplication: pair m is x_2m + i x_2m+1, turned by e^{i p / 10000^(2m/w)}."""
    z = x[0::2] + 1j * x[1::2]
    z = z * np.exp(1j * p / 10000.0 ** (np.arange(len(z)) * 2 / len(x)))
    return np.ravel(np.column_stack([z.real, z.imag]))


def block(M, i, w):
    return M[i * w:(i + 1) * w]


def per_head_reference(h, W, p):
    """Each head's key and value from the product matrices W^UK_i W^DKV and W^UV_i W^DKV, one query
    position at a time, scipy's softmax over the positions j <= t."""
    out = np.zeros((len(h), W["O"].shape[0]))
    for t in range(len(h)):
        for i in range(n_h):
            wq = block(W["UQ"], i, d_h) @ W["DQ"]
            q = np.concatenate([wq @ h[t], rope_complex(block(W["QR"], i, d_hr) @ W["DQ"] @ h[t], p[t])])
            keys = [np.concatenate([block(W["UK"], i, d_h) @ W["DKV"] @ h[j],
                                    rope_complex(W["KR"] @ h[j], p[j])]) for j in range(t + 1)]
            a = sp_softmax([q @ k / np.sqrt(d_h + d_hr) for k in keys])
            o = sum(a[j] * (block(W["UV"], i, d_h) @ W["DKV"] @ h[j]) for j in range(t + 1))
            out[t] += W["O"][:, i * d_h:(i + 1) * d_h] @ o
    return out


# Sums of a few dozen products of O(1) numbers, taken in another order: a few ulps, so 1e-11 is ample.
ours = mla(h, W, n_h, pos)
check_close("explicit MLA (Eqs. 9-19) = per-head loop with product matrices and complex RoPE", ours,
            per_head_reference(h, W, pos), rtol=1e-11, atol=1e-13)


def absorbed_decode(h, W, p):
    """Token by token, caching only c^KV_t (d_c numbers) and k^R_t (d_h^R numbers). W^UK_i is folded
    into the query (q^C_i W^UK_i lives in latent space) and W^UV_i into the output (W^O_i W^UV_i), so no
    key or value of any head is ever formed."""
    cache_c, cache_kr, out = [], [], []
    for t in range(len(h)):
        cache_c.append(W["DKV"] @ h[t])
        cache_kr.append(rope_complex(W["KR"] @ h[t], p[t]))
        C, KR = np.array(cache_c), np.array(cache_kr)
        c_q = W["DQ"] @ h[t]
        u = np.zeros(W["O"].shape[0])
        for i in range(n_h):
            q_latent = block(W["UK"], i, d_h).T @ (block(W["UQ"], i, d_h) @ c_q)      # absorbed W^UK
            q_rot = rope_complex(block(W["QR"], i, d_hr) @ c_q, p[t])
            a = sp_softmax((C @ q_latent + KR @ q_rot) / np.sqrt(d_h + d_hr))
            u += (W["O"][:, i * d_h:(i + 1) * d_h] @ block(W["UV"], i, d_h)) @ (a @ C)  # absorbed W^UV
        out.append(u)
    return np.array(out), np.array(cache_c), np.array(cache_kr)


absorbed, C, KR = absorbed_decode(h, W, pos)
check_close("absorbed decode (W^UK into the query, W^UV into W^O) = explicit form", ours, absorbed,
            rtol=1e-11, atol=1e-13)
check_true("the absorbed decode stored d_c + d_h^R numbers per token and nothing else",
           C.size + KR.size == T * cache_mla(d_c, d_hr), f"{C.size + KR.size} stored for {T} tokens")

# The decoupled key carries position; the latent part does not, so a shift of every position by 1000
# leaves the output unchanged (RoPE sees only differences), while moving one token's position does not.
check_close("positions shifted by 1000: same output", mla(h, W, n_h, pos + 1000.0), ours, rtol=1e-9,
            atol=1e-11)
moved = pos.copy()
moved[3] += 1.0
check_true("one token's position moved: the output changes",
           np.max(np.abs(mla(h, W, n_h, moved) - ours)) > 1e-3)
# Without the rotary half (W^QR = W^KR = 0) MLA is multi-head attention with low-rank W^K = W^UK W^DKV,
# but the 1/sqrt(d_h + d_h^R) scale of Eq. 18 still counts the rotary width.
W0 = dict(W, QR=0 * W["QR"], KR=0 * W["KR"])
check_close("W^QR = W^KR = 0: the loop reference still agrees (scale 1/sqrt(d_h + d_h^R))",
            mla(h, W0, n_h, pos), per_head_reference(h, W0, pos), rtol=1e-11, atol=1e-13)

# Large inputs: scores spanning more than 709 overflow exp unless the row maximum is subtracted. A score
# of size S carries a rounding error of about S * eps (2e-13 here), which moves the weights by as much:
# 1e-9 leaves room, and a missing or wrong shift gives nan.
big = 12.0 * h
span = np.ptp((block(W["UQ"], 0, d_h) @ W["DQ"] @ big.T).T @ (block(W["UK"], 0, d_h) @ W["DKV"] @ big.T))
check_close(f"inputs x12 (head 0's scores spanning {span:.0f}): still equals the loop", mla(big, W, n_h, pos),
            per_head_reference(big, W, pos), rtol=1e-9, atol=1e-10)


def gqa_decode_cache(h, n_g, d_h, n_q=4):
    """A grouped-query decode loop (n_g key/value heads, n_q query heads): the keys and values it
    stores, and its output against the full causal computation."""
    wq = rng.normal(size=(n_q * d_h, d)) / 4
    wk, wv = rng.normal(size=(2, n_g * d_h, d)) / 4
    k_cache, v_cache, outs = [], [], []
    for t in range(len(h)):
        k_cache.append((wk @ h[t]).reshape(n_g, d_h))
        v_cache.append((wv @ h[t]).reshape(n_g, d_h))
        K, V = np.array(k_cache), np.array(v_cache)
        q = (wq @ h[t]).reshape(n_q, d_h)
        g = np.arange(n_q) // (n_q // n_g)
        outs.append([sp_softmax(K[:, g[i]] @ q[i] / np.sqrt(d_h)) @ V[:, g[i]] for i in range(n_q)])
    full = []
    for i in range(n_q):
        g = i // (n_q // n_g)
        s = (h @ wq[i * d_h:(i + 1) * d_h].T) @ (h @ wk[g * d_h:(g + 1) * d_h].T).T / np.sqrt(d_h)
        s[np.triu_indices(len(h), 1)] = -np.inf
        full.append(sp_softmax(s, axis=1) @ (h @ wv[g * d_h:(g + 1) * d_h].T))
    check_close(f"{n_g} KV heads: decode loop = full causal attention", np.array(outs),
                np.array(full).transpose(1, 0, 2), rtol=1e-11, atol=1e-13)
    return (np.array(k_cache).size + np.array(v_cache).size) // len(h)


stored = {n_g: gqa_decode_cache(h, n_g, d_h) for n_g in (4, 2, 1)}
for n_g in (2, 1):
    check_true(f"GQA, {n_g} KV heads: stored per token = 2 n_g d_h", stored[n_g] == cache_gqa(n_g, d_h),
               f"{stored[n_g]}")
check_true("MHA (4 KV heads for 4 query heads): stored per token = 2 n_h d_h", stored[4] == cache_mha(4, d_h),
           f"{stored[4]}")

# DeepSeek-V2's own numbers (Sec. 2.1.4, Table 1; config: 128 heads of 128, kv_lora_rank 512,
# qk_rope_head_dim 64): d_c = 4 d_h and d_h^R = d_h / 2 give 9/2 d_h per layer, the cache of GQA with
# 2.25 groups; against MHA with the same 128 heads it is 576 of 32,768 numbers.
v2_dh = 128
check_true("DeepSeek-V2: d_c + d_h^R = 512 + 64 = 576 = 9/2 d_h",
           cache_mla(4 * v2_dh, v2_dh // 2) == 576 == 9 * v2_dh // 2)
check_close("DeepSeek-V2: MLA's cache = GQA with 2.25 groups", cache_mla(512, 64), cache_gqa(2.25, v2_dh),
            rtol=0)
check_true("DeepSeek-V2: MHA with 128 heads of 128 caches 32,768 per token per layer",
           cache_mha(128, v2_dh) == 32768)
check_close("DeepSeek-V2: MLA / MHA = 576 / 32768 = 1.76%", cache_mla(512, 64) / cache_mha(128, 128),
            0.017578125, rtol=1e-15)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# nn.Linear stores its weight as (out, in), the orientation the paper writes, so W's matrices load as
# they are. Queries and keys are d_h + d_h^R wide, values d_h: sdpa accepts the narrower values.
c_kv, c_q = h @ W["DKV"].T, h @ W["DQ"].T
k_rot = rope(h @ W["KR"].T, pos)                                       # the shared rotary key, [T, d_h^R]
q_full = np.concatenate([heads(c_q @ W["UQ"].T, n_h), rope(heads(c_q @ W["QR"].T, n_h), pos)], axis=-1)
k_full = np.concatenate([heads(c_kv @ W["UK"].T, n_h), np.broadcast_to(k_rot, (n_h, T, d_hr))], axis=-1)


def mla_output(o_heads):
    """[n_h, T, d_h] head outputs -> Concat W^O^T (Eq. 19)."""
    return o_heads.transpose(1, 0, 2).reshape(T, n_h * d_h) @ W["O"].T


# Sums of a few dozen products, a few ulps: the 1e-11 of the checks above.
explicit = F.scaled_dot_product_attention(torch.tensor(q_full), torch.tensor(k_full),
                                          torch.tensor(heads(c_kv @ W["UV"].T, n_h)), is_causal=True)
check_close("sdpa([q^C; q^R], [k^C; k^R], v^C, is_causal=True), default scale 1/sqrt(d_h + d_h^R) = MLA",
            mla_output(explicit.numpy()), ours, rtol=1e-11, atol=1e-13)
# The absorbed form runs as multi-query attention over the cache itself: queries q^C_i W^UK_i in latent
# space, one shared key [c^KV; k^R] and value c^KV per token. The queries are now d_c + d_h^R wide, so
# sdpa's default scale would be 1/sqrt(d_c + d_h^R): the scale must be passed.
q_latent = np.einsum("itd,idc->itc", heads(c_q @ W["UQ"].T, n_h), W["UK"].reshape(n_h, d_h, d_c))
q_abs = np.concatenate([q_latent,
                        rope(heads(c_q @ W["QR"].T, n_h), pos)], axis=-1)
k_abs, v_abs = np.concatenate([c_kv, k_rot], axis=1)[None], c_kv[None]


def absorbed_sdpa(**options):
    latent = F.scaled_dot_product_attention(torch.tensor(q_abs), torch.tensor(k_abs), torch.tensor(v_abs),
                                            is_causal=True, **options).numpy()
    return mla_output(np.einsum("itc,idc->itd", latent, W["UV"].reshape(n_h, d_h, d_c)))   # absorbed W^UV


check_close("absorbed: sdpa(q latent, [c^KV; k^R], c^KV, scale=1/sqrt(d_h + d_h^R)) = MLA",
            absorbed_sdpa(scale=1 / np.sqrt(d_h + d_hr)), ours, rtol=1e-11, atol=1e-13)
# Left out, the scale is 1/sqrt(d_c + d_h^R): the card's logits times sqrt((d_h + d_h^R) / (d_c + d_h^R)),
# which is MLA with W^UQ and W^QR multiplied by that factor.
shrink = np.sqrt((d_h + d_hr) / (d_c + d_hr))
check_close("pitfall: absorbed, the default scale 1/sqrt(d_c + d_h^R) shrinks every logit by sqrt(10/14)",
            absorbed_sdpa(), mla(h, dict(W, UQ=shrink * W["UQ"], QR=shrink * W["QR"]), n_h, pos),
            rtol=1e-11, atol=1e-13)
# --- end in code ---

fig, ax = figure("KV cache per token per layer, DeepSeek-V2's head shape", "elements (log scale)",
                 "attention", size=(6.0, 3.2))
names = ["MHA (128 heads)", "GQA, 8 groups", "MLA (512 + 64)", "MQA"]
values = [cache_mha(128, 128), cache_gqa(8, 128), cache_mla(512, 64), cache_gqa(1, 128)]
ax.barh(names, values, edgecolor="black")
ax.set_xscale("log")
ax.invert_yaxis()
for y, v in enumerate(values):
    ax.text(v, y, f" {v:,}", va="center", fontsize=8)

# The page's calculator is checked against cache_mla, cache_mha and cache_gqa on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda h, d_h, h_kv, d_c, d_hr: {
    "M_mla": cache_mla(d_c, d_hr), "M_mha": cache_mha(h, d_h), "M_gqa": cache_gqa(h_kv, d_h),
    "r": cache_mla(d_c, d_hr) / cache_mha(h, d_h)},
    cardcalc.grid(h=(1, 32, 128), d_h=(64, 128), h_kv=(1, 8), d_c=(1, 512), d_hr=(0, 64)))
