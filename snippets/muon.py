"""Muon: momentum, five quintic Newton-Schulz steps from a Frobenius-normalized start, and the
0.2 sqrt(max(A, B)) update scale with decoupled weight decay. Checked against the exact polar factor
(scipy.linalg.polar, numpy's SVD), the same polynomial applied to the singular values one by one with
the coefficients the authors publish, the published 0.5..1.5 band, an explicit momentum sum, and the
RMS identity behind the scale."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import polar

# --- formula ---
NS_COEFFS = (3.4445, -4.7750, 2.0315)
NS_STEPS = 5
RMS_MATCH = 0.2


def newton_schulz5(M: np.ndarray) -> np.ndarray:
    """O = X_5 with X_0 = M / ||M||_F and X_k = a X + b (X X^T) X + c (X X^T)^2 X."""
    a, b, c = NS_COEFFS
    norm = np.linalg.norm(M)   # Frobenius: bounds the spectral norm, so every sigma of X_0 is <= 1
    if norm == 0.0:
        return np.zeros_like(M)
    X = M / norm
    for _ in range(NS_STEPS):
        gram = X @ X.T
        X = a * X + (b * gram + c * gram @ gram) @ X
    return X


def muon_step(W: np.ndarray, M: np.ndarray, grad: np.ndarray, lr: float, mu: float, wd: float):
    """M_t = mu M_{t-1} + G_t;  W_t = W_{t-1} - lr (0.2 sqrt(max(A, B)) O_t + wd W_{t-1})."""
    M = mu * M + grad
    O_t = newton_schulz5(M)
    scale = RMS_MATCH * np.sqrt(max(W.shape))
    return W - lr * (scale * O_t + wd * W), M
# --- end formula ---


rng = np.random.default_rng(0)
PUBLISHED = (3.4445, -4.7750, 2.0315)   # a, b, c as the authors' muon.py and torch.optim.Muon print them
BAND = (0.5, 1.5)                       # "S'_ii ~ Uniform(0.5, 1.5)": the authors' stated output band


def quintic_on_singular_values(M: np.ndarray, steps: int = 5) -> np.ndarray:
    """Independent route: an odd polynomial of X acts on its singular values alone, so X_5 is
    U diag(p^5(sigma_i / ||M||_F)) V^T, with ||M||_F = sqrt(sum sigma_i^2) from the SVD."""
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    x = s / np.sqrt(np.sum(s**2))
    a, b, c = PUBLISHED
    for _ in range(steps):
        x = a * x + b * x**3 + c * x**5
    return (U * x) @ Vt


def with_singular_values(shape, sigmas):
    """A random matrix of the given shape with exactly these singular values."""
    A, B = shape
    U, _ = np.linalg.qr(rng.normal(size=(A, len(sigmas))))
    V, _ = np.linalg.qr(rng.normal(size=(B, len(sigmas))))
    return (U * np.asarray(sigmas)) @ V.T


# 1. The iteration against the spectral route with the published coefficients, wide, tall and square.
#    Five steps of a few matmuls each on O(1) entries: rounding stays near 1e-15; 1e-12 is ample.
for shape in ((24, 40), (48, 16), (32, 32)):
    M = rng.normal(size=shape)
    check_close(f"{shape[0]}x{shape[1]}: five NS steps = p^5 on the singular values (published a, b, c)",
                newton_schulz5(M), quintic_on_singular_values(M), rtol=0, atol=1e-12)

# 2. Hand case: M = diag(0.6, 0.8) has ||M||_F = 1 exactly, so X_0 = M and the output is
#    diag(p^5(0.6), p^5(0.8)), the scalar polynomial iterated five times.
def p5(x):
    a, b, c = PUBLISHED
    for _ in range(5):
        x = a * x + b * x**3 + c * x**5
    return x


check_close("diag(0.6, 0.8): ||M||_F = 1, output diag(p^5(0.6), p^5(0.8))",
            newton_schulz5(np.diag([0.6, 0.8])), np.diag([p5(0.6), p5(0.8)]), rtol=1e-13)

# 3. The published band: for a well-conditioned input (sigma_min / ||M||_F >= 0.01) every output
#    singular value lies in (0.5, 1.5), and the output is within that band of the exact polar factor
#    U V^T: ||O - U V^T||_2 = max_i |p^5(x_i) - 1| < 0.5.
for shape in ((40, 24), (24, 40)):
    k = min(shape)
    M = with_singular_values(shape, np.geomspace(1.0, 0.05, k))   # condition number 20
    orthogonalized = newton_schulz5(M)
    s_out = np.linalg.svd(orthogonalized, compute_uv=False)
    check_true(f"{shape[0]}x{shape[1]}, condition 20: output singular values in the band (0.5, 1.5)",
               bool(np.all((s_out > BAND[0]) & (s_out < BAND[1]))),
               f"range {s_out.min():.3f}..{s_out.max():.3f}")
    Q, _ = polar(M)   # exact polar factor U V^T
    gap = np.linalg.norm(orthogonalized - Q, 2)
    check_true(f"{shape[0]}x{shape[1]}: spectral distance to scipy's polar factor below 0.5", gap < 0.5,
               f"||O - UV^T||_2 = {gap:.3f}")
    U, _, Vt = np.linalg.svd(M, full_matrices=False)
    check_close(f"{shape[0]}x{shape[1]}: scipy polar factor = U V^T from numpy's SVD", Q, U @ Vt,
                rtol=0, atol=1e-12)

# 4. What the iteration does not do: it is not exact. A singular value of 1 (after normalization)
#    goes to p(1) = a + b + c = 0.701 in one step, and a rank-one input lands far from U V^T, while
#    tiny singular values are amplified by a^5 ~ 483 and still fall short of 1.
rank1 = np.outer(rng.normal(size=12), rng.normal(size=20))
s1 = np.linalg.svd(newton_schulz5(rank1), compute_uv=False)[0]
check_close("rank one: x_0 = 1, output sigma = p^5(1)", s1, p5(1.0), rtol=1e-12)
check_true("rank one: p^5(1) is inside the band but 0.3 away from 1", 0.5 < s1 < 0.8, f"{s1:.4f}")

# 5. Scale invariance: X_0 divides by ||M||_F, so any positive multiple of the momentum gives the same
#    O. Keller Jordan's code keeps an EMA, (1 - mu) times this card's sum M_t: same update.
M = rng.normal(size=(16, 24))
check_close("O(c M) = O(M) for c = 1e-3 and 37", np.stack([newton_schulz5(1e-3 * M), newton_schulz5(37 * M)]),
            np.stack([newton_schulz5(M)] * 2), rtol=0, atol=1e-12)

# 6. Full steps: momentum against the explicit weighted sum M_t = sum_s mu^(t-s) G_s, orthogonalized by
#    the spectral route, scaled and decayed, five steps from W_0 on a 24 x 40 matrix.
A, B = 24, 40
lr, mu, wd = 0.01, 0.95, 0.1
W0 = rng.normal(size=(A, B)) / np.sqrt(B)
grads = [rng.normal(size=(A, B)) for _ in range(5)]
W, Mbuf = W0.copy(), np.zeros((A, B))
W_ref = W0.copy()
for t, g in enumerate(grads, start=1):
    W, Mbuf = muon_step(W, Mbuf, g, lr, mu, wd)
    M_ref = sum(mu ** (t - s) * grads[s - 1] for s in range(1, t + 1))
    W_ref = W_ref - lr * (0.2 * np.sqrt(40) * quintic_on_singular_values(M_ref) + wd * W_ref)
check_close("five Muon steps = explicit momentum sum, spectral route, 0.2 sqrt(40), decay", W, W_ref,
            rtol=0, atol=1e-12)

# 7. The scale: an A x B polar factor of full rank has min(A, B) unit singular values, so its RMS is
#    sqrt(min(A, B) / (A B)) = 1 / sqrt(max(A, B)); times 0.2 sqrt(max(A, B)) it is exactly 0.2 (the
#    update RMS the paper matches to AdamW's), whatever the shape.
for shape in ((24, 40), (40, 24), (64, 8)):
    Wz = np.zeros(shape)
    G = rng.normal(size=shape)
    Q, _ = polar(G)
    step_exact = -(RMS_MATCH * np.sqrt(max(shape))) * Q
    check_close(f"{shape[0]}x{shape[1]}: RMS of 0.2 sqrt(max(A,B)) U V^T is 0.2",
                np.sqrt(np.mean(step_exact**2)), 0.2, rtol=1e-12)
    W1, _ = muon_step(Wz, np.zeros(shape), G, 1.0, mu, wd)
    rms = np.sqrt(np.mean(W1**2))
    check_true(f"{shape[0]}x{shape[1]}: Muon's first step from W = 0 has RMS in 0.2 x (0.5, 1.5)",
               0.2 * BAND[0] < rms < 0.2 * BAND[1], f"RMS {rms:.4f}")
# An all-ones gradient is rank one with u, v constant, so O = p^5(1) u v^T has every entry
# p^5(1) / sqrt(512); the step is -0.2 sqrt(64) = -1.6 times that, for the wide and the tall shape.
check_close("the scale is 0.2 sqrt(max(A, B)): 64 x 8 and 8 x 64 both multiply by 1.6",
            [muon_step(np.zeros(s), np.zeros(s), np.ones(s), 1.0, 0.0, 0.0)[0].mean()
             for s in ((64, 8), (8, 64))],
            [-1.6 * p5(1.0) / np.sqrt(512)] * 2, rtol=1e-12)

# 8. Weight decay is decoupled: with zero gradient the momentum and O stay zero, and W shrinks by
#    exactly (1 - lr wd) per step.
W = W0.copy()
Mbuf = np.zeros((A, B))
for _ in range(7):
    W, Mbuf = muon_step(W, Mbuf, np.zeros((A, B)), lr, mu, wd)
check_close("zero gradient: W_7 = (1 - lr wd)^7 W_0", W, (1 - lr * wd) ** 7 * W0, rtol=1e-13)



def muon_path(scale, nesterov=False):
    """Section 6's five steps in the card's terms, with another update scale, or with the Nesterov
    variant the libraries default to (orthogonalizing G_t + mu M_t instead of M_t)."""
    W, M = W0.copy(), np.zeros((A, B))
    for g in grads:
        M = mu * M + g
        W = W - lr * (scale * newton_schulz5(g + mu * M if nesterov else M) + wd * W)
    return W


W_card = muon_path(RMS_MATCH * np.sqrt(max(A, B)))

# --- in code: torch ---
import torch  # noqa: E402


def torch_muon(**options):
    """torch.optim.Muon on section 6's five gradients from W0 (float64 weights)."""
    x = torch.tensor(W0, requires_grad=True)
    opt = torch.optim.Muon([x], lr=lr, weight_decay=wd, momentum=mu, **options)
    for g in grads:
        x.grad = torch.tensor(g)
        opt.step()
    return x.detach().numpy()


