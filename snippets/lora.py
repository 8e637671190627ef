"""LoRA: merged weight vs the two-path forward, rank of the update, zero update at init, parameter count."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def lora_merge(W0: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float) -> np.ndarray:
    """W' = W0 + (alpha / r) B A, with A of shape (r, k) and B of shape (d, r)."""
    r = A.shape[0]
    return W0 + (alpha / r) * B @ A


def lora_trainable_parameters(d: int, k: int, r: int) -> int:
    """r (d + k): the entries of A (r x k) and B (d x r), against d k for a full update of W0."""
    return r * (d + k)
# --- end formula ---


rng = np.random.default_rng(0)
d, k, r, alpha = 64, 48, 4, 16.0
W0 = rng.normal(size=(d, k)) / np.sqrt(k)
A = rng.normal(size=(r, k)) / np.sqrt(k)  # Gaussian init
B = np.zeros((d, r))  # zero init
X = rng.normal(size=(32, k))  # a batch of inputs, one per row

# 1. at initialization B = 0, so the adapted layer is exactly the pretrained one.
check_close("B = 0 at init: W' = W0", lora_merge(W0, A, B, alpha), W0)

# 2. after some training B is non-zero; the merged weight must reproduce the two-path forward
#    h = W0 x + (alpha / r) B (A x) used during training.
B = rng.normal(size=(d, r)) * 0.1
two_path = X @ W0.T + (alpha / r) * ((X @ A.T) @ B.T)
check_close("merged forward vs two-path forward", X @ lora_merge(W0, A, B, alpha).T, two_path)

# 3. the update has rank at most r (exactly r for generic A, B).
delta = lora_merge(W0, A, B, alpha) - W0
check_true("rank of the update is r", np.linalg.matrix_rank(delta) == r,
           f"rank {np.linalg.matrix_rank(delta)} for r = {r}, full rank would be {min(d, k)}")
sv = np.linalg.svd(delta, compute_uv=False)
check_true("singular values beyond r vanish", bool(sv[r:].max() < 1e-12 * sv[0]))

# 3b. The alpha / r scale, by hand: r = 2, alpha = 16, A and B the first two unit vectors, so B A is
#     the identity on the top-left 2 x 2 block and the update is 16 / 2 = 8 there, 0 elsewhere.
A2, B2 = np.eye(2, k), np.eye(d, 2)
expected_delta = np.zeros((d, k))
expected_delta[0, 0] = expected_delta[1, 1] = 8.0
check_close("hand case r = 2, alpha = 16: update is 8 on the block", lora_merge(W0, A2, B2, 16.0) - W0,
            expected_delta, atol=1e-12)

# 4. trainable parameters: r (d + k) instead of d k, against the sizes of A and B for several shapes,
#    and the card's example, a 4096 x 4096 projection at r = 16: 131,072 instead of 16,777,216.
check_true("parameter count r(d+k) << dk", A.size + B.size == lora_trainable_parameters(d, k, r) < d * k,
           f"{A.size + B.size} trainable vs {d * k} in W0")
for d_, k_, r_ in [(5, 3, 1), (7, 2, 3), (11, 13, 2)]:
    check_true(f"d = {d_}, k = {k_}, r = {r_}: r(d+k) = size of A (r x k) plus B (d x r)",
               lora_trainable_parameters(d_, k_, r_) == np.zeros((r_, k_)).size + np.zeros((d_, r_)).size)
check_true("4096 x 4096, r = 16: 131,072 trainable (card's example)",
           lora_trainable_parameters(4096, 4096, 16) == 131_072)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows): the count from lora_trainable_parameters and the scale alpha / r read off lora_merge as
# the update of a 1 x 1 weight by unit vectors (B A = 1), on square and rectangular shapes.
import cardcalc  # noqa: E402


def calculator_row(d, k, r, alpha):
    count = lora_trainable_parameters(d, k, r)
    scale = lora_merge(np.zeros((1, 1)), np.eye(r, 1), np.eye(1, r), alpha)[0, 0]
    return {"N": count, "frac": count / (d * k), "scale": scale}


cardcalc.table(calculator_row, cardcalc.grid(d=(64, 4096, 28672), k=(48, 4096), r=(1, 16, 256),
                                             alpha=(1, 16, 32)))

# --- in code: peft ---
import warnings  # noqa: E402

import torch  # noqa: E402
from peft import LoraConfig, get_peft_model  # noqa: E402
from peft_fixture import TARGET, OneConv1D, adapt, load_factors, run, weight  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

# Every value below is a float64 sum of <= 48 products in another order than numpy's: a few ulps of
# its largest terms, so rtol 1e-12 with an atol of 1e-12 times the largest output for entries that
# cancel to near zero (a wrong scale or a transposed factor is off by order 1).
near = {"rtol": 1e-12, "atol": 1e-12 * np.abs(two_path).max()}
near_weight = {"rtol": 1e-12, "atol": 1e-12 * np.abs(lora_merge(W0, A, B, alpha)).max()}  # the same for W'
torch.manual_seed(0)
model, layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, target_modules=[TARGET]))
check_true("LoraConfig(r, lora_alpha): the layer's scaling is alpha / r = 4",
           layer.scaling["default"] == alpha / r, f"scaling {layer.scaling['default']}")
