"""Focal loss (alpha-balanced, sigmoid form of RetinaNet): reduces to (alpha-weighted) cross-entropy at
gamma = 0, matches the paper's appendix gradient and its "100x / 1000x" numbers, and stays finite
for logits of +-800."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, log_expit, log_softmax


# --- formula ---
def focal_from_log_pt(log_pt: np.ndarray, alpha_t, gamma: float) -> np.ndarray:
    """FL = -alpha_t (1 - p_t)^gamma log p_t, given log p_t."""
    return -alpha_t * (-np.expm1(log_pt)) ** gamma * log_pt


def sigmoid_focal_loss(x: np.ndarray, y: np.ndarray, alpha: float = 0.25, gamma: float = 2.0) -> np.ndarray:
    """Per-element focal loss for logits x and binary labels y in {0, 1} (Lin et al., Eq. 5).

    p = sigmoid(x); p_t = p for y = 1 and 1 - p for y = 0; alpha_t = alpha for y = 1, 1 - alpha else.
    log p_t = -softplus(-x) for y = 1 and -softplus(x) for y = 0, computed without overflow.
    """
    signed = np.where(y == 1, x, -x)
    log_pt = -np.logaddexp(0.0, -signed)
    alpha_t = np.where(y == 1, alpha, 1.0 - alpha)
    return focal_from_log_pt(log_pt, alpha_t, gamma)


def softmax_focal_loss(logits: np.ndarray, labels: np.ndarray, gamma: float = 2.0) -> np.ndarray:
    """Multi-class variant: p_t = softmax(z)_y, no alpha."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    log_pt = np.take_along_axis(log_p, labels[..., None], axis=-1).squeeze(axis=-1)
    return focal_from_log_pt(log_pt, 1.0, gamma)
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(scale=3.0, size=200)
y = (rng.random(200) < 0.3).astype(int)
p = expit(x)

# 1. gamma = 0 gives alpha-balanced binary cross-entropy (scipy log_expit), alpha = 1/2 half of BCE.
bce = -(y * log_expit(x) + (1 - y) * log_expit(-x))
check_close("gamma = 0, alpha = 1/2: half the binary cross-entropy",
            sigmoid_focal_loss(x, y, alpha=0.5, gamma=0.0), 0.5 * bce, rtol=1e-12)
check_close("gamma = 0, alpha = 0.3: alpha-balanced CE (alpha on positives)",
            sigmoid_focal_loss(x, y, alpha=0.3, gamma=0.0), np.where(y == 1, 0.3, 0.7) * bce, rtol=1e-12)

# 2. Defaults are the paper's alpha = 0.25, gamma = 2: compare with the definition written with p.
pt = np.where(y == 1, p, 1 - p)
ref = -np.where(y == 1, 0.25, 0.75) * (1 - pt) ** 2 * np.log(pt)
check_close("defaults alpha = 0.25, gamma = 2 vs -alpha_t (1-p_t)^2 log p_t", sigmoid_focal_loss(x, y), ref,
            rtol=1e-10)
check_close("gamma = 0.5 (non-integer power)", sigmoid_focal_loss(x, y, gamma=0.5),
            -np.where(y == 1, 0.25, 0.75) * (1 - pt) ** 0.5 * np.log(pt), rtol=1e-10)

# 3. The paper's numbers: with gamma = 2, p_t = 0.9 has 100x lower loss than CE, p_t = 0.968 about 1000x.
for pt_val, factor in [(0.9, 100.0), (0.968, 1.0 / (1 - 0.968) ** 2)]:
    xv = np.log(pt_val / (1 - pt_val))
    ratio = sigmoid_focal_loss(np.array([xv]), np.array([1]), alpha=0.5, gamma=0.0) / \
        sigmoid_focal_loss(np.array([xv]), np.array([1]), alpha=0.5, gamma=2.0)
    check_close(f"CE / FL at p_t = {pt_val}", ratio, [factor], rtol=1e-10)
check_true("p_t = 0.968 gives about 1000x", 950 < 1 / (1 - 0.968) ** 2 < 1000)

# 4. Gradient w.r.t. the logit: finite differences vs the paper's Appendix B formula
#    dFL/dx = y' (1 - p_t)^gamma (gamma p_t log p_t + p_t - 1), y' = +1 / -1 (alpha = 1/2 scales it).
h = 1e-6
for gamma in [0.0, 1.0, 2.0, 3.5]:
    fd = (sigmoid_focal_loss(x + h, y, 0.5, gamma) - sigmoid_focal_loss(x - h, y, 0.5, gamma)) / (2 * h)
    ys = np.where(y == 1, 1.0, -1.0)
    appendix = ys * (1 - pt) ** gamma * (gamma * pt * np.log(pt) + pt - 1)
    check_close(f"dFL/dx, gamma = {gamma}: finite differences vs Appendix B", fd, 0.5 * appendix,
                rtol=1e-5, atol=1e-9)

