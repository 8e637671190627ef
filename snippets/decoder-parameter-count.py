"""Exact parameter count of a decoder-only Transformer (gated or plain MLP, grouped-query attention,
tied or untied embeddings, norm weights, optional biases and learned positions), checked against
the published totals of Llama 2 7B/13B/70B, Llama 3 8B/70B, Mistral 7B and GPT-2 small, against a
tensor-by-tensor count of the Hugging Face state dict, and against a numpy forward pass that reads
every weight it counts."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

# --- formula ---
NORM_VECTORS = {"rms": 1, "layer": 2, "none": 0}   # vectors of d per norm: weight; weight and bias; none


def decoder_params(L: int, d: int, d_ff: int, V: int, h: int, h_kv: int | None = None,
                   d_h: int | None = None, *, gated: bool = True, tied: bool = False,
                   norm: str = "rms", attn_bias: bool = False, mlp_bias: bool = False,
                   n_pos: int = 0) -> int:
    """N = (2 - tau) V d + n_pos d + (2L + 1) nu d + L (N_attn + N_mlp)."""
    h_kv = h if h_kv is None else h_kv
    d_h = d // h if d_h is None else d_h
    nu = NORM_VECTORS[norm]
    g = int(gated)
    n_attn = 2 * d * d_h * (h + h_kv) + int(attn_bias) * ((h + 2 * h_kv) * d_h + d)
    n_mlp = (2 + g) * d * d_ff + int(mlp_bias) * ((1 + g) * d_ff + d)
    return (2 - int(tied)) * V * d + n_pos * d + (2 * L + 1) * nu * d + L * (n_attn + n_mlp)
# --- end formula ---


# ---------------------------------------------------------------------------------------------
# Route 2: brute force. Every tensor a Hugging Face LlamaForCausalLM-style state dict lists, by
# name and shape (nn.Linear stores (out_features, in_features)), written from the module tree and
# not from the closed form. A tied lm_head is the embedding tensor itself: state_dict() lists it
# under both names, model.parameters() yields it once. `owner` records which tensor a name is.
# ---------------------------------------------------------------------------------------------
def state_dict_shapes(cfg: dict) -> dict[str, tuple[tuple[int, ...], str]]:
    d, V, n_layers = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    n_q = cfg["num_attention_heads"]
    n_kv = cfg.get("num_key_value_heads", n_q)
    hd = cfg.get("head_dim") or d // n_q
    ff = cfg["intermediate_size"]
    norm = cfg.get("norm", "rms")
    entries: dict[str, tuple[tuple[int, ...], str]] = {}

    def add(name: str, shape: tuple[int, ...], owner: str | None = None) -> None:
        entries[name] = (shape, owner or name)

    def add_norm(prefix: str) -> None:
        if norm == "none":
            return
        add(prefix + ".weight", (d,))
        if norm == "layer":
            add(prefix + ".bias", (d,))

    def add_linear(prefix: str, n_in: int, n_out: int, bias: bool) -> None:
        add(prefix + ".weight", (n_out, n_in))
        if bias:
            add(prefix + ".bias", (n_out,))

    add("model.embed_tokens.weight", (V, d))
    if cfg.get("max_position_embeddings_learned"):
        add("model.embed_positions.weight", (cfg["max_position_embeddings_learned"], d))
    for i in range(n_layers):
        p = f"model.layers.{i}."
        add_norm(p + "input_layernorm")
        ab = cfg.get("attention_bias", False)
        add_linear(p + "self_attn.q_proj", d, n_q * hd, ab)
        add_linear(p + "self_attn.k_proj", d, n_kv * hd, ab)
        add_linear(p + "self_attn.v_proj", d, n_kv * hd, ab)
        add_linear(p + "self_attn.o_proj", n_q * hd, d, ab)
        add_norm(p + "post_attention_layernorm")
        mb = cfg.get("mlp_bias", False)
        if cfg.get("gated", True):
            add_linear(p + "mlp.gate_proj", d, ff, mb)
        add_linear(p + "mlp.up_proj", d, ff, mb)
        add_linear(p + "mlp.down_proj", ff, d, mb)
    add_norm("model.norm")
    if cfg.get("tie_word_embeddings", False):
        add("lm_head.weight", (V, d), owner="model.embed_tokens.weight")
    else:
        add("lm_head.weight", (V, d))
    return entries


def count_parameters(entries) -> int:
    """sum(p.numel() for p in model.parameters()): each tensor once, shared ones not twice."""
    sizes = {owner: int(np.prod(shape)) for shape, owner in entries.values()}
    return sum(sizes.values())


def count_state_dict(entries) -> int:
    """The naive sum over state_dict() entries, which lists a tied matrix under both names."""
    return sum(int(np.prod(shape)) for shape, _ in entries.values())


def closed_form(cfg: dict) -> int:
    """The card's formula, fed from config.json keys."""
    return decoder_params(cfg["num_hidden_layers"], cfg["hidden_size"], cfg["intermediate_size"],
                          cfg["vocab_size"], cfg["num_attention_heads"],
                          cfg.get("num_key_value_heads"), cfg.get("head_dim"),
                          gated=cfg.get("gated", True), tied=cfg.get("tie_word_embeddings", False),
                          norm=cfg.get("norm", "rms"), attn_bias=cfg.get("attention_bias", False),
                          mlp_bias=cfg.get("mlp_bias", False),
                          n_pos=cfg.get("max_position_embeddings_learned", 0))


