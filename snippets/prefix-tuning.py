"""Prefix tuning: attention over [K_p; K], [V_p; V] vs the gate decomposition of He et al. (scipy logsumexp),
vs prepending prompt states to a layer's input (P-tuning v2), causal mask, wide logits, parameter count."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp, softmax


# --- formula ---
def attention(q, k, v, allowed):
    """softmax(q k^T / sqrt(d_k)) v over the allowed key positions (boolean mask, one row per query)."""
    s = np.where(allowed, q @ k.T / np.sqrt(q.shape[1]), -np.inf)
    s = s - np.max(s, axis=-1, keepdims=True)
    w = np.exp(s)
    return (w / np.sum(w, axis=-1, keepdims=True)) @ v


def prefix_attention(q, k, v, k_p, v_p):
    """Causal attention of the T tokens over p trainable prefix keys/values followed by their own.
    Every token sees the whole prefix; among the tokens, only earlier ones and itself."""
    T, p = q.shape[0], k_p.shape[0]
    allowed = np.concatenate([np.ones((T, p), bool), np.tril(np.ones((T, T), bool))], axis=1)
    return attention(q, np.concatenate([k_p, k]), np.concatenate([v_p, v]), allowed)
# --- end formula ---


rng = np.random.default_rng(0)
T, p, d_model, h = 6, 4, 16, 2
d_k = d_model // h
X = rng.normal(size=(T, d_model))
Wq, Wk, Wv = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(3))
Kp, Vp = rng.normal(size=(h, p, d_k)), rng.normal(size=(h, p, d_k))  # trainable, per layer and head

# 1. Gate decomposition (He et al. 2022): prefix attention = (1 - g) * ordinary causal attention
#    + g * attention over the prefix alone, g = mass of the prefix in the softmax, computed here with
#    scipy's logsumexp and softmax on each head.
for hd in range(h):
    sl = slice(hd * d_k, (hd + 1) * d_k)
    q, k, v = X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl]
    out = prefix_attention(q, k, v, Kp[hd], Vp[hd])
    s_pre = q @ Kp[hd].T / np.sqrt(d_k)
    s_own = np.where(np.tril(np.ones((T, T), bool)), q @ k.T / np.sqrt(d_k), -np.inf)
    lse_pre, lse_own = logsumexp(s_pre, axis=1), logsumexp(s_own, axis=1)
    g = np.exp(lse_pre - np.logaddexp(lse_pre, lse_own))[:, None]
    ref = (1 - g) * (softmax(s_own, axis=1) @ v) + g * (softmax(s_pre, axis=1) @ Vp[hd])
    check_close(f"head {hd}: prefix attention = (1 - g) Attn(own) + g Attn(prefix)", out, ref, rtol=1e-12)

# 2. P-tuning v2's "deep prompts": prepend p prompt states P to the layer's input sequence and keep
#    the outputs of the real tokens. That is prefix attention with K_p = P W_k and V_p = P W_v.
P = rng.normal(size=(p, d_model))
full = np.concatenate([P, X])
n = p + T
causal_full = np.tril(np.ones((n, n), bool))
for hd in range(h):
    sl = slice(hd * d_k, (hd + 1) * d_k)
    direct = softmax(np.where(causal_full, full @ Wq[:, sl] @ (full @ Wk[:, sl]).T / np.sqrt(d_k), -np.inf),
                     axis=1) @ (full @ Wv[:, sl])
    check_close(f"head {hd}: prepended prompt states = prefix keys/values P W_k, P W_v", direct[p:],
                prefix_attention(X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl], P @ Wk[:, sl], P @ Wv[:, sl]),
                rtol=1e-12)

# 3. The first token sees only the prefix and itself; with an empty prefix the layer is unchanged.
q, k, v = X @ Wq[:, :d_k], X @ Wk[:, :d_k], X @ Wv[:, :d_k]
w0 = softmax(np.concatenate([q[0] @ Kp[0].T, [q[0] @ k[0]]]) / np.sqrt(d_k))
tri = np.tril(np.ones((T, T), bool))
check_close("token 0 attends to the p prefix slots and to itself only",
            prefix_attention(q, k, v, Kp[0], Vp[0])[0], w0 @ np.concatenate([Vp[0], v[:1]]), rtol=1e-12)
empty = np.zeros((0, d_k))
check_close("empty prefix: ordinary causal attention", prefix_attention(q, k, v, empty, empty),
            softmax(np.where(tri, q @ k.T / np.sqrt(d_k), -np.inf), axis=1) @ v, rtol=1e-12)

# 4. Logits spanning thousands (a prefix key aligned with the queries): the max shift keeps it finite.
big_kp = 400.0 * q[:3].copy()
big = prefix_attention(q, k, v, big_kp, Vp[0][:3])
s_big = np.concatenate([q @ big_kp.T, np.where(np.tril(np.ones((T, T), bool)), q @ k.T, -np.inf)], 1)
check_true("wide logits stay finite", bool(np.all(np.isfinite(big))), f"largest logit {np.max(s_big):.0f}")
check_close("wide logits vs scipy softmax", big, softmax(s_big / np.sqrt(d_k), axis=1)
            @ np.concatenate([Vp[0][:3], v]), rtol=1e-10)

# 5. Trainable parameters: a key and a value vector of width d_model per prefix slot and layer,
#    2 p L d_model in all; GPT-2 medium (L = 24, d_model = 1024) with p = 10: 491,520.
check_true("parameter count 2 p L d_model = 491,520 for p = 10, L = 24, d_model = 1024",
           2 * 10 * 24 * 1024 == 491_520 and Kp.size + Vp.size == 2 * p * d_model)

# --- in code: peft ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from peft import PrefixTuningConfig, get_peft_model  # noqa: E402
from peft_fixture import FrozenLM, weight  # noqa: E402


def frozen_layer(embeds, cache, mask):
    """The card's frozen attention layer as torch would run it with a cache: each head's queries,
    keys and values of the T tokens, the cached prefix keys and values (layer 0) in front, and
    torch's SDPA under PEFT's mask over [prefix; tokens] and causality among the tokens."""
    x = embeds[0]

    def heads(W):
        return (x @ torch.from_numpy(W)).reshape(T, h, d_k).transpose(0, 1)

    keys = torch.cat([cache.layers[0].keys[0], heads(Wk)], dim=1)
    values = torch.cat([cache.layers[0].values[0], heads(Wv)], dim=1)
    causal = torch.from_numpy(np.concatenate([np.ones((T, p), bool), np.tril(np.ones((T, T), bool))], axis=1))
    return F.scaled_dot_product_attention(heads(Wq), keys, values, attn_mask=causal & mask[0].bool())


def peft_prefix(**options):
    """PEFT's prefix tuning of the card's layer (token i embeds as row i of X): the PEFT model, the
    frozen LM and the prefix encoder."""
    lm = FrozenLM(X, frozen_layer, heads=h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # transformers' own deprecation notice
        model = get_peft_model(lm, PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=p, **options))
    return model, lm, model.prompt_encoder["default"]


def run_prefix(model):
    mask = torch.ones(1, T, dtype=torch.long)
    return weight(model(input_ids=torch.arange(T)[None], attention_mask=mask).logits)


head_columns = [slice(hd * d_k, (hd + 1) * d_k) for hd in range(h)]


def card_heads(keys, values):
    """The card's prefix attention, head by head, for prefix keys and values of shape (h, p, d_k)."""
    return np.stack([prefix_attention(X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl], keys[hd], values[hd])
                     for hd, sl in enumerate(head_columns)])


