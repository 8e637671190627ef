"""Warmup-stable-decay (WSD) learning-rate schedule: a linear warmup to eta, a constant stage, then
eta f(s - T) with f decreasing from f(0) = 1. Checked by hand values on each branch, at and around
both boundaries, by the exponential decay's half-life against a step-by-step product of per-step
factors, by the linear decay's end point, and by the property WSD exists for: the stable stage does
not depend on when the run ends."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def exponential_decay(half_life: float):
    """f(tau) = 0.5 ** (tau / half_life): halves every half_life steps, f(0) = 1."""
    return lambda tau: 0.5 ** (tau / half_life)


def linear_decay(length: float):
    """f(tau) = 1 - tau / length: reaches 0 after `length` decay steps."""
    return lambda tau: max(1.0 - tau / length, 0.0)


def wsd(s: float, eta: float, W: float, T: float, f) -> float:
    """WSD(T; s) = s / W eta for s < W, eta for W <= s < T, f(s - T) eta for s >= T."""
    if s < W:
        return s / W * eta
    if s < T:
        return eta
    return f(s - T) * eta
# --- end formula ---


eta, W, T = 1e-2, 100, 1000
half = 50
f_exp = exponential_decay(half)


def sched(steps, f=f_exp, T_=T):
    return np.array([wsd(s, eta, W, T_, f) for s in steps])


# 1. Warmup branch: a straight line from 0, 1e-4 per step (eta / W).
check_close("warmup: s = 0, 1, 25, 50, 99 -> 0, 1e-4, 2.5e-3, 5e-3, 9.9e-3", sched([0, 1, 25, 50, 99]),
            [0.0, 1e-4, 2.5e-3, 5e-3, 9.9e-3], rtol=1e-12, atol=1e-18)

# 2. Stable branch: exactly eta everywhere between the boundaries.
check_close("stable: eta at s = 100, 101, 500, 998, 999", sched([100, 101, 500, 998, 999]), [eta] * 5,
            rtol=0, atol=0)

# 3. Decay branch (exponential, half-life 50 steps): eta at T, eta/2 one half-life later, eta/4 two.
check_close("decay: s = T, T + 50, T + 100, T + 25 -> eta, eta/2, eta/4, eta/sqrt(2)",
            sched([1000, 1050, 1100, 1025]), [1e-2, 5e-3, 2.5e-3, 1e-2 / np.sqrt(2)], rtol=1e-12)
# ... and against an independent route: multiplying by the per-step factor 2^(-1/50), step by step.
per_step = 2.0 ** (-1.0 / half)
product = eta * np.cumprod(np.r_[1.0, np.full(200, per_step)])
# 200 rounded products drift by at most ~200 ulps (4e-14 relative); rtol 1e-12 leaves room.
check_close("decay branch = eta times the running product of per-step factors, 200 steps",
            sched(range(T, T + 201)), product, rtol=1e-12)

# 4. Both boundaries: the schedule is continuous (warmup ends at eta, decay starts at eta) and each
#    side is on its own branch one step away.
check_close("around W: s = 99, 100, 101 -> 0.99 eta, eta, eta", sched([99, 100, 101]),
            [0.99 * eta, eta, eta], rtol=1e-12)
check_close("around T: s = 999, 1000, 1001 -> eta, eta, eta 2^(-1/50)", sched([999, 1000, 1001]),
            [eta, eta, eta * per_step], rtol=1e-12)
check_close("fractional steps: s = 99.5 (warmup), 999.5 (stable), 1000.5 (decay)",
            sched([99.5, 999.5, 1000.5]), [0.995 * eta, eta, eta * 2.0 ** (-0.5 / half)], rtol=1e-12)

# 5. Linear decay to zero over 100 steps: halfway at T + 50, zero at T + 100 and after.
f_lin = linear_decay(100)
check_close("linear decay: s = T, T + 50, T + 100, T + 150 -> eta, eta/2, 0, 0",
            sched([1000, 1050, 1100, 1150], f=f_lin), [eta, eta / 2, 0.0, 0.0], rtol=1e-12, atol=1e-18)

# 6. What WSD is for: the stable stage does not depend on where the decay starts, so one run at the
#    constant rate can be branched into decays at T = 600, 800 or 1000 and all share steps 0..599.
runs = [sched(range(0, 600), T_=T_) for T_ in (600, 800, 1000)]
check_true("runs decaying at T = 600, 800, 1000 agree on every step before 600",
           all(np.array_equal(runs[0], r) for r in runs[1:]))
check_true("the whole schedule never exceeds eta and never goes below 0",
           bool(np.all((sched(range(0, 1400)) <= eta) & (sched(range(0, 1400)) >= 0))))

# The page's calculator is checked against wsd with both decays on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): steps in the warmup (and W = 0, no warmup), the stable stage,
# at T, inside the decay and after the linear decay has reached zero.
import cardcalc  # noqa: E402

cardcalc.table(lambda s, eta, W, T, k, D: {"eta_exp": wsd(s, eta, W, T, exponential_decay(k)),
                                           "eta_lin": wsd(s, eta, W, T, linear_decay(D))},
               cardcalc.grid(s=(0, 50, 100, 999, 1000, 1050, 1100, 3000, 6000), eta=(3e-4, 1e-2), W=(0, 100),
                             T=(1000, 5000), k=(50, 1000), D=(100, 2000)))

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
s_all = np.arange(0, 1301)
at_every_step = lambda schedule: np.asarray(jax.vmap(schedule)(s_all))  # noqa: E731
# Each value is a power or a ratio of float64 numbers: rtol 1e-12 is thousands of ulps.
check_close("optax.join_schedules([linear 0 -> eta over W, constant eta, linear eta -> 0 over 100], [W, T])",
            at_every_step(optax.join_schedules([optax.linear_schedule(0.0, eta, W),
                                                optax.constant_schedule(eta),
                                                optax.linear_schedule(eta, 0.0, 100)], [W, T])),
            sched(s_all, f=f_lin), rtol=1e-12, atol=1e-18)
check_close("optax.warmup_exponential_decay_schedule(0, eta, W, 50, 0.5, transition_begin = T - W)",
            at_every_step(optax.warmup_exponential_decay_schedule(0.0, eta, W, half, 0.5,
                                                                  transition_begin=T - W)),
            sched(s_all), rtol=1e-12, atol=1e-18)
# join_schedules hands each piece the steps since its boundary, so transition_begin counts from the end of
# the warmup: passing T itself starts the decay W steps late.
check_close("pitfall: transition_begin = T starts the decay at T + W",
            at_every_step(optax.warmup_exponential_decay_schedule(0.0, eta, W, half, 0.5,
                                                                  transition_begin=T)),
            sched(s_all, T_=T + W), rtol=1e-12, atol=1e-18)
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402

schedulers = torch.optim.lr_scheduler


def sequential_path(stable):
    """The lr of each of 1301 optimizer steps under SequentialLR: LinearLR, `stable`, then ExponentialLR."""
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=eta)
    pieces = [schedulers.LinearLR(opt, start_factor=1e-12, total_iters=W), stable(opt),
              schedulers.ExponentialLR(opt, gamma=2 ** (-1 / half))]
    scheduler = schedulers.SequentialLR(opt, pieces, milestones=[W, T])
    path = []
    for _ in range(1301):
        path.append(opt.param_groups[0]["lr"])
        opt.step()
        scheduler.step()
    return np.array(path)


# LinearLR refuses start_factor 0; 1e-12 adds 1e-12 (1 - s/W) eta to the warmup: 1e-10 relative at s = 1
# and 1e-14 absolute at s = 0. The chained per-step factors drift by ulps: rtol 1e-9, atol 1e-13.
check_close("SequentialLR(LinearLR(start_factor=1e-12), ConstantLR(factor=1, total_iters=0), "
            "ExponentialLR(2^(-1/50)), milestones=[W, T])",
            sequential_path(lambda opt: schedulers.ConstantLR(opt, factor=1.0, total_iters=0)),
            sched(range(1301)), rtol=1e-9, atol=1e-13)
check_close("pitfall: ConstantLR's defaults divide the lr by 3 for the 5 steps after W",
            sequential_path(schedulers.ConstantLR)[W - 1:W + 7] / eta,
            [0.99, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1, 1], rtol=1e-9)
# --- end in code ---

fig, ax = figure("Warmup-stable-decay schedule", "training step s", "learning rate")
s = np.arange(0, 1301)
ax.plot(s, sched(s), label="exponential decay, half-life 50")
ax.plot(s, sched(s, f=f_lin), "--", label="linear decay over 100 steps")
ax.plot(s, sched(s, T_=700), ":", label="same run, decay branched at 700")
ax.legend()
