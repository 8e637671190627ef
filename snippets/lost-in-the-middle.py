"""Lost-in-the-middle V weighting: shape checks, and the ends-first ordering vs brute force over all
placements and vs LangChain's documented LongContextReorder procedure."""

from itertools import permutations
from math import factorial

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def position_weight(pos, n, alpha, beta):
    """w = alpha + beta |2 x - 1| with x = pos / (n - 1) the relative position of slot pos in 0 .. n-1."""
    x = np.asarray(pos, dtype=float) / (n - 1)
    return alpha + beta * np.abs(2.0 * x - 1.0)


def ends_first(u):
    """Order chunks so the most useful sit at the two ends: take chunks by decreasing utility and
    place them alternately at the front and at the back."""
    ranked = np.argsort(-np.asarray(u), kind="stable")
    front, back = [], []
    for k, item in enumerate(ranked):
        if k % 2 == 0:
            front.append(int(item))
        else:
            back.append(int(item))
    return front + back[::-1]
# --- end formula ---


# 1. Shape: both ends weigh alpha + beta, the middle alpha, symmetric, linear in between.
n = 9
w = position_weight(np.arange(n), n, 0.5, 0.4)
check_close("ends weigh alpha + beta = 0.9, the middle slot alpha = 0.5", [w[0], w[-1], w[4]],
            [0.9, 0.9, 0.5], rtol=1e-12)
check_close("symmetric about the middle", w, w[::-1], rtol=1e-12)
check_close("slot 2 of 9: x = 1/4, |2x - 1| = 1/2 -> 0.7", w[2], 0.7, rtol=1e-12)

# 2. Under this weighting the best placement of chunks (max sum_pos w(pos) u(chunk at pos)) puts the
#    most useful chunks at the ends: the ends-first order attains the brute-force optimum over all n!.
rng = np.random.default_rng(0)
for size in (6, 7):
    u = rng.uniform(0, 1, size)
    wt = position_weight(np.arange(size), size, 0.3, 0.7)
    best = max(float(np.dot(wt, u[list(p)])) for p in permutations(range(size)))
    got = float(np.dot(wt, u[ends_first(u)]))
    check_close(f"n = {size}: ends-first placement equals the best of all {factorial(size)} placements",
                got, best, rtol=1e-12)
    worst = min(float(np.dot(wt, u[list(p)])) for p in permutations(range(size)))
    check_true(f"n = {size}: relevance order (best chunk first) is not optimal", float(np.dot(
        wt, np.sort(u)[::-1])) < best - 1e-9 and worst < best)


# 3. LangChain's LongContextReorder, as documented: reverse the relevance-sorted list, then put
#    every other document at the front and the rest at the back. Same placement up to a mirror.
def long_context_reorder(docs_best_first):
    out = []
    for i, doc in enumerate(reversed(docs_best_first)):
        if i % 2 == 1:
            out.append(doc)
        else:
            out.insert(0, doc)
    return out


u8 = rng.uniform(0, 1, 8)
ranked8 = [int(i) for i in np.argsort(-u8)]
lc = long_context_reorder(ranked8)
mine = ends_first(u8)
check_true("ends-first order equals LangChain's LongContextReorder or its mirror image",
           mine == lc or mine == lc[::-1], f"{mine} vs {lc}")

check_true("the most useful chunk opens the context and the second closes it",
           mine[0] == int(np.argmax(u8)) and mine[-1] == int(np.argsort(-u8)[1]))

# The page's calculator is checked against position_weight (n = L + 1 slots) on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows): both ends, either side of the middle and, for
# L = 20, the middle slot itself.
import cardcalc  # noqa: E402

cardcalc.table(lambda pos, L, alpha, beta: {"w": float(position_weight(pos, L + 1, alpha, beta))},
               cardcalc.grid(pos=(0, 3, 9, 10, 19), L=(19, 20), alpha=(0.0, 0.5), beta=(0.0, 0.4, 1.0)))

fig, ax = figure("A V-shaped position weight (a modelling choice, not a fit)", "relative position pos / L",
                 "weight w")
x = np.linspace(0, 1, 101)
for a, b in [(0.5, 0.4), (0.3, 0.7), (0.9, 0.1)]:
    ax.plot(x, position_weight(x * 100, 101, a, b), label=f"alpha = {a}, beta = {b}")
ax.legend()
