"""Tree of Thoughts: the value and vote state evaluators and the BFS selection step, checked against
the authors' Game-of-24 value map, brute force over subsets, Counter, and exhaustive search on a toy task."""

from collections import Counter
from itertools import combinations, product

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

# --- formula ---
VALUE_MAP = {"sure": 20.0, "likely": 1.0, "impossible": 0.001}


def value_score(labels):
    """Value evaluator: sum over sampled judgements of the state, each label mapped to a number."""
    return sum(VALUE_MAP[label] for label in labels)


def vote_score(votes, n_states):
    """Vote evaluator: V(s) = number of sampled votes that chose state s as the most promising."""
    scores = np.zeros(n_states)
    for v in votes:
        scores[v] += 1.0
    return scores


def bfs_select(values, b):
    """S_t = argmax over subsets S of S'_t with |S| = b of sum_{s in S} V_t(s): the b best states."""
    return np.argsort(-np.asarray(values, dtype=float), kind="stable")[:b]
# --- end formula ---


rng = np.random.default_rng(0)

# The map used for Game of 24 in the authors' code (3 judgements per state).
check_close("value of (sure, likely, likely) = 20 + 1 + 1", value_score(["sure", "likely", "likely"]), 22.0,
            rtol=1e-12)
check_close("three 'impossible' judgements score 0.003, not 0 (ties among bad states still broken)",
            value_score(["impossible"] * 3), 0.003, rtol=1e-12)
check_true("one 'sure' outweighs three 'likely': 20.002 > 3",
           value_score(["sure", "impossible", "impossible"]) > value_score(["likely"] * 3) > 1.0)

# Vote evaluator vs collections.Counter.
votes = rng.integers(0, 5, size=40)
counts = Counter(votes.tolist())
check_close("vote counts equal collections.Counter", vote_score(votes, 5), [counts[i] for i in range(5)])

# BFS selection vs brute force over every subset of size b.
ok = True
for _ in range(200):
    m = int(rng.integers(2, 9))
    vals = rng.choice([0.003, 1.002, 2.001, 3.0, 20.002, 21.001, 22.0, 40.001, 60.0], size=m, replace=False)
    b = int(rng.integers(1, m + 1))
    best = max(combinations(range(m), b), key=lambda s: sum(vals[list(s)]))
    ok &= sorted(best) == sorted(bfs_select(vals, b).tolist())
check_true("top-b selection equals the brute-force best subset of size b (200 random frontiers)", ok)
check_true("b larger than the frontier keeps everything; the best state comes first",
           bfs_select([1.0, 5.0, 3.0], 7).tolist() == [1, 2, 0])


# Toy task: choose T = 4 digits from 0..4 whose sum is the target. A state is a partial sequence;
# the evaluator samples 3 labels from an exact judge with error rate eps.
T, DIGITS = 4, range(5)
NAMES = list(VALUE_MAP)


def judge(state, target):
    rest = T - len(state)
    s = sum(state)
    if rest == 0:
        return "sure" if s == target else "impossible"
    return "likely" if s <= target <= s + 4 * rest else "impossible"


def bfs(target, b, eps, rng, k_samples=3):
    frontier = [()]
    for _ in range(T):
        children = [(*st, d) for st in frontier for d in DIGITS]
        noisy = rng.random((len(children), k_samples)) < eps
        random_label = rng.integers(0, len(NAMES), size=(len(children), k_samples))
        vals = []
        for st, flip, pick in zip(children, noisy, random_label, strict=True):
            true = judge(st, target)
            vals.append(value_score([NAMES[j] if f else true for f, j in zip(flip, pick, strict=True)]))
        frontier = [children[i] for i in bfs_select(vals, b)]
    return any(sum(st) == target for st in frontier)


solvable = {t: any(sum(seq) == t for seq in product(DIGITS, repeat=T)) for t in range(-2, 20)}
check_true("exact evaluator, b = 1: BFS solves every target exhaustive search can solve, and no other",
           all(bfs(t, 1, 0.0, rng) == solvable[t] for t in solvable))

eps_grid = np.linspace(0.0, 0.9, 7)
curves = {}
for b in (1, 3, 5):
    curves[b] = [np.mean([bfs(int(t), b, e, rng) for t in rng.integers(0, 17, size=80)]) for e in eps_grid]
check_true("with a noisy evaluator (eps = 0.6) a wider beam solves more: b = 5 beats b = 1",
           curves[5][4] > curves[1][4], f"b=1 {curves[1][4]:.2f}, b=5 {curves[5][4]:.2f}")

fig, ax = figure("ToT BFS on a toy task: success vs evaluator noise", "evaluator error rate eps",
                 "fraction of targets solved")
for b, c in curves.items():
    ax.plot(eps_grid, c, marker=".", label=f"breadth b = {b}")
ax.set_ylim(0, 1.02)
ax.legend()
