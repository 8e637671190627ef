# %% [markdown]
# # Budget a 7B-parameter model
#
# This notebook sizes a Llama-style model of about seven billion parameters before any GPU is booked:
# how many weights it has, how much compute its training run costs, how many tokens would be
# compute-optimal, how much memory each GPU needs for the training state under every ZeRO stage, how large
# the KV cache grows when serving it, and what fraction of the hardware a measured throughput uses. Each
# number is computed from a formula written out in a few lines and then checked against a second route.
# Change the configuration in the first code cell and rerun to get the same budget table for your model.

# %%
import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq, minimize_scalar
from scipy.special import softmax

# Llama 2 7B as released: untied input and output embeddings, SwiGLU MLP, RMSNorm gains, no biases.
LLAMA2_7B = dict(d_model=4096, n_layers=32, n_heads=32, n_kv_heads=32, d_ff=11008, vocab=32000, tied=False)

CONFIG = dict(LLAMA2_7B)          # edit any field to budget a different model
TRAIN_TOKENS = 2.0e12             # planned training tokens (Llama 2 used 2T)
SEQ_LEN = 4096                    # training and serving context length
GQA_KV_HEADS = 8                  # the grouped-query variant compared against multi-head attention
SERVE_BATCH = 8                   # sequences decoded together
BYTES_PER_VALUE = 2               # bf16 weights and KV cache
GPU_MEMORY = 80e9                 # bytes on one accelerator (A100 80GB)
PEAK_FLOPS = 312e12               # dense bf16 peak of one A100, FLOP/s
N_GPUS = 256                      # GPUs in the training cluster
DP_DEGREES = (1, 8, 64, 256)      # data-parallel degrees to tabulate for ZeRO
# Measured training throughput per GPU. The default is what Llama 2's report implies for the 7B model:
# 2T tokens in 184,320 A100 GPU-hours (Touvron et al. 2023, Table 2). Put your own measurement here.
TOKENS_PER_SEC_PER_GPU = 2.0e12 / (184_320 * 3600)

GB = 1e9


def head_dim(cfg):
    return cfg["d_model"] // cfg["n_heads"]


# %% [markdown]
# ## Count the parameters
#
# The [Transformer parameter count](../../cards/transformer-parameter-count/) card estimates a decoder as
# twelve $d \times d$ matrices per layer plus the embedding table,
#
# $$N \approx 12\,L\,d^2 + V d,$$
#
# and a model whose output layer is a separate matrix (Llama) carries a second $V d$. Llama's blocks differ
# from the card's assumptions in two ways that happen to cancel: the MLP is gated (three matrices of
# $d \times d_{\mathrm{ff}}$, and $3 \cdot 11008 \approx 8 \cdot 4096$), and there are small RMSNorm gains.
# The exact count walks through every tensor of the checkpoint by shape. When the model uses grouped
# key-value heads, the key and value projections shrink to $d \times H_{\mathrm{kv}} d_h$. The exact
# count must equal the 6,738,415,616 parameters of the released Llama 2 7B weights, and the shortcut must
# land within 1% of it.

# %%
def approx_params(cfg):
    """12 L d^2 + V d, with a second V d when the output layer is not tied to the embedding."""
    embeddings = (1 if cfg["tied"] else 2) * cfg["vocab"] * cfg["d_model"]
    return 12 * cfg["n_layers"] * cfg["d_model"] ** 2 + embeddings


def tensor_shapes(cfg):
    """Every weight tensor of a Llama-style decoder, by name."""
    d, ff, kv = cfg["d_model"], cfg["d_ff"], cfg["n_kv_heads"] * head_dim(cfg)
    shapes = {"embed": (cfg["vocab"], d), "final_norm": (d,)}
    for i in range(cfg["n_layers"]):
        shapes |= {f"{i}.q": (d, d), f"{i}.k": (d, kv), f"{i}.v": (d, kv), f"{i}.o": (d, d),
                   f"{i}.gate": (d, ff), f"{i}.up": (d, ff), f"{i}.down": (ff, d),
                   f"{i}.attn_norm": (d,), f"{i}.mlp_norm": (d,)}
    if not cfg["tied"]:
        shapes["lm_head"] = (cfg["vocab"], d)
    return shapes


