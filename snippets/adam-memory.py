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