# torch runs the Newton-Schulz steps in bfloat16 (8 significant bits, 2^-8 = 0.4% per rounding) whatever the
# weights' dtype: the moved distance ||W - W0|| ~ 0.08 comes out within a few percent, not 1e-12.
moved = np.linalg.norm(W_card - W0)
W_torch = torch_muon(nesterov=False, adjust_lr_fn="match_rms_adamw")
check_close("Muon(nesterov=False, adjust_lr_fn='match_rms_adamw'): the card's five steps, in bfloat16",
            np.linalg.norm(W_torch - W_card) / moved, 0.0, atol=0.03)
check_true("pitfall: the iteration is bfloat16: far from float64 agreement",
           np.abs(W_torch - W_card).max() > 1e-6, f"max difference {np.abs(W_torch - W_card).max():.2e}")
default_scale, default_nesterov = torch_muon(nesterov=False), torch_muon(adjust_lr_fn="match_rms_adamw")
check_close("pitfall: by default the scale is sqrt(max(1, A/B)) = 1 for 24 x 40, not 0.2 sqrt(40)",
            np.linalg.norm(default_scale - muon_path(np.sqrt(max(1, A / B)))) / moved, 0.0, atol=0.03)
check_close("pitfall: nesterov=True by default orthogonalizes G_t + mu M_t",
            np.linalg.norm(default_nesterov - muon_path(RMS_MATCH * np.sqrt(max(A, B)), nesterov=True))
            / moved, 0.0, atol=0.03)