def exact_params(cfg):
    return sum(int(np.prod(s)) for s in tensor_shapes(cfg).values())


check_close("Llama 2 7B: tensor-by-tensor count vs the released 6,738,415,616",
            exact_params(LLAMA2_7B), 6_738_415_616, rtol=0)
check_close("Llama 2 7B: 12 L d^2 + 2 V d within 1% of the exact count",
            approx_params(LLAMA2_7B), exact_params(LLAMA2_7B), rtol=0.01)
N = exact_params(CONFIG)
gqa_config = dict(CONFIG, n_kv_heads=GQA_KV_HEADS)
print(f"exact parameters:         {N:,}  ({N / 1e9:.3f}B)")
print(f"12 L d^2 + 2 V d:         {approx_params(CONFIG):,}  ({approx_params(CONFIG) / N - 1:+.2%})")
print(f"embedding + output share: {2 * CONFIG['vocab'] * CONFIG['d_model'] / N:.1%}")
print(f"with {GQA_KV_HEADS} KV heads:          {exact_params(gqa_config):,}")

# %% [markdown]
# ## Training compute and the compute-optimal token count
#
# [Training compute](../../cards/training-flops/) is about six FLOPs per parameter per token, two in the
# forward pass and four in the backward pass: $C \approx 6 N D$. With the defaults ($D = 2$T tokens) that
# is $8.1 \times 10^{22}$ FLOPs. Two routes check it. First, every weight matrix costs $2mn$ FLOPs per token
# forward and twice that backward; the input embedding is a table lookup and the RMSNorm gains are
# elementwise, so booking the matrices one by one must give 6 times the parameters left after removing
# those two, about 2% under $6N$. Second, Llama 2's report gives 184,320
# A100 GPU-hours for this run, so $6ND$ divided by that hardware time must be a plausible utilisation,
# between 30% and 60% of peak.
#
# How many tokens would be compute-optimal? The
# [compute-optimal allocation](../../cards/compute-optimal-allocation/) rule sets $D \approx 20 N$, so for
# a budget $C$ it takes $N_{\mathrm{opt}} = \sqrt{C/120}$ and $D_{\mathrm{opt}} = 20 N_{\mathrm{opt}}$. The
# [Chinchilla parametric loss](../../cards/chinchilla-scaling-law/) gives a second answer from its fitted
# curve
#
# $$L(N, D) = E + \frac{A}{N^{\alpha}} + \frac{B}{D^{\beta}}, \qquad E = 1.69,\ A = 406.4,\ B = 410.7,\
# \alpha = 0.34,\ \beta = 0.28,$$
#
# whose minimum on the line $C = 6ND$ is $N_{\mathrm{opt}} = G\,(C/6)^{\beta/(\alpha+\beta)}$ with
# $G = (\alpha A / \beta B)^{1/(\alpha+\beta)}$. We check the rule against root-finding on
# $6 N \cdot 20 N = C$ and the fit's closed form against a numerical minimisation along the budget line.
# Read the output both ways. At Llama 2's budget, the rule would have trained a model about four times
# larger on a quarter of the tokens, and the fit a model twice as large on half. Turned around, a 6.7B model
# is compute-optimal at 135B tokens by the rule (the fit, whose optimal ratio drifts upwards with compute,
# says about 450B); 2T tokens is deliberate over-training, which buys a cheaper model to serve for a small
# loss penalty at equal compute.

# %%
def training_flops(n_params, n_tokens):
    return 6 * n_params * n_tokens


C = training_flops(N, TRAIN_TOKENS)

matmul_flops = 0
for name, shape in tensor_shapes(CONFIG).items():
    if len(shape) == 2 and name != "embed":
        matmul_flops += 3 * 2 * shape[0] * shape[1]              # forward 2mn, backward 4mn, per token
embedding_table = CONFIG["vocab"] * CONFIG["d_model"]
norm_gains = (2 * CONFIG["n_layers"] + 1) * CONFIG["d_model"]
check_close("matrices booked one by one = 6 (N - V d - norm gains) FLOPs per token", matmul_flops,
            6 * (N - embedding_table - norm_gains), rtol=0)
