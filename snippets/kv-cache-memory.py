"""KV-cache bytes 2 L H_kv d_h T B b: measured as the nbytes of the cache arrays a real grouped-query
decode loop fills (whose output matches a full recomputation), and checked against published
per-token sizes."""

import numpy as np
from cardcheck import check_close
from cardplot import figure


# --- formula ---
def kv_cache_bytes(n_layer, n_kv_heads, head_dim, seq_len, batch, bytes_per_el):
    """Keys and values (the 2), for every layer, KV head, position and sequence."""
    return 2 * n_layer * n_kv_heads * head_dim * seq_len * batch * bytes_per_el
# --- end formula ---


def softmax(s):
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def run(n_layer, H, H_kv, dh, T, B, rng):
    """Decode T tokens for B sequences with grouped-query attention and a preallocated cache.
    Returns the cache and the max difference to recomputing every position without a cache."""
    d, group = H * dh, H // H_kv
    Ws = [{"q": rng.normal(0, d**-0.5, (d, H * dh)), "k": rng.normal(0, d**-0.5, (d, H_kv * dh)),
           "v": rng.normal(0, d**-0.5, (d, H_kv * dh)), "o": rng.normal(0, d**-0.5, (H * dh, d))}
          for _ in range(n_layer)]
    x_in = rng.normal(size=(B, T, d))
    cache = [{"k": np.zeros((B, H_kv, T, dh)), "v": np.zeros((B, H_kv, T, dh))} for _ in range(n_layer)]
    out_cached = np.empty((B, T, d))
    for t in range(T):
        x = x_in[:, t]
        for w, c in zip(Ws, cache, strict=True):
            q = (x @ w["q"]).reshape(B, H, dh)
            c["k"][:, :, t] = (x @ w["k"]).reshape(B, H_kv, dh)
            c["v"][:, :, t] = (x @ w["v"]).reshape(B, H_kv, dh)
            K = np.repeat(c["k"][:, :, : t + 1], group, axis=1)       # query head h uses KV head h // group
            Vv = np.repeat(c["v"][:, :, : t + 1], group, axis=1)
            p = softmax(np.einsum("bhd,bhsd->bhs", q, K) / np.sqrt(dh))
            x = x + np.einsum("bhs,bhsd->bhd", p, Vv).reshape(B, H * dh) @ w["o"]
        out_cached[:, t] = x
    # Reference: every layer recomputed over the whole prefix with a causal mask, no cache.
    x = x_in
    mask = np.triu(np.full((T, T), -np.inf), 1)
    for w in Ws:
        q = (x @ w["q"]).reshape(B, T, H, dh).transpose(0, 2, 1, 3)
        k = np.repeat((x @ w["k"]).reshape(B, T, H_kv, dh).transpose(0, 2, 1, 3), group, axis=1)
        v = np.repeat((x @ w["v"]).reshape(B, T, H_kv, dh).transpose(0, 2, 1, 3), group, axis=1)
        p = softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh) + mask)
        x = x + (p @ v).transpose(0, 2, 1, 3).reshape(B, T, H * dh) @ w["o"]
    return cache, float(np.max(np.abs(out_cached - x)))


rng = np.random.default_rng(0)
L, H, dh, T, B = 3, 8, 16, 10, 2
sizes = {}
for H_kv in (8, 2, 1):                                   # MHA, GQA (4 query heads per KV head), MQA
    cache, err = run(L, H, H_kv, dh, T, B, rng)
    check_close(f"H_kv={H_kv}: cached decode = full recomputation", err, 0.0, atol=1e-10)
    sizes[H_kv] = sum(c["k"].nbytes + c["v"].nbytes for c in cache)
    check_close(f"H_kv={H_kv}: measured nbytes = 2 L H_kv d_h T B b", sizes[H_kv],
                kv_cache_bytes(L, H_kv, dh, T, B, cache[0]["k"].itemsize))
check_close("GQA / MHA and MQA / MHA = H_kv / H", [sizes[2] / sizes[8], sizes[1] / sizes[8]], [2 / 8, 1 / 8])

# Published per-token sizes (B = 1, T = 1, fp16 = 2 bytes).
llama7b = np.zeros((32, 2, 1, 32, 1, 128), dtype=np.float16)      # layers, K/V, batch, heads, pos, d_h
check_close("Llama-2-7B: formula and allocated nbytes are 0.5 MiB per token",
            [kv_cache_bytes(32, 32, 128, 1, 1, 2) / 2**20, llama7b.nbytes / 2**20], [0.5, 0.5])
check_close("OPT-13B (L=40, d=5120): 800 KB per token (Kwon et al. 2023, Sec. 3)",
            kv_cache_bytes(40, 40, 128, 1, 1, 2) / 1024, 800)

# Llama-2-70B shape (L = 80, H = 64, d_h = 128), fp16, one sequence: cache size vs context.
ctx = np.linspace(0, 32768, 200)
fig, ax = figure("KV cache of a 70B-class model (fp16, batch 1)", "context length T (tokens)",
                 "KV cache (GiB)")
for hk, name in [(64, "MHA, H_kv = 64"), (8, "GQA, H_kv = 8"), (1, "MQA, H_kv = 1")]:
    ax.plot(ctx, kv_cache_bytes(80, hk, 128, ctx, 1, 2) / 2**30, label=name)
ax.legend()

# The page's calculator is checked against kv_cache_bytes on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda L, h_kv, d_h, T, B, b: kv_cache_bytes(L, h_kv, d_h, T, B, b),
               cardcalc.grid(L=(1, 32, 80), h_kv=(1, 8, 64), d_h=(64, 128), T=(1, 4096, 131072), B=(1, 16),
                             b=(0.5, 1, 2, 4)))
