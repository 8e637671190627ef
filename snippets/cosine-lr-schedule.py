"""Cosine schedule: closed form vs the chained recursive form, hand values on both branches, its mean."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad


# --- formula ---
def cosine_lr(t, total, lr_max, lr_min=0.0, warmup=0):
    """Linear warmup for `warmup` steps, then cosine decay from lr_max to lr_min at step `total`."""
    t = np.asarray(t, dtype=float)
    tau = np.clip((t - warmup) / (total - warmup), 0.0, 1.0)
    decay = lr_min + 0.5 * (lr_max - lr_min) * (1 + np.cos(np.pi * tau))
    return np.where(t < warmup, lr_max * t / max(warmup, 1), decay)
# --- end formula ---


lr_max, lr_min, total = 3e-4, 3e-5, 1000
steps = np.arange(total + 1)
lrs = cosine_lr(steps, total, lr_max, lr_min)


def chained(lr0, floor, length):
    """PyTorch CosineAnnealingLR's step-by-step update over `length` steps, from lr0:
    lr_{t+1} = floor + (lr_t - floor) (1 + cos(pi (t+1)/T)) / (1 + cos(pi t/T))."""
    rec = [lr0]
    for t in range(length):
        rec.append(floor + (rec[-1] - floor) * (1 + np.cos(np.pi * (t + 1) / length))
                   / (1 + np.cos(np.pi * t / length)))
    return np.array(rec)


# 1. The chained recursive form, no warmup.
check_close("closed form == chained recursive form", lrs, chained(lr_max, lr_min, total),
            rtol=1e-9, atol=1e-16)

# 2. Endpoints and symmetry: lr_max at tau = 0, lr_min at tau = 1, the midpoint at tau = 1/2;
#    with the default floor (0) the schedule ends at exactly 0.
check_close("endpoints and midpoint", lrs[[0, total // 2, total]],
            [lr_max, (lr_max + lr_min) / 2, lr_min], rtol=1e-12)
check_close("default lr_min = 0: ends at 0, midpoint lr_max/2",
            cosine_lr([total // 2, total], total, lr_max), [1.5e-4, 0.0], rtol=1e-12, atol=1e-20)

# 3. The average learning rate over the decay is the midpoint (lr_max + lr_min)/2.
mean_lr, _ = quad(lambda t: float(cosine_lr(t, total, lr_max, lr_min)), 0, total)
check_close("time-average = (lr_max + lr_min)/2", mean_lr / total, (lr_max + lr_min) / 2, rtol=1e-8)

# 4. With warmup W = 100: the warmup branch at several steps against values worked by hand
#    (a straight line from 0 to 3e-4 over 100 steps: 3e-6 per step).
w = 100
lw = cosine_lr(np.arange(total + 1), total, lr_max, lr_min, warmup=w)
check_close("warmup branch at t = 0, 1, 25, 50, 99 (hand values)", lw[[0, 1, 25, 50, 99]],
            [0.0, 3e-6, 7.5e-5, 1.5e-4, 2.97e-4], rtol=1e-12, atol=1e-20)
check_close("warmup, fractional steps t = 0.5, 12.5 (hand values)",
            cosine_lr([0.5, 12.5], total, lr_max, lr_min, warmup=w), [1.5e-6, 3.75e-5], rtol=1e-12)
check_close("one-step warmup: halfway through it, t = 0.5, the rate is lr_max/2",
            cosine_lr(0.5, total, lr_max, lr_min, warmup=1), 1.5e-4, rtol=1e-12)
check_true("warmup is a straight line: second differences vanish on 0..W-1",
           bool(np.max(np.abs(np.diff(lw[:w], 2))) < 1e-18))

# 5. The decay branch with warmup: the cosine starts at W (tau = 0) and ends at T; it equals the
#    chained form run over the T - W decay steps, and the hand values at tau = 1/3, 1/2, 2/3
#    (cos = 1/2, 0, -1/2: lr_min + 3/4, 1/2, 1/4 of 2.7e-4).
check_close("decay with warmup == chained form over T - W steps", lw[w:],
            chained(lr_max, lr_min, total - w), rtol=1e-9, atol=1e-16)
check_close("decay with warmup at t = 100, 400, 550, 700, 1000 (hand values)",
            lw[[100, 400, 550, 700, 1000]], [3e-4, 2.325e-4, 1.65e-4, 9.75e-5, 3e-5], rtol=1e-12)
check_true("decay starts flat: first decay step is tiny vs. a linear decay",
           (lw[w] - lw[w + 1]) < 0.01 * (lr_max - lr_min) / (total - w),
           f"first drop {lw[w] - lw[w + 1]:.2e}")

# 6. Past the planned last step the rate stays on the floor.
check_close("t > T: held at lr_min", cosine_lr([1001, 1100, 2000], total, lr_max, lr_min, warmup=w),
            [3e-5] * 3, rtol=1e-12)

# The page's calculator is checked against cosine_lr on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): steps in the warmup, at its end, inside the decay, at T and past it
# (the rate stays at eta_min after T).
import cardcalc  # noqa: E402

cardcalc.table(lambda t, T, W, eta_max, eta_min: {"eta": float(cosine_lr(t, T, eta_max, eta_min, W))},
               cardcalc.grid(t=(0, 1, 999, 1000, 5000, 60_000, 99_999, 100_000, 150_000), T=(50_000, 100_000),
                             W=(0, 1000), eta_max=(3e-4, 1.0), eta_min=(0.0, 3e-5)))

# --- in code: torch ---
import torch  # noqa: E402


def torch_rates(make_scheduler, n):
    """The learning rate an optimizer with lr = lr_max holds at steps 0..n-1 under a scheduler."""
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr_max)
    scheduler, rates = make_scheduler(opt), []
    for _ in range(n):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        scheduler.step()
    return np.array(rates)


annealing = torch_rates(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=total,
                                                                            eta_min=lr_min), 1201)
# torch updates the rate by the chained recursion (check 1), whose rounding adds up over 1000 steps:
# the same 1e-9 as there.
check_close("CosineAnnealingLR(T_max=T, eta_min) = the card with no warmup, t = 0..T",
            annealing[: total + 1], lrs, rtol=1e-9, atol=1e-16)
# Past T_max it does not hold the floor: the cosine goes on and the rate climbs back to lr_max.
past = np.arange(total + 1, 1201)
check_close("pitfall: past T_max the rate climbs back along the cosine, not held at eta_min",
            annealing[total + 1:], lr_min + 0.5 * (lr_max - lr_min) * (1 + np.cos(np.pi * past / total)),
            rtol=1e-9, atol=1e-16)
# LinearLR's defaults warm up from lr_max / 3 over 5 steps, and start_factor = 0 is refused, so its
# rate is start_factor * lr_max plus (1 - start_factor) times the card's warmup from 0.
linear = torch_rates(lambda o: torch.optim.lr_scheduler.LinearLR(o), 6)
check_close("pitfall: LinearLR's default is lr_max/3 + (2/3) x the card's warmup over W = 5",
            linear, lr_max / 3 + (2 / 3) * cosine_lr(np.arange(6), total, lr_max, lr_min, warmup=5),
            rtol=1e-12)
# The fix: LambdaLR with the card's schedule over lr_max; each rate is lr_max times one factor.
lambda_lr = torch_rates(lambda o: torch.optim.lr_scheduler.LambdaLR(
    o, lambda t: float(cosine_lr(t, total, lr_max, lr_min, warmup=w)) / lr_max), total + 1)
check_close("fix: LambdaLR(t -> card(t) / lr_max) = the card with warmup", lambda_lr, lw,
            rtol=1e-12, atol=1e-20)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64 rates, as the card's numpy (float32 otherwise)

# decay_steps is the whole length T, warmup included; the rate is held at end_value past it.
warm_cos = optax.warmup_cosine_decay_schedule(init_value=0.0, peak_value=lr_max, warmup_steps=w,
                                              decay_steps=total, end_value=lr_min)
check_close("warmup_cosine_decay_schedule(0, lr_max, W, T, lr_min) = the card, t = 0..1100",
            np.asarray(warm_cos(jax.numpy.arange(1101))),
            cosine_lr(np.arange(1101), total, lr_max, lr_min, warmup=w), rtol=1e-12, atol=1e-20)
# cosine_decay_schedule's floor is alpha, a fraction of the peak, not a rate.
floor_as_alpha = optax.cosine_decay_schedule(init_value=lr_max, decay_steps=total, alpha=lr_min)
check_close("pitfall: cosine_decay_schedule(alpha=eta_min) floors at eta_min * eta_max",
            float(floor_as_alpha(total)), lr_min * lr_max, rtol=1e-12)
check_close("fix: alpha = eta_min / eta_max",
            np.asarray(optax.cosine_decay_schedule(lr_max, total, alpha=lr_min / lr_max)(
                jax.numpy.arange(total + 1))), lrs, rtol=1e-12)
# --- end in code ---

fig, ax = figure("Cosine decay with linear warmup", "training step", "learning rate")
ax.plot(steps, lw, label=f"warmup {w} steps, then cosine")
ax.plot(steps, lrs, "--", label="cosine only")
ax.axhline(lr_min, color="gray", ls=":", label=r"$\eta_{\min}$")
ax.legend()