# PEFT's prefix is one float32 nn.Embedding row per slot j, holding layer by layer the keys of all
# heads, then the values: [K_p[0, j], ..., K_p[h-1, j], V_p[0, j], ...]. The card's K_p, V_p in float32:
torch.manual_seed(0)
Kp32, Vp32 = Kp.astype(np.float32).astype(float), Vp.astype(np.float32).astype(float)
model, lm, encoder = peft_prefix()
with torch.no_grad():
    encoder.embedding.weight.copy_(torch.from_numpy(np.concatenate(
        [Kp32.transpose(1, 0, 2).reshape(p, -1), Vp32.transpose(1, 0, 2).reshape(p, -1)], axis=1)))
out = run_prefix(model)
cache = lm.seen["past_key_values"]
check_close("PEFT's cache holds K_p and V_p per head: embedding row j = [K_p[:, j]; V_p[:, j]]",
            [weight(cache.layers[0].keys[0]), weight(cache.layers[0].values[0])], [Kp32, Vp32],
            rtol=0, atol=0)
check_true("the attention mask gets p leading ones: every token sees the whole prefix",
           np.array_equal(weight(lm.seen["attention_mask"]), np.ones((1, p + T))))
# float64 attention by another route (torch's SDPA): a few ulps of the largest terms of sums of
# p + T = 10 products, so rtol 1e-12 with atol 1e-12 times the output's size.
card = card_heads(Kp32, Vp32)
check_close("with that cache, the layer is the card's softmax(Q [K_p; K]^T / sqrt(d_k) + M) [V_p; V]",
            out, card, rtol=1e-12, atol=1e-12 * np.abs(card).max())
