"""IA3: rescaled keys, values and FFN activations equal a frozen model with modified weight matrices (merge),
ones reproduce the base model, the key scale can move to the queries, GELU blocks merging into W1."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import erf, softmax


# --- formula ---
def ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads):
    """Causal multi-head attention with keys and values rescaled feature-wise: K = l_k * (X Wk),
    V = l_v * (X Wv); l_k and l_v have one entry per feature of the key / value projection."""
    T, d = X.shape[0], Wq.shape[1]
    dh = d // heads
    Q = (X @ Wq).reshape(T, heads, dh).transpose(1, 0, 2)
    K = ((X @ Wk) * l_k).reshape(T, heads, dh).transpose(1, 0, 2)
    V = ((X @ Wv) * l_v).reshape(T, heads, dh).transpose(1, 0, 2)
    s = np.where(np.tril(np.ones((T, T), bool)), Q @ K.transpose(0, 2, 1) / np.sqrt(dh), -np.inf)
    w = np.exp(s - np.max(s, axis=2, keepdims=True))
    out = (w / np.sum(w, axis=2, keepdims=True)) @ V
    return out.transpose(1, 0, 2).reshape(T, d)


def ia3_ffn(X, W1, W2, l_ff, act):
    """(l_ff * act(X W1)) W2: the hidden activations of the feed-forward block rescaled per unit."""
    return (act(X @ W1) * l_ff) @ W2
# --- end formula ---


def gelu(x):
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def relu(x):
    return np.maximum(x, 0.0)


def reference_attention(X, Wq, Wk, Wv, heads):
    """Plain causal multi-head attention with scipy's softmax, per head."""
    T, d = X.shape[0], Wq.shape[1]
    dh = d // heads
    outs = []
    for h in range(heads):
        sl = slice(h * dh, (h + 1) * dh)
        logits = (X @ Wq[:, sl]) @ (X @ Wk[:, sl]).T / np.sqrt(dh)
        s = np.where(np.tril(np.ones((T, T), bool)), logits, -np.inf)
        outs.append(softmax(s, axis=1) @ (X @ Wv[:, sl]))
    return np.concatenate(outs, axis=1)


rng = np.random.default_rng(0)
T, d, heads, d_ff = 7, 16, 2, 40
X = rng.normal(size=(T, d))
Wq, Wk, Wv = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
W1, W2 = rng.normal(size=(d, d_ff)) / np.sqrt(d), rng.normal(size=(d_ff, d)) / np.sqrt(d_ff)
l_k, l_v, l_ff = (rng.uniform(0.3, 2.0, size=n) for n in (d, d, d_ff))

# 1. Initialization: all scales 1 gives the frozen model.
check_close("l = 1: attention unchanged", ia3_attention(X, Wq, Wk, Wv, np.ones(d), np.ones(d), heads),
            reference_attention(X, Wq, Wk, Wv, heads), rtol=1e-12)
check_close("l = 1: feed-forward unchanged", ia3_ffn(X, W1, W2, np.ones(d_ff), gelu), gelu(X @ W1) @ W2,
            rtol=1e-12)

# 2. Merging: rescaling the outputs of a projection is the same as scaling the columns of its weight
#    (x W) * l = x (W diag(l)). So the adapted layer is the frozen layer with Wk, Wv replaced.
check_close("IA3 attention = plain attention with W_k diag(l_k), W_v diag(l_v)",
            ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(X, Wq, Wk * l_k, Wv * l_v, heads), rtol=1e-12)
check_close("IA3 feed-forward = act(X W1) (diag(l_ff) W2): merged into W2's rows",
            ia3_ffn(X, W1, W2, l_ff, gelu), gelu(X @ W1) @ (l_ff[:, None] * W2), rtol=1e-12)

# 3. The key scale acts like a query scale: Q (l * K)^T = (l * Q) K^T, so it could equally go into W_q.
check_close("l_k on keys = l_k on queries", ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(X, Wq * l_k, Wk, Wv * l_v, heads), rtol=1e-12)
check_true("key scales change the attention pattern (not a no-op)",
           float(np.abs(ia3_attention(X, Wq, Wk, Wv, l_k, np.ones(d), heads)
                        - reference_attention(X, Wq, Wk, Wv, heads)).max()) > 1e-3)

# Large activations (logits in the thousands): the max shift keeps the softmax finite.
Xb = 30.0 * X
check_close("logits in the thousands: vs scipy softmax route", ia3_attention(Xb, Wq, Wk, Wv, l_k, l_v, heads),
            reference_attention(Xb, Wq, Wk * l_k, Wv * l_v, heads), rtol=1e-10, atol=1e-12)

# 4. The feed-forward scale sits after the nonlinearity. For ReLU and positive scales it could be
#    pushed into W1 (ReLU(l z) = l ReLU(z)); for GELU it cannot.
check_close("ReLU: (l * relu(X W1)) W2 = relu(X W1 diag(l)) W2", ia3_ffn(X, W1, W2, l_ff, relu),
            relu(X @ (W1 * l_ff)) @ W2, rtol=1e-12)
gap = np.abs(ia3_ffn(X, W1, W2, l_ff, gelu) - gelu(X @ (W1 * l_ff)) @ W2).max()
check_true("GELU: scaling W1 instead gives a different layer", gap > 1e-3, f"max difference {gap:.3f}")

# 5. Trainable parameters per transformer block: d_k + d_v + d_ff (here 16 + 16 + 40 = 72), against
#    2 d^2 + 2 d^2 + 2 d d_ff = 2304 frozen weights in the block's attention and feed-forward matrices.
check_true("parameters per block: d_k + d_v + d_ff = 72 vs 2304 frozen",
           l_k.size + l_v.size + l_ff.size == 72 and 4 * d * d + 2 * d * d_ff == 2304)

