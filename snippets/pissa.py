"""PiSSA: the adapter starts from the principal part of the weight, A = U_r S_r^(1/2) and
B = S_r^(1/2) V_r^T from the top-r singular triplets, and the frozen residual is the rest of the
SVD. Checked by the exact reconstruction W_res + A B = W, Eckart-Young against scipy's singular
values, the residual's spectral norm, the balance A^T A = B B^T = S_r, and the principal part
against an independent route, orthogonal (subspace) iteration on W W^T."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import svd as scipy_svd


# --- formula ---
def pissa_init(W: np.ndarray, r: int):
    """Y = X W with W (m x n): A = U[:, :r] S_r^(1/2) (m x r), B = S_r^(1/2) V[:, :r]^T (r x n),
    W_res = U[:, r:] S[r:] V[:, r:]^T (frozen)."""
    U, S, Vt = np.linalg.svd(W, full_matrices=False)
    root = np.sqrt(S[:r])
    A = U[:, :r] * root
    B = root[:, None] * Vt[:r]
    W_res = (U[:, r:] * S[r:]) @ Vt[r:]
    return A, B, W_res
# --- end formula ---


rng = np.random.default_rng(0)
m, n, r = 48, 32, 6
# A weight with a decaying spectrum, as pretrained matrices have: sigma_i = 10 / i (well separated).
Q1, _ = np.linalg.qr(rng.normal(size=(m, n)))
Q2, _ = np.linalg.qr(rng.normal(size=(n, n)))
sigma = 10.0 / np.arange(1, n + 1)
W = (Q1 * sigma) @ Q2.T
A, B, W_res = pissa_init(W, r)

# 1. The model is unchanged at initialization: W_res + A B = W (an SVD reconstructs to ~1e-15).
check_close("W_res + A B = W", W_res + A @ B, W, rtol=0, atol=1e-12)
check_true("shapes: A is m x r, B is r x n, W_res is m x n",
           A.shape == (m, r) and B.shape == (r, n) and W_res.shape == (m, n))

# 2. A B is the best rank-r approximation: ||W - A B||_F^2 = sum of the discarded sigma_i^2 and
#    ||W_res||_2 = sigma_{r+1}, with the singular values from scipy's LAPACK driver.
s_ref = scipy_svd(W, compute_uv=False, lapack_driver="gesvd")
check_close("Eckart-Young: ||W - A B||_F^2 = sum_{i>r} sigma_i^2", np.sum((W - A @ B) ** 2),
            np.sum(s_ref[r:] ** 2), rtol=1e-10)
check_close("the residual's largest singular value is sigma_{r+1} = 10/7", np.linalg.norm(W_res, 2),
            10.0 / 7, rtol=1e-10)
check_close("A B has the top-r singular values 10, 5, ..., 10/6", np.linalg.svd(A @ B, compute_uv=False)[:r],
            10.0 / np.arange(1, r + 1), rtol=1e-10)

# 3. The split is balanced: each factor carries S_r^(1/2), so A^T A = B B^T = diag(sigma_1..sigma_r).
check_close("A^T A = diag(S_r)", A.T @ A, np.diag(10.0 / np.arange(1, r + 1)), rtol=0, atol=1e-12)
check_close("B B^T = diag(S_r)", B @ B.T, np.diag(10.0 / np.arange(1, r + 1)), rtol=0, atol=1e-12)

# 4. An independent route to the principal part: orthogonal iteration on W W^T converges to the top-r
#    left singular subspace at rate (sigma_{r+1}/sigma_r)^2 = (6/7)^2 per step; 250 steps leave
#    (36/49)^250 ~ 1e-33, far below rounding. Q Q^T W is then the rank-r part.
Qs = np.linalg.qr(rng.normal(size=(m, r)))[0]
for _ in range(250):
    Qs = np.linalg.qr(W @ (W.T @ Qs))[0]
check_close("A B = Q Q^T W from orthogonal iteration", A @ B, Qs @ (Qs.T @ W), rtol=0, atol=1e-10)
check_close("W_res = (I - Q Q^T) W", W_res, W - Qs @ (Qs.T @ W), rtol=0, atol=1e-10)

# 5. Against LoRA: LoRA's adapter starts at B A = 0 and the frozen weight is all of W; PiSSA freezes
#    only the residual, which holds a small share of the weight's energy here.
share = np.sum(W_res**2) / np.sum(W**2)
k = np.arange(1, n + 1)
check_close("the frozen residual's share of ||W||_F^2 = sum_{i>6} i^-2 / sum_{i<=32} i^-2 (7.6%)", share,
            np.sum(1.0 / k[r:] ** 2) / np.sum(1.0 / k**2), rtol=1e-10)

# --- in code: peft ---
import torch  # noqa: E402
from peft import LoraConfig  # noqa: E402
from peft_fixture import TARGET, adapt, run, weight  # noqa: E402


def peft_pissa(lora_alpha, dtype=torch.float32):
    """PEFT's PiSSA init of nn.Linear(m, n), whose weight is W^T (output x input): lora_A (r x m) is
    the card's A^T and lora_B (n x r) its B^T. Returns the model, A, B and the residual in the card's
    layout."""
    config = LoraConfig(r=r, lora_alpha=lora_alpha, init_lora_weights="pissa", target_modules=[TARGET])
    model, layer = adapt(W.T, config, dtype=dtype)
    return (model, weight(layer.lora_A["default"].weight).T, weight(layer.lora_B["default"].weight).T,
            weight(layer.base_layer.weight).T)


# PEFT refuses float64 and takes the SVD in float32, whose backward error is a few eps32 ||W||_2:
# atol 64 eps32 ||W||_2 for the residual and A B. A singular vector moves by that over the gap to
# its neighbours (10/6 - 10/7 at its smallest) and carries sqrt(sigma_1) at most in a factor.
eps32 = np.finfo(np.float32).eps
svd_atol = 64 * eps32 * np.linalg.norm(W, 2)
factor_atol = svd_atol * np.sqrt(10.0) / (10 / 6 - 10 / 7)
model, A_peft, B_peft, res_peft = peft_pissa(lora_alpha=r)
check_close("init_lora_weights='pissa', lora_alpha = r: the frozen base weight is W_res^T", res_peft, W_res,
            rtol=0, atol=svd_atol)
check_close("the adapter's lora_A^T lora_B^T is A B", A_peft @ B_peft, A @ B, rtol=0, atol=svd_atol)
# Each singular pair (u_i, v_i) is defined up to a common sign, which LAPACK picks: compare the
# factors after turning each column the card's way (their product does not depend on it).
signs = np.sign(np.sum(A_peft * A, axis=0))
check_close("lora_A^T = A, up to the sign of each singular pair", A_peft * signs, A, rtol=0, atol=factor_atol)
check_close("lora_B^T = B, with the same signs", B_peft * signs[:, None], B, rtol=0, atol=factor_atol)
X = rng.normal(size=(5, m))
# A float32 sum of m = 48 products: 64 eps32 times the sum of their sizes.
check_close("the model is unchanged at initialization: Y = X W", run(model, X), X @ W, rtol=0,
            atol=64 * eps32 * (np.abs(X) @ np.abs(W)).max())

# With lora_alpha != r, PEFT divides the singular values by alpha / r before the split, so that
# (alpha / r) A B is still the top-r part: each factor is the card's over sqrt(alpha / r).
scale = 8 / r
_, A8, B8, res8 = peft_pissa(lora_alpha=8)
signs8 = np.sign(np.sum(A8 * A, axis=0))
check_close("pitfall: lora_alpha defaults to 8, so at r = 6 lora_A^T = A / sqrt(8/6)",
            A8 * signs8 * np.sqrt(scale), A, rtol=0, atol=factor_atol)
check_close("... and (alpha / r) lora_A^T lora_B^T is still A B, the residual still W_res",
            [scale * A8 @ B8, res8], [A @ B, W_res], rtol=0, atol=svd_atol)
try:
    peft_pissa(lora_alpha=r, dtype=torch.float64)
    refused = ""
except TypeError as error:
    refused = str(error)
check_true("pitfall: a float64 weight is refused (the SVD runs in float32, bfloat16 or float16)",
           "float32" in refused, refused[:80])
# --- end in code ---

fig, ax = figure("Where PiSSA puts the spectrum", "singular value index i", "singular value")
i = np.arange(1, n + 1)
ax.semilogy(i, np.linalg.svd(W, compute_uv=False), "o", label="W")
ax.semilogy(i[:r], np.linalg.svd(A @ B, compute_uv=False)[:r], "s", mfc="none", label="A B (trained)")
ax.semilogy(i[r:], np.linalg.svd(W_res, compute_uv=False)[: n - r], "x", label=r"$W^{res}$ (frozen)")
ax.legend()