llama_utilisation = training_flops(exact_params(LLAMA2_7B), 2.0e12) / (184_320 * 3600 * 312e12)
check_true("6ND over Llama 2's 184,320 A100-hours is a plausible utilisation (30-60%)",
           0.3 < llama_utilisation < 0.6, f"{llama_utilisation:.1%} of peak")

TOKENS_PER_PARAM = 20.0
E, A, B, ALPHA, BETA = 1.69, 406.4, 410.7, 0.34, 0.28


def allocate(budget, r=TOKENS_PER_PARAM):
    """Equal-scaling rule: C = 6 N (r N), so N = sqrt(C / (6 r)) and D = r N."""
    n = np.sqrt(budget / (6 * r))
    return n, r * n


def chinchilla_loss(n, d):
    return E + A / n**ALPHA + B / d**BETA


def chinchilla_optimum(budget):
    G = (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))
    a, b = BETA / (ALPHA + BETA), ALPHA / (ALPHA + BETA)
    return G * (budget / 6) ** a, (budget / 6) ** b / G


n_rule, d_rule = allocate(C)
n_fit, d_fit = chinchilla_optimum(C)
root = brentq(lambda n: 6 * n * 20 * n - C, 1.0, 1e15, xtol=1e-6, rtol=1e-14)
check_close("rule: sqrt(C/120) vs root of 6 N (20 N) = C", n_rule, root, rtol=1e-10)
res = minimize_scalar(lambda lg: chinchilla_loss(10**lg, C / (6 * 10**lg)), bounds=(6, 14),
                      method="bounded", options={"xatol": 1e-10})
check_close("fit: closed-form N_opt vs numerical minimum on C = 6ND", n_fit, 10**res.x, rtol=1e-6)
check_true("the planned split cannot beat the fit's optimum at equal compute",
           chinchilla_loss(n_fit, d_fit) <= chinchilla_loss(N, TRAIN_TOKENS))

# Turn it around: for a model of this size, how many tokens make it compute-optimal?
d_for_n_rule = TOKENS_PER_PARAM * N
n_over_g = N / (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))
d_for_n_fit = n_over_g ** ((ALPHA + BETA) / BETA) / N          # invert N_opt = G (C/6)^a, then D = C / (6N)
check_close("fit: that token count gives back N as the optimum",
            chinchilla_optimum(6 * N * d_for_n_fit)[0], N, rtol=1e-10)
print(f"training compute C = 6ND = {C:.3e} FLOPs  ({C / 8.64e19:,.0f} PF-days)")
print(f"at this C, the 20:1 rule picks  N = {n_rule / 1e9:5.1f}B on D = {d_rule / 1e12:.2f}T tokens")
print(f"at this C, the Chinchilla fit   N = {n_fit / 1e9:5.1f}B on D = {d_fit / 1e12:.2f}T tokens")
print(f"predicted loss: planned split {chinchilla_loss(N, TRAIN_TOKENS):.4f}, "
      f"fit optimum {chinchilla_loss(n_fit, d_fit):.4f} nats/token")
print(f"compute-optimal tokens for N = {N / 1e9:.2f}B: {d_for_n_rule / 1e9:.0f}B (rule), "
      f"{d_for_n_fit / 1e9:.0f}B (fit); the plan is {TRAIN_TOKENS / d_for_n_rule:.1f}x the rule")

# %% [markdown]
# ## Memory per GPU for the training state
#
# [Mixed-precision Adam](../../cards/adam-memory/) keeps 16 bytes per parameter: a 16-bit working copy
# of the weights and of the gradients (2 + 2), and fp32 master weights plus Adam's two moments
# (4 + 4 + 4, written $K = 12$). [ZeRO](../../cards/zero3-memory/) shards these across $N_d$ data-parallel
# ranks in stages:
#
# $$\text{stage 0: } 16N, \quad \text{stage 1: } 4N + \frac{KN}{N_d}, \quad
# \text{stage 2: } 2N + \frac{(2+K)N}{N_d}, \quad \text{stage 3: } \frac{16N}{N_d}\ \text{bytes}.$$
#
# The 16 bytes are checked by allocating every buffer of one Adam step for a miniature model with the same
# tensor layout and summing their sizes. The stage formulas are checked against sharding with padding (the
# busiest rank holds $\lceil N / N_d \rceil$ elements of each sharded state) and against the per-GPU figures
# of the ZeRO paper's Figure 1 (7.5B parameters on 64 ranks: 120, 31.4, 16.6 and 1.9 GB). None of this
# counts activations, which come on top.