# --- in code: peft ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from peft import IA3Config, get_peft_model  # noqa: E402
from peft_fixture import frozen_linear, weight  # noqa: E402


class Block(torch.nn.Module):
    """The card's frozen block as torch layers named as in Llama: causal multi-head attention on X
    and the feed-forward GELU(X W1) W2, both returned. nn.Linear holds the transpose of the card's
    X W layout."""

    def __init__(self):
        super().__init__()
        for name, W in (("q_proj", Wq), ("k_proj", Wk), ("v_proj", Wv), ("up_proj", W1), ("down_proj", W2)):
            setattr(self, name, frozen_linear(W.T))

    def forward(self, x):
        def split(t):
            return t.reshape(T, heads, d // heads).transpose(0, 1)

        attention = F.scaled_dot_product_attention(split(self.q_proj(x)), split(self.k_proj(x)),
                                                   split(self.v_proj(x)), is_causal=True)
        return attention.transpose(0, 1).reshape(T, d), self.down_proj(F.gelu(self.up_proj(x)))


def peft_block(**options):
    """get_peft_model(Block(), IA3Config(...)) on k_proj, v_proj and down_proj: the model and its layers."""
    model = get_peft_model(Block(), IA3Config(target_modules=["k_proj", "v_proj", "down_proj"], **options))
    return model, model.base_model.model


def outputs(model):
    with torch.no_grad():
        return [t.numpy() for t in model(torch.from_numpy(X))]


def set_scales(layers, **scales):
    """Each named layer's ia3_l set to a vector, in the layer's own shape."""
    with torch.no_grad():
        for name, values in scales.items():
            vector = getattr(layers, name).ia3_l["default"]
            vector.copy_(torch.from_numpy(values).reshape(vector.shape))


# float64 attention and feed-forward by another route (torch's SDPA and GELU): sums of <= 40
# products, a few ulps of the largest terms, so rtol 1e-12 with atol 1e-12 times the output's size.
def near(reference):
    return {"rtol": 1e-12, "atol": 1e-12 * np.abs(reference).max()}


plain_attention, plain_ffn = reference_attention(X, Wq, Wk, Wv, heads), gelu(X @ W1) @ W2
model, layers = peft_block(feedforward_modules=["down_proj"])
check_true("IA3Config: every l starts at 1 (init_ia3_weights=True)",
           all(bool(torch.all(getattr(layers, name).ia3_l["default"] == 1))
               for name in ("k_proj", "v_proj", "down_proj")))
attention, ffn = outputs(model)
check_close("at init, PEFT's attention is the frozen one", attention, plain_attention,
            **near(plain_attention))
check_close("at init, PEFT's feed-forward is the frozen one", ffn, plain_ffn, **near(plain_ffn))
set_scales(layers, k_proj=l_k, v_proj=l_v, down_proj=l_ff)
check_true("feedforward_modules=['down_proj']: its l has d_ff entries, one per input (hidden unit)",
           layers.down_proj.ia3_l["default"].shape == (1, d_ff))
attention, ffn = outputs(model)
card_attention, card_ffn = ia3_attention(X, Wq, Wk, Wv, l_k, l_v, heads), ia3_ffn(X, W1, W2, l_ff, gelu)
check_close("PEFT's IA3 on k_proj, v_proj: softmax(Q (l_k K)^T / sqrt(d_k)) (l_v V)", attention,
            card_attention, **near(card_attention))
check_close("PEFT's IA3 on down_proj as a feed-forward module: (l_ff GELU(X W1)) W2", ffn, card_ffn,
            **near(card_ffn))

# Named in target_modules only (feedforward_modules=[]), down_proj is treated like k_proj: l scales
# its d outputs, after W2.
l_out = rng.uniform(0.3, 2.0, size=d)
other, other_layers = peft_block(feedforward_modules=[])
set_scales(other_layers, down_proj=l_out)
_, ffn_out = outputs(other)
check_close("pitfall: not in feedforward_modules, down_proj's l has d entries and scales W2's output",
            ffn_out, plain_ffn * l_out, **near(plain_ffn))

# Merging folds each l into its weight: W_k diag(l_k), W_v diag(l_v) and diag(l_ff) W2 in X W layout.
# One correctly rounded product (and below one quotient) per entry, in the same order as numpy's: 1e-15.
merged = model.merge_and_unload()
check_close("merge_and_unload(): W_k diag(l_k), W_v diag(l_v), diag(l_ff) W2",
            np.vstack([weight(merged.k_proj.weight).T, weight(merged.v_proj.weight).T,
                       weight(merged.down_proj.weight).T]),
            np.vstack([Wk * l_k, Wv * l_v, l_ff[:, None] * W2]), rtol=1e-15)
# Unmerging divides by l + 1e-8 (a guard against l = 0), so it does not give back W_k exactly.
model2, layers2 = peft_block(feedforward_modules=["down_proj"])
set_scales(layers2, k_proj=l_k)
model2.merge_adapter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # PEFT's own "Unmerge result can be inaccurate", shown below
    model2.unmerge_adapter()
unmerged = weight(layers2.k_proj.base_layer.weight).T
check_close("pitfall: merge then unmerge leaves W_k l_k / (l_k + 1e-8), not W_k", unmerged,
            Wk * l_k / (l_k + 1e-8), rtol=1e-15)
check_true("... which differs from W_k by about 1e-8 / l_k relative", np.abs(unmerged / Wk - 1).max() > 1e-9,
           f"largest relative change {np.abs(unmerged / Wk - 1).max():.2g}")
# --- end in code ---
