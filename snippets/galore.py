"""GaLore: the gradient of an m x n weight is projected onto its top-r left singular vectors P_t
(refreshed every T steps), Adam runs on the r x n projection, and the result is projected back and
scaled by alpha. Checked against the subspace from scipy's eigendecomposition of G G^T, the
Eckart-Young error of the projection, Adam's sign-like first step, a reparametrized run (W = W_0 +
P C with C trained by a plain Adam written out here), and the rank of the accumulated update within
one subspace period and across several."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import eigh


# --- formula ---
def galore_projector(G: np.ndarray, rank: int) -> np.ndarray:
    """P_t: the top-r left singular vectors of the gradient, m x r."""
    U, _, _ = np.linalg.svd(G, full_matrices=False)
    return U[:, :rank]


def galore_adam_step(W, G, state, t, *, lr, alpha, rank, gap, beta1, beta2, eps):
    """W_t = W_{t-1} - lr alpha P_t N_t, with N_t Adam's normalized step on R_t = P_t^T G_t."""
    if (t - 1) % gap == 0:
        state["P"] = galore_projector(G, rank)          # the subspace changes every `gap` steps
    P = state["P"]
    R = P.T @ G                                          # r x n: all the optimizer sees
    state["m"] = beta1 * state["m"] + (1 - beta1) * R
    state["v"] = beta2 * state["v"] + (1 - beta2) * R * R
    N = (state["m"] / (1 - beta1**t)) / (np.sqrt(state["v"] / (1 - beta2**t)) + eps)
    return W - lr * alpha * (P @ N)


def galore_state_entries(n: int, rank: int) -> int:
    """Adam's two moments of the projected r x n gradient: 2 r n numbers (full Adam keeps 2 m n)."""
    return 2 * rank * n
# --- end formula ---


rng = np.random.default_rng(0)
m, n, r = 16, 40, 4


def new_state():
    return {"m": np.zeros((r, n)), "v": np.zeros((r, n))}


# 1. The projector against an independent route: the top-r eigenvectors of G G^T (scipy), compared as
#    subspaces (P P^T), which is blind to each vector's sign. Well-separated spectrum: gap ratio >= 1.5.
G = rng.normal(size=(m, n)) * np.geomspace(3, 0.1, n)
evals, evecs = eigh(G @ G.T)
top = evecs[:, np.argsort(evals)[::-1][:r]]
P = galore_projector(G, r)
check_close("P P^T = projector onto the top-4 eigenvectors of G G^T (scipy.linalg.eigh)", P @ P.T,
            top @ top.T, rtol=0, atol=1e-10)
check_close("P has orthonormal columns", P.T @ P, np.eye(r), rtol=0, atol=1e-12)
s = np.linalg.svd(G, compute_uv=False)
check_close("Eckart-Young: ||G - P P^T G||_F^2 = sum of the discarded sigma_i^2",
            np.sum((G - P @ P.T @ G) ** 2), np.sum(s[r:] ** 2), rtol=1e-10)

# 2. Adam's first step is sign(R) (bias correction makes m_hat = R, v_hat = R^2), so the first GaLore
#    update is -lr alpha P sign(P^T G).
W0 = rng.normal(size=(m, n))
cfg = dict(lr=1e-2, alpha=0.25, rank=r, gap=5, beta1=0.9, beta2=0.999, eps=1e-12)
W1 = galore_adam_step(W0, G, new_state(), 1, **cfg)
check_close("first step: W_1 - W_0 = -lr alpha P sign(P^T G)", W1 - W0, -1e-2 * 0.25 * P @ np.sign(P.T @ G),
            rtol=1e-9, atol=1e-15)

# 3. Within one subspace period P is fixed, so GaLore is Adam on C in the reparametrization
#    W = W_0 + P C (the gradient with respect to C is P^T dL/dW by the chain rule). Train both on a
#    least-squares loss for 5 steps (one period) and compare.
X = rng.normal(size=(n, 30))
Y = rng.normal(size=(m, 30))


def grad_W(W):
    return (W @ X - Y) @ X.T / 30


state, W = new_state(), W0.copy()
for t in range(1, 6):
    W = galore_adam_step(W, grad_W(W), state, t, **cfg)
P0 = galore_projector(grad_W(W0), r)
C, mC, vC = np.zeros((r, n)), np.zeros((r, n)), np.zeros((r, n))
for t in range(1, 6):
    gC = P0.T @ grad_W(W0 + 0.25 * P0 @ C)     # alpha folded into the reparametrization
    mC = 0.9 * mC + 0.1 * gC
    vC = 0.999 * vC + 0.001 * gC**2
    C = C - 1e-2 * (mC / (1 - 0.9**t)) / (np.sqrt(vC / (1 - 0.999**t)) + 1e-12)
check_close("5 steps in one period = Adam on C with W = W_0 + alpha P C", W, W0 + 0.25 * P0 @ C,
            rtol=0, atol=1e-12)

# --- in code: galore-torch ---
import torch  # noqa: E402
from galore_torch import GaLoreAdamW  # noqa: E402
from galore_torch.galore_projector import GaLoreProjector  # noqa: E402

