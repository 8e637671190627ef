"""Mixed-precision Adam memory: 16 bytes/param vs allocated buffers and ZeRO's 1.5B example."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def adam_model_state_bytes(n_params, weight_bytes=2, grad_bytes=2, master_bytes=4, moment_bytes=4):
    """Bytes of model state for mixed-precision Adam: 2 + 2 + (4 + 4 + 4) = 16 per parameter."""
    return n_params * (weight_bytes + grad_bytes + master_bytes + 2 * moment_bytes)
# --- end formula ---


rng = np.random.default_rng(0)
shapes = [(512, 128), (128,), (128, 2048), (2048,), (2048, 128), (64, 64, 3)]
n_params = sum(int(np.prod(s)) for s in shapes)

# Allocate every buffer one mixed-precision Adam step touches and count the bytes.
buffers = []
for s in shapes:
    master = rng.normal(scale=0.02, size=s).astype(np.float32)  # fp32 master weights
    buffers += [master.astype(np.float16),                     # fp16/bf16 working weights
                np.zeros(s, np.float16),                        # fp16/bf16 gradients
                master,
                np.zeros(s, np.float32),                        # Adam first moment m
                np.zeros(s, np.float32)]                        # Adam second moment v
measured = sum(b.nbytes for b in buffers)
check_close("formula vs bytes of allocated buffers", adam_model_state_bytes(n_params), measured,
            rtol=0)
check_close("bytes per parameter = 16", measured / n_params, 16.0, rtol=0)

# ZeRO, Sec. 3.1: a 1.5B-parameter GPT-2 needs at least 24 GB for model states.
check_close("1.5B parameters -> 24 GB", adam_model_state_bytes(1.5e9) / 1e9, 24.0, rtol=1e-12)
# The optimizer's fp32 copies (K = 12 bytes) are three quarters of the total.
opt_share = 12 / 16
check_true("optimizer states are 75% of model state",
           np.isclose(sum(b.nbytes for b in buffers if b.dtype == np.float32) / measured, opt_share))

# The page's calculator is checked against adam_model_state_bytes on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): the card's 16 bytes, bf16 without a master copy, fp32 weights.
import cardcalc  # noqa: E402

cardcalc.table(lambda N, b_w, b_g, b_p, b_m: {"M": adam_model_state_bytes(N, b_w, b_g, b_p, b_m)},
               cardcalc.grid(N=(1, 7.5e9, 1.75e11), b_w=(2, 4), b_g=(2, 4), b_p=(0, 4), b_m=(2, 4)))

# --- in code: torch ---
import torch  # noqa: E402


def tensor_bytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def adam_state_tensors(params):
    """One torch.optim.Adam step on params (zero gradients of their dtype); returns its state tensors."""
    opt = torch.optim.Adam(params, lr=1e-3)
    for p in params:
        p.grad = torch.zeros_like(p)
    opt.step()
    return [t for state in opt.state.values() for t in state.values()]


# Mixed precision as the card counts it: 16-bit working weights and gradients, and Adam run on fp32 master
# copies, whose fp32 gradients are freed once the step is taken.
working = [torch.zeros(s, dtype=torch.float16, requires_grad=True) for s in shapes]
for w in working:
    w.grad = torch.zeros_like(w)
master = [w.detach().float() for w in working]
state = adam_state_tensors(master)
for p in master:
    p.grad = None
# Adam's state also holds its step count, a float32 scalar tensor per parameter tensor: 4 bytes per tensor.
check_close("fp16 weights and grads + fp32 master with torch.optim.Adam's exp_avg, exp_avg_sq = 16 N bytes "
            "(+ 4 per tensor for the step count)",
            tensor_bytes(working) + tensor_bytes(w.grad for w in working) + tensor_bytes(master + state),
            adam_model_state_bytes(n_params) + 4 * len(shapes), rtol=0)
# Adam on 16-bit weights directly keeps its moments in their dtype, with no fp32 copy at all.
bf16 = [torch.zeros(s, dtype=torch.bfloat16, requires_grad=True) for s in shapes]
state = adam_state_tensors(bf16)
check_close("pitfall: Adam on bf16 weights keeps bf16 moments, no master copy: 2 + 2 + 2 + 2 = 8 bytes each",
            tensor_bytes(bf16) + tensor_bytes(p.grad for p in bf16) + tensor_bytes(state),
            adam_model_state_bytes(n_params, master_bytes=0, moment_bytes=2) + 4 * len(shapes), rtol=0)
# fp32 weights under torch.autocast (16-bit only inside the forward pass) also come to 16: 4 + 4 + 4 + 4.
fp32 = [torch.zeros(s, requires_grad=True) for s in shapes]
state = adam_state_tensors(fp32)
check_close("fp32 weights (autocast): 4 + 4 + 4 + 4 = the same 16 bytes, split differently",
            tensor_bytes(fp32) + tensor_bytes(p.grad for p in fp32) + tensor_bytes(state),
            adam_model_state_bytes(n_params, weight_bytes=4, grad_bytes=4, master_bytes=0) + 4 * len(shapes),
            rtol=0)
# --- end in code ---