def same(what: str, got: int, expected: int) -> None:
    """Integer counts agree exactly."""
    check_true(what, isinstance(got, int) and got == expected, f"{got:,} vs {expected:,}")


# ---------------------------------------------------------------------------------------------
# Route 1: the released models. The config.json values of each checkpoint on the Hugging Face Hub
# (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads,
# vocab_size, tie_word_embeddings; RMSNorm, no biases) and the total that
# sum(p.numel() for p in model.parameters()) reports for it.
# ---------------------------------------------------------------------------------------------
def llama(hidden, inter, layers, heads, kv, vocab):
    return {"hidden_size": hidden, "intermediate_size": inter, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": kv, "vocab_size": vocab,
            "tie_word_embeddings": False}


PUBLISHED = {  # name: (config, total parameters)
    "Llama 2 7B": (llama(4096, 11008, 32, 32, 32, 32000), 6_738_415_616),
    "Llama 2 13B": (llama(5120, 13824, 40, 40, 40, 32000), 13_015_864_320),
    "Llama 2 70B": (llama(8192, 28672, 80, 64, 8, 32000), 68_976_648_192),
    "Llama 3 8B": (llama(4096, 14336, 32, 32, 8, 128256), 8_030_261_248),
    "Llama 3 70B": (llama(8192, 28672, 80, 64, 8, 128256), 70_553_706_496),
    "Mistral 7B v0.1": (llama(4096, 14336, 32, 32, 8, 32000), 7_241_732_096),
}
# GPT-2 small (config.json: n_embd 768, n_layer 12, n_head 12, n_positions 1024, vocab 50257,
# n_inner None = 4 n_embd): LayerNorm, biases everywhere, learned positions, tied output layer.
GPT2 = {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
        "num_attention_heads": 12, "vocab_size": 50257, "tie_word_embeddings": True,
        "gated": False, "norm": "layer", "attention_bias": True, "mlp_bias": True,
        "max_position_embeddings_learned": 1024}
GPT2_TOTAL = 124_439_808

for name, (cfg, total) in PUBLISHED.items():
    same(f"{name}: formula = published {total:,}", closed_form(cfg), total)
    same(f"{name}: state-dict tensor count = published", count_parameters(state_dict_shapes(cfg)), total)
same("GPT-2 small: formula = published 124,439,808", closed_form(GPT2), GPT2_TOTAL)
same("GPT-2 small: tensor count = published", count_parameters(state_dict_shapes(GPT2)), GPT2_TOTAL)

# The GPT-2 checkpoint's own tensors (Conv1D stores (in, out); c_attn fuses q, k, v), listed as the
# released file holds them, independently of the Llama-style naming above.
gpt2_tensors = [(50257, 768), (1024, 768), (768,), (768,)]          # wte, wpe, ln_f weight and bias
for _ in range(12):
    gpt2_tensors += [(768,), (768,), (768, 2304), (2304,), (768, 768), (768,),     # ln_1, attn
                     (768,), (768,), (768, 3072), (3072,), (3072, 768), (768,)]    # ln_2, mlp
same("GPT-2 small: checkpoint tensor list = published", sum(int(np.prod(s)) for s in gpt2_tensors),
     GPT2_TOTAL)