default_gaps = [np.linalg.norm(W - W_card) / moved for W in (default_scale, default_nesterov)]
check_true("... and each default moves W away from the card by far more than bfloat16 does",
           min(default_gaps) > 0.1,
           f"by {default_gaps[0]:.0%} and {default_gaps[1]:.0%} of the distance moved")
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def optax_muon(**options):
    """optax.contrib.muon on section 6's five gradients from W0."""
    opt = optax.contrib.muon(lr, beta=mu, weight_decay=wd, **options)
    x = jax.numpy.asarray(W0)
    state = opt.init(x)
    update = jax.jit(opt.update)   # one compilation instead of dispatching each small operation
    for g in grads:
        updates, state = update(jax.numpy.asarray(g), state, x)
        x = optax.apply_updates(x, updates)
    return np.asarray(x)


# optax keeps a bias-corrected EMA, a multiple of M_t (O does not see the factor); eps = 0 removes its
# 1e-8 from ||M||_F. Float64 throughout: the card's own 1e-12.
check_close("optax.contrib.muon(beta = mu, nesterov=False, consistent_rms=0.2, eps=0): the card's five steps",
            optax_muon(nesterov=False, consistent_rms=0.2, eps=0.0), W_card, rtol=0, atol=1e-12)
# optax reads a 2-D weight as (fan_in, fan_out), x @ W: its default width scale is sqrt(max(1, B / A)).
check_close("pitfall: by default the scale is sqrt(max(1, fan_out / fan_in)) = sqrt(40 / 24)",
            optax_muon(nesterov=False, eps=0.0), muon_path(np.sqrt(40 / 24)), rtol=0, atol=1e-12)
nesterov_gap = np.linalg.norm(optax_muon(consistent_rms=0.2, eps=0.0) - W_card) / moved
check_true("pitfall: nesterov=True by default, with its own bias corrections: W moves away from the card",
           nesterov_gap > 0.1, f"by {nesterov_gap:.0%} of the distance moved")
# --- end in code ---

fig, ax = figure("Five quintic Newton-Schulz steps on one singular value",
                 "singular value of the normalized input", "output singular value")
x = np.geomspace(1e-4, 1.0, 400)
ax.semilogx(x, p5(x), label="Muon, 5 steps")
ax.axhline(1.0, color="gray", ls=":", label="exact polar factor")
ax.axhspan(*BAND, color="gray", alpha=0.15, label="published band 0.5 to 1.5")
ax.legend(loc="lower right")
