"""Expert capacity: the paper's worked example, dispatch with cumulative sums against a first-come loop,
dropped tokens against the closed form sum(max(0, load - C)), and the expected drop rate of uniform
routing against the binomial distribution (scipy.stats.binom)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import binom


# --- formula ---
def expert_capacity(tokens, experts, capacity_factor=1.0, k=1):
    """C = ceil(capacity_factor * k * tokens / experts) token slots per expert."""
    return int(np.ceil(capacity_factor * k * tokens / experts))


def dispatch(choices, experts, capacity):
    """choices: (tokens, k) expert ids, rank 0 = first choice. All first choices are served before any
    second choice, each in token order; an expert takes tokens until it holds `capacity`. Returns the
    (tokens, k) mask of assignments kept."""
    order = choices.T.ravel()                                    # rank-major, then token order
    onehot = np.eye(experts, dtype=int)[order]
    position = np.cumsum(onehot, axis=0)[np.arange(order.size), order] - 1
    return (position < capacity).reshape(choices.shape[1], choices.shape[0]).T
# --- end formula ---


def dispatch_loop(choices, experts, capacity):
    """Reference: serve assignments one by one with a counter per expert."""
    kept = np.zeros(choices.shape, dtype=bool)
    load = [0] * experts
    for r in range(choices.shape[1]):
        for t in range(choices.shape[0]):
            e = choices[t, r]
            if load[e] < capacity:
                load[e] += 1
                kept[t, r] = True
    return kept


# 1. Fedus et al., Fig. 3: 6 tokens, 3 experts; capacity factor 1.0 gives 2 slots, 1.5 gives 3.
check_close("Switch Fig. 3: capacity 2 at factor 1.0 and 3 at factor 1.5 (6 tokens, 3 experts)",
            [expert_capacity(6, 3, 1.0), expert_capacity(6, 3, 1.5)], [2, 3], rtol=0)
check_close("rounding up: 10 tokens, 4 experts, factor 1 -> ceil(2.5) = 3", expert_capacity(10, 4), 3, rtol=0)
check_close("top-2 doubles the slots: 1024 tokens, 8 experts, factor 1.25, k = 2 -> 320",
            expert_capacity(1024, 8, 1.25, k=2), 320, rtol=0)
check_close("default factor 1.0 and k = 1: 1024 tokens, 8 experts -> 128",
            expert_capacity(1024, 8), 128, rtol=0)

# 2. Dispatch against the first-come loop, for top-1 and top-2, and the number of dropped top-1 tokens
#    against the closed form sum_e max(0, load_e - C).
rng = np.random.default_rng(0)
T, N = 512, 8
probs = rng.dirichlet(np.ones(N) * 0.7, size=T) * np.linspace(1.6, 0.4, N)     # skewed router
top1 = np.argmax(probs, axis=1)[:, None]
top2 = np.argsort(-probs, axis=1)[:, :2]
for cf in (0.75, 1.0, 1.25, 2.0):
    cap = expert_capacity(T, N, cf)
    kept = dispatch(top1, N, cap)
    check_close(f"top-1, factor {cf}: dispatch == first-come loop", kept, dispatch_loop(top1, N, cap), rtol=0)
    load = np.bincount(top1[:, 0], minlength=N)
    check_close(f"top-1, factor {cf}: dropped == sum max(0, load - C)", (~kept).sum(),
                np.maximum(load - cap, 0).sum(), rtol=0)
    cap2 = expert_capacity(T, N, cf, k=2)
    check_close(f"top-2, factor {cf}: dispatch == loop (first choices served first)",
                dispatch(top2, N, cap2), dispatch_loop(top2, N, cap2), rtol=0)
check_true("no expert ever exceeds its capacity",
           bool(np.bincount(top2[dispatch(top2, N, 100)], minlength=N).max() <= 100))

# 3. Uniform random top-1 routing: each expert's load is Binomial(T, 1/N), so the expected fraction
#    dropped is N E[max(0, X - C)] / T. Simulate 1000 batches and compare with the exact sum.
T2, N2 = 256, 16
sims = rng.integers(0, N2, size=(1000, T2))
rates, exact = [], []
for cf in (1.0, 1.25, 1.5, 2.0):
    cap = expert_capacity(T2, N2, cf)
    dropped = np.mean([(~dispatch(s[:, None], N2, cap)).sum() for s in sims[:1000]]) / T2
    xs = np.arange(T2 + 1)
    expect = N2 * np.sum(binom.pmf(xs, T2, 1 / N2) * np.maximum(xs - cap, 0)) / T2
    rates.append(dropped)
    exact.append(expect)
check_close("uniform routing: simulated drop rate == binomial expectation (1000 batches, 5% + 0.002)",
            rates, exact, rtol=0.05, atol=2e-3)
check_true("capacity factor 1.0 still drops tokens under random routing (about 10%)", 0.05 < exact[0] < 0.12,
           f"{exact[0]:.3f}")

cfs = np.linspace(0.5, 2.5, 21)
xs = np.arange(T2 + 1)
curve = [N2 * np.sum(binom.pmf(xs, T2, 1 / N2) * np.maximum(xs - expert_capacity(T2, N2, c), 0)) / T2
         for c in cfs]
skew = [(~dispatch(top1, N, expert_capacity(T, N, c))).mean() for c in cfs]
fig, ax = figure("Dropped tokens versus capacity factor (top-1)", "capacity factor",
                 "fraction of tokens dropped")
ax.plot(cfs, curve, label="uniform router, 256 tokens, 16 experts (binomial)")
ax.plot(cfs, skew, "o-", ms=3, label="skewed router, 512 tokens, 8 experts")
ax.legend(fontsize=8)

# The page's calculator is checked against expert_capacity on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), with products that land exactly on an integer and just above one.
import cardcalc  # noqa: E402

cardcalc.table(lambda T, N, k, c: {"C": expert_capacity(T, N, c, k),
                                   "slots": N * expert_capacity(T, N, c, k)},
               cardcalc.grid(T=(1, 4096, 4097, 65536), N=(1, 8, 64), k=(1, 2), c=(0.5, 1.0, 1.25, 2.0)))
