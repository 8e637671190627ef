"""Cosine schedule: closed form vs the chained recursive form, endpoints and its mean."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad


def cosine_lr(t, total, lr_max, lr_min=0.0, warmup=0):
    """Linear warmup for `warmup` steps, then cosine decay from lr_max to lr_min at step `total`."""
    t = np.asarray(t, dtype=float)
    tau = np.clip((t - warmup) / (total - warmup), 0.0, 1.0)
    decay = lr_min + 0.5 * (lr_max - lr_min) * (1 + np.cos(np.pi * tau))
    return np.where(t < warmup, lr_max * t / max(warmup, 1), decay)


lr_max, lr_min, total = 3e-4, 3e-5, 1000
steps = np.arange(total + 1)
lrs = cosine_lr(steps, total, lr_max, lr_min)

# 1. The chained form (as in PyTorch's CosineAnnealingLR step-by-step update)
#    lr_{t+1} = lr_min + (lr_t - lr_min) (1 + cos(pi (t+1)/T)) / (1 + cos(pi t/T))
rec = [lr_max]
for t in range(total):
    rec.append(lr_min + (rec[-1] - lr_min) * (1 + np.cos(np.pi * (t + 1) / total))
               / (1 + np.cos(np.pi * t / total)))
check_close("closed form == chained recursive form", lrs, np.array(rec), rtol=1e-9, atol=1e-16)

# 2. Endpoints and symmetry: lr_max at tau = 0, lr_min at tau = 1, the midpoint at tau = 1/2.
check_close("endpoints and midpoint", lrs[[0, total // 2, total]],
            [lr_max, (lr_max + lr_min) / 2, lr_min], rtol=1e-12)

# 3. The average learning rate over the decay is the midpoint (lr_max + lr_min)/2.
mean_lr, _ = quad(lambda t: float(cosine_lr(t, total, lr_max, lr_min)), 0, total)
check_close("time-average = (lr_max + lr_min)/2", mean_lr / total, (lr_max + lr_min) / 2, rtol=1e-8)

# 4. With warmup the schedule is continuous at the hand-over and starts its decay flat.
w = 100
lw = cosine_lr(np.arange(total + 1), total, lr_max, lr_min, warmup=w)
check_close("warmup reaches lr_max exactly at step W", lw[w], lr_max, rtol=1e-12)
check_true("decay starts flat: first decay step is tiny vs. a linear decay",
           (lw[w] - lw[w + 1]) < 0.01 * (lr_max - lr_min) / (total - w),
           f"first drop {lw[w] - lw[w + 1]:.2e}")

fig, ax = figure("Cosine decay with linear warmup", "training step", "learning rate")
ax.plot(steps, lw, label=f"warmup {w} steps, then cosine")
ax.plot(steps, lrs, "--", label="cosine only")
ax.axhline(lr_min, color="gray", ls=":", label=r"$\eta_{\min}$")
ax.legend()
