"""Per-layer forward FLOPs per token, 24 d^2 + 4 T d: counted matmul by matmul in a real attention +
MLP layer, with the causal count 2(T+1)d (the size of Kaplan's Table 1 term; reading that term as the
causal average is ours) from a mask-skipping implementation."""

import numpy as np
from cardcheck import check_close
from cardplot import figure

FLOPS = {"proj": 0, "attn": 0, "mlp": 0}


def mm(a: np.ndarray, b: np.ndarray, part: str) -> np.ndarray:
    """Matrix product (batched over leading axes of a) booking 2 FLOPs per multiply-add."""
    FLOPS[part] += 2 * int(np.prod(a.shape[:-1])) * a.shape[-1] * b.shape[-1]
    return a @ b


# --- formula ---
def layer_flops_per_token(d: int, T: int) -> int:
    """Forward FLOPs of one layer per token: 8d^2 projections + 16d^2 MLP + 4Td attention."""
    return 24 * d**2 + 4 * T * d
# --- end formula ---


rng = np.random.default_rng(0)
d, H, T = 48, 6, 20
dh = d // H
W = {n: rng.normal(0, 1 / np.sqrt(m), (m, k)) for n, (m, k) in
     {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "up": (d, 4 * d), "down": (4 * d, d)}.items()}
x = rng.normal(size=(T, d))


def softmax(s):
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def layer_dense(x, causal):
    """Standard layer: full T x T score matrix per head (masked entries computed, then discarded)."""
    q, k, v = (mm(x, W[c], "proj").reshape(T, H, dh).transpose(1, 0, 2) for c in "qkv")
    s = mm(q, k.transpose(0, 2, 1), "attn") / np.sqrt(dh)
    if causal:
        s = s + np.triu(np.full((T, T), -np.inf), 1)
    a = mm(softmax(s), v, "attn").transpose(1, 0, 2).reshape(T, d)
    h = x + mm(a, W["o"], "proj")
    return h + mm(np.maximum(mm(h, W["up"], "mlp"), 0), W["down"], "mlp")


def layer_causal_skip(x):
    """Same layer, but position t only touches keys 1..t (what a causal kernel can skip to)."""
    q, k, v = (mm(x, W[c], "proj").reshape(T, H, dh).transpose(1, 0, 2) for c in "qkv")
    a = np.empty((H, T, dh))
    for t in range(T):
        p = softmax(mm(q[:, t:t + 1], k[:, : t + 1].transpose(0, 2, 1), "attn") / np.sqrt(dh))
        a[:, t] = mm(p, v[:, : t + 1], "attn")[:, 0]
    h = x + mm(a.transpose(1, 0, 2).reshape(T, d), W["o"], "proj")
    return h + mm(np.maximum(mm(h, W["up"], "mlp"), 0), W["down"], "mlp")


layer_dense(x, causal=False)
total = sum(FLOPS.values())
check_close("dense layer: counted FLOPs / T = 24 d^2 + 4 T d", total / T, layer_flops_per_token(d, T))
check_close("MLP over n = T tokens = 4 n d d_ff (both matrices, not 2 n d d_ff)", FLOPS["mlp"],
            4 * T * d * (4 * d))
check_close("attention scores + mixing over the sequence = 4 T^2 d", FLOPS["attn"], 4 * T**2 * d)

for key in FLOPS:
    FLOPS[key] = 0
y_dense = layer_dense(x, causal=True)
for key in FLOPS:
    FLOPS[key] = 0
y_skip = layer_causal_skip(x)
check_close("mask-skipping causal layer = dense causal layer", y_skip, y_dense, rtol=1e-10, atol=1e-12)
check_close("causal, masked entries skipped: attention per token = 2 (T+1) d", FLOPS["attn"] / T,
            2 * (T + 1) * d)
check_close("projections + MLP unchanged at 24 d^2 per token", (FLOPS["proj"] + FLOPS["mlp"]) / T,
            24 * d**2)

# Share of a layer's forward FLOPs spent in attention (dense count): 4Td / (24d^2 + 4Td) = T / (T + 6d).
Ts = np.logspace(2, 6, 200)
fig, ax = figure("Attention share of per-layer FLOPs", "context length T (tokens)",
                 "4Td / (24d² + 4Td)")
for dm, name in [(768, "d = 768 (GPT-2 small)"), (4096, "d = 4096 (7B)"), (12288, "d = 12288 (175B)")]:
    ax.semilogx(Ts, 4 * Ts * dm / layer_flops_per_token(dm, Ts), label=name)
ax.axhline(0.5, color="gray", lw=0.8, ls="--")
ax.legend()

# The page's calculator is checked against layer_flops_per_token on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda d, T: {"C": layer_flops_per_token(d, T),
                             "share": 4 * T * d / layer_flops_per_token(d, T)},
               cardcalc.grid(d=(1, 768, 4096, 12288), T=(0, 1, 2048, 1e6)))