# Tied embeddings: state_dict() lists the shared matrix twice, parameters() once.
gpt2_entries = state_dict_shapes(GPT2)
same("tied: the naive state-dict sum counts the shared V x d matrix twice",
     count_state_dict(gpt2_entries) - count_parameters(gpt2_entries), 50257 * 768)
untied_gpt2 = dict(GPT2, tie_word_embeddings=False)
same("GPT-2 untied: formula = tensor count", closed_form(untied_gpt2),
     count_parameters(state_dict_shapes(untied_gpt2)))
same("Llama 2 7B tied: formula = tensor count", closed_form(dict(PUBLISHED["Llama 2 7B"][0],
                                                                 tie_word_embeddings=True)),
     count_parameters(state_dict_shapes(dict(PUBLISHED["Llama 2 7B"][0], tie_word_embeddings=True))))

# ---------------------------------------------------------------------------------------------
# Route 2 on every branch: a grid of small configurations, each switch on and off, GQA from MHA
# down to MQA, head dim equal to d/h or set apart from it.
# ---------------------------------------------------------------------------------------------
grid = 0
for gated in (True, False):
    for tied in (True, False):
        for norm in ("rms", "layer", "none"):
            for ab in (True, False):
                for mb in (True, False):
                    for n_q, n_kv, hd in ((4, 4, None), (4, 2, None), (4, 1, None), (4, 2, 6)):
                        for n_pos in (0, 9):
                            cfg = {"hidden_size": 16, "intermediate_size": 40, "num_hidden_layers": 3,
                                   "num_attention_heads": n_q, "num_key_value_heads": n_kv,
                                   "head_dim": hd, "vocab_size": 23, "tie_word_embeddings": tied,
                                   "gated": gated, "norm": norm, "attention_bias": ab,
                                   "mlp_bias": mb, "max_position_embeddings_learned": n_pos}
                            got, ref = closed_form(cfg), count_parameters(state_dict_shapes(cfg))
                            if got != ref or not isinstance(got, int):
                                same(f"grid: gated={gated} tied={tied} norm={norm} biases={ab}/{mb} "
                                     f"heads {n_q}:{n_kv} d_h={hd} n_pos={n_pos}", got, ref)
                            grid += 1
check_true("formula = state-dict count on every branch of a 384-configuration grid", grid == 384,
           f"{grid} configurations agree")

# ---------------------------------------------------------------------------------------------
# Route 3: a forward pass. Random arrays of exactly the state dict's shapes run a causal decoder;
# the pass must read every tensor listed (so none is padding) and the shapes must multiply.
# ---------------------------------------------------------------------------------------------
class Reads(dict):
    def __init__(self, *a):
        super().__init__(*a)
        self.read: set[str] = set()

    def __getitem__(self, k):
        self.read.add(k)
        return super().__getitem__(k)

    def get(self, k, default=None):
        return self[k] if k in self else default


