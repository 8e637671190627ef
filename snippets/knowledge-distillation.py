"""Knowledge distillation (Hinton et al.): the soft term against scipy's KL, KL vs cross-entropy
forms (they differ by the teacher entropy), the gradient T (q - p), the T^2 scaling in the
high-temperature limit (Eq. 4 of the paper) and the hard term at temperature 1."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import entropy


# --- formula ---
def log_softmax_rows(z: np.ndarray) -> np.ndarray:
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def kd_loss(z: np.ndarray, v: np.ndarray, y: np.ndarray, T: float, alpha: float) -> np.ndarray:
    """Per-example (1 - alpha) CE(y, softmax z) + alpha T^2 KL(softmax(v/T) || softmax(z/T)).
    z: student logits, v: teacher logits, y: hard labels."""
    log_p_teacher = log_softmax_rows(v / T)
    log_q_student = log_softmax_rows(z / T)
    soft = np.sum(np.exp(log_p_teacher) * (log_p_teacher - log_q_student), axis=-1)
    hard = -np.take_along_axis(log_softmax_rows(z), y[..., None], axis=-1).squeeze(axis=-1)
    return (1.0 - alpha) * hard + alpha * T**2 * soft
# --- end formula ---


def fd_grad(f, z, h=1e-6):
    """Central differences of a per-row loss with respect to every logit."""
    g = np.zeros_like(z)
    for k in range(z.shape[-1]):
        e = np.zeros(z.shape[-1])
        e[k] = h
        g[..., k] = (f(z + e) - f(z - e)) / (2 * h)
    return g


rng = np.random.default_rng(0)
B, N = 6, 10
v = rng.normal(scale=3.0, size=(B, N))              # teacher
z = v + rng.normal(scale=2.0, size=(B, N))          # student
y = rng.integers(0, N, size=B)

# 1. The soft term is T^2 times scipy's KL(p || q) at temperature T; the hard term is CE at T = 1.
for T in [1.0, 4.0]:
    p, q = softmax(v / T, axis=1), softmax(z / T, axis=1)
    check_close(f"T = {T}: alpha = 1 gives T^2 KL(p || q) (scipy)", kd_loss(z, v, y, T, 1.0),
                [T**2 * entropy(p[i], q[i]) for i in range(B)], rtol=1e-11)
hard = -log_softmax(z, axis=1)[np.arange(B), y]
check_close("alpha = 0 gives cross-entropy with the labels at temperature 1 (for any T)",
            kd_loss(z, v, y, 5.0, 0.0), hard, rtol=1e-12)
check_close("alpha = 0.3, T = 2: weighted sum of the two terms", kd_loss(z, v, y, 2.0, 0.3),
            0.7 * hard
            + 0.3 * 4.0 * np.array([entropy(softmax(v[i] / 2), softmax(z[i] / 2)) for i in range(B)]),
            rtol=1e-11)

# 2. Hinton writes the soft term as a cross-entropy; it differs from the KL by the teacher's entropy,
#    which does not depend on the student, so both give the same gradient.
T = 3.0
p, q = softmax(v / T, axis=1), softmax(z / T, axis=1)
ce_soft = -np.sum(p * log_softmax(z / T, axis=1), axis=1)
check_close("CE form - KL form = teacher entropy H(p) (scipy)", ce_soft - kd_loss(z, v, y, T, 1.0) / T**2,
            [entropy(r) for r in p], rtol=1e-11)
check_close("same gradient: d(CE form)/dz = d(KL form)/dz",
            fd_grad(lambda zz: -np.sum(p * log_softmax(zz / T, axis=1), axis=1), z),
            fd_grad(lambda zz: kd_loss(zz, v, y, T, 1.0) / T**2, z), rtol=1e-6, atol=1e-10)

# 3. Gradient of the scaled soft term: T^2 * (1/T)(q - p) = T (q - p)  (Hinton Eq. 2 times T^2).
check_close("gradient of T^2 KL = T (q - p), finite differences",
            fd_grad(lambda zz: kd_loss(zz, v, y, T, 1.0), z), T * (q - p), rtol=1e-6, atol=1e-9)

# 4. High temperature, zero-mean logits: gradient -> (z - v) / (N T^2) (Eq. 4), so with the T^2 factor
#    it tends to (z - v)/N, independent of T; unscaled it vanishes like 1/T^2.
zc, vc = z - z.mean(axis=1, keepdims=True), v - v.mean(axis=1, keepdims=True)
limit = (zc - vc) / N
errors = []
for T in [10.0, 100.0, 1000.0]:
    g = fd_grad(lambda zz, T=T: kd_loss(zz, vc, y, T, 1.0), zc, h=1e-4)
    errors.append(np.abs(g - limit).max() / np.abs(limit).max())
check_true("scaled soft gradient -> (z - v)/N: relative error falls ~10x per 10x in T",
           errors[0] < 0.6 and errors[1] < errors[0] / 5 and errors[2] < errors[1] / 5,
           ", ".join(f"{e:.1e}" for e in errors))
check_close("T = 1000: scaled gradient equals (z - v)/N to 1%",
            fd_grad(lambda zz: kd_loss(zz, vc, y, 1e3, 1.0), zc, h=1e-4), limit,
            rtol=1e-2, atol=1e-2 * np.abs(limit).max())
g_hard = fd_grad(lambda zz: kd_loss(zz, vc, y, 1.0, 0.0), zc)
norms = [np.linalg.norm(fd_grad(lambda zz, T=T: kd_loss(zz, vc, y, T, 1.0), zc, h=1e-4))
         for T in [50.0, 200.0]]
check_close("scaled soft-gradient norm stops depending on T (T = 50 vs 200)", norms[0], norms[1], rtol=0.05)
check_true("...and stays comparable to the hard-label gradient (ratio between 0.1 and 10)",
           0.1 < norms[1] / np.linalg.norm(g_hard) < 10, f"ratio {norms[1] / np.linalg.norm(g_hard):.2f}")

# 5. Identical student and teacher: zero soft loss and zero soft gradient at every T.
check_close("student = teacher: soft term 0", kd_loss(v, v, y, 2.5, 1.0), np.zeros(B), atol=1e-13)

# 6. Logits spanning thousands (T = 1): finite and exact, against scipy's log_softmax.
zb, vb = 400 * z, 400 * v
pb = softmax(vb, axis=1)
ref = np.sum(pb * (log_softmax(vb, axis=1) - log_softmax(zb, axis=1)), axis=1)
check_close("logits spanning ~1e4 at T = 1", kd_loss(zb, vb, y, 1.0, 1.0), ref, rtol=1e-10, atol=1e-12)
z3, v3, y3 = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 3, 5)), rng.integers(0, 5, size=(2, 3))
ref3 = [[0.5 * -log_softmax(z3[a, b])[y3[a, b]]
         + 0.5 * 4 * entropy(softmax(v3[a, b] / 2), softmax(z3[a, b] / 2))
         for b in range(3)] for a in range(2)]
check_close("3-D batch (sequence, position, class)", kd_loss(z3, v3, y3, 2.0, 0.5), ref3, rtol=1e-11)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# The usual PyTorch recipe, in float64: (1 - alpha) F.cross_entropy(z, y) + alpha T^2
# F.kl_div(log_softmax(z/T), softmax(v/T), reduction="batchmean"). Sums over 10 classes and 6 rows,
# a few ulps per term: 1e-12.
T, alpha = 2.0, 0.3
zt, vt, yt = torch.tensor(z), torch.tensor(v), torch.tensor(y)
soft_kl = F.kl_div(F.log_softmax(zt / T, dim=-1), F.softmax(vt / T, dim=-1), reduction="batchmean")
torch_kd = (1 - alpha) * F.cross_entropy(zt, yt) + alpha * T**2 * soft_kl
check_close("(1-a) F.cross_entropy + a T^2 F.kl_div(..., 'batchmean') = batch mean of L_KD",
            torch_kd.item(), kd_loss(z, v, y, T, alpha).mean(), rtol=1e-12)
check_close("pitfall: F.kl_div alone is the soft term divided by T^2 = 4; multiply it back",
            (T**2 * F.kl_div(F.log_softmax(zt / T, dim=-1), F.softmax(vt / T, dim=-1),
                             reduction="batchmean")).item(),
            kd_loss(z, v, y, T, 1.0).mean(), rtol=1e-12)
check_close("pitfall: kl_div's default reduction='mean' also divides by the 10 classes",
            T**2 * N * F.kl_div(F.log_softmax(zt / T, dim=-1), F.softmax(vt / T, dim=-1)).item(),
            kd_loss(z, v, y, T, 1.0).mean(), rtol=1e-12)
# --- end in code ---

fig, ax = figure("Soft targets at different temperatures", "class (sorted by teacher logit)", "probability")
logits = np.sort(rng.normal(scale=3.0, size=10))[::-1]
for T in [1, 2, 5, 20]:
    ax.plot(np.arange(10), softmax(logits / T), "o-", label=f"T = {T}")
ax.legend()
