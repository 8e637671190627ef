"""Minimax value of a zero-sum matrix game: the max over mixed strategies of the worst case over the
opponent's replies, computed by enumerating the vertices of its linear program and checked against
rl_worlds.solve_zero_sum (scipy linprog), the 2x2 closed form, a grid search, and rock-paper-scissors."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import MATRIX_GAME, ROCK_PAPER_SCISSORS, solve_zero_sum


# --- formula ---
def pure_maximin(Q):
    """The seed's form max_a min_b Q(a, b): the best guarantee with a deterministic choice."""
    return np.max(np.min(Q, axis=1))


def minimax_value(Q):
    """V = max over mixed x of min_b sum_a x_a Q(a, b), and a maximiser x. The maximum sits at a vertex
    of {x in simplex, v <= (x^T Q)_b for all b}: a support I of k rows on which x makes k columns J pay
    the same. Enumerate every such square system (k - 1 equal-payoff equations and sum x = 1), keep the
    solutions with x >= 0, and score each by its true worst case over all columns."""
    m, n = Q.shape
    best, best_x = -np.inf, None
    largest = min(m, n)  # equivalent: a support larger than min(m, n) has no column subset of its size
    for k in itertools.count(1):
        if k > largest:
            break
        for rows in itertools.combinations(range(m), k):
            for cols in itertools.combinations(range(n), k):
                sub = Q[np.ix_(rows, cols)]
                system = np.vstack([(sub[:, 1:] - sub[:, :1]).T, np.ones((1, k))])
                rhs = np.zeros(k)
                rhs[-1] = 1.0
                if np.linalg.matrix_rank(system) < k:
                    continue
                x = np.zeros(m)
                x[list(rows)] = np.linalg.solve(system, rhs)
                if np.any(x < 0):
                    continue
                worst = np.min(x @ Q)
                if worst > best:
                    best, best_x = worst, x
    return best, best_x
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Rock-paper-scissors: value 0 with the uniform strategy; a deterministic choice guarantees only -1
#    (the seed's max-min over pure actions), and the opponent's pure min-max is +1.
v, x = minimax_value(ROCK_PAPER_SCISSORS)
check_close("rock-paper-scissors: minimax value 0, strategy (1/3, 1/3, 1/3)", np.r_[v, x],
            [0.0, 1 / 3, 1 / 3, 1 / 3], rtol=1e-12, atol=1e-15)
check_close("rock-paper-scissors: pure max-min = -1 (the seed's formula is only a lower bound)",
            pure_maximin(ROCK_PAPER_SCISSORS), -1.0, rtol=0)

# 2. Against the LP (rl_worlds.solve_zero_sum, scipy HiGHS) on the 3 x 4 game and 20 random games of sizes
#    2..4 x 2..5; the strategy found guarantees the value against every column.
v, x = minimax_value(MATRIX_GAME)
v_lp, x_lp, _ = solve_zero_sum(MATRIX_GAME)
check_close("3 x 4 game: value = LP value", v, v_lp, rtol=1e-8)
check_close("3 x 4 game: maximiser = LP strategy", x, x_lp, rtol=0, atol=1e-8)
errs, gaps, strict, bracketed = [], [], 0, True
for _ in range(20):
    m, n = rng.integers(2, 5), rng.integers(2, 6)
    Q = rng.normal(size=(m, n))
    v, x = minimax_value(Q)
    v_lp, _, y_lp = solve_zero_sum(Q)
    errs.append(abs(v - v_lp))
    gaps.append(np.min(x @ Q) - v_lp)
    lo, hi = pure_maximin(Q), np.min(np.max(Q, axis=0))
    strict += int(lo < v - 1e-9)
    bracketed &= bool(lo <= v + 1e-12 and v <= hi + 1e-12)
check_true("20 random games: pure max-min <= V <= pure min-max", bracketed)
check_close("20 random games: value = LP value", max(errs), 0.0, rtol=0, atol=1e-8)
check_close("20 random games: the maximiser guarantees the LP value against every column", min(gaps), 0.0,
            rtol=0, atol=1e-8)
check_true("mixing strictly beats the pure max-min in some random games", strict > 3, f"{strict} of 20")

# 3. A game with a saddle point: pure and mixed values agree. Q = [[3, 1, 4], [2, 0, -1]]: row 0's worst
#    case is 1, column 1's best case for the row player is 1.
Q_saddle = np.array([[3.0, 1.0, 4.0], [2.0, 0.0, -1.0]])
check_close("saddle point: minimax value = pure max-min = 1", [minimax_value(Q_saddle)[0],
            pure_maximin(Q_saddle)], [1.0, 1.0], rtol=1e-12)
check_close("pure max-min takes the min over the opponent (axis of b): [[1, 5], [2, 3]] gives 2",
            pure_maximin(np.array([[1.0, 5.0], [2.0, 3.0]])), 2.0, rtol=0)

# 4. 2x2 games without a saddle point: closed form V = (ad - bc) / (a + d - b - c) (matching pennies
#    [[1, -1], [-1, 1]] gives 0; [[2, -1], [-1, 1]] gives 1/5 with x = (2/5, 3/5)).
v, x = minimax_value(np.array([[2.0, -1.0], [-1.0, 1.0]]))
check_close("[[2, -1], [-1, 1]]: V = 1/5, x = (2/5, 3/5) by hand", np.r_[v, x], [0.2, 0.4, 0.6], rtol=1e-12)
worst = 0.0
for _ in range(30):
    a, b, c, d = rng.normal(size=4)
    Q = np.array([[a, b], [c, d]])
    if pure_maximin(Q) == np.min(np.max(Q, axis=0)):
        continue
    worst = max(worst, abs(minimax_value(Q)[0] - (a * d - b * c) / (a + d - b - c)))
check_close("random 2x2 without saddle point: V = (ad - bc) / (a + d - b - c)", worst, 0.0, rtol=0,
            atol=1e-12)

# 5. Grid search for a 2 x 5 game: max over 20001 mixes of the worst column; within grid resolution.
Q25 = rng.normal(size=(2, 5))
p = np.linspace(0, 1, 20001)
envelope = np.min(np.outer(p, Q25[0]) + np.outer(1 - p, Q25[1]), axis=1)
v, x = minimax_value(Q25)
check_close("2 x 5 game: value = grid maximum of the lower envelope", v, envelope.max(), rtol=0, atol=1e-4)
check_true("grid never beats the value", envelope.max() <= v + 1e-12)

fig, ax = figure("2 x 5 zero-sum game: worst case of each mix", "probability of row 0",
                 "payoff to the row player")
for b in range(5):
    ax.plot(p, p * Q25[0, b] + (1 - p) * Q25[1, b], lw=0.8, alpha=0.6)
ax.plot(p, envelope, "k", lw=2, label="min over opponent's columns")
ax.plot([x[0]], [v], "ro", label="minimax value")
ax.legend(fontsize=8)
