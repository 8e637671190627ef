"""Batch-slot utilization U = sum_i n_i / (B_max * steps) of iteration-level (continuous) batching versus
static batching, checked against step-by-step simulations that record how many slots each step used."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def utilization(n_tokens, slots, steps):
    """Fraction of the B_max x steps token slots that produced a token."""
    return np.sum(n_tokens) / (slots * steps)


def static_batch_steps(n_tokens, slots):
    """Static batching: each batch of B_max requests runs until its longest member finishes."""
    return sum(max(n_tokens[i:i + slots]) for i in range(0, len(n_tokens), slots))
# --- end formula ---


def run_continuous(n_out, slots, arrivals=None):
    """Iteration-level scheduling: after every step, finished requests leave and waiting ones take the free
    slots. Each running request emits one token per step. Returns occupied slots of each executed step."""
    n = len(n_out)
    arrivals = np.zeros(n) if arrivals is None else arrivals
    left, running, nxt, t, occ = list(n_out), [], 0, 0.0, []
    while nxt < n or running:
        while nxt < n and len(running) < slots and arrivals[nxt] <= t:
            running.append(nxt)
            nxt += 1
        if not running:                       # idle until the next arrival; no step is executed
            t = arrivals[nxt]
            continue
        occ.append(len(running))
        for i in running:
            left[i] -= 1
        running = [i for i in running if left[i] > 0]
        t += 1.0
    return np.array(occ)


def run_static(n_out, slots):
    """Static batching: a batch is formed, runs to completion (finished requests keep their slot idle)."""
    occ = []
    for start in range(0, len(n_out), slots):
        left = list(n_out[start:start + slots])
        while any(m > 0 for m in left):
            occ.append(sum(m > 0 for m in left))
            left = [m - 1 for m in left]
    return np.array(occ)


# Hand example, B_max = 2, outputs of 1, 4, 1, 4 tokens.
toy = [1, 4, 1, 4]
check_close("toy static: batches {1,4},{1,4} take 8 steps, U = 10/16",
            [static_batch_steps(toy, 2), utilization(toy, 2, static_batch_steps(toy, 2))], [8, 10 / 16],
            rtol=0)
check_close("toy continuous: 6 steps, U = 10/12", utilization(toy, 2, len(run_continuous(toy, 2))), 10 / 12,
            rtol=1e-15)

rng = np.random.default_rng(0)
n_out = rng.geometric(1 / 120, 300)                   # long-tailed output lengths
n_out = [int(m) for m in n_out]
for B in (4, 16, 64):
    occ_s, occ_c = run_static(n_out, B), run_continuous(n_out, B)
    u_s = utilization(n_out, B, static_batch_steps(n_out, B))
    u_c = utilization(n_out, B, len(occ_c))
    check_close(f"B_max={B}: static steps = simulated steps", static_batch_steps(n_out, B), len(occ_s),
                rtol=0)
    check_close(f"B_max={B}: static U = mean occupied fraction per step", u_s, np.mean(occ_s / B), rtol=1e-12)
    check_close(f"B_max={B}: continuous U = mean occupied fraction per step", u_c, np.mean(occ_c / B),
                rtol=1e-12)
    check_true(f"B_max={B}: continuous ({u_c:.3f}) > static ({u_s:.3f})", u_c > u_s)
    check_true(f"B_max={B}: U <= 1 and continuous steps >= max(sum n / B, max n)",
               u_c <= 1 and len(occ_c) >= max(sum(n_out) / B, max(n_out)))

# Online arrivals: at times fewer requests than slots, so U stays below 1 even with continuous batching.
arr = np.cumsum(rng.exponential(2.0, len(n_out)))
occ_a = run_continuous(n_out, 64, arr)
check_close("Poisson arrivals, B_max=64: U from token count = mean occupancy",
            utilization(n_out, 64, len(occ_a)), np.mean(occ_a) / 64, rtol=1e-12)

Bs = [1, 2, 4, 8, 16, 32, 64, 128]
fig, ax = figure("Batch-slot utilization, 300 requests, geometric output lengths (mean 120)",
                 "batch slots B_max", "utilization U")
ax.semilogx(Bs, [utilization(n_out, b, static_batch_steps(n_out, b)) for b in Bs], "o-", label="static")
ax.semilogx(Bs, [utilization(n_out, b, len(run_continuous(n_out, b))) for b in Bs], "s-", label="continuous")
ax.legend()
