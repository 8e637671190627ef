"""Plackett-Luce: sums to 1 over permutations, K = 2 is Bradley-Terry, Gumbel-perturbed sorting samples it,
top-1 is softmax, and it stays finite for rewards spanning 1600."""

from itertools import permutations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, logsumexp, softmax


# --- formula ---
def pl_log_prob(scores, ranking):
    """log P(ranking | scores): the item at each position is drawn by a softmax over those not yet placed.
    ranking lists item indices best first."""
    s = np.asarray(scores, dtype=float)[list(ranking)]
    suffix_lse = np.logaddexp.accumulate(s[::-1])  # log sum_{j >= i} exp(s_pi(j)) for i = n, n-1, ..., 1
    return float(np.sum(s) - np.sum(suffix_lse))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. A distribution over rankings: the 5! = 120 probabilities of 5 responses sum to 1.
r5 = rng.normal(0, 1.5, 5)
perms5 = list(permutations(range(5)))
p5 = np.exp([pl_log_prob(r5, pi) for pi in perms5])
check_close("probabilities of all 120 rankings of 5 responses sum to 1", p5.sum(), 1.0, rtol=1e-12)
check_true("the most likely ranking sorts by reward", perms5[int(np.argmax(p5))] == tuple(np.argsort(-r5)))

# 2. K = 2 is the Bradley-Terry model: P(y_1 ranked above y_2) = sigmoid(r_1 - r_2).
pairs = rng.normal(0, 3, (20, 2))
check_close("two responses: P = sigmoid(r_1 - r_2) (scipy expit)",
            [np.exp(pl_log_prob(r, (0, 1))) for r in pairs], expit(pairs[:, 0] - pairs[:, 1]), rtol=1e-12)

# 3. Top-1 marginal is the softmax of the rewards (sum over the 24 rankings that start with each item).
r4 = np.array([1.2, -0.4, 0.3, 2.0])
perms4 = list(permutations(range(4)))
p4 = np.exp([pl_log_prob(r4, pi) for pi in perms4])
top1 = [sum(p for p, pi in zip(p4, perms4, strict=True) if pi[0] == i) for i in range(4)]
check_close("P(item i ranked first) equals softmax(r)_i", top1, softmax(r4), rtol=1e-12)

# 4. Monte Carlo: sorting r + Gumbel(0, 1) noise in decreasing order draws Plackett-Luce rankings
#    (Yellott 1977). Compare all 24 frequencies from 200,000 draws, 4.5 standard errors each.
draws = np.argsort(-(r4 + rng.gumbel(size=(200_000, 4))), axis=1)
code = draws @ (4 ** np.arange(3, -1, -1))
freq = np.array([np.mean(code == np.dot(pi, 4 ** np.arange(3, -1, -1))) for pi in perms4])
se = np.sqrt(p4 * (1 - p4) / len(draws))
check_true("Gumbel-perturbed sorting matches all 24 ranking probabilities within 4.5 s.e.",
           bool(np.all(np.abs(freq - p4) <= 4.5 * se)), f"max |z| = {np.max(np.abs(freq - p4) / se):.2f}")

# 5. Numerics: rewards spanning 1600. Stage by stage with scipy's logsumexp:
#    ranking (2, 0, 1) of r = (0, 800, -800) has log P = (-800 - 800) + (0 - 800) + 0 = -2400.
wide = np.array([0.0, 800.0, -800.0])
ref = sum(wide[[2, 0, 1]][i] - logsumexp(wide[[2, 0, 1]][i:]) for i in range(3))
check_close("worst ranking of rewards (0, 800, -800): log P = -2400", pl_log_prob(wide, (2, 0, 1)), ref,
            rtol=1e-12)
check_close("best ranking of the same rewards: log P ~ 0", pl_log_prob(wide, (1, 0, 2)), 0.0, atol=1e-300)

# 6. Luce's choice axiom: the odds of i over j for the top spot do not depend on the other items.
odds_with = top1[3] / top1[0]
r_sub = r4[[0, 3]]
check_close("top-spot odds of item 3 over item 0 are exp(r_3 - r_0), with or without the others",
            [odds_with, np.exp(pl_log_prob(r_sub, (1, 0)) - pl_log_prob(r_sub, (0, 1)))],
            [np.exp(r4[3] - r4[0])] * 2, rtol=1e-12)

fig, ax = figure("Plackett-Luce over 4 responses, rewards (1.2, -0.4, 0.3, 2.0)",
                 "ranking (sorted by probability)", "probability")
order = np.argsort(-p4)
ax.bar(range(24), p4[order], label="exact")
ax.plot(range(24), freq[order], "k.", label="Gumbel-sort frequency")
ax.legend()
