"""Serving metrics TTFT, TPOT, end-to-end latency and output-token throughput, computed from per-request
timestamps and compared with the same quantities measured event by event (every emitted token) in a small
iteration-level batching simulation."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def ttft(t_arrival, t_first):
    """Time to first token: first output token minus request arrival."""
    return t_first - t_arrival


def tpot(t_first, t_last, n_out):
    """Time per output token after the first: decode span over the n_out - 1 later tokens."""
    return (t_last - t_first) / (n_out - 1)


def e2e_latency(t_arrival, t_last):
    return t_last - t_arrival


def output_throughput(n_out, t_arrival, t_last):
    """Generated tokens per second over the benchmark span (first arrival to last completion)."""
    return np.sum(n_out) / (np.max(t_last) - np.min(t_arrival))
# --- end formula ---


def simulate(arrivals, prompt, n_out, slots, c0, c_prefill, c_decode):
    """Iteration-level (continuous) batching: at each step admit waiting requests FIFO into free slots,
    run one iteration (prefill for newcomers, one decode token for the others), emit one token per
    request. Returns per-request token timestamps, queueing delay and duration of the admitting step."""
    n = len(arrivals)
    tokens = [[] for _ in range(n)]
    queue_wait, first_step = np.zeros(n), np.zeros(n)
    t, nxt, waiting, running = 0.0, 0, [], []
    while nxt < n or waiting or running:
        while nxt < n and arrivals[nxt] <= t:
            waiting.append(nxt)
            nxt += 1
        if not waiting and not running:
            t = arrivals[nxt]
            continue
        new = []
        while waiting and len(running) + len(new) < slots:
            new.append(waiting.pop(0))
        step = c0 + c_prefill * sum(prompt[i] for i in new) + c_decode * len(running)
        for i in new:
            queue_wait[i] = t - arrivals[i]
            first_step[i] = step
        t += step
        running += new
        for i in running:
            tokens[i].append(t)
        running = [i for i in running if len(tokens[i]) < n_out[i]]
    return tokens, queue_wait, first_step


rng = np.random.default_rng(0)
n_req = 60
arrivals = np.cumsum(rng.exponential(0.05, n_req))
prompt = rng.integers(20, 800, n_req)
n_out = rng.integers(2, 60, n_req)
tokens, queue_wait, first_step = simulate(arrivals, prompt, n_out, slots=8, c0=0.004, c_prefill=2e-5,
                                          c_decode=0.0015)
check_true("every request emitted exactly n_out tokens",
           all(len(tk) == m for tk, m in zip(tokens, n_out, strict=True)))

t_first = np.array([tk[0] for tk in tokens])
t_last = np.array([tk[-1] for tk in tokens])

# Event-by-event references, computed from the raw token timestamps.
ref_ttft = np.array([tk[0] - a for tk, a in zip(tokens, arrivals, strict=True)])
ref_tpot = np.array([np.mean(np.diff(tk)) for tk in tokens])            # mean inter-token gap
ref_e2e = np.array([tk[len(tk) - 1] - a for tk, a in zip(tokens, arrivals, strict=True)])
events = np.sort(np.concatenate([np.asarray(tk) for tk in tokens]))
ref_thru = events.size / (events[-1] - np.sort(arrivals)[0])

check_close("TTFT = first-token time - arrival (per request)", ttft(arrivals, t_first), ref_ttft, rtol=1e-12)
check_close("TPOT = mean gap between consecutive output tokens", tpot(t_first, t_last, n_out), ref_tpot,
            rtol=1e-11)
check_close("E2E latency (per request)", e2e_latency(arrivals, t_last), ref_e2e, rtol=1e-12)
check_close("E2E = TTFT + (n_out - 1) TPOT", e2e_latency(arrivals, t_last),
            ttft(arrivals, t_first) + (n_out - 1) * tpot(t_first, t_last, n_out), rtol=1e-11)
check_close("output throughput = token events / (last event - first arrival)",
            output_throughput(n_out, arrivals, t_last), ref_thru, rtol=1e-12)
check_close("seed decomposition holds here: TTFT = queueing + the admitting (prefill) step",
            ttft(arrivals, t_first), queue_wait + first_step, rtol=1e-12)

# Dividing by n_out (the seed's TPOT) instead of n_out - 1 mixes in the first token: it is biased low.
seed_tpot = (t_last - t_first) / n_out
check_true("seed TPOT (divide by n_out) underestimates the mean inter-token gap",
           bool(np.all(seed_tpot < ref_tpot)))

# Hand-made trace with known answers: arrival 1.0 s, tokens at 1.5, 1.6, 1.8 s.
check_close("toy request: TTFT 0.5 s, TPOT 0.15 s, E2E 0.8 s",
            [ttft(1.0, 1.5), tpot(1.5, 1.8, 3), e2e_latency(1.0, 1.8)], [0.5, 0.15, 0.8], rtol=1e-12)
check_close("toy trace: 3 + 5 tokens over 0.0 .. 2.0 s = 4 tokens/s",
            output_throughput(np.array([3, 5]), np.array([0.0, 0.5]), np.array([1.2, 2.0])), 4.0, rtol=1e-12)

fig, ax = figure("Token emission times in the simulated trace (first 12 requests)", "time (s)", "request")
for i in range(12):
    ax.plot(tokens[i], [i] * len(tokens[i]), "|", color="C0")
    ax.plot([arrivals[i], t_first[i]], [i, i], color="C3", lw=2, label="TTFT" if i == 0 else None)
ax.legend()

# The page's calculator (one request: E2E from TTFT, TPOT and n, and that request's tokens per
# second) is checked against these functions on this grid (cardcalc; the build runs the page's
# JavaScript on the same rows). Each row is turned into a token trace, arrival at 0 and one token
# every TPOT after the first, and the metrics are measured from its timestamps.
import cardcalc  # noqa: E402


def one_request(TTFT, TPOT, n):
    emitted = TTFT + TPOT * np.arange(int(n))
    return {"E2E": e2e_latency(0.0, emitted[-1]),
            "Theta": output_throughput(np.array([n]), np.array([0.0]), np.array([emitted[-1]]))}


cardcalc.table(one_request,
               cardcalc.grid(TTFT=(1e-6, 0.2, 30.0), TPOT=(0.0, 0.004, 0.05), n=(1, 2, 512, 4096)))
