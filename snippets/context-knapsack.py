"""Context knapsack: DP optimum vs exhaustive search and scipy MILP, greedy-ratio counterexample, edges."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from packing_fixture import all_subsets
from scipy.optimize import Bounds, LinearConstraint, milp
from toy_corpus import doc_embeddings, doc_lengths, query_embedding


# --- formula ---
def pack(u, lengths, budget):
    """0/1 knapsack by dynamic programming over token budgets:
    V_i(b) = max(V_{i-1}(b), V_{i-1}(b - l_i) + u_i if l_i <= b). Returns (best utility, chosen indices)."""
    n = len(u)
    V = np.zeros((n + 1, budget + 1))
    for i in range(1, n + 1):
        size = lengths[i - 1]
        take = np.full(budget + 1, -np.inf)  # taking chunk i is impossible below its length
        if size <= budget:
            take[size:] = V[i - 1, : budget + 1 - size] + u[i - 1]
        V[i] = np.maximum(V[i - 1], take)
    chosen, b = [], budget
    for i in range(n, 0, -1):
        if V[i, b] != V[i - 1, b]:
            chosen.append(i - 1)
            b -= lengths[i - 1]
    return V[-1, -1], sorted(chosen)
# --- end formula ---


def exhaustive(u, lengths, budget):
    """Best feasible subset by trying all 2^n of them."""
    feasible = [S for S in all_subsets(len(u)) if sum(lengths[i] for i in S) <= budget]
    return max((sum(u[i] for i in S), S) for S in feasible)


def greedy_ratio(u, lengths, budget):
    """The common heuristic: take chunks by utility per token while they fit."""
    total, used = 0.0, 0
    for i in np.argsort(-np.asarray(u) / np.asarray(lengths), kind="stable"):
        if used + lengths[i] <= budget:
            total, used = total + u[i], used + lengths[i]
    return total


# 1. Exhaustive search on 40 random instances of 10 chunks (1024 subsets each).
rng = np.random.default_rng(0)
worst = 0.0
agree = True
for _ in range(40):
    u = rng.uniform(0, 1, 10)
    lengths = rng.integers(20, 200, 10)
    budget = int(rng.integers(100, 700))
    value, chosen = pack(u, lengths, budget)
    best_value, best_set = exhaustive(u, lengths, budget)
    worst = max(worst, abs(value - best_value))
    agree &= bool(sum(lengths[i] for i in chosen) <= budget and np.isclose(u[chosen].sum(), value))
check_close("DP optimum equals exhaustive search on 40 random 10-chunk instances", worst, 0.0, atol=1e-12)
check_true("returned chunks fit the budget and add up to the reported utility", agree)

# 2. The toy corpus as a chunk pool: utility = cosine to query q2, length = tokens, budget 300 tokens.
#    All 32 documents are too many to enumerate; scipy's MILP solver gives the optimum independently.
u = doc_embeddings() @ query_embedding("q2")
u = np.clip(u, 0, None)
lengths = doc_lengths().astype(int)
value, chosen = pack(u, lengths, 300)
res = milp(-u, constraints=LinearConstraint(lengths[None, :], ub=300), integrality=np.ones(len(u)),
           bounds=Bounds(0, 1))
check_close("toy corpus, 32 chunks, B = 300: DP optimum equals scipy.optimize.milp", value, -res.fun,
            rtol=1e-9)
check_true("packed context uses at most 300 tokens", int(lengths[chosen].sum()) <= 300,
           f"{int(lengths[chosen].sum())} tokens in {len(chosen)} chunks")

# 3. Greedy by utility per token is not optimal: u = (5.5, 4, 4), l = (5, 4, 4), B = 8.
#    Greedy takes the densest chunk (1.1 per token) and then nothing fits: 5.5. The optimum is 8.
u3, l3 = np.array([5.5, 4.0, 4.0]), np.array([5, 4, 4])
check_close("counterexample: knapsack optimum 8 (chunks 2 and 3)", pack(u3, l3, 8)[0], 8.0)
check_true("greedy ratio gets 5.5 < 8 on the same input", greedy_ratio(u3, l3, 8) == 5.5)
check_true("optimal chunks are exactly {1, 2} (0-based)", pack(u3, l3, 8)[1] == [1, 2])

# 3b. The textbook repair: the better of greedy and the single best chunk that fits gets >= half the optimum.
ratios = []
for _ in range(200):
    u_r, l_r = rng.uniform(0, 1, 8), rng.integers(10, 120, 8)
    b_r = int(rng.integers(60, 300))
    single = max((u_r[i] for i in range(8) if l_r[i] <= b_r), default=0.0)
    ratios.append(max(greedy_ratio(u_r, l_r, b_r), single) / exhaustive(u_r, l_r, b_r)[0])
check_true("extended greedy reaches at least half the exhaustive optimum on 200 instances",
           min(ratios) >= 0.5, f"worst ratio {min(ratios):.3f}")

# 4. Edges: zero budget, a chunk exactly the size of the budget, everything fits.
check_close("B = 0 packs nothing", pack(u3, l3, 0)[0], 0.0)
check_close("a chunk of length exactly B is allowed", pack(np.array([3.0, 1.0]), np.array([7, 9]), 7)[0], 3.0)
check_close("B >= total length takes every chunk", pack(u3, l3, 13)[0], u3.sum())
check_close("B = 12, one token short of all three: keep 5.5 + 4 = 9.5 (9 tokens)",
            pack(u3, l3, 12)[0], 9.5)

budgets = np.arange(0, 801, 50)
opt = [pack(u, lengths, int(b))[0] for b in budgets]
grd = [greedy_ratio(u, lengths, int(b)) for b in budgets]
fig, ax = figure("Packing toy-corpus chunks for q2", "token budget B", "total utility (sum of cosines)")
ax.plot(budgets, opt, label="knapsack optimum (DP)")
ax.plot(budgets, grd, linestyle="--", label="greedy by utility per token")
ax.legend()