check_true("prefix_projection=False (default): the prefix itself trains, 2 p L d_model parameters",
           model.get_nb_trainable_parameters()[0] == 2 * p * 1 * d_model)

# The default init (init_weights=None) is nn.Embedding's N(0, 1), and even init_weights="zero" does
# not leave the layer as it was: zero keys score 0 and zero values take a share g of the attention.
zero_model, _, _ = peft_prefix(init_weights="zero")
zeros = np.zeros((h, p, d_k))
plain = card_heads(np.zeros((h, 0, d_k)), np.zeros((h, 0, d_k)))
zero_out = run_prefix(zero_model)
check_close("init_weights='zero': the card's layer with K_p = V_p = 0", zero_out, card_heads(zeros, zeros),
            rtol=1e-12, atol=1e-12 * np.abs(plain).max())
# Zero keys score 0, so the prefix's share is g = p / (p + sum_j exp(s_ij)) over the visible tokens j.
own_scores = [np.where(np.tril(np.ones((T, T), bool)), (X @ Wq[:, sl]) @ (X @ Wk[:, sl]).T / np.sqrt(d_k),
                       -np.inf) for sl in head_columns]
g_zero = np.stack([p / (p + np.exp(logsumexp(scores, axis=1)))[:, None] for scores in own_scores])
check_close("pitfall: ... which is (1 - g) times the frozen layer, g = p / (p + sum_j exp(s_ij))",
            zero_out, (1 - g_zero) * plain, rtol=1e-12, atol=1e-12 * np.abs(plain).max())
check_true("... g is far from 0", g_zero.min() > 0.05, f"g from {g_zero.min():.2f} to {g_zero.max():.2f}")

# prefix_projection=True reparametrizes as Li & Liang do: [K_p; V_p] = W2 tanh(W1 P + b1) + b2.
mlp_model, mlp_lm, mlp = peft_prefix(prefix_projection=True, encoder_hidden_size=24)
run_prefix(mlp_model)
first, second = mlp.transform[0], mlp.transform[2]
hidden = np.tanh(weight(mlp.embedding.weight) @ weight(first.weight).T + weight(first.bias))
flat = hidden @ weight(second.weight).T + weight(second.bias)
# float32 MLP (the encoder's dtype) against numpy's float64: sums of <= 24 products, a few float32
# ulps of their size each: 64 eps32 times the largest.
cached = mlp_lm.seen["past_key_values"].layers[0]
check_close("prefix_projection=True: the cache is the MLP's output, keys first then values",
            np.concatenate([weight(cached.keys[0]).transpose(1, 0, 2).reshape(p, -1),
                            weight(cached.values[0]).transpose(1, 0, 2).reshape(p, -1)], axis=1), flat,
            rtol=0, atol=64 * np.finfo(np.float32).eps * np.abs(flat).max())
# --- end in code ---

fig, ax = figure("Share of attention on the prefix as its keys grow", "scale of the prefix keys",
                 "prefix gate g (mean over tokens)")
scales = np.linspace(0, 3, 31)
gates = []
for c in scales:
    s_pre = q @ (c * Kp[0]).T / np.sqrt(d_k)
    s_own = np.where(np.tril(np.ones((T, T), bool)), q @ k.T / np.sqrt(d_k), -np.inf)
    lp, lo = logsumexp(s_pre, 1), logsumexp(s_own, 1)
    gates.append(np.mean(np.exp(lp - np.logaddexp(lp, lo))))
ax.plot(scales, gates)
