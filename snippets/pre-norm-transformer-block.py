"""Pre-norm (pre-LN) Transformer block: checked against a literal per-position composition
(scipy zscore and softmax), the identity path, the final norm and causality."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import zscore
from transformer_reference import attention, ffn_row, ln_row
from transformer_sublayers import EPS, attn, ln, mlp


# --- formula ---
def pre_norm_block(h, p):
    """h~ = h + Attn(LN_1(h));  h_next = h~ + MLP(LN_2(h~))."""
    h_mid = h + attn(ln(h, p["g1"], p["b1"]), p)
    return h_mid + mlp(ln(h_mid, p["g2"], p["b2"]), p)


def pre_norm_model(h, layers, g_f, b_f):
    """Stack of pre-norm blocks; the residual stream is normalized once more at the end."""
    for p in layers:
        h = pre_norm_block(h, p)
    return ln(h, g_f, b_f), h
# --- end formula ---


rng = np.random.default_rng(0)
T, d, H, d_ff = 5, 16, 4, 64


def make_layer(scale=1.0):
    p = {"H": H}
    for w in ("Wq", "Wk", "Wv", "Wo"):
        p[w] = rng.normal(scale=d**-0.5, size=(d, d))
    p["Wo"] = p["Wo"] * scale
    p["W1"], p["c1"] = rng.normal(scale=d**-0.5, size=(d, d_ff)), rng.normal(scale=0.1, size=d_ff)
    p["W2"] = scale * rng.normal(scale=d_ff**-0.5, size=(d_ff, d))
    p["c2"] = scale * rng.normal(scale=0.1, size=d)
    for n in ("g1", "g2"):
        p[n] = 1 + 0.2 * rng.normal(size=d)
    for n in ("b1", "b2"):
        p[n] = 0.2 * rng.normal(size=d)
    return p


def literal_block(h, p):
    """Independent route: Xiong et al. Table 1 written per position and per head, with scipy's
    zscore for LayerNorm (eps folded in) and scipy's softmax (transformer_reference.py)."""
    y = h + attention(np.array([ln_row(r, p["g1"], p["b1"]) for r in h]), p)
    return y + np.array([ffn_row(ln_row(r, p["g2"], p["b2"]), p) for r in y])


layers = [make_layer() for _ in range(3)]
g_f, b_f = 1 + 0.2 * rng.normal(size=d), 0.2 * rng.normal(size=d)
x = rng.normal(loc=0.5, scale=2.0, size=(T, d))

# 1. One block, and a three-block stack, against the literal composition.
check_close("pre-norm block vs literal per-position composition", pre_norm_block(x, layers[0]),
            literal_block(x, layers[0]), rtol=1e-11, atol=1e-12)
ref = x
for p in layers:
    ref = literal_block(ref, p)
out, stream = pre_norm_model(x, layers, g_f, b_f)
check_close("3-block residual stream vs literal composition", stream, ref, rtol=1e-11, atol=1e-12)
check_close("final norm applied to the stream", out,
            g_f * zscore(ref, axis=-1) * ref.std(-1, keepdims=True)
            / np.sqrt(ref.var(-1, keepdims=True) + EPS) + b_f, rtol=1e-11, atol=1e-12)

# 2. The identity path: with zero output projections (Wo = W2 = c2 = 0) every block is exactly the
#    identity, so the stream reaches the top untouched.
zero = [make_layer(scale=0.0) for _ in range(4)]
check_close("zeroed branches: stream out == stream in", pre_norm_model(x, zero, g_f, b_f)[1], x,
            rtol=0, atol=0)

# 3. Causality: changing the last token leaves every earlier position's output unchanged.
x2 = x.copy()
x2[-1] += rng.normal(size=d)
o1, o2 = pre_norm_model(x, layers, g_f, b_f)[0], pre_norm_model(x2, layers, g_f, b_f)[0]
check_true("causal: earlier positions unaffected by a later token",
           np.allclose(o1[:-1], o2[:-1], rtol=0, atol=1e-13) and not np.allclose(o1[-1], o2[-1]))


# 4. Every read of the stream goes through a LayerNorm, so adding the same constant to all
#    features of the input just rides along the identity path and is removed by the final norm.
out_c, stream_c = pre_norm_model(x + 3.0, layers, g_f, b_f)
check_close("input + 3: stream shifted by exactly 3", stream_c - stream, np.full((T, d), 3.0), rtol=1e-11)
check_close("input + 3: final output unchanged", out_c, out, rtol=1e-10, atol=1e-12)

# 5. Depth: each block adds a branch output of roughly fixed size, so the stream's mean square
#    grows with depth in pre-norm, while a post-norm stream is re-standardized after every block.
def stream_rms(n_layers, post):
    h = rng.normal(size=(T, d))
    out = [np.sqrt(np.mean(h**2))]
    ones, zeros = np.ones(d), np.zeros(d)
    for _ in range(n_layers):
        p = make_layer()
        p.update(g1=ones, g2=ones, b1=zeros, b2=zeros)
        if post:
            h = ln(h + attn(h, p), ones, zeros)
            h = ln(h + mlp(h, p), ones, zeros)
        else:
            h = pre_norm_block(h, p)
        out.append(np.sqrt(np.mean(h**2)))
    return np.array(out)


depth = 24
pre = np.mean([stream_rms(depth, False) for _ in range(4)], axis=0)
post = np.mean([stream_rms(depth, True) for _ in range(4)], axis=0)
check_true("pre-norm stream RMS grows with depth (layer 24 > 3 x layer 1)", pre[-1] > 3 * pre[1],
           f"{pre[1]:.2f} -> {pre[-1]:.2f}")
check_close("post-norm stream stays at RMS 1", post[1:], np.ones(depth), rtol=1e-4)

fig, ax = figure("Residual-stream scale across depth (random weights)", "block",
                 "RMS of the residual stream")
ax.plot(np.arange(depth + 1), pre, "o-", ms=3, label="pre-norm: h + F(LN(h))")
ax.plot(np.arange(depth + 1), post, "s-", ms=3, label="post-norm: LN(h + F(h))")
ax.set_ylim(bottom=0)
ax.legend()