check_true("init_lora_weights=True (default): lora_B starts at zero",
           not layer.lora_B["default"].weight.any())
check_close("get_peft_model at init: h = W0 x", run(model, X), X @ W0.T, **near)
# A starts as nn.Linear does (Kaiming-uniform with a = sqrt(5), i.e. uniform on +-1/sqrt(k)),
# not Gaussian; init_lora_weights="gaussian" draws N(0, 1/r^2). Its r k = 192 draws estimate the
# standard deviation to within 1/sqrt(2 * 192) of itself per standard error: 4 of them allowed.
a0 = weight(layer.lora_A["default"].weight)
check_true("pitfall: the default lora_A is uniform on [-1/sqrt(k), 1/sqrt(k)], not Gaussian",
           np.abs(a0).max() <= 1 / np.sqrt(k) and np.abs(a0).max() > 0.9 / np.sqrt(k),
           f"max |A| {np.abs(a0).max():.4f}, 1/sqrt(k) {1 / np.sqrt(k):.4f}")
_, gaussian = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, target_modules=[TARGET],
                                   init_lora_weights="gaussian"))
spread = weight(gaussian.lora_A["default"].weight).std()
check_true("init_lora_weights='gaussian': lora_A ~ N(0, 1/r^2)",
           abs(spread - 1 / r) < 4 * (1 / r) / np.sqrt(2 * r * k), f"std {spread:.4f} vs 1/r = {1 / r}")

# The trained factors of check 2 in the layer: lora_A is A (r x k), lora_B is B (d x r).
load_factors(layer, A, B)
check_close("the LoRA layer's forward = W0 x + (alpha / r) B A x", run(model, X), two_path, **near)
# Left out, lora_alpha is 8 whatever r is: at r = 4 that scales by 2, not the card's 16 / 4.
alpha8, layer8 = adapt(W0, LoraConfig(r=r, target_modules=[TARGET]))
load_factors(layer8, A, B)
check_close("pitfall: lora_alpha defaults to 8, so r = 4 alone scales B A by 8 / 4 = 2",
            run(alpha8, X), X @ lora_merge(W0, A, B, 8.0).T, **near)

# Dropout acts on the adapter's input only, and only in training mode, which a new model is in:
# the output is then W0 x + (alpha / r) B A dropout(x), not the card's.
dropped = {}
noisy, noisy_layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.5, target_modules=[TARGET]))
load_factors(noisy_layer, A, B)
noisy_layer.lora_dropout["default"].register_forward_hook(
    lambda module, inputs, output: dropped.update(x=output.detach().numpy().copy()))
train_out = run(noisy, X)
check_true("pitfall: get_peft_model leaves the model in training mode, so lora_dropout is on",
           noisy.training and np.any(dropped["x"] == 0)
           and np.all((dropped["x"] == 0) | (dropped["x"] == 2 * X)),
           f"{int(np.sum(dropped['x'] == 0))} of {X.size} inputs zeroed, the rest doubled (p = 0.5)")
check_close("in training mode: W0 x + (alpha / r) B A dropout(x)",
            train_out, X @ W0.T + (alpha / r) * (dropped["x"] @ A.T) @ B.T, **near)
noisy.eval()
check_close("after model.eval(): the card's forward", run(noisy, X), two_path, **near)

# merge_and_unload adds (alpha / r) B A into the weight and returns the plain nn.Linear.
merged = model.merge_and_unload()
check_close("merge_and_unload(): weight = W0 + (alpha / r) B A", weight(merged.proj.weight),
            lora_merge(W0, A, B, alpha), **near_weight)


# GPT-2's Conv1D stores its weight transposed (input x output). PEFT sets fan_in_fan_out=True for it
# (with a warning when the config says False), keeps lora_A r x k and lora_B d x r, and merges the
# transpose of B A.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "fan_in_fan_out is set to False but the target module is Conv1D"
    conv, conv_layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, target_modules=[TARGET]), base=OneConv1D)
load_factors(conv_layer, A, B)
check_true("pitfall: for Conv1D, PEFT switches fan_in_fan_out on; lora_A stays r x k",
           conv_layer.fan_in_fan_out and tuple(conv_layer.lora_A["default"].weight.shape) == (r, k))
check_close("Conv1D: the same forward W0 x + (alpha / r) B A x", run(conv, X), two_path, **near)
check_close("Conv1D: the merged weight is the transpose, (W0 + (alpha / r) B A)^T",
            weight(conv.merge_and_unload().proj.weight), lora_merge(W0, A, B, alpha).T, **near_weight)

# Without target_modules PEFT looks the model type up in its own table: for Llama that is q_proj and
# v_proj only (Hu et al.'s W_q and W_v), not the MLP or W_k, W_o.
tiny = LlamaForCausalLM(LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                    num_attention_heads=2, num_key_value_heads=2, vocab_size=11))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)  # transformers' own deprecation notice, not PEFT's
    llama_lora = get_peft_model(tiny, LoraConfig())
adapted_names = sorted({name.rsplit(".", 1)[-1] for name, module in llama_lora.named_modules()
                        if hasattr(module, "lora_A")})
check_true("pitfall: LoraConfig() on a Llama adapts only q_proj and v_proj",
           adapted_names == ["q_proj", "v_proj"], f"adapted: {adapted_names}")
# --- end in code ---