# %%
K = 12


def adam_state_bytes(n_params):
    return n_params * (2 + 2 + 4 + 4 + 4)


def zero_bytes_per_gpu(n_params, n_d, stage):
    if stage == 0:
        return (2 + 2 + K) * n_params
    if stage == 1:
        return (2 + 2) * n_params + K * n_params / n_d
    if stage == 2:
        return 2 * n_params + (2 + K) * n_params / n_d
    return (2 + 2 + K) * n_params / n_d


rng = np.random.default_rng(0)
mini = dict(d_model=64, n_layers=2, n_heads=4, n_kv_heads=4, d_ff=172, vocab=500, tied=False)
buffers = []
for shape in tensor_shapes(mini).values():
    master = rng.normal(0, 0.02, shape).astype(np.float32)
    buffers += [master.astype(np.float16), np.zeros(shape, np.float16), master,
                np.zeros(shape, np.float32), np.zeros(shape, np.float32)]
check_close("16 bytes/param vs the nbytes of every Adam buffer of a miniature model",
            adam_state_bytes(exact_params(mini)), sum(b.nbytes for b in buffers), rtol=0)

for stage, sharded in ((1, ("opt",)), (2, ("opt", "grad")), (3, ("opt", "grad", "param"))):
    for n_d in DP_DEGREES:
        shard = -(-N // n_d)                                      # ceil: the busiest rank's slice
        busiest = sum(nbytes * (shard if part in sharded else N)
                      for part, nbytes in (("param", 2), ("grad", 2), ("opt", K)))
        check_close(f"ZeRO-{stage}, N_d = {n_d}: formula vs busiest padded shard",
                    zero_bytes_per_gpu(N, n_d, stage), busiest, rtol=1e-8)
check_close("ZeRO Figure 1: 7.5B parameters, N_d = 64 (GB)",
            [zero_bytes_per_gpu(7.5e9, 64, s) / GB for s in range(4)], [120, 31.4, 16.6, 1.9], rtol=0.02)

print(f"model state, no sharding: {adam_state_bytes(N) / GB:.1f} GB "
      f"(bf16 weights alone {2 * N / GB:.1f} GB)")
print(f"{'N_d':>6}" + "".join(f"{'ZeRO-' + str(s):>10}" for s in range(4)) + "   GB per GPU")
for n_d in DP_DEGREES:
    print(f"{n_d:6d}" + "".join(f"{zero_bytes_per_gpu(N, n_d, s) / GB:10.1f}" for s in range(4)))

fig, ax = figure(f"Training state per GPU, N = {N / 1e9:.2f}B", "data-parallel degree $N_d$", "GB per GPU")
nd = 2 ** np.arange(0, 11)
for s, label in enumerate(("no sharding", "ZeRO-1 (optimizer)", "ZeRO-2 (+ gradients)",
                           "ZeRO-3 (+ weights)")):
    ax.loglog(nd, [zero_bytes_per_gpu(N, n, s) / GB for n in nd], "o-", ms=3, label=label)
ax.axhline(GPU_MEMORY / GB, ls=":", color="gray", label=f"{GPU_MEMORY / GB:.0f} GB device")
ax.legend()

# %% [markdown]
# ## KV cache when serving, with and without grouped-query attention
#
# Decoding keeps every layer's keys and values for every cached position. The
# [KV-cache memory](../../cards/kv-cache-memory/) is
#
# $$M_{\mathrm{KV}} = 2 \cdot L \cdot H_{\mathrm{kv}} \cdot d_h \cdot T \cdot B \cdot b,$$
#
# with $H_{\mathrm{kv}}$ key-value heads of width $d_h$, $T$ cached positions, $B$ sequences and $b$ bytes
# per value. [Grouped-query attention](../../cards/grouped-query-attention/) lets query head $h$ read the
# key-value head $g(h) = \lfloor h G / H \rfloor$ of its group, so only $G = H_{\mathrm{kv}}$ heads are cached
# and the cache shrinks by $H_{\mathrm{kv}} / H$. Llama 2 7B uses all 32 heads; the GQA variant keeps 8.
#
# Checks: the per-token size of OPT-13B ($L = 40$, $H = 40$, $d_h = 128$, fp16) must be the 800 KiB quoted
# in the PagedAttention paper. On a small model with real arrays, the bytes of the fp16 caches must equal the
# formula, and attention that expands the cached heads with `np.repeat` must equal a plain loop in which
# each query head looks up $g(h)$.

# %%
def kv_cache_bytes(n_layers, n_kv_heads, d_h, seq_len, batch, bytes_per_value):
    return 2 * n_layers * n_kv_heads * d_h * seq_len * batch * bytes_per_value


check_close("OPT-13B: KV cache per token = 800 KiB (Kwon et al. 2023)",
            kv_cache_bytes(40, 40, 128, 1, 1, 2), 800 * 1024, rtol=0)


def gqa_attention(q, k, v):
    """q: [H, T, d_h]; k, v: [G, T, d_h]. Head h reads KV head floor(h G / H) (contiguous groups)."""
    group = q.shape[0] // k.shape[0]
    k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
    mask = np.triu(np.full((q.shape[1], q.shape[1]), -np.inf), 1)
    return softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[2]) + mask, axis=-1) @ v


