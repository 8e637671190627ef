"""Memory write rule p > (c_FP + c_s)/(c_FP + c_FN): brute force over write sets and thresholds."""

from itertools import product

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def write_threshold(c_fp: float, c_fn: float, c_store: float) -> float:
    """tau* = (c_FP + c_s) / (c_FP + c_FN): the usefulness probability above which writing is cheaper."""
    return (c_fp + c_store) / (c_fp + c_fn)


def should_write(p_useful, c_fp: float, c_fn: float, c_store: float = 0.0):
    """write(m) = 1[ P(useful | m) > tau* ]; at equality both choices cost the same (we skip)."""
    return np.asarray(p_useful) > write_threshold(c_fp, c_fn, c_store)
# --- end formula ---


def expected_cost(write, p, c_fp, c_fn, c_store):
    """Per-item expected cost: a write pays c_s plus c_FP if the memory is never useful;
    a skip pays c_FN if the memory would have been needed."""
    write = np.asarray(write, dtype=float)
    return write * (c_store + (1 - p) * c_fp) + (1 - write) * p * c_fn


rng = np.random.default_rng(0)
c_fp, c_fn, c_s = 1.0, 4.0, 0.25  # pollution of a useless memory, a missed useful one, storage per write
tau = write_threshold(c_fp, c_fn, c_s)
check_close("threshold for c_FP = 1, c_FN = 4, c_s = 0.25 is 1.25/5", tau, 0.25, rtol=1e-12)

# 1. Exhaustive: over all 2^12 write/skip assignments of 12 candidate memories, the rule's set has the
#    lowest total expected cost.
p12 = rng.uniform(0, 1, 12)
costs = {w: expected_cost(w, p12, c_fp, c_fn, c_s).sum() for w in product([0, 1], repeat=12)}
best_set = min(costs, key=costs.get)
check_true("rule's write set = cheapest of all 4096 assignments",
           tuple(int(x) for x in should_write(p12, c_fp, c_fn, c_s)) == best_set)

# 2. Grid of thresholds on 2,000 candidates: no threshold beats the rule's cost, and the cost curve
#    bottoms out at tau* (to the grid spacing). Different cost settings move the optimum.
p = rng.uniform(0, 1, 2000)
grid = np.linspace(0, 1, 1001)
for cf, cn, cs in [(1.0, 4.0, 0.25), (3.0, 1.0, 0.0), (1.0, 1.0, 0.5), (2.0, 0.5, 0.1)]:
    curve = np.array([expected_cost(p > t, p, cf, cn, cs).sum() for t in grid])
    rule = expected_cost(should_write(p, cf, cn, cs), p, cf, cn, cs).sum()
    t_star = grid[np.argmin(curve)]
    check_true(f"c = ({cf}, {cn}, {cs}): rule cost <= every threshold on the grid",
               bool(rule <= curve.min() + 1e-9))
    check_close(f"c = ({cf}, {cn}, {cs}): grid minimiser near tau*", t_star,
                min(write_threshold(cf, cn, cs), 1.0), atol=2e-3)

# 3. Edge cases: free, harmless writes -> store anything with p > 0; a write costing more than a miss
#    (c_s >= c_FN) -> never store.
check_true("c_FP = c_s = 0: every memory with p > 0 is written",
           bool(np.all(should_write([1e-9, 0.3, 1.0], 0.0, 1.0)) and not should_write(0.0, 0.0, 1.0)))
check_true("c_s >= c_FN: nothing is written, even p = 1",
           not bool(np.any(should_write([0.5, 1.0], 1.0, 2.0, 2.0))))

# 4. Monte-Carlo: draw whether each memory is actually needed; the realised average cost of the rule
#    matches its expected cost and beats the seed-style "write if p > 0.5" rule.
need = rng.random((400, p.size)) < p
w_rule = should_write(p, c_fp, c_fn, c_s)
realised = (w_rule * (c_s + (~need) * c_fp) + (~w_rule) * need * c_fn).sum(axis=1).mean()
check_close("Monte-Carlo realised cost vs expected cost", realised,
            expected_cost(w_rule, p, c_fp, c_fn, c_s).sum(), rtol=5e-3)
naive = expected_cost(p > 0.5, p, c_fp, c_fn, c_s).sum()
check_true("rule beats the naive 0.5 threshold when costs are asymmetric",
           bool(expected_cost(w_rule, p, c_fp, c_fn, c_s).sum() < naive))

# 5. The seed's conjunctive rule 1[novelty > t_n and importance > t_i], best of a 41 x 41 grid,
#    when usefulness depends on both signals smoothly: never better than thresholding P(useful).
nov, imp = rng.uniform(0, 1, 2000), rng.uniform(0, 1, 2000)
p2 = 1 / (1 + np.exp(-(4 * nov + 4 * imp - 4.5)))
rule2 = expected_cost(should_write(p2, c_fp, c_fn, c_s), p2, c_fp, c_fn, c_s).sum()
box = min(expected_cost((nov > a) & (imp > b), p2, c_fp, c_fn, c_s).sum()
          for a in np.linspace(0, 1, 41) for b in np.linspace(0, 1, 41))
print(f"expected cost: probability threshold {rule2:.1f}, best AND-of-thresholds {box:.1f}")
check_true("best AND-of-two-thresholds rule costs more than the probability threshold", bool(rule2 < box))

fig, ax = figure("Expected cost of writing vs threshold", "threshold on P(useful)", "total expected cost")
curve = np.array([expected_cost(p > t, p, c_fp, c_fn, c_s).sum() for t in grid])
ax.plot(grid, curve)
ax.axvline(tau, color="tab:red", ls="--", label="tau* = (c_FP + c_s)/(c_FP + c_FN)")
ax.legend()
