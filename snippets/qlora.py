"""QLoRA: NF4 levels from normal quantiles vs the 16 values printed in the paper, block-wise NF4 codes vs a
bin search on midpoints, double quantization of the constants, the memory of Sec. 3, the forward pass."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import norm


# --- formula ---
def nf4_levels(offset=0.9677083):
    """NF4: 8 positive and 7 negative normal quantiles (equal steps in probability from 0.5 to the
    offset), plus an exact zero, scaled into [-1, 1]."""
    pos = norm.ppf(np.linspace(offset, 0.5, 9)[:-1])
    neg = -norm.ppf(np.linspace(offset, 0.5, 8)[:-1])
    levels = np.sort(np.concatenate([neg, [0.0], pos]))
    return levels / np.max(levels)


def quantize_nf4(w, levels, block=64):
    """Block-wise absmax: each block of 64 weights is divided by its absmax, mapped to the nearest level."""
    blocks = w.reshape(w.size // block, block)
    absmax = np.max(np.abs(blocks), axis=1)
    codes = np.argmin(np.abs(blocks[:, :, None] / absmax[:, None, None] - levels), axis=2)
    return codes, absmax


def quantize_constants_8bit(absmax, block=256):
    """Double quantization: the absmax constants, minus their mean, as 8-bit symmetric integers with
    one FP32 scale per block of 256 constants."""
    mean = np.mean(absmax)
    centred = (absmax - mean).reshape(absmax.size // block, block)
    scale = np.max(np.abs(centred), axis=1) / 127
    q = np.round(centred / scale[:, None])
    return q, scale, mean


def qlora_forward(X, codes, q, scale, mean, levels, L1, L2, alpha, shape):
    """Y = X doubleDequant(c1, c2, W_NF4) + (alpha / r) X L1 L2."""
    absmax = (q * scale[:, None]).ravel() + mean
    W = (levels[codes] * absmax[:, None]).reshape(shape)
    r = L1.shape[1]
    return X @ W + (alpha / r) * (X @ L1) @ L2


def storage_bits_per_weight(block=64, const_block=256):
    """Bits stored per base weight: a 4-bit NF4 index, an 8-bit constant per block of weights and an
    FP32 scale per const_block constants, 4 + 8/block + 32/(block const_block)."""
    return 4 + 8 / block + 32 / (block * const_block)
# --- end formula ---


# The 16 NF4 values as printed in Dettmers et al. (2023), Appendix E (float32).
PAPER_NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
                      -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
                      0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
                      0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0])
levels = nf4_levels()
check_close("NF4 levels from normal quantiles vs the paper's table (float32 precision)", levels, PAPER_NF4,
            rtol=5e-7)
check_true("16 distinct levels, an exact zero, 7 negative and 8 positive",
           len(np.unique(levels)) == 16 and 0.0 in levels
           and (levels < 0).sum() == 7 and (levels > 0).sum() == 8)

rng = np.random.default_rng(0)
d_in, d_out, r, alpha = 256, 512, 8, 16.0
W = rng.normal(scale=0.02, size=(d_in, d_out))
codes, absmax = quantize_nf4(W.ravel(), levels)

# Nearest level by another route: bin search on the midpoints between consecutive levels.
mid = (levels[1:] + levels[:-1]) / 2
check_true("codes = bin of each normalized weight among the level midpoints (searchsorted)",
           np.array_equal(codes, np.searchsorted(mid, W.reshape(-1, 64) / absmax[:, None])))
deq = levels[codes] * absmax[:, None]
check_true("round-trip error <= half the widest level gap times the block absmax",
           bool(np.all(np.abs(deq - W.reshape(-1, 64))
                       <= np.max(np.diff(levels)) / 2 * absmax[:, None] + 1e-15)))
check_close("each block's largest-magnitude weight is reproduced exactly",
            np.abs(deq).max(axis=1), absmax, rtol=1e-15)

# Double quantization of the 2048 block constants (8 blocks of 256).
q, scale, mean = quantize_constants_8bit(absmax)
back = (q * scale[:, None]).ravel() + mean
check_true("8-bit constants lie in [-127, 127] and come back within half a step",
           bool(np.abs(q).max() <= 127
                and np.all(np.abs(back - absmax).reshape(-1, 256) <= scale[:, None] / 2 + 1e-18)))
q4, s4, m4 = quantize_constants_8bit(np.array([1.0, 2.0, 3.0, 6.0]), block=4)
check_close("hand case (1, 2, 3, 6): mean 3, scale 3/127, codes (-85, -42, 0, 127)",
            np.concatenate([[m4], s4, q4.ravel()]), [3.0, 3 / 127, -85, -42, 0, 127], rtol=1e-12)
q4, s4, m4 = quantize_constants_8bit(np.array([0.0, 5.0, 6.0, 7.0]), block=4)
check_close("hand case (0, 5, 6, 7): the negative deviation -4.5 sets the scale 4.5/127",
            np.concatenate([[m4], s4, q4.ravel()]), [4.5, 4.5 / 127, -127, 14, 42, 71], rtol=1e-12)

# Memory per parameter (Sec. 3 of the paper): FP32 constants per 64 weights cost 32/64 = 0.5 bits;
# 8-bit constants plus one FP32 per 256 blocks cost 8/64 + 32/(64 * 256) = 0.127 bits.
n = W.size
bits_const = (q.size * 8 + scale.size * 32) / n
check_close("double-quantized constants: 0.127 bits per parameter (paper)", bits_const, 0.127, atol=5e-4)
check_close("plain FP32 constants: 0.5 bits per parameter", absmax.size * 32 / n, 0.5, rtol=1e-12)
# The closed form against the bits the arrays above actually hold (4 per code, 8 per constant, 32 per
# scale), at the paper's blocks (64, 256) and at (32, 16): both ratios are exact in binary.
check_close("4-bit codes + 8-bit constants + FP32 scales = 4 + 8/64 + 32/(64 256) bits per weight",
            (codes.size * 4 + q.size * 8 + scale.size * 32) / n, storage_bits_per_weight(), rtol=0)
codes32, absmax32 = quantize_nf4(W.ravel(), levels, block=32)
q32, scale32, _ = quantize_constants_8bit(absmax32, block=16)
check_close("blocks of 32 weights and of 16 constants: 4 + 8/32 + 32/(32 16) = 4.3125 bits per weight",
            [(codes32.size * 4 + q32.size * 8 + scale32.size * 32) / n, storage_bits_per_weight(32, 16)],
            [4.3125, 4.3125], rtol=0)

# Forward pass: at initialization (L2 = 0) the layer is exactly X dequant(W); after training it is
# the dense layer with the merged weight dequant(W) + (alpha / r) L1 L2.
X = rng.normal(size=(10, d_in))
L1 = rng.normal(size=(d_in, r)) / np.sqrt(d_in)
W_dq = (levels[codes] * back[:, None]).reshape(d_in, d_out)
check_close("L2 = 0: output = X doubleDequant(W)", qlora_forward(X, codes, q, scale, mean, levels, L1,
            np.zeros((r, d_out)), alpha, W.shape), X @ W_dq, rtol=1e-12)
L2 = rng.normal(size=(r, d_out)) * 0.01
check_close("trained adapter: output = X (doubleDequant(W) + (alpha/r) L1 L2)",
            qlora_forward(X, codes, q, scale, mean, levels, L1, L2, alpha, W.shape),
            X @ (W_dq + alpha / r * L1 @ L2), rtol=1e-10, atol=1e-14)

# NF4 against a uniform 4-bit absmax grid (-7..7)/7 on the same Gaussian weights: lower error.
uni = np.arange(-7, 8) / 7
cu, au = quantize_nf4(W.ravel(), uni)
err_nf4 = np.mean((deq - W.reshape(-1, 64)) ** 2)
err_uni = np.mean((uni[cu] * au[:, None] - W.reshape(-1, 64)) ** 2)
check_true("NF4 beats uniform INT4 absmax on normal weights (mean squared error)", err_nf4 < 0.9 * err_uni,
           f"{err_nf4:.3e} vs {err_uni:.3e}")

# The page's calculator is checked against storage_bits_per_weight on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): 7B to 65B base weights, the paper's blocks and others.
import cardcalc  # noqa: E402


def calculator_row(N, block, const_block):
    bits = storage_bits_per_weight(block, const_block)
    return {"bits": bits, "M": N * bits / 8}


cardcalc.table(calculator_row, cardcalc.grid(N=(1, 6.5e9, 65e9), block=(32, 64, 256), const_block=(16, 256)))
# --- in code: bitsandbytes ---
import torch  # noqa: E402
from bitsandbytes import functional as bnb_functional  # noqa: E402

# bnb quantizes float32 (or 16-bit) weights in nn.Linear's layout, W^T (d_out x d_in); the card's
# functions run on the same float32 values.
W32 = W.astype(np.float32).astype(float)
weight_t = torch.from_numpy(W32.T.copy())
packed, state = bnb_functional.quantize_4bit(weight_t.float(), blocksize=64, quant_type="nf4",
                                             compress_statistics=False)
check_close("bnb's NF4 code table = the card's 16 levels (float32)", state.code.double().numpy(), levels,
            rtol=5e-7)
codes_t, absmax_t = quantize_nf4(W32.T.ravel(), levels)
check_close("quantize_4bit(W^T, 'nf4', blocksize=64): one absmax per 64 weights, the card's",
            state.absmax.numpy(), absmax_t, rtol=0, atol=0)
# float32 levels times a float32 absmax: one rounding each, so 2 eps32 times the largest absmax.
eps32 = np.finfo(np.float32).eps
check_close("dequantize_4bit = levels[codes] * absmax, code for code",
            bnb_functional.dequantize_4bit(packed, state).double().numpy(),
            (levels[codes_t] * absmax_t[:, None]).reshape(d_out, d_in), rtol=0,
            atol=2 * eps32 * absmax_t.max())
check_true("pitfall: the blocks run along rows of W^T (d_out x d_in), so they hold other weights than W's",
           not np.allclose(np.sort(absmax_t), np.sort(quantize_nf4(W32.ravel(), levels)[1])))

_, nested = bnb_functional.quantize_4bit(weight_t.float(), blocksize=64, quant_type="nf4",
                                        compress_statistics=True)
check_true("compress_statistics=True: 8-bit constants in blocks of 256, their mean subtracted first",
           nested.nested and nested.state2.blocksize == 256 and nested.absmax.dtype == torch.uint8
           and abs(nested.offset.item() - absmax_t.mean()) <= 1e-6 * absmax_t.mean())
steps = np.diff(nested.state2.code.double().numpy())
check_true("pitfall: the 8 bits index bnb's dynamic (non-uniform) code, not evenly spaced integers",
           steps.max() > 10 * steps.min(), f"code steps from {steps.min():.2g} to {steps.max():.2g}")
# --- end in code ---

# --- in code: peft ---
from bitsandbytes.nn import Linear4bit, Params4bit  # noqa: E402
from peft import LoraConfig, get_peft_model  # noqa: E402


class QuantizedLayer(torch.nn.Module):
    """The card's W as bitsandbytes' Linear4bit: NF4 with double quantization, float32 compute."""

    def __init__(self):
        super().__init__()
        self.proj = Linear4bit(d_in, d_out, bias=False, compute_dtype=torch.float32, quant_type="nf4",
                               compress_statistics=True)
        # Params4bit quantizes when it is moved to a device, here the CPU.
        self.proj.weight = Params4bit(weight_t.float(), requires_grad=False, quant_type="nf4", blocksize=64,
                                      compress_statistics=True).to("cpu")

    def forward(self, x):
        return self.proj(x)


model = get_peft_model(QuantizedLayer(), LoraConfig(r=r, lora_alpha=alpha, target_modules=["proj"]))
layer = model.base_model.model.proj
with torch.no_grad():
    layer.lora_A["default"].weight.copy_(torch.from_numpy(L1.T))
    layer.lora_B["default"].weight.copy_(torch.from_numpy(L2.T))
    Y = model(torch.from_numpy(X).float()).double().numpy()
base = layer.get_base_layer().weight
W_bnb = bnb_functional.dequantize_4bit(base.data, base.quant_state).double().numpy().T
L1_32, L2_32 = L1.astype(np.float32).astype(float), L2.astype(np.float32).astype(float)
X32 = X.astype(np.float32).astype(float)
# float32 sums of d_in = 256 products: 64 eps32 times the sum of their sizes.
sizes = np.abs(X32) @ (np.abs(W_bnb) + alpha / r * np.abs(L1_32) @ np.abs(L2_32))
check_close("PEFT's LoRA on Linear4bit: Y = X doubleDequant(W) + (alpha / r) X L1 L2", Y,
            X32 @ W_bnb + alpha / r * (X32 @ L1_32) @ L2_32, rtol=0, atol=64 * eps32 * sizes.max())
# --- end in code ---

fig, ax = figure("NF4 levels vs a uniform 4-bit grid", "value (in units of the block absmax)", "")
ax.plot(levels, np.full(16, 1.0), "o", label="NF4 (normal quantiles)")
ax.plot(uni, np.full(15, 0.0), "s", label="uniform INT4 (−7…7)/7")
xs = np.linspace(-1, 1, 300)
ax.plot(xs, 0.5 + 0.4 * np.exp(-0.5 * (xs / 0.35) ** 2), color="gray", lw=1, label="shape of N(0, σ²)")
ax.set_yticks([])
ax.legend(loc="upper right", fontsize=8)
