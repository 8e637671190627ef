"""Portability: every snippet run under other BLAS kernels and thread counts (kernels: KERNELS, run_under)."""
