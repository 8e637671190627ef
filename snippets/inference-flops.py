"""Inference FLOPs per token: the matmuls of a real KV-cached decode step are counted and equal
2N + 4 L t d exactly; cached logits are checked against a full recomputation."""

import numpy as np
from cardcheck import check_close, check_true

FLOPS = [0]


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Matrix product (batched over leading axes of a) booking 2 FLOPs per multiply-add."""
    FLOPS[0] += 2 * int(np.prod(a.shape[:-1])) * a.shape[-1] * b.shape[-1]
    return a @ b


# --- formula ---
def forward_flops_per_token(n_params: int, n_layer: int, d: int, t: int) -> int:
    """2N for the weights plus 4 L t d for scoring t cached keys and mixing t values."""
    return 2 * n_params + 4 * n_layer * t * d
# --- end formula ---


rng = np.random.default_rng(0)
L, d, H, V, T = 2, 32, 4, 61, 12
dh = d // H
emb = rng.normal(0, 0.3, (V, d))                      # tied: lookup is free, unembedding is a matmul
layers = [{n: rng.normal(0, 1 / np.sqrt(m), (m, k)) for n, (m, k) in
           {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "up": (d, 4 * d), "down": (4 * d, d)}.items()}
          for _ in range(L)]
N = sum(w.size for lay in layers for w in lay.values()) + emb.size    # = 12 L d^2 + V d
tokens = rng.integers(0, V, T)


def softmax(s):
    p = np.exp(s - s.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


def full_forward(toks):
    """All positions at once with a causal mask (no cache, not counted)."""
    n = len(toks)
    x = emb[toks]
    mask = np.triu(np.full((n, n), -np.inf), 1)
    for w in layers:
        q, k, v = ((x @ w[c]).reshape(n, H, dh).transpose(1, 0, 2) for c in "qkv")
        a = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(dh) + mask) @ v
        x = x + a.transpose(1, 0, 2).reshape(n, d) @ w["o"]
        x = x + np.maximum(x @ w["up"], 0) @ w["down"]
    return x @ emb.T


cache = [{"k": np.zeros((H, T, dh)), "v": np.zeros((H, T, dh))} for _ in range(L)]


def decode_step(tok, pos):
    """One token through the model, appending its keys and values to the cache."""
    x = emb[tok][None, :]
    for w, c in zip(layers, cache, strict=True):
        q = mm(x, w["q"]).reshape(H, 1, dh)
        c["k"][:, pos] = mm(x, w["k"]).reshape(H, dh)
        c["v"][:, pos] = mm(x, w["v"]).reshape(H, dh)
        K, Vv = c["k"][:, : pos + 1], c["v"][:, : pos + 1]
        p = softmax(mm(q, K.transpose(0, 2, 1)) / np.sqrt(dh))
        x = x + mm(mm(p, Vv).reshape(1, d), w["o"])
        x = x + mm(np.maximum(mm(x, w["up"]), 0), w["down"])
    return mm(x, emb.T)[0]


logits, per_step = [], []
for pos, tok in enumerate(tokens):
    FLOPS[0] = 0
    logits.append(decode_step(tok, pos))
    per_step.append(FLOPS[0])
check_close("KV-cached decode logits vs full recomputation", np.array(logits), full_forward(tokens),
            rtol=1e-9, atol=1e-12)
expected = [forward_flops_per_token(N, L, d, t) for t in range(1, T + 1)]
check_close("counted FLOPs of each decode step = 2N + 4 L t d", per_step, expected)
# Averaged over a causal window of T tokens, the attention part is 2 L (T+1) d, the size of Kaplan's
# 2 n_layer n_ctx d (reading their term as this causal average is ours; they do not halve for the mask).
check_close("mean over T positions = 2N + 2 L (T+1) d (compare Kaplan Eq. 2.2)", np.mean(per_step),
            2 * N + 2 * L * (T + 1) * d)
check_true("short context: 2N alone is within t/(6d) of the count",
           per_step[0] / (2 * N) - 1 <= 1 / (6 * d), f"excess {per_step[0] / (2 * N) - 1:.4f}")

# The page's calculator is checked against forward_flops_per_token on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda N, L, d, t: {"C": forward_flops_per_token(N, L, d, t),
                                   "share": 4 * L * t * d / forward_flops_per_token(N, L, d, t)},
               cardcalc.grid(N=(1, 124e6, 6.6e9, 1e12), L=(1, 32, 96), d=(64, 4096), t=(1, 4096, 1e6)))
