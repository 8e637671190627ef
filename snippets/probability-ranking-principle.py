"""Probability ranking principle: optimal by brute force over all orderings, and where independence fails."""

import itertools

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: a sort by decreasing probability: the one slip is the sign that orders it
def prp_ranking(p_relevant: np.ndarray) -> np.ndarray:
    """Document indices in decreasing order of P(R = 1 | d, q) (ties keep their input order)."""
    return np.argsort(-np.asarray(p_relevant), kind="stable")
# --- end formula ---


rng = np.random.default_rng(0)
n = 7
p = rng.uniform(0.02, 0.98, size=n)
order = prp_ranking(p)
check_true("the ranking lists probabilities in decreasing order", np.all(np.diff(p[order]) <= 0),
           f"{np.round(p[order], 3)}")

# Independent binary relevance: E[# relevant in the top k] = sum of the top-k probabilities. Enumerate
# all 7! = 5040 orderings and find the best expected precision@k for every k, and the best expected DCG.
perms = np.array(list(itertools.permutations(range(n))))
cum = np.cumsum(p[perms], axis=1)                                   # 5040 x 7: E[relevant in top k]
discount = 1 / np.log2(np.arange(2, n + 2))
check_close("for every k = 1..7, the PRP ordering attains the best expected precision@k of 5040 orderings",
            np.cumsum(p[order]) / np.arange(1, n + 1), cum.max(axis=0) / np.arange(1, n + 1), rtol=1e-14)
check_close("and the best expected DCG (discount 1/log2(i + 1))", p[order] @ discount,
            (p[perms] @ discount).max(), rtol=1e-14)
# Monte Carlo: draw relevance outcomes, measure precision@3 of PRP vs the reverse ordering.
outcomes = rng.random((100_000, n)) < p
p3_prp = outcomes[:, order[:3]].mean()
check_close("Monte Carlo (100 000 draws): precision@3 of the PRP ordering = mean of its top-3 probabilities",
            p3_prp, p[order[:3]].mean(), atol=4 * np.sqrt(0.25 / 300_000))

# Rank equivalence: any strictly increasing transform of the probabilities (log-odds, a calibrated
# score) gives the same ranking, which is why BM25 or query likelihood can stand in for P(R | d, q).
check_true("log-odds and p^3 give the PRP ranking too",
           np.array_equal(prp_ranking(np.log(p / (1 - p))), order)
           and np.array_equal(prp_ranking(p ** 3), order))

# Toy corpus: if each document's grade / 3 were its probability of relevance for q6, the PRP ranking
# is the ideal ordering by grade.
g = tc.grades("q6")
by_prp = prp_ranking(g / 3)
check_true("q6 with P(R) = grade / 3: the PRP ranking lists grades 3, 2, 2, 1, 1 and then 0s",
           list(g[by_prp[:6]]) == [3, 2, 2, 1, 1, 0], f"{[tc.DOC_IDS[i] for i in by_prp[:5]]}")

# Where the principle's assumption fails: relevance of documents is NOT independent. A and A2 are
# duplicates (relevant together or not at all, p = 0.6); B is independent (p = 0.5). For the goal
# "at least one relevant document in the top 2", enumerate the joint outcomes of every pair.
probs = np.array([0.6, 0.6, 0.5])                  # A, A2, B
joint = {}                                          # outcome (relA, relA2, relB) -> probability
for ra, rb in itertools.product((0, 1), repeat=2):
    joint[(ra, ra, rb)] = (0.6 if ra else 0.4) * 0.5


def hit_prob(pair):
    return sum(pr for outcome, pr in joint.items() if any(outcome[i] for i in pair))


top2 = tuple(prp_ranking(probs)[:2])
best = max(itertools.combinations(range(3), 2), key=hit_prob)
check_close("correlated relevance: P(at least one relevant in top 2) is 0.6 for the PRP pair {A, A2}, "
            "0.8 for {A, B}", [hit_prob(top2), hit_prob(best)], [0.6, 0.8], rtol=1e-12)

# Figure: expected precision@k of the PRP ordering against all 5040 orderings of the seven documents.
ks = np.arange(1, n + 1)
fig, ax = figure("Expected precision@k over all 5040 orderings", "cutoff k",
                 "expected precision@k")
ax.fill_between(ks, cum.min(axis=0) / ks, cum.max(axis=0) / ks, alpha=0.25, label="range over all orderings")
ax.plot(ks, cum.mean(axis=0) / ks, "--", label="average ordering")
ax.plot(ks, np.cumsum(p[order]) / ks, marker="o", label="PRP ordering")
ax.legend(fontsize=8)