# galore-torch takes every SVD in float32, even of a float64 gradient: by Davis-Kahan its subspace is
# off by about the float32 backward error over the gap below sigma_r, 64 eps32 ||G|| / (s_r - s_{r+1}).
eps32 = np.finfo(np.float32).eps
G0 = grad_W(W0)
s0 = np.linalg.svd(G0, compute_uv=False)
subspace_atol = 64 * eps32 * s0[0] / (s0[r - 1] - s0[r])
projector = GaLoreProjector(r, update_proj_gap=5, scale=0.25)
R_lib = projector.project(torch.from_numpy(G0), 0).numpy()
P_lib = projector.ortho_matrix.numpy()
check_close("GaLoreProjector (m < n): P spans the card's top-r left singular subspace", P_lib @ P_lib.T,
            P0 @ P0.T, rtol=0, atol=subspace_atol)
drift = np.abs(P_lib @ P_lib.T - P0 @ P0.T).max()
check_true("pitfall: ... to float32 accuracy only, though the gradient is float64",
           drift > 1e3 * np.finfo(float).eps, f"largest difference {drift:.1g}")
check_close("it hands the optimizer R = P^T G", R_lib, P_lib.T @ G0, rtol=0, atol=64 * eps32 * s0[0])
tall = GaLoreProjector(r, update_proj_gap=5, scale=0.25)
check_true("pitfall: for a tall gradient (m >= n, here G^T) it projects on the right: state n x r, not r x m",
           tuple(tall.project(torch.from_numpy(G0.T.copy()), 0).shape) == (n, r))

# Five steps (one period) of GaLoreAdamW against the card's run of check 3. Adam's N = m / sqrt(v)
# moves by at most the relative error of R, subspace_atol ||G|| / min |R|, so each of the 5 steps
# of size lr alpha (entries of P N at most sqrt(r)) moves W by at most lr alpha sqrt(r) times that.
# A worst case (6e-3 here, against a total move of 2e-2): it catches a wrong scale, rate or side.
w = torch.nn.Parameter(torch.from_numpy(W0.copy()))
optimizer = GaLoreAdamW([{"params": [w], "rank": r, "update_proj_gap": 5, "scale": 0.25, "proj_type": "std"}],
                        lr=1e-2, eps=1e-12, weight_decay=0.0, no_deprecation_warning=True)
for _ in range(5):
    w.grad = torch.from_numpy(grad_W(w.detach().numpy()))
    optimizer.step()
run_atol = 5 * 1e-2 * 0.25 * np.sqrt(r) * subspace_atol * (1 + s0[0] / np.abs(P0.T @ G0).min())
check_close("GaLoreAdamW(rank=4, update_proj_gap=5, scale=0.25): 5 steps = the card's", w.detach().numpy(), W,
            rtol=0, atol=run_atol)
# --- end in code ---

# 4. The accumulated update: rank <= r within a period, but it escapes rank r once the subspace is
#    refreshed, unlike a LoRA adapter of rank r. Its optimizer state is r x n, not m x n.
sv_one = np.linalg.svd(W - W0, compute_uv=False)
check_true("after one period (5 steps): rank(W - W_0) = r = 4", int(np.sum(sv_one > 1e-10 * sv_one[0])) == r,
           f"singular values beyond r: {sv_one[r]:.1e}")
state, W = new_state(), W0.copy()
for t in range(1, 21):
    W = galore_adam_step(W, grad_W(W), state, t, **cfg)
sv_four = np.linalg.svd(W - W0, compute_uv=False)
rank_four = int(np.sum(sv_four > 1e-8 * sv_four[0]))
check_true("after four periods (20 steps): rank(W - W_0) > r", rank_four > r, f"rank {rank_four}")
check_true("optimizer state is 2 r n = 320 numbers, not 2 m n = 1280",
           state["m"].size + state["v"].size == galore_state_entries(n, r) == 320)
# Started from scalar moments, the state takes whatever shape the step gives it: count it on a 12 x 7
# weight at rank 3 (2 r n = 42).
G3 = rng.normal(size=(12, 7))
state3 = {"m": 0.0, "v": 0.0}
galore_adam_step(np.zeros((12, 7)), G3, state3, 1, **{**cfg, "rank": 3})
check_true("12 x 7 weight, rank 3: the moments hold 2 r n = 42 numbers",
           state3["m"].size + state3["v"].size == galore_state_entries(7, 3) == 42)

# The page's calculator is checked against galore_state_entries on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows); full-rank Adam's state is the same count at r = m.
import cardcalc  # noqa: E402


def calculator_row(m, n, r):
    galore, full = galore_state_entries(n, r), galore_state_entries(n, m)
    return {"state": galore, "full": full, "frac": galore / full}


cardcalc.table(calculator_row, cardcalc.grid(m=(16, 4096, 8192), n=(40, 11008, 28672), r=(4, 128, 1024)))

fig, ax = figure("Rank of the accumulated GaLore update", "step", "numerical rank of W - W_0")
state, W, ranks = new_state(), W0.copy(), []
for t in range(1, 31):
    W = galore_adam_step(W, grad_W(W), state, t, **cfg)
    sv = np.linalg.svd(W - W0, compute_uv=False)
    ranks.append(int(np.sum(sv > 1e-8 * sv[0])))
ax.step(range(1, 31), ranks, where="post", label="GaLore, r = 4, subspace refreshed every 5 steps")
ax.axhline(r, color="gray", ls=":", label="LoRA of rank 4 (fixed)")
ax.legend()
