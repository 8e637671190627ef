"""Roofline latency of one prefill or decode step: max(FLOPs / peak, bytes / bandwidth) + overhead, with
FLOPs and bytes of a dense decoder. The max (overlapped compute and memory) is checked against a tiled
pipeline simulation, the sum (the seed's form) against the same pipeline run without overlap."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def prefill_flops(n_params, n_prompt, n_layer, d):
    """sum over prompt positions t = 1..P of (2N + 4 L d t)."""
    return 2 * n_params * n_prompt + 2 * n_layer * d * n_prompt * (n_prompt + 1)


def decode_step_cost(n_params, ctx, n_layer, d, d_kv, b):
    """One decode step for a batch whose sequences attend to ctx[i] cached tokens each:
    FLOPs, and bytes read (weights once for the whole batch, plus every sequence's KV cache)."""
    flops = 2 * n_params * len(ctx) + 4 * n_layer * d * np.sum(ctx)
    bytes_read = b * n_params + 2 * n_layer * d_kv * b * np.sum(ctx)
    return flops, bytes_read


def step_time(flops, bytes_moved, peak, bandwidth, overhead=0.0):
    """Compute and memory traffic overlap, so the slower one sets the time."""
    return max(flops / peak, bytes_moved / bandwidth) + overhead
# --- end formula ---


def pipeline(flops, bytes_moved, peak, bw, n_tiles, overlap, launch=0.0):
    """Split the work into equal tiles; tile k is loaded, then computed. With overlap (double buffering)
    the load of tile k runs while tile k-1 computes; without it every load waits for the previous compute."""
    load, comp = bytes_moved / n_tiles / bw, flops / n_tiles / peak
    load_end = comp_end = launch
    for _ in range(n_tiles):
        load_end = (load_end if overlap else comp_end) + load
        comp_end = max(load_end, comp_end) + comp
    return comp_end, max(load, comp)


peak, bw = 312e12, 2.039e12                    # A100 SXM 80GB: BF16 dense, HBM2e
# Llama-2-7B shapes: N = 6.74e9 matmul parameters, L = 32, d = 4096, MHA so d_kv = 4096, bf16.
N, L, d, dkv, b = 6.74e9, 32, 4096, 4096, 2

cases = {"prefill 2048 tokens": (prefill_flops(N, 2048, L, d), b * N + 2 * L * dkv * b * 2048),
         "decode batch 1, ctx 2048": decode_step_cost(N, np.array([2048]), L, d, dkv, b),
         "decode batch 32, ctx 512..4096": decode_step_cost(N, np.linspace(512, 4096, 32).round(), L, d,
                                                             dkv, b),
         "decode batch 512, ctx 64": decode_step_cost(N, np.full(512, 64), L, d, dkv, b)}
for name, (w, q) in cases.items():
    sim, tile = pipeline(w, q, peak, bw, 4000, overlap=True, launch=5e-6)
    t = step_time(w, q, peak, bw, overhead=5e-6)
    check_true(f"{name}: overlapped pipeline within one tile of max(W/pi, Q/beta) + overhead",
               t - 1e-15 <= sim <= t + tile + 1e-15,
               f"formula {t * 1e3:.5f} ms, simulated {sim * 1e3:.5f} ms")
    serial, _ = pipeline(w, q, peak, bw, 4000, overlap=False)
    check_close(f"{name}: no-overlap pipeline = W/pi + Q/beta (the seed's sum)", serial, w / peak + q / bw,
                rtol=1e-9)

check_true("prefill of 2048 tokens is compute-bound", cases["prefill 2048 tokens"][0] / peak
           > cases["prefill 2048 tokens"][1] / bw)
w1, q1 = cases["decode batch 1, ctx 2048"]
check_true("batch-1 decode is memory-bound", w1 / peak < q1 / bw)

# Cost components against brute-force sums over positions and sequences.
P = 37
check_close("prefill FLOPs = sum_t (2N + 4 L d t)", prefill_flops(1000, P, 3, 16),
            sum(2 * 1000 + 4 * 3 * 16 * t for t in range(1, P + 1)), rtol=0)
ctx = np.array([5, 17, 3, 40])
rng = np.random.default_rng(0)
weights = [rng.normal(size=s).astype(np.float16) for s in [(16, 48), (48, 16), (16, 16)] * 3]
kv = [np.zeros((3, 2, 8, int(t)), dtype=np.float16) for t in ctx]      # layers, K/V, d_kv, positions
n_w = sum(w.size for w in weights)
fl, by = decode_step_cost(n_w, ctx, 3, 16, 8, 2)
check_close("decode bytes = nbytes of the weights + nbytes of every KV cache",
            by, sum(w.nbytes for w in weights) + sum(c.nbytes for c in kv), rtol=0)
check_close("decode FLOPs = sum over sequences of (2N + 4 L d t_i)", fl,
            sum(2 * n_w + 4 * 3 * 16 * int(t) for t in ctx), rtol=0)
check_close("Llama-2-7B batch-1 decode on A100, ctx 2048: (13.48 GB + 1.07 GB KV) / 2.039 TB/s ~ 7.14 ms",
            step_time(w1, q1, peak, bw) * 1e3, (13.48e9 + 2 * 32 * 4096 * 2 * 2048) / 2.039e12 * 1e3,
            rtol=1e-12)

batch = np.arange(1, 513)
fig, ax = figure("Decode step time, Llama-2-7B shapes on an A100 (context 1024)", "batch size",
                 "time per step (ms)")
costs = [decode_step_cost(N, np.full(B, 1024), L, d, dkv, b) for B in batch]
ax.plot(batch, [step_time(w, q, peak, bw) * 1e3 for w, q in costs], label="max(W/pi, Q/beta)")
ax.plot(batch, [(w / peak + q / bw) * 1e3 for w, q in costs], "--", label="W/pi + Q/beta (no overlap)")
ax.plot(batch, [w / peak * 1e3 for w, q in costs], ":", label="compute only")
ax.legend()

# The page's calculator is checked against these functions on this grid (cardcalc; the build runs the
# page's JavaScript on the same rows): a prefill is costed as a step that reads the weights once and
# writes one sequence's P-token cache, a decode step as B sequences that each attend to T tokens.
# The grid reaches both sides of each max (short prompts and small batches are memory-bound).
import cardcalc  # noqa: E402


def calculator_outputs(N, L, d, h_kv, d_h, b, P, B, T, peak, bw, t0):
    d_kv = h_kv * d_h
    prefill_bytes = decode_step_cost(N, np.array([P]), L, d, d_kv, b)[1]
    t_pre = step_time(prefill_flops(N, P, L, d), prefill_bytes, peak, bw, t0)
    t_dec = step_time(*decode_step_cost(N, np.full(int(B), T), L, d, d_kv, b), peak, bw, t0)
    return {"t_pre": t_pre, "t_dec": t_dec, "rate": B / t_dec}


cardcalc.table(calculator_outputs,
               cardcalc.grid(N=(1e6, 6.74e9), L=(1, 32), d=(64, 4096), h_kv=(1, 32), d_h=(64, 128), b=(1, 2),
                             P=(1, 2048), B=(1, 512), T=(1, 4096), peak=(1e12, 312e12), bw=(1e11, 2.039e12),
                             t0=(0.0, 5e-6)))
