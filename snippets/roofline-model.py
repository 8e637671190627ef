"""Roofline: attainable FLOP/s = min(peak, I * bandwidth), with I = FLOPs / bytes of memory traffic.
The arithmetic intensity of a GEMM is counted by brute force (a traced triple loop), and the roofline
is compared with the time-based bound max(W / peak, Q / bandwidth) on published A100 numbers."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def arithmetic_intensity(flops, bytes_moved):
    """Operations per byte of memory traffic."""
    return flops / bytes_moved


def gemm_intensity(M, N, K, b):
    """C[M,N] = A[M,K] B[K,N]: 2MNK FLOPs; A and B read once and C written once (b bytes per element)."""
    return arithmetic_intensity(2 * M * N * K, b * (M * K + K * N + M * N))


def roofline(intensity, peak, bandwidth):
    """Attainable performance: compute roof or memory slope, whichever is lower."""
    return np.minimum(peak, intensity * bandwidth)


def ridge_point(peak, bandwidth):
    """Intensity at which the two roofs meet."""
    return peak / bandwidth
# --- end formula ---


def traced_gemm(A, B):
    """Naive triple loop that counts every multiply and add and records every element touched."""
    M, K = A.shape
    N = B.shape[1]
    C = np.zeros((M, N))
    flops, seen_a, seen_b, seen_c = 0, set(), set(), set()
    for i in range(M):
        for j in range(N):
            acc = 0.0
            for k in range(K):
                acc += A[i, k] * B[k, j]
                flops += 2                       # one multiply, one add
                seen_a.add((i, k))
                seen_b.add((k, j))
            C[i, j] = acc
            seen_c.add((i, j))
    return C, flops, len(seen_a) + len(seen_b) + len(seen_c)


rng = np.random.default_rng(0)
for M, N, K, b in [(3, 5, 7, 2), (1, 6, 4, 4), (8, 2, 5, 1)]:
    A, B = rng.normal(size=(M, K)), rng.normal(size=(K, N))
    C, flops, elems = traced_gemm(A, B)
    check_close(f"traced {M}x{K} @ {K}x{N} equals numpy", C, A @ B, atol=1e-12)
    check_close(f"GEMM ({M},{N},{K}, b={b}): intensity = counted FLOPs / counted bytes",
                gemm_intensity(M, N, K, b), flops / (elems * b), rtol=1e-12)

# Published accelerator numbers: NVIDIA A100 SXM 80GB, BF16 dense tensor core 312 TFLOP/s, HBM2e 2039 GB/s.
peak, bw = 312e12, 2.039e12
ridge = ridge_point(peak, bw)
check_close("A100 ridge point = 312e12 / 2.039e12 ~ 153.0 FLOP/byte", ridge, 153.016184404, rtol=1e-9)


def time_bound(flops, bytes_moved, peak, bw):
    """Independent route: a kernel needs at least flops/peak seconds and bytes/bw seconds."""
    return flops / max(flops / peak, bytes_moved / bw)


cases = {"decode GEMV, batch 1 (memory-bound)": (1, 8192, 8192),
         "decode, batch 64 (memory-bound)": (64, 8192, 8192),
         "prefill 4096 tokens (compute-bound)": (4096, 8192, 8192),
         "square 8192 GEMM (compute-bound)": (8192, 8192, 8192)}
for name, (M, N, K) in cases.items():
    flops, q = 2 * M * N * K, 2 * (M * K + K * N + M * N)
    intensity = gemm_intensity(M, N, K, 2)
    check_close(f"{name}: roofline = FLOPs / max(FLOPs/peak, bytes/bw)",
                roofline(intensity, peak, bw), time_bound(flops, q, peak, bw), rtol=1e-12)
    check_true(f"{name}: memory-bound iff intensity < ridge",
               (intensity < ridge) == ("memory" in name), f"I = {intensity:.4g}")
check_close("batch-1 decode GEMV: ~1 FLOP/byte, ~2.04 TFLOP/s",
            [gemm_intensity(1, 8192, 8192, 2), roofline(gemm_intensity(1, 8192, 8192, 2), peak, bw) / 1e12],
            [8192 / 8194, 2.039 * 8192 / 8194], rtol=1e-12)
check_close("square 8192 GEMM: I = 8192 / 3 and attains the 312 TFLOP/s roof",
            [gemm_intensity(8192, 8192, 8192, 2), roofline(8192 / 3, peak, bw)], [8192 / 3, peak], rtol=1e-12)
check_close("at the ridge both roofs agree", [roofline(ridge, peak, bw), ridge * bw], [peak, peak],
            rtol=1e-12)

intens = np.logspace(-1, 4, 300)
fig, ax = figure("Roofline of an A100 SXM (BF16 dense, HBM 2.039 TB/s)", "arithmetic intensity (FLOP/byte)",
                 "attainable TFLOP/s")
ax.loglog(intens, roofline(intens, peak, bw) / 1e12, label="min(peak, I x bandwidth)")
ax.axvline(ridge, ls="--", color="gray", label=f"ridge point {ridge:.0f} FLOP/byte")
for name, (M, N, K) in cases.items():
    x = gemm_intensity(M, N, K, 2)
    ax.plot([x], [roofline(x, peak, bw) / 1e12], "o", label=name)
ax.legend(fontsize=7)

# The page's calculator is checked against these functions on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows); the grid holds memory-bound and compute-bound GEMMs.
import cardcalc  # noqa: E402


def calculator_outputs(pi, beta, M, N, K, b):
    intensity = gemm_intensity(M, N, K, b)
    return {"I_gemm": intensity, "I_star": ridge_point(pi, beta), "P": float(roofline(intensity, pi, beta))}


cardcalc.table(calculator_outputs, cardcalc.grid(pi=(312e12, 989e12), beta=(2.039e12, 3.35e12),
                                                 M=(1, 16, 4096), N=(4096, 8192), K=(8192, 28672), b=(1, 2)))