L_toy, H_toy, G_toy, dh_toy, T_toy, B_toy = 2, 8, 2, 4, 6, 3
d_toy = H_toy * dh_toy
x = rng.normal(size=(B_toy, T_toy, d_toy))
cache = []
for layer in range(L_toy):
    for _ in ("k", "v"):
        w = rng.normal(0, d_toy**-0.5, (d_toy, G_toy * dh_toy))
        cache.append((x @ w).reshape(B_toy, T_toy, G_toy, dh_toy).transpose(0, 2, 1, 3).astype(np.float16))
check_close("toy fp16 caches: nbytes vs 2 L H_kv d_h T B b", sum(c.nbytes for c in cache),
            kv_cache_bytes(L_toy, G_toy, dh_toy, T_toy, B_toy, 2), rtol=0)
q = rng.normal(size=(H_toy, T_toy, dh_toy))
k_last, v_last = cache[-2][0].astype(float), cache[-1][0].astype(float)
mask_toy = np.triu(np.full((T_toy, T_toy), -np.inf), 1)
loop = np.stack([softmax(q[h] @ k_last[h * G_toy // H_toy].T / np.sqrt(dh_toy) + mask_toy, axis=-1)
                 @ v_last[h * G_toy // H_toy] for h in range(H_toy)])
check_close("GQA with np.repeat vs a loop over heads using g(h) = floor(h G / H)",
            gqa_attention(q, k_last, v_last), loop, rtol=1e-12, atol=1e-14)

dh = head_dim(CONFIG)
weights_bytes = {"MHA": BYTES_PER_VALUE * N, "GQA": BYTES_PER_VALUE * exact_params(gqa_config)}
print(f"{'':5}{'KV heads':>9}{'per token':>12}{'one sequence':>14}{'batch of ' + str(SERVE_BATCH):>13}"
      f"{'max batch':>11}")
for name, h_kv in (("MHA", CONFIG["n_kv_heads"]), ("GQA", GQA_KV_HEADS)):
    per_token = kv_cache_bytes(CONFIG["n_layers"], h_kv, dh, 1, 1, BYTES_PER_VALUE)
    batch_bytes = kv_cache_bytes(CONFIG["n_layers"], h_kv, dh, SEQ_LEN, SERVE_BATCH, BYTES_PER_VALUE)
    max_batch = int((GPU_MEMORY - weights_bytes[name]) // (per_token * SEQ_LEN))
    print(f"{name:5}{h_kv:9d}{per_token / 2**20:9.3f} MiB{per_token * SEQ_LEN / GB:11.2f} GB"
          f"{batch_bytes / GB:10.2f} GB{max_batch:11d}")
ratio = kv_cache_bytes(CONFIG["n_layers"], GQA_KV_HEADS, dh, SEQ_LEN, SERVE_BATCH, BYTES_PER_VALUE) / \
    kv_cache_bytes(CONFIG["n_layers"], CONFIG["n_kv_heads"], dh, SEQ_LEN, SERVE_BATCH, BYTES_PER_VALUE)
check_close("GQA / MHA cache ratio = H_kv / H", ratio, GQA_KV_HEADS / CONFIG["n_kv_heads"], rtol=1e-15)

fig, ax = figure(f"KV cache, batch of {SERVE_BATCH}, bf16", "context length $T$ (tokens)", "GB")
contexts = 2 ** np.arange(9, 16)
for name, h_kv in (("MHA", CONFIG["n_kv_heads"]), (f"GQA-{GQA_KV_HEADS}", GQA_KV_HEADS)):
    cache_gb = kv_cache_bytes(CONFIG["n_layers"], h_kv, dh, contexts, SERVE_BATCH, BYTES_PER_VALUE) / GB
    ax.loglog(contexts, cache_gb, "o-", ms=3, label=f"{name} ({h_kv} KV heads)")
ax.axhline((GPU_MEMORY - weights_bytes["MHA"]) / GB, ls=":", color="gray",
           label="device memory left after the weights")
ax.legend()

# %% [markdown]
# ## Model FLOPs utilisation from a measured throughput
#
# [Model FLOPs utilisation](../../cards/model-flops-utilization/) divides the FLOPs the model needs by what
# the hardware could have done in the same time:
#
# $$\mathrm{MFU} = \frac{D\,\big(6N + 12\,L\,H\,d_h\,T\big)}
# {t \cdot F_{\mathrm{peak}} \cdot n_{\mathrm{GPU}}},$$
#
# where the second term counts the attention scores and value mixing over a context of $T$. For one GPU and
# one second, $D / t$ is the measured tokens per second. At $T = 4096$ and $d = 4096$ the attention term is
# not small: relative to the $6 \cdot 12 L d^2$ of the weight matrices it is exactly $T / (6d)$, one sixth
# here, so the shortcut $6ND$ understates MFU by several points. The same function must reproduce the 46.2%
# MFU that the PaLM paper reports for its 540B model (238.3k tokens/s on 6144 TPU v4 chips of 275 TFLOP/s).

# %%
def model_flops_per_token(n_params, n_layers, n_heads, d_h, seq_len):
    return 6 * n_params + 12 * n_layers * n_heads * d_h * seq_len


def mfu(tokens, seconds, peak_flops, n_devices, flops_per_token):
    return tokens * flops_per_token / (seconds * peak_flops * n_devices)


check_close("PaLM 540B: MFU from its throughput vs the reported 46.2%",
            mfu(238.3e3, 1.0, 275e12, 6144, model_flops_per_token(540.35e9, 118, 48, 256, 2048)), 0.462,
            rtol=0.002)
attention_per_token = 12 * CONFIG["n_layers"] * CONFIG["n_heads"] * dh * SEQ_LEN
check_close("attention term / weight-matrix FLOPs 6 * 12 L d^2 = T / (6 d)",
            attention_per_token / (6 * 12 * CONFIG["n_layers"] * CONFIG["d_model"] ** 2),
            SEQ_LEN / (6 * CONFIG["d_model"]))

flops_per_token = model_flops_per_token(N, CONFIG["n_layers"], CONFIG["n_heads"], dh, SEQ_LEN)
MFU = mfu(TOKENS_PER_SEC_PER_GPU, 1.0, PEAK_FLOPS, 1, flops_per_token)
MFU_6N = mfu(TOKENS_PER_SEC_PER_GPU, 1.0, PEAK_FLOPS, 1, 6 * N)
train_seconds = TRAIN_TOKENS / (TOKENS_PER_SEC_PER_GPU * N_GPUS)
check_close("whole run: total model FLOPs / (t F_peak n_GPU) = per-GPU MFU",
            mfu(TRAIN_TOKENS, train_seconds, PEAK_FLOPS, N_GPUS, flops_per_token), MFU, rtol=1e-12)
print(f"measured throughput: {TOKENS_PER_SEC_PER_GPU:,.0f} tokens/s per GPU")
print(f"model FLOPs per token: 6N = {6 * N:.3e} + attention {attention_per_token:.3e}")
print(f"MFU = {MFU:.1%}   (with 6N only: {MFU_6N:.1%})")
print(f"{TRAIN_TOKENS / 1e12:g}T tokens on {N_GPUS} GPUs: {train_seconds / 86400:.1f} days")

# %% [markdown]
# ## The budget table
#
# The function below gathers every step for one configuration, so the table is the whole notebook in
# one call. It prints the configuration from the top cell next to its grouped-query variant; with the
# Llama 2 7B defaults, the GQA column shows the two savings, fewer key and value weights and a cache a
# quarter the size. The shortcut $12Ld^2 + 2Vd$ does not see the smaller key and value projections, so it
# stays put. The measured throughput belongs to the configuration at the top, so the variant's MFU and
# days assume the same tokens per second, which a smaller model would beat. "Minimum $N_d$" is the
# smallest power of two whose model state leaves 20% of the device free for activations: without sharding
# 7B never fits on one 80 GB GPU, and stages 1 and 2 stop shrinking at $4N$ and $2N$ bytes however many
# ranks are added. The check makes sure the table agrees with the numbers worked out step by step above.

# %%
def budget(cfg):
    n = exact_params(cfg)
    d_h = head_dim(cfg)
    per_token = model_flops_per_token(n, cfg["n_layers"], cfg["n_heads"], d_h, SEQ_LEN)

    def min_dp(stage):
        fits = [n_d for n_d in 2 ** np.arange(0, 16) if zero_bytes_per_gpu(n, n_d, stage) <= 0.8 * GPU_MEMORY]
        return str(fits[0]) if fits else "never"

    rows = {"parameters (B)": f"{n / 1e9:.3f}",
            "12 L d^2 + 2 V d (B)": f"{approx_params(cfg) / 1e9:.3f}",
            "training FLOPs 6ND": f"{training_flops(n, TRAIN_TOKENS):.3e}",
            "tokens, 20 per parameter (B)": f"{allocate(6 * n * TOKENS_PER_PARAM * n)[1] / 1e9:.0f}",
            "planned tokens / 20N": f"{TRAIN_TOKENS / (TOKENS_PER_PARAM * n):.1f}",
            "Adam state, one copy (GB)": f"{adam_state_bytes(n) / GB:.1f}"}
    for stage in range(4):
        rows[f"ZeRO-{stage} on {N_GPUS} GPUs (GB/GPU)"] = f"{zero_bytes_per_gpu(n, N_GPUS, stage) / GB:.2f}"
        rows[f"ZeRO-{stage}: minimum N_d"] = min_dp(stage)
    cache = kv_cache_bytes(cfg["n_layers"], cfg["n_kv_heads"], d_h, SEQ_LEN, SERVE_BATCH, BYTES_PER_VALUE)
    rows |= {f"KV cache, T={SEQ_LEN}, B={SERVE_BATCH} (GB)": f"{cache / GB:.2f}",
             "MFU at the measured throughput":
                 f"{mfu(TOKENS_PER_SEC_PER_GPU, 1, PEAK_FLOPS, 1, per_token):.1%}",
             f"days on {N_GPUS} GPUs": f"{TRAIN_TOKENS / (TOKENS_PER_SEC_PER_GPU * N_GPUS) / 86400:.1f}"}
    return rows


table = {"configuration": budget(CONFIG), f"GQA-{GQA_KV_HEADS} variant": budget(gqa_config)}
check_true("the table's first column repeats the step-by-step numbers",
           table["configuration"]["parameters (B)"] == f"{N / 1e9:.3f}"
           and table["configuration"]["training FLOPs 6ND"] == f"{C:.3e}"
           and table["configuration"]["MFU at the measured throughput"] == f"{MFU:.1%}")
print(f"{'':40}" + "".join(f"{name:>22}" for name in table))
for row in table["configuration"]:
    print(f"{row:40}" + "".join(f"{column[row]:>22}" for column in table.values()))
