"""LLM.int8(): vector-wise int8 matmul plus a full-precision product over outlier feature dimensions,
checked against exact integer arithmetic, an elementwise rounding-error bound, and the threshold 6.0."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def int8_vectorwise(X, W):
    """Row-wise absmax codes for X (per token), column-wise for W (per output), int32 accumulation,
    then the outer product of the two scale vectors: C ~ (c_x c_w^T) * (X_i8 W_i8)."""
    c_x = np.max(np.abs(X), axis=1) / 127
    c_w = np.max(np.abs(W), axis=0) / 127
    X_i8 = np.round(X / c_x[:, None])
    W_i8 = np.round(W / c_w[None, :])
    return np.outer(c_x, c_w) * (X_i8 @ W_i8)


def outlier_dims(X, threshold=6.0):
    """Feature dimensions h with at least one |X[t, h]| >= threshold."""
    return np.any(np.abs(X) >= threshold, axis=0)


def llm_int8_matmul(X, W, threshold=6.0):
    """sum over outlier dims in full precision + int8 vector-wise product over the rest."""
    outl = outlier_dims(X, threshold)
    if np.all(outl):
        return X @ W
    return X[:, outl] @ W[outl, :] + int8_vectorwise(X[:, ~outl], W[~outl, :])
# --- end formula ---


def codes_by_search(A, scale):
    """Brute force: the int8 code k in [-127, 127] whose value k * scale is nearest to each entry."""
    k = np.arange(-127, 128)
    return k[np.argmin(np.abs(A[..., None] - scale[..., None] * k), axis=-1)]


rng = np.random.default_rng(0)
T, d, n_out = 20, 48, 12
X = rng.normal(size=(T, d))
X[:, [5, 30]] += rng.choice([-1, 1], size=(T, 2)) * rng.uniform(15, 40, size=(T, 2))   # systematic outliers
X[3, 11] = -6.0     # magnitude exactly at the threshold: counts as an outlier (>=)
X[7, 22] = -5.99    # just below: stays in int8
W = rng.normal(size=(d, n_out)) * 0.05

outl = outlier_dims(X)
check_close("outlier dimensions == {5, 11, 30} (>= 6.0 counts, 5.99 does not)",
            np.flatnonzero(outl), [5, 11, 30],
            rtol=0)

# 1. The int8 half against exact integer arithmetic with brute-force codes.
Xn, Wn = X[:, ~outl], W[~outl, :]
cx, cw = np.abs(Xn).max(1) / 127, np.abs(Wn).max(0) / 127
Xq = codes_by_search(Xn, np.broadcast_to(cx[:, None], Xn.shape))
Wq = codes_by_search(Wn, np.broadcast_to(cw[None, :], Wn.shape))
acc = Xq.astype(np.int64) @ Wq.astype(np.int64)                     # int32-range accumulator, exact
check_true("codes stay in [-127, 127] and the int accumulator in int32 range",
           bool(np.abs(Xq).max() == 127 and np.abs(acc).max() < 2**31))
ref = X[:, outl] @ W[outl, :] + np.outer(cx, cw) * acc
check_close("LLM.int8 == fp outlier part + (c_x c_w^T) * integer GEMM",
            llm_int8_matmul(X, W), ref, rtol=1e-12,
            atol=1e-14)

# 2. Error against the full-precision product: within the worst case of half-step rounding errors,
#    sum_h (|x| c_w/2 + c_x/2 |w| + c_x c_w / 4), taken only over the non-outlier dimensions.
C = X @ W
err = np.abs(llm_int8_matmul(X, W) - C)
bound = (np.abs(Xn) @ (np.ones_like(Wn) * cw / 2) + (np.ones_like(Xn) * cx[:, None] / 2) @ np.abs(Wn)
         + Xn.shape[1] * np.outer(cx, cw) / 4)
check_true("|C_int8 - X W| <= elementwise rounding bound", bool(np.all(err <= bound)),
           f"max ratio {np.max(err / bound):.2f}")

# 3. The outlier dimensions stay out of the int8 scales and are computed exactly: multiplying them by 10
#    changes the result by exactly 9 X_O W_O (plain int8 would re-scale every row).
X10 = X.copy()
X10[:, outl] *= 10.0
check_close("outliers x10: result changes by exactly 9 X_O W_O",
            llm_int8_matmul(X10, W) - llm_int8_matmul(X, W),
            9.0 * X[:, outl] @ W[outl, :], rtol=1e-11, atol=1e-11)

# 4. Both branches of the threshold: at 0 every dimension is full precision (exact); at infinity none is,
#    and plain vector-wise int8 is much worse on this input than the decomposition.
check_close("threshold 0: everything in full precision == X W", llm_int8_matmul(X, W, 0.0), C, rtol=1e-12,
            atol=1e-14)
err_plain = np.abs(llm_int8_matmul(X, W, np.inf) - C).max()
check_close("threshold inf == plain vector-wise int8", llm_int8_matmul(X, W, np.inf), int8_vectorwise(X, W),
            rtol=1e-15)
check_true("decomposition error < 1/5 of plain vector-wise int8 error", err.max() < 0.2 * err_plain,
           f"{err.max():.2e} vs {err_plain:.2e}")

fig, ax = figure("Max |activation| per feature dimension", "feature dimension h", "max over tokens of |X|")
ax.bar(np.arange(d), np.abs(X).max(0), color=np.where(outl, "tab:red", "tab:blue"))
ax.axhline(6.0, color="gray", ls=":", label="threshold 6.0 (red: kept in fp16)")
ax.legend()
