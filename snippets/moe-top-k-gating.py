"""Sparsely-gated MoE with noisy top-k gating: gates against a renormalized scipy softmax over the kept
experts, the top-k set against sorting, the output against an explicit per-token loop over the chosen
experts, the noise scale by Monte Carlo, and very wide logits."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def noisy_logits(x, W_g, W_noise, eps):
    """H(x)_i = (x W_g)_i + eps_i * softplus((x W_noise)_i), eps ~ N(0, 1)."""
    return x @ W_g + eps * np.logaddexp(0.0, x @ W_noise)


def keep_top_k(h, k):
    """Keep the k largest entries of each row, set the others to -inf."""
    top = np.argsort(-h, axis=-1)[:, :k]
    mask = np.zeros(h.shape, dtype=bool)
    np.put_along_axis(mask, top, True, axis=-1)
    return np.where(mask, h, -np.inf)


def top_k_gates(h, k):
    """G(x) = softmax(KeepTopK(H(x), k)): exactly k non-zero gates per token, summing to 1."""
    kept = keep_top_k(h, k)
    e = np.exp(kept - np.max(kept, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def moe_layer(x, experts, G):
    """y = sum_i G(x)_i E_i(x), evaluated densely (zero gates contribute nothing)."""
    return sum(G[:, i:i + 1] * expert(x) for i, expert in enumerate(experts))
# --- end formula ---


rng = np.random.default_rng(0)
T, d, n, k = 64, 8, 6, 2
x = rng.normal(size=(T, d))
W_g = rng.normal(size=(d, n))
W_noise = rng.normal(size=(d, n)) * 0.3
W1 = rng.normal(size=(n, d, 16)) / np.sqrt(d)
W2 = rng.normal(size=(n, 16, d)) / 4
experts = [lambda z, i=i: np.maximum(z @ W1[i], 0.0) @ W2[i] for i in range(n)]

h = noisy_logits(x, W_g, W_noise, rng.normal(size=(T, n)))
G = top_k_gates(h, k)

# 1. Gates: k non-zero per token, summing to 1, equal to the full softmax restricted to the top k and
#    renormalized (scipy), on the experts found by sorting each row.
check_true("exactly k = 2 non-zero gates per token", bool(np.all((G > 0).sum(1) == k)))
check_close("gates sum to 1", G.sum(1), np.ones(T), rtol=1e-14)
order = np.array([sorted(range(n), key=lambda i, t=t: -h[t, i])[:k] for t in range(T)])
full = softmax(h, axis=1)
ref = np.zeros_like(G)
for t in range(T):
    ref[t, order[t]] = full[t, order[t]] / full[t, order[t]].sum()
check_close("G == renormalized softmax over the top-k experts (scipy)", G, ref, rtol=1e-12, atol=1e-15)

# 2. Output: only the chosen experts are evaluated, token by token.
y_loop = np.zeros((T, d))
for t in range(T):
    for i in order[t]:
        y_loop[t] += G[t, i] * experts[i](x[t:t + 1])[0]
check_close("MoE output == explicit loop over each token's chosen experts", moe_layer(x, experts, G), y_loop,
            rtol=1e-12, atol=1e-14)

# 3. k = n is dense softmax gating (Shazeer et al. Eq. 2); k = 1 gives gate 1 on the arg-max expert.
check_close("k = n: G == softmax(H)", top_k_gates(h, n), full, rtol=1e-12)
G1 = top_k_gates(h, 1)
check_close("k = 1: a single gate equal to 1 on the arg-max expert",
            G1, np.eye(n)[np.argmax(h, axis=1)], rtol=0)

# 4. The noise: over many draws, H(x)_i has mean (x W_g)_i and standard deviation softplus((x W_noise)_i).
draws = np.stack([noisy_logits(x[:4], W_g, W_noise, rng.normal(size=(4, n))) for _ in range(20000)])
check_close("noise std == softplus(x W_noise) (Monte Carlo, 20000 draws, 2%)", draws.std(0),
            np.log1p(np.exp(x[:4] @ W_noise)), rtol=0.02)
check_close("eps = +1 (one standard deviation up) adds softplus(x W_noise) = log(1 + e^(x W_noise))",
            noisy_logits(x, W_g, W_noise, 1.0) - x @ W_g, np.log1p(np.exp(x @ W_noise)), rtol=1e-12)
check_close("noise mean == x W_g (Monte Carlo)", draws.mean(0), x[:4] @ W_g, rtol=0, atol=0.02)

# 5. Logits spanning thousands (an unstable router) still give exact gates: the top-k subtraction of the
#    maximum keeps exp finite.
wide = h * 400.0
check_close("wide logits (span > 1000): gates == scipy softmax over the kept experts",
            top_k_gates(wide, 3), softmax(keep_top_k(wide, 3), axis=1), rtol=1e-12, atol=1e-300)

# Routing histogram: how many tokens pick each expert first or second.
hist_tokens = rng.normal(size=(4096, d))
picks = np.argsort(-noisy_logits(hist_tokens, W_g, W_noise, rng.normal(size=(4096, n))), axis=1)[:, :k]
fig, ax = figure("Top-2 routing of 4096 tokens (random router)", "expert", "tokens routed")
ax.bar(np.arange(n) - 0.2, np.bincount(picks[:, 0], minlength=n), width=0.4, label="first choice")
ax.bar(np.arange(n) + 0.2, np.bincount(picks[:, 1], minlength=n), width=0.4, label="second choice")
ax.axhline(4096 / n, color="gray", ls=":", label="uniform share")
ax.legend()
