"""ZeRO per-GPU memory: formulas vs sharding real buffers across ranks and ZeRO's Figure 1."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

# --- formula ---
K = 12  # fp32 master weights + Adam m + Adam v, bytes per parameter


def zero_bytes_per_gpu(n_params, n_d, stage, k=K):
    """Model-state bytes on one data-parallel rank (fp16 weights/grads, Adam, ZeRO stage 0-3)."""
    if stage == 0:
        return (2 + 2 + k) * n_params
    if stage == 1:                               # optimizer states partitioned
        return (2 + 2) * n_params + k * n_params / n_d
    if stage == 2:                               # + gradients partitioned
        return 2 * n_params + (2 + k) * n_params / n_d
    return (2 + 2 + k) * n_params / n_d          # stage 3: + parameters partitioned
# --- end formula ---


# 1. Shard real buffers across N_d ranks and measure the busiest rank.
n_params, n_d = 1_000_000, 8
flat = np.zeros(n_params, np.float32)
sharded = {  # which state each stage splits across ranks
    1: ("opt",), 2: ("opt", "grad"), 3: ("opt", "grad", "param")}
for stage, split in sharded.items():
    per_rank = np.zeros(n_d)
    for r in range(n_d):
        shard = np.array_split(flat, n_d)[r]
        for name, nbytes in (("param", 2), ("grad", 2), ("opt", K)):
            count = shard.size if name in split else n_params
            per_rank[r] += count * nbytes
    check_close(f"stage {stage}: formula vs measured busiest rank", zero_bytes_per_gpu(n_params, n_d, stage),
                per_rank.max(), rtol=0)

# 2. ZeRO Figure 1: 7.5B parameters, N_d = 64 -> 120, 31.4, 16.6 and 1.9 GB per GPU.
gb = [zero_bytes_per_gpu(7.5e9, 64, s) / 1e9 for s in range(4)]
check_close("Figure 1 numbers (GB)", gb, [120, 31.4, 16.6, 1.9], rtol=0.02)

# 3. Stage 3 divides everything by N_d: 1T parameters on 1024 GPUs is 15.6 GB each, the
#    paper's trillion-parameter example.
check_close("1T params on 1024 GPUs", zero_bytes_per_gpu(1e12, 1024, 3) / 1e9, 16e3 / 1024, rtol=1e-12)
check_true("stages 1 and 2 saturate at 4N and 2N bytes", zero_bytes_per_gpu(1e9, 1e9, 1) < 4.01e9
           and zero_bytes_per_gpu(1e9, 1e9, 2) < 2.01e9)

fig, ax = figure("Model-state memory per GPU, 7.5B parameters", "data-parallel degree $N_d$",
                 "GB per GPU")
nd = 2 ** np.arange(0, 11)
for s, lab in ((0, "plain DDP"), (1, "ZeRO-1 (optimizer)"), (2, "ZeRO-2 (+ gradients)"),
               (3, "ZeRO-3 (+ parameters)")):
    ax.loglog(nd, [zero_bytes_per_gpu(7.5e9, n, s) / 1e9 for n in nd], "o-", ms=3, label=lab)
ax.axhline(80, ls=":", color="gray", label="80 GB device")
ax.legend()

# The page's calculator is checked against zero_bytes_per_gpu, stage by stage, on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows), K = 12 (Adam) and other optimizers' K.
import cardcalc  # noqa: E402

cardcalc.table(lambda N, N_d, K: {f"M{stage}": zero_bytes_per_gpu(N, N_d, stage, K) for stage in range(4)},
               cardcalc.grid(N=(1e6, 7.5e9, 1e12), N_d=(1, 8, 64, 1024), K=(4, 12, 16)))