# 5. Extreme logits: exact limits, no overflow (a naive log(sigmoid) gives -inf at x = -800).
xe = np.array([800.0, -800.0, 800.0, -800.0, 40.0])
ye = np.array([1, 0, 0, 1, 0])
check_close("logits +-800: easy examples -> 0, hard ones -> alpha_t * |x|", sigmoid_focal_loss(xe, ye),
            [0.0, 0.0, 0.75 * 800.0, 0.25 * 800.0, 0.75 * (40.0 + np.log1p(np.exp(-40.0)))], rtol=1e-12,
            atol=1e-300)

# 6. Softmax variant: gamma = 0 is the usual cross-entropy (scipy log_softmax), batched over 2 axes.
z = rng.normal(scale=4.0, size=(3, 5, 9))
lab = rng.integers(0, 9, size=(3, 5))
lp = log_softmax(z, axis=-1)
ce = -np.take_along_axis(lp, lab[..., None], axis=-1)[..., 0]
check_close("softmax focal, gamma = 0: cross-entropy", softmax_focal_loss(z, lab, 0.0), ce, rtol=1e-12)
pt3 = np.exp(-ce)
check_close("softmax focal, gamma = 2", softmax_focal_loss(z, lab), (1 - pt3) ** 2 * ce, rtol=1e-10)
ce_big = -np.take_along_axis(log_softmax(300 * z, axis=-1), lab[..., None], axis=-1)[..., 0]
check_close("softmax focal, logits spanning ~1e4", softmax_focal_loss(300 * z, lab, 1.5),
            (1 - np.exp(-ce_big)) ** 1.5 * ce_big, rtol=1e-12)

# The page's calculator is checked against sigmoid_focal_loss on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): the logit that gives the correct outcome probability p_t, for
# positives and negatives (both sides of alpha_t), hard to nearly certain examples, and gamma = 0 (the
# alpha-weighted cross-entropy).
import cardcalc  # noqa: E402
from scipy.special import logit  # noqa: E402


def calculator_row(p_t, gamma, alpha, y):
    x, label = np.array([(2 * y - 1) * logit(p_t)]), np.array([y])
    return {"FL": sigmoid_focal_loss(x, label, alpha, gamma)[0],
            "CE": sigmoid_focal_loss(x, label, alpha, 0.0)[0]}


cardcalc.table(calculator_row, cardcalc.grid(p_t=(1e-9, 0.1, 0.5, 0.9, 0.999999), gamma=(0.0, 0.5, 2.0, 5.0),
                                             alpha=(0.0, 0.25, 1.0), y=(0, 1)))

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
# optax.sigmoid_focal_loss(x, y, alpha, gamma) works in log space as the card does; each element
# is a handful of float64 operations, so 1e-12 relative, with atol for the exact zeros at +-800.
check_close("optax.sigmoid_focal_loss(x, y, alpha=0.25, gamma=2) = FL",
            np.asarray(optax.sigmoid_focal_loss(x, y.astype(float), alpha=0.25, gamma=2.0)),
            sigmoid_focal_loss(x, y), rtol=1e-12)
check_close("... and at logits of +-800",
            np.asarray(optax.sigmoid_focal_loss(xe, ye.astype(float), alpha=0.25)),
            sigmoid_focal_loss(xe, ye), rtol=1e-12, atol=1e-300)
# alpha defaults to None: no alpha_t at all, which is the card's alpha = 1/2 loss doubled.
check_close("pitfall: the default alpha=None drops alpha_t: twice the card's loss at alpha = 1/2",
            np.asarray(optax.sigmoid_focal_loss(x, y.astype(float))), 2 * sigmoid_focal_loss(x, y, alpha=0.5),
            rtol=1e-12)
# --- end in code ---

fig, ax = figure("Focal loss vs probability of the true class", "probability of ground truth $p_t$",
                 "loss")
grid = np.linspace(0.01, 1.0, 400)
xg = np.log(grid / (1 - grid + 1e-300))
for g in [0, 0.5, 1, 2, 5]:
    ax.plot(grid, sigmoid_focal_loss(xg, np.ones_like(grid, dtype=int), alpha=0.5, gamma=g) * 2,
            label=f"$\\gamma$ = {g}")
ax.set_ylim(0, 5)
ax.legend(title="no $\\alpha$ weighting")
