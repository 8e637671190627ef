"""Triplet loss (FaceNet): squared-L2 hinge with margin alpha = 0.2 on unit-norm embeddings, both
branches of the hinge and their gradients; PyTorch's non-squared variant checked separately."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import euclidean, sqeuclidean


# --- formula ---
def triplet_loss(a: np.ndarray, p: np.ndarray, n: np.ndarray, margin: float = 0.2,
                 squared: bool = True) -> np.ndarray:
    """Per-triplet [d(a, p) - d(a, n) + margin]_+ over rows; d = squared L2 (FaceNet) or L2 (PyTorch)."""
    d_ap = np.sum((a - p) ** 2, axis=-1)
    d_an = np.sum((a - n) ** 2, axis=-1)
    if not squared:
        d_ap, d_an = np.sqrt(d_ap), np.sqrt(d_an)
    return np.maximum(d_ap - d_an + margin, 0.0)


def triplet_grad_anchor(a: np.ndarray, p: np.ndarray, n: np.ndarray, margin: float) -> np.ndarray:
    """d/da of the squared-L2 loss: 2 (n - p) where the hinge is active, 0 where it is not."""
    active = np.sum((a - p) ** 2, axis=-1) - np.sum((a - n) ** 2, axis=-1) + margin > 0
    return 2.0 * (n - p) * active[..., None]
# --- end formula ---


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


rng = np.random.default_rng(0)
B, d = 400, 8
a = unit(rng.normal(size=(B, d)))
p = unit(a + 0.5 * rng.normal(size=(B, d)))
n = unit(a + 0.9 * rng.normal(size=(B, d)))

loss = triplet_loss(a, p, n)
ref = np.array([max(sqeuclidean(a[i], p[i]) - sqeuclidean(a[i], n[i]) + 0.2, 0.0) for i in range(B)])
active = ref > 0
check_true("sample has both hinge branches", 50 < active.sum() < B - 50, f"{active.sum()} of {B} active")
check_close("squared L2, margin 0.2 (FaceNet) vs scipy sqeuclidean, active branch", loss[active], ref[active],
            rtol=1e-12)
check_close("inactive branch is exactly 0", loss[~active], np.zeros((~active).sum()), atol=0.0)
check_close("margin 0.5", triplet_loss(a, p, n, 0.5),
            [max(sqeuclidean(a[i], p[i]) - sqeuclidean(a[i], n[i]) + 0.5, 0.0) for i in range(B)], rtol=1e-12)
torch_like = [max(euclidean(a[i], p[i]) - euclidean(a[i], n[i]) + 1.0, 0.0) for i in range(B)]
check_close("non-squared L2, margin 1.0 (torch TripletMarginLoss defaults)",
            triplet_loss(a, p, n, 1.0, squared=False), torch_like, rtol=1e-12)

# The hinge boundary, exactly: d(a,p) = 0.36, d(a,n) = 0.5 in squared distance on unit vectors.
a1 = np.array([[1.0, 0.0, 0.0]])
p1 = np.array([[1 - 0.18, np.sqrt(1 - 0.82 ** 2), 0.0]])        # |a - p|^2 = 2 - 2 cos = 0.36
n1 = np.array([[0.75, 0.0, np.sqrt(1 - 0.75 ** 2)]])             # |a - n|^2 = 0.5
check_close("d_ap = 0.36, d_an = 0.5: loss 0.36 - 0.5 + 0.2 = 0.06", triplet_loss(a1, p1, n1), [0.06],
            rtol=1e-12)
check_close("the same triplet with margin 0.1 is satisfied: loss 0", triplet_loss(a1, p1, n1, 0.1), [0.0])

# Gradient w.r.t. the anchor by central differences, in both branches.
h = 1e-6
fd = np.zeros((B, d))
for k in range(d):
    e = np.zeros(d)
    e[k] = h
    fd[:, k] = (triplet_loss(a + e, p, n) - triplet_loss(a - e, p, n)) / (2 * h)
safe = np.abs(ref - 0.0) > 1e-4          # away from the kink at exactly zero
check_close("anchor gradient vs finite differences (both branches)", triplet_grad_anchor(a, p, n, 0.2)[safe],
            fd[safe], rtol=1e-6, atol=1e-8)
check_true("gradient vanishes on satisfied triplets",
           np.all(triplet_grad_anchor(a, p, n, 0.2)[~active] == 0.0))

# On the unit sphere squared distances are 2 - 2 cos, so the loss is 2 (cos_an - cos_ap) + margin, in
# [0, 4 + margin].
cos_ap, cos_an = np.sum(a * p, axis=1), np.sum(a * n, axis=1)
check_close("unit vectors: loss = [2 (cos_an - cos_ap) + 0.2]_+", loss,
            np.maximum(2 * (cos_an - cos_ap) + 0.2, 0), rtol=1e-10, atol=1e-15)
check_close("worst case p = -a, n = a: 4 + margin", triplet_loss(a[:3], -a[:3], a[:3]), np.full(3, 4.2),
            rtol=1e-12)

# Batched as (group, triplet, feature): distances reduce over the last axis only.
a3, p3, n3 = (unit(rng.normal(size=(2, 30, 5))) for _ in range(3))
ref3 = [[max(sqeuclidean(a3[g, i], p3[g, i]) - sqeuclidean(a3[g, i], n3[g, i]) + 0.2, 0.0) for i in range(30)]
        for g in range(2)]
check_close("3-D batch (group, triplet, feature)", triplet_loss(a3, p3, n3), ref3, rtol=1e-12, atol=1e-15)
act3 = np.array(ref3) > 0
check_close("3-D batch: anchor gradient 2 (n - p) on active triplets, 0 elsewhere",
            triplet_grad_anchor(a3, p3, n3, 0.2), 2 * (n3 - p3) * act3[..., None], rtol=1e-12)

# The page's calculator is checked against triplet_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows), with one-dimensional embeddings at distances whose squares are exact:
# triplets inside, at and beyond the margin.
import cardcalc  # noqa: E402

cardcalc.table(lambda d_ap, d_an, alpha: float(triplet_loss(np.zeros(1), np.sqrt([d_ap]), np.sqrt([d_an]),
                                                             alpha)[()]),
               cardcalc.grid(d_ap=(0.0, 0.25, 1.0, 4.0), d_an=(0.0, 0.5625, 2.25, 4.0),
                             alpha=(0.0, 0.25, 1.0)))


# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

ta, tp, tn = torch.tensor(a), torch.tensor(p), torch.tensor(n)
# FaceNet's squared distance needs TripletMarginWithDistanceLoss; float64 sums of 8 squares: 1e-12
# relative, with an atol of a few ulps of the squared distances (<= 4) for the hinge's near-zeros.
facenet = torch.nn.TripletMarginWithDistanceLoss(
    distance_function=lambda x1, x2: ((x1 - x2) ** 2).sum(dim=-1), margin=0.2, reduction="none")
check_close("TripletMarginWithDistanceLoss(squared L2, margin=0.2) = FaceNet's loss",
            facenet(ta, tp, tn).numpy(), triplet_loss(a, p, n), rtol=1e-12, atol=1e-14)
# TripletMarginLoss defaults: L2 distance (not squared), margin 1.0, batch mean, and eps = 1e-6
# added to a - p before the norm; with eps=0 it is the card's non-squared variant exactly.
check_close("pitfall: TripletMarginLoss(eps=0, reduction='none') is the non-squared L2 loss, margin 1",
            F.triplet_margin_loss(ta, tp, tn, eps=0.0, reduction="none").numpy(),
            triplet_loss(a, p, n, 1.0, squared=False), rtol=1e-12, atol=1e-14)
# The default eps moves each distance by at most eps sqrt(d) (triangle inequality), so the two
# distances of a triplet by at most 2 eps sqrt(8) = 5.7e-6 in all.
check_close("pitfall: the defaults average that loss over the batch, up to eps = 1e-6 in each distance",
            F.triplet_margin_loss(ta, tp, tn).item(), triplet_loss(a, p, n, 1.0, squared=False).mean(),
            atol=2 * 1e-6 * np.sqrt(d))
check_true("pitfall: the default loss is not FaceNet's squared loss with margin 0.2",
           abs(F.triplet_margin_loss(ta, tp, tn).item() - triplet_loss(a, p, n).mean()) > 0.1,
           f"{F.triplet_margin_loss(ta, tp, tn).item():.4f} vs {triplet_loss(a, p, n).mean():.4f}")
# --- end in code ---

fig, ax = figure("Triplet loss as a function of the distance gap", "$d(a,n) - d(a,p)$ (squared L2)",
                 "loss")
gap = np.linspace(-1, 1, 401)
for m in [0.1, 0.2, 0.5]:
    ax.plot(gap, np.maximum(-gap + m, 0), label=f"margin {m}")
ax.axvspan(0, 0.2, color="gray", alpha=0.15, label="semi-hard negatives (margin 0.2)")
ax.legend()
