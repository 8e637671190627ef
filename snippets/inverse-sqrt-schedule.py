"""Transformer ("Noam") inverse square-root schedule: peak value at the warmup step, linear before,
step^(-1/2) after, continuity, and the fairseq / tensor2tensor ways of writing the same schedule."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def inverse_sqrt_lr(step, d_model=512, warmup=4000):
    """lrate = d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)  (Vaswani et al., Eq. 3)."""
    step = np.asarray(step, dtype=float)
    with np.errstate(divide="ignore"):
        return d_model**-0.5 * np.minimum(step**-0.5, step * warmup**-1.5)
# --- end formula ---


steps = np.arange(0, 100_001)
lr = inverse_sqrt_lr(steps)

# 1. Peak: at step 4000 with the paper's d_model = 512, 1/sqrt(512 * 4000) = 1/sqrt(2 048 000).
check_true("argmax over 100k steps is the warmup step 4000", int(np.argmax(lr)) == 4000)
check_close("peak = d_model^-1/2 warmup^-1/2 = 6.98771e-4", lr[4000], 6.987712429686844e-4, rtol=1e-12)
check_close("step 0 gives 0 (not inf)", lr[0], 0.0)

# 2. Both branches, by their shape: linear before the peak, halved by 4x the step after it.
s = np.arange(1, 2001)
check_close("warmup branch is linear: lr(2s) = 2 lr(s) for 2s <= 4000",
            inverse_sqrt_lr(2 * s), 2 * inverse_sqrt_lr(s), rtol=1e-12)
s = np.arange(4000, 25_001)
check_close("decay branch: lr(4s) = lr(s)/2 for s >= 4000", inverse_sqrt_lr(4 * s), inverse_sqrt_lr(s) / 2,
            rtol=1e-12)

# 3. fairseq's inverse_sqrt (peak * sqrt(warmup / step) after a linear warmup to the peak) and
#    tensor2tensor's rsqrt decay (min(1, step / warmup) / sqrt(max(step, warmup))) are the same curve.
peak = 1 / np.sqrt(512 * 4000)
t = steps[1:].astype(float)
fairseq = np.where(t < 4000, peak * t / 4000, peak * np.sqrt(4000 / t))
t2t = 512**-0.5 * np.minimum(1.0, t / 4000) / np.sqrt(np.maximum(t, 4000))
check_close("equals fairseq's form at every step 1..100000", lr[1:], fairseq, rtol=1e-12)
check_close("equals tensor2tensor's form at every step 1..100000", lr[1:], t2t, rtol=1e-12)

# 4. Continuity at the hand-over and scaling with the model width and the warmup length.
check_close("continuous at the warmup step (both branches agree)",
            [4000**-0.5 * 512**-0.5, 4000 * 4000**-1.5 * 512**-0.5], [inverse_sqrt_lr(4000)] * 2, rtol=1e-12)
check_close("d_model = 1024 lowers the whole curve by sqrt(2)",
            inverse_sqrt_lr(t, d_model=1024), lr[1:] / np.sqrt(2), rtol=1e-12)
lr8 = inverse_sqrt_lr(t, warmup=8000)
check_true("warmup 8000: peak moves to step 8000", int(np.argmax(lr8)) + 1 == 8000)
check_close("...and after both peaks the two curves coincide (warmup only sets the ramp)",
            lr8[8000:], lr[8001:], rtol=1e-12)

# The page's calculator is checked against inverse_sqrt_lr on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): the first step, warmup, the peak at T_warm and the decay after it.
import cardcalc  # noqa: E402

cardcalc.table(lambda t, d, W: {"eta": float(inverse_sqrt_lr(t, d, W))},
               cardcalc.grid(t=(1, 100, 3999, 4000, 4001, 100_000), d=(512, 1024), W=(1, 4000, 8000)))

# --- in code: torch ---
import torch  # noqa: E402


def lambda_lr_path(rule, steps):
    """The learning rate torch.optim.lr_scheduler.LambdaLR gives each of the optimizer's steps (base lr 1)."""
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, rule)
    path = []
    for _ in range(steps):
        path.append(opt.param_groups[0]["lr"])
        opt.step()
        scheduler.step()
    return np.array(path)


# LambdaLR multiplies the base lr by rule(k) for the k-th step: one product per value, so rtol 1e-12.
check_close("LambdaLR(opt, inverse_sqrt_lr), base lr 1: the optimizer's step k gets lr(k), k = 0..9999",
            lambda_lr_path(inverse_sqrt_lr, 10_000), lr[:10_000], rtol=1e-12)
# The scheduler calls the rule at k = 0 when it is built, so the first step trains at lr 0 (numpy's
# 0^-1/2 = inf loses to the warmup branch's 0), and the formula written with Python floats fails there.
check_true("pitfall: the first optimizer step gets lr(0) = 0", lambda_lr_path(inverse_sqrt_lr, 1)[0] == 0.0)
try:
    lambda_lr_path(lambda k: 512**-0.5 * min(k**-0.5, k * 4000**-1.5), 1)
    divides_by_zero = False
except ZeroDivisionError:
    divides_by_zero = True
check_true("pitfall: in Python floats the rule raises ZeroDivisionError when LambdaLR is built",
           divides_by_zero)
check_close("fix: the rule at k + 1 gives the k-th step the card's lr(k + 1)",
            lambda_lr_path(lambda k: inverse_sqrt_lr(k + 1), 10_000), lr[1:10_001], rtol=1e-12)
# --- end in code ---

fig, ax = figure("Inverse square-root schedule (Vaswani et al.)", "training step", "learning rate")
for d, w in [(512, 4000), (512, 8000), (1024, 4000)]:
    ax.plot(steps, inverse_sqrt_lr(steps, d, w), label=f"$d_{{model}}$ = {d}, warmup = {w}")
ax.legend()
