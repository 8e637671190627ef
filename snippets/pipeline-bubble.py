"""Pipeline bubble: (p-1)/(m+p-1) checked by simulating GPipe and 1F1B schedules event by event."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def bubble_fraction(p, m):
    """Idle share of each device in a synchronous pipeline of p stages and m micro-batches."""
    return (p - 1) / (m + p - 1)
# --- end formula ---


def stage_orders(p, m, schedule):
    """Per-stage op order: GPipe = all forwards then all backwards; 1F1B = warm up, alternate, drain."""
    orders = []
    for s in range(p):
        if schedule == "gpipe":
            ops = [("F", j) for j in range(m)] + [("B", j) for j in reversed(range(m))]
        else:
            w = min(p - s - 1, m)
            ops = [("F", j) for j in range(w)]
            for i in range(m - w):
                ops += [("F", w + i), ("B", i)]
            ops += [("B", j) for j in range(m - w, m)]
        orders.append(ops)
    return orders


def simulate(p, m, schedule, t_f=1.0, t_b=2.0):
    """Run the schedule respecting data dependencies; return makespan and peak stashed activations."""
    orders, nxt = stage_orders(p, m, schedule), [0] * p
    done, free = {}, [0.0] * p
    stash, peak = [0] * p, 0
    while any(nxt[s] < len(orders[s]) for s in range(p)):
        progressed = False
        for s in range(p):
            if nxt[s] == len(orders[s]):
                continue
            kind, j = orders[s][nxt[s]]
            dep = ("F", s - 1, j) if kind == "F" else (("B", s + 1, j) if s < p - 1 else ("F", s, j))
            if kind == "F" and s == 0:
                ready = 0.0
            elif dep in done:
                ready = done[dep]
            else:
                continue
            start = max(free[s], ready)
            free[s] = done[(kind, s, j)] = start + (t_f if kind == "F" else t_b)
            stash[s] += 1 if kind == "F" else -1
            peak = max(peak, stash[0])
            nxt[s] += 1
            progressed = True
        assert progressed, "deadlock"
    return max(free), peak


t_f, t_b = 1.0, 2.0
for p, m in ((4, 4), (4, 16), (8, 8), (8, 32)):
    for sched in ("gpipe", "1f1b"):
        span, _ = simulate(p, m, sched, t_f, t_b)
        idle = 1 - m * (t_f + t_b) / span
        check_close(f"{sched}, p={p}, m={m}: simulated idle share", idle, bubble_fraction(p, m),
                    rtol=1e-12)

# Narayanan et al. quote the bubble relative to ideal compute time: (p - 1)/m.
span, _ = simulate(8, 32, "1f1b")
check_close("bubble time / ideal time = (p-1)/m", (span - 32 * 3) / (32 * 3), 7 / 32, rtol=1e-12)
# Same bubble, different memory: GPipe stashes all m micro-batches on stage 0, 1F1B at most p.
check_true("1F1B stashes p activations, GPipe m",
           simulate(8, 32, "1f1b")[1] == 8 and simulate(8, 32, "gpipe")[1] == 32)

fig, ax = figure("Pipeline bubble", "micro-batches per step  m", "idle fraction of each GPU")
ms = np.arange(1, 65)
for p in (4, 8, 16):
    ax.plot(ms, bubble_fraction(p, ms), label=f"p = {p} stages")
    sim = [1 - m * 3 / simulate(p, m, "1f1b")[0] for m in (4, 16, 64)]
    ax.plot([4, 16, 64], sim, "ko", ms=3)
ax.plot([], [], "ko", ms=3, label="simulated 1F1B")
ax.legend()

# The page's calculator is checked against bubble_fraction on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda p, m: bubble_fraction(p, m), cardcalc.grid(p=(1, 2, 4, 8, 64), m=(1, 3, 32, 1000)))
