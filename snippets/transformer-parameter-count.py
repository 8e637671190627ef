"""Transformer parameter count: 12 L d^2 + V d checked by counting the arrays of an explicit numpy
model, and against the exact published counts of GPT-2 small and Llama-2-7B."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def approx_params(n_layer: int, d: int, vocab: int, tied: bool = True) -> int:
    """N ~ 12 L d^2 + V d (tied embeddings) or + 2 V d (separate input and output matrices)."""
    return 12 * n_layer * d**2 + (1 if tied else 2) * vocab * d
# --- end formula ---


# --- 1. A small GPT-style model built from real arrays, run forward, then counted. ---
rng = np.random.default_rng(0)
L, d, H, V, T = 3, 32, 4, 101, 7
emb = rng.normal(0, 0.02, (V, d))                       # token embedding, tied with the output
layers = [{
    "W_q": rng.normal(0, 0.02, (d, d)), "W_k": rng.normal(0, 0.02, (d, d)),
    "W_v": rng.normal(0, 0.02, (d, d)), "W_o": rng.normal(0, 0.02, (d, d)),
    "W_1": rng.normal(0, 0.02, (d, 4 * d)), "W_2": rng.normal(0, 0.02, (4 * d, d)),
} for _ in range(L)]


def forward(tokens: np.ndarray) -> np.ndarray:
    x = emb[tokens]
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for w in layers:
        q, k, v = (np.reshape(x @ w[n], (T, H, d // H)).transpose(1, 0, 2) for n in ("W_q", "W_k", "W_v"))
        s = q @ k.transpose(0, 2, 1) / np.sqrt(d // H) + mask
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        x = x + (p @ v).transpose(1, 0, 2).reshape(T, d) @ w["W_o"]
        x = x + np.maximum(x @ w["W_1"], 0) @ w["W_2"]
    return x @ emb.T                                     # logits over the vocabulary


logits = forward(rng.integers(0, V, T))
check_true("explicit model runs: logits have shape (T, V)", logits.shape == (T, V), str(logits.shape))
attn = sum(w[n].size for w in layers for n in ("W_q", "W_k", "W_v", "W_o"))
mlp = sum(w[n].size for w in layers for n in ("W_1", "W_2"))
check_close("attention arrays = 4 d^2 per layer", attn / L, 4 * d**2)
check_close("MLP arrays (d_ff = 4d) = 8 d^2 per layer", mlp / L, 8 * d**2)
check_close("all arrays = 12 L d^2 + V d", attn + mlp + emb.size, approx_params(L, d, V))

# --- 2. GPT-2 small (L=12, d=768, V=50257, n_ctx=1024), every tensor of the released checkpoint. ---
L2, d2, V2, ctx2 = 12, 768, 50257, 1024
gpt2_shapes = [(V2, d2), (ctx2, d2), (d2,), (d2,)]       # wte, wpe, final LayerNorm gain and bias
for _ in range(L2):
    gpt2_shapes += [(d2,), (d2,), (d2, 3 * d2), (3 * d2,), (d2, d2), (d2,),          # ln_1, attention
                    (d2,), (d2,), (d2, 4 * d2), (4 * d2,), (4 * d2, d2), (d2,)]      # ln_2, MLP
gpt2_exact = sum(int(np.prod(s)) for s in gpt2_shapes)
check_close("GPT-2 small tensor count = 124,439,808 (published checkpoint)", gpt2_exact, 124_439_808)
gpt2_approx = approx_params(L2, d2, V2)
check_close("12 L d^2 + V d within 1% of GPT-2 small", gpt2_approx, gpt2_exact, rtol=0.01)
check_true("the 124M count, not the paper's 117M, is what the formula reproduces",
           abs(gpt2_approx - 124.4e6) < abs(gpt2_approx - 117e6),
           f"formula {gpt2_approx / 1e6:.1f}M")

# --- 3. Llama-2-7B: untied embeddings, SwiGLU MLP with d_ff = 11008, RMSNorm gains only. ---
L7, d7, V7, ff7 = 32, 4096, 32000, 11008
llama_exact = 2 * V7 * d7 + L7 * (4 * d7**2 + 3 * d7 * ff7 + 2 * d7) + d7
check_close("Llama-2-7B tensor count = 6,738,415,616 (published)", llama_exact, 6_738_415_616)
check_close("12 L d^2 + 2 V d within 1% of Llama-2-7B", approx_params(L7, d7, V7, tied=False),
            llama_exact, rtol=0.01)

# How much of a model is embedding: GPT-3 family shapes (Brown et al. 2020, Table 2.1).
shapes = [(12, 768), (24, 1024), (24, 1536), (24, 2048), (32, 2560), (32, 4096), (40, 5140), (96, 12288)]
n_total = np.array([approx_params(nl, dm, V2) for nl, dm in shapes], dtype=float)
share = np.array([V2 * dm for _, dm in shapes]) / n_total
fig, ax = figure("Embedding share of parameters, GPT-3 family shapes", "parameters N", "V d / N")
ax.semilogx(n_total, share, marker="o")
ax.set_ylim(0, 0.35)

# The page's calculator is checked against approx_params on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows); tau = 1 is a tied output layer.
import cardcalc  # noqa: E402

cardcalc.table(lambda L, d, V, tau: approx_params(int(L), int(d), int(V), tied=bool(tau)),
               cardcalc.grid(L=(1, 12, 96), d=(64, 768, 12288), V=(1, 50257, 128256), tau=(0, 1)))
