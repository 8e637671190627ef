"""MFU: the numerator D (6N + 12 L H d_h T) is checked against the matmuls of a real forward and
backward pass of a Transformer layer (gradients confirmed by finite differences), and PaLM 540B's
published 46.2% MFU is reproduced from its throughput."""

import numpy as np
from cardcheck import check_close, check_true

FLOPS = [0]


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Matrix product (batched over leading axes of a) booking 2 FLOPs per multiply-add."""
    FLOPS[0] += 2 * int(np.prod(a.shape[:-1])) * a.shape[-1] * b.shape[-1]
    return a @ b


# --- formula ---
def model_flops_per_token(n_params, n_layer, n_heads, head_dim, seq_len):
    """PaLM's model FLOPs per training token: 6N for the weights, 12 L H d_h T for attention."""
    return 6 * n_params + 12 * n_layer * n_heads * head_dim * seq_len


def mfu(tokens, seconds, peak_flops, n_devices, flops_per_token):
    return tokens * flops_per_token / (seconds * peak_flops * n_devices)
# --- end formula ---


rng = np.random.default_rng(0)
B, T, d, H = 2, 9, 16, 4
dh = d // H
W = {n: rng.normal(0, 1 / np.sqrt(m), (m, k)) for n, (m, k) in
     {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "up": (d, 4 * d), "down": (4 * d, d)}.items()}
N = sum(w.size for w in W.values())                     # 12 d^2 for one layer
x = rng.normal(size=(B * T, d))                         # input from a trainable embedding
G = rng.normal(size=(B * T, d))                         # loss = sum(G * y), a fixed linear read-out
mask = np.triu(np.full((T, T), -np.inf), 1)


def heads(z):
    return z.reshape(B, T, H, dh).transpose(0, 2, 1, 3)


def merge(z):
    return z.transpose(0, 2, 1, 3).reshape(B * T, d)


def step(W, grads=True):
    """One training step's forward and backward pass of a causal attention + MLP layer."""
    q, k, v = heads(mm(x, W["q"])), heads(mm(x, W["k"])), heads(mm(x, W["v"]))
    s = mm(q, k.transpose(0, 1, 3, 2)) / np.sqrt(dh) + mask          # dense T x T, as PaLM counts
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    a = merge(mm(p, v))
    h = x + mm(a, W["o"])
    u = mm(h, W["up"])
    y = h + mm(np.maximum(u, 0), W["down"])
    loss = float(np.sum(G * y))
    if not grads:
        return loss, None
    g = {}
    dy = G
    g["down"] = mm(np.maximum(u, 0).T, dy)
    du = mm(dy, W["down"].T) * (u > 0)
    g["up"] = mm(h.T, du)
    dh_ = dy + mm(du, W["up"].T)
    g["o"] = mm(a.T, dh_)
    da = heads(mm(dh_, W["o"].T))
    dp = mm(da, v.transpose(0, 1, 3, 2))
    dv = mm(p.transpose(0, 1, 3, 2), da)
    ds = p * (dp - np.sum(dp * p, -1, keepdims=True)) / np.sqrt(dh)
    dq, dk = mm(ds, k), mm(ds.transpose(0, 1, 3, 2), q)
    dx = dh_.copy()
    for name, dz in (("q", dq), ("k", dk), ("v", dv)):
        g[name] = mm(x.T, merge(dz))
        dx += mm(merge(dz), W[name].T)                  # input gradient flows on to the embedding
    return loss, g


FLOPS[0] = 0
_, grads = step(W)
counted = FLOPS[0]
eps, an, fd = 1e-6, [], []
for name, (r, c) in [("q", (1, 2)), ("k", (5, 3)), ("v", (0, 7)), ("up", (4, 30)), ("o", (9, 9))]:
    Wp = {n: w.copy() for n, w in W.items()}
    Wm = {n: w.copy() for n, w in W.items()}
    Wp[name][r, c] += eps
    Wm[name][r, c] -= eps
    fd.append((step(Wp, False)[0] - step(Wm, False)[0]) / (2 * eps))
    an.append(grads[name][r, c])
check_close("backprop through attention + MLP vs finite differences", an, fd, rtol=1e-6)
tokens = B * T
check_close("counted step FLOPs = D (6N + 12 L H d_h T)", counted,
            tokens * model_flops_per_token(N, 1, H, dh, T))
check_true("6ND alone misses the attention share T/(6d) of the step",
           np.isclose(counted / (6 * N * tokens) - 1, T / (6 * d)), f"{counted / (6 * N * tokens) - 1:.4f}")

# PaLM 540B (Chowdhery et al. 2022): N = 540.35e9, L = 118, H = 48, d_h = 256, T = 2048,
# 238.3k tokens/s on 6144 TPU v4 chips of 275 TFLOP/s (bf16) peak, reported MFU 46.2%.
palm_tok = model_flops_per_token(540.35e9, 118, 48, 256, 2048)
palm = mfu(238.3e3, 1.0, 275e12, 6144, palm_tok)
check_close("PaLM 540B: MFU from throughput vs reported 46.2%", palm, 0.462, rtol=0.002)
palm_no_attn = mfu(238.3e3, 1.0, 275e12, 6144, 6 * 540.35e9)
check_true("dropping the attention term (seed's 6ND) lowers PaLM's MFU by about 0.5 points",
           0.003 < palm - palm_no_attn < 0.007, f"{palm:.4f} vs {palm_no_attn:.4f}")
# Full activation recomputation adds one forward pass: hardware FLOPs <= 4/3 of model FLOPs.
check_true("PaLM's reported HFU / MFU = 57.8 / 46.2 lies in (1, 4/3]",
           1 < 0.578 / 0.462 <= (8 * 540.35e9 + 16 * 118 * 48 * 256 * 2048) / palm_tok,
           f"{0.578 / 0.462:.3f}")

# The page's calculator is checked against mfu and model_flops_per_token on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows).
import cardcalc  # noqa: E402


def calculator_outputs(N, L, h, d_h, T, D_run, t_run, F_peak, n_gpu):
    per_token = model_flops_per_token(N, L, h, d_h, T)
    return {"MFU": mfu(D_run, t_run, F_peak, n_gpu, per_token),
            "MFU_6N": mfu(D_run, t_run, F_peak, n_gpu, 6 * N),
            "F": per_token}


cardcalc.table(calculator_outputs, cardcalc.grid(N=(1e6, 540.35e9), L=(1, 118), h=(1, 48), d_h=(64, 256),
                                                 T=(1, 2048), D_run=(1, 238.3e3), t_run=(1e-3, 1.0),
                                                 F_peak=(312e12, 275e12), n_gpu=(1, 6144)))