def forward(cfg: dict, W: Reads, tokens: np.ndarray) -> np.ndarray:
    d, n_q = cfg["hidden_size"], cfg["num_attention_heads"]
    n_kv = cfg.get("num_key_value_heads", n_q)
    hd = cfg.get("head_dim") or d // n_q
    T = len(tokens)

    def norm(x, p):
        kind = cfg.get("norm", "rms")
        if kind == "none":
            return x
        if kind == "rms":
            return x / np.sqrt(np.mean(x * x, -1, keepdims=True) + 1e-6) * W[p + ".weight"]
        z = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
        return z * W[p + ".weight"] + W[p + ".bias"]

    def linear(x, p):
        b = W.get(p + ".bias")
        y = x @ W[p + ".weight"].T
        return y if b is None else y + b

    x = W["model.embed_tokens.weight"][tokens]
    if "model.embed_positions.weight" in W:
        x = x + W["model.embed_positions.weight"][:T]
    mask = np.triu(np.full((T, T), -np.inf), 1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = norm(x, p + "input_layernorm")
        q = linear(a, p + "self_attn.q_proj").reshape(T, n_q, hd).transpose(1, 0, 2)
        k = linear(a, p + "self_attn.k_proj").reshape(T, n_kv, hd).transpose(1, 0, 2)
        v = linear(a, p + "self_attn.v_proj").reshape(T, n_kv, hd).transpose(1, 0, 2)
        k, v = np.repeat(k, n_q // n_kv, 0), np.repeat(v, n_q // n_kv, 0)   # each kv head serves a group
        s = q @ k.transpose(0, 2, 1) / np.sqrt(hd) + mask
        s = np.exp(s - s.max(-1, keepdims=True))
        o = (s / s.sum(-1, keepdims=True)) @ v
        x = x + linear(o.transpose(1, 0, 2).reshape(T, n_q * hd), p + "self_attn.o_proj")
        m = norm(x, p + "post_attention_layernorm")
        up = linear(m, p + "mlp.up_proj")
        if cfg.get("gated", True):
            gate = linear(m, p + "mlp.gate_proj")
            hidden = gate / (1 + np.exp(-gate)) * up                       # SiLU(gate) * up
        else:
            hidden = 0.5 * up * (1 + np.tanh(0.7978845608 * (up + 0.044715 * up**3)))   # GELU
        x = x + linear(hidden, p + "mlp.down_proj")
    x = norm(x, "model.norm")
    return x @ W["lm_head.weight"].T


rng = np.random.default_rng(0)
TINY = {  # three small models that between them switch every option
    "Llama-style: SwiGLU, GQA 4:2, RMSNorm, untied": {
        "hidden_size": 16, "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 23},
    "GPT-2-style: GELU MLP, LayerNorm, biases, learned positions, tied": {
        "hidden_size": 16, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 23, "tie_word_embeddings": True, "gated": False, "norm": "layer",
        "attention_bias": True, "mlp_bias": True, "max_position_embeddings_learned": 12},
    "MQA, head dim 6 != d/h, both biases, tied, no norms": {
        "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4,
        "num_key_value_heads": 1, "head_dim": 6, "vocab_size": 23, "tie_word_embeddings": True,
        "norm": "none", "attention_bias": True, "mlp_bias": True},
}
for label, cfg in TINY.items():
    entries = state_dict_shapes(cfg)
    arrays: dict[str, np.ndarray] = {}
    for name, (shape, owner) in entries.items():
        arrays[name] = arrays[owner] if owner in arrays else rng.normal(0, 0.1, shape)
    W = Reads(arrays)
    logits = forward(cfg, W, rng.integers(0, cfg["vocab_size"], 7))
    check_true(f"{label}: forward pass gives (T, V) logits and reads every tensor",
               logits.shape == (7, cfg["vocab_size"]) and np.all(np.isfinite(logits))
               and W.read == set(entries), f"{len(W.read)} of {len(entries)} tensors read")
    used = {id(arr): arr.size for name, arr in arrays.items() if name in W.read}
    same(f"{label}: formula = sizes of the distinct arrays the pass used", closed_form(cfg),
         sum(used.values()))

# ---------------------------------------------------------------------------------------------
# Route 4: the old card's special case. A plain 4d MLP, full multi-head attention, one tied
# embedding, no norms, biases or positions: exactly 12 L d^2 + V d. Each switch then adds the
# tensors it brings, read off the state dict.
# ---------------------------------------------------------------------------------------------
for L_, d_, V_, h_ in ((12, 768, 50257, 12), (96, 12288, 50257, 96), (3, 32, 101, 4)):
    base = dict(L=L_, d=d_, d_ff=4 * d_, V=V_, h=h_, gated=False, tied=True, norm="none")
    same(f"plain case L={L_}, d={d_}: formula = 12 L d^2 + V d",
         decoder_params(**base), 12 * L_ * d_**2 + V_ * d_)

cfg0 = {"hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 5, "num_attention_heads": 8,
        "vocab_size": 97, "tie_word_embeddings": True, "gated": False, "norm": "none"}
n0 = closed_form(cfg0)
same("plain case from a config: formula = 12 L d^2 + V d", n0, 12 * 5 * 64**2 + 97 * 64)
switches = {  # change: the state-dict names that appear
    "untie the output layer": {"tie_word_embeddings": False},
    "RMSNorm (2 per layer + final)": {"norm": "rms"},
    "LayerNorm (weight and bias)": {"norm": "layer"},
    "gate the MLP (gate_proj)": {"gated": True},
    "attention biases": {"attention_bias": True},
    "MLP biases": {"mlp_bias": True},
    "learned positions": {"max_position_embeddings_learned": 128},
    "GQA 8:2 (k_proj, v_proj shrink)": {"num_key_value_heads": 2},
}
e0 = state_dict_shapes(cfg0)
for what, change in switches.items():
    cfg1 = dict(cfg0, **change)
    e1 = state_dict_shapes(cfg1)
    new = {n: int(np.prod(s)) for n, (s, o) in e1.items() if n not in e0 or o != e0[n][1] or s != e0[n][0]}
    gone = {n: int(np.prod(s)) for n, (s, o) in e0.items() if n not in e1 or s != e1[n][0]}
    delta = sum(new.values()) - sum(gone.values())
    same(f"{what}: formula moves by the tensors that change ({delta:+,})", closed_form(cfg1) - n0, delta)

# Where people get it wrong, on Llama 2 7B and 70B.
c7, n7 = PUBLISHED["Llama 2 7B"]
c70, n70 = PUBLISHED["Llama 2 70B"]
old = 12 * 32 * 4096**2 + 32000 * 4096
check_true("12 L d^2 + V d undercounts Llama 2 7B by 2.4% to 2.5%", 0.024 < (n7 - old) / n7 < 0.025,
           f"{old:,} vs {n7:,}")
ff4 = closed_form(dict(c7, intermediate_size=4 * 4096))
check_true("d_ff = 4d with a gated MLP overshoots Llama 2 7B by over 30%", ff4 > 1.3 * n7,
           f"{ff4:,} vs {n7:,}")
mha70 = closed_form(dict(c70, num_key_value_heads=64))
check_true("counting Llama 2 70B's attention as full MHA overshoots by over 9B", mha70 - n70 > 9e9,
           f"{mha70:,} vs {n70:,}")

# Where the parameters sit, from the state-dict names (not the formula).
fig, ax = figure("Where the parameters are", "share of all parameters", "model", size=(6.0, 3.8))
labels, parts = [], []
for name, (cfg, total) in PUBLISHED.items():
    sizes = {}
    for n, (s, _owner) in state_dict_shapes(cfg).items():
        group = "embed" if "embed" in n or "lm_head" in n else "attn" if "self_attn" in n else \
                "mlp" if ".mlp." in n else "norm"
        sizes[group] = sizes.get(group, 0) + int(np.prod(s))
    labels.append(name)
    parts.append([sizes[k] / total for k in ("embed", "attn", "mlp", "norm")])
parts_a = np.array(parts)
# Four fractions summed: a few ulps of rounding, so 1e-12 is ample.
check_close("the four groups add up to the whole", parts_a.sum(1), np.ones(len(labels)), rtol=1e-12)
left = np.zeros(len(labels))
for j, (part, hatch) in enumerate(zip(("embeddings", "attention", "MLP", "norms"), ("", "//", "..", "xx"),
                                      strict=True)):
    ax.barh(labels, parts_a[:, j], left=left, label=part, hatch=hatch, edgecolor="black")
    left += parts_a[:, j]
ax.set_xlim(0, 1)
ax.invert_yaxis()
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=4, fontsize=8)   # norms: under 0.01%

# The page's calculator is checked against decoder_params on this grid (every switch on and off,
# each published configuration's sizes): cardcalc records it, the build runs the card's JavaScript.
import cardcalc  # noqa: E402

SIZES = [dict(L=c["num_hidden_layers"], d=c["hidden_size"], d_ff=c["intermediate_size"], V=c["vocab_size"],
              h=c["num_attention_heads"], h_kv=c.get("num_key_value_heads") or c["num_attention_heads"],
              d_h=c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"])
         for c in [cfg for cfg, _ in PUBLISHED.values()]
         + [GPT2, TINY["MQA, head dim 6 != d/h, both biases, tied, no norms"]]]
NORM_OF = {1: "rms", 2: "layer", 0: "none"}
cardcalc.table(lambda L, d, d_ff, V, h, h_kv, d_h, tau, g, nu, beta_attn, beta_mlp, n_pos: decoder_params(
    L, d, d_ff, V, h, h_kv, d_h, gated=bool(g), tied=bool(tau), norm=NORM_OF[nu], attn_bias=bool(beta_attn),
    mlp_bias=bool(beta_mlp), n_pos=n_pos),
    [dict(size, **switch) for size in SIZES
     for switch in cardcalc.grid(tau=(0, 1), g=(0, 1), nu=(0, 1, 2), beta_attn=(0, 1), beta_mlp=(0, 1),
                                 n_pos=(0, 1024))])
