"""Self-consistency: majority and weighted votes over sampled answers, checked against counting
routes (collections.Counter, numpy.bincount), scipy's geometric mean, and an exact multinomial
accuracy curve that is also matched by Monte-Carlo."""

import itertools
from collections import Counter

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import binom, gmean, multinomial


# --- formula ---
def vote(answers, weights=None):
    """argmax_a sum_i w_i 1[a_i = a]; w_i = 1 is the plain majority vote. Ties go to the answer
    seen first (dicts keep insertion order and max returns the first maximum)."""
    if weights is None:
        weights = np.ones(len(answers))
    totals = {}
    start = 0.0  # equivalent: every answer's total starts from it, so it shifts all totals alike
    for a, w in zip(answers, weights, strict=True):
        totals[a] = totals.get(a, start) + w
    return max(totals, key=totals.get)


def average_vote(answers, weights):
    """Table 1's 'weighted avg': the mean weight of the paths that reached each answer."""
    groups = {}
    for a, w in zip(answers, weights, strict=True):
        groups.setdefault(a, []).append(w)
    return max(groups, key=lambda a: np.mean(groups[a]))


def path_weight(token_logprobs, normalized=True):
    """Eq. (1): exp of the mean token log-probability (normalized) or of the sum (unnormalized)."""
    lp = np.asarray(token_logprobs, dtype=float)
    if normalized:
        return np.exp(np.mean(lp))
    return np.exp(np.sum(lp))
# --- end formula ---


rng = np.random.default_rng(0)

# A hand example in the paper's style: five sampled paths answer 18, 26, 18, 18, 26.
check_true("hand example: three of five paths say 18, so the vote is 18",
           vote([18, 26, 18, 18, 26]) == 18)
check_true("a tie goes to the answer sampled first", vote([7, 3, 3, 7]) == 7 and vote([3, 7, 7, 3]) == 3)

# Majority vote vs collections.Counter on random answer lists (lists with a unique winner).
agree = 0
trials = 0
for _ in range(300):
    n = int(rng.integers(1, 30))
    answers = list(rng.integers(0, 6, size=n))
    (top, c1), *rest = Counter(answers).most_common()
    if rest and rest[0][1] == c1:
        continue
    trials += 1
    agree += vote(answers) == top
check_true("majority vote equals Counter.most_common on every list with a unique winner",
           agree == trials and trials > 150, f"{agree}/{trials}")

# Weighted vote vs numpy.bincount with weights (continuous weights make ties impossible).
ok = True
for _ in range(200):
    n = int(rng.integers(1, 25))
    answers = rng.integers(0, 8, size=n)
    w = rng.uniform(0.01, 1.0, size=n)
    ok &= vote(list(answers), w) == int(np.argmax(np.bincount(answers, weights=w)))
check_true("weighted vote equals argmax of numpy.bincount(answers, weights)", ok)

# Weighted average vote vs bincount ratio.
ok = True
for _ in range(200):
    n = int(rng.integers(1, 25))
    answers = rng.integers(0, 8, size=n)
    w = rng.uniform(0.01, 1.0, size=n)
    sums = np.bincount(answers, weights=w, minlength=8)
    cnt = np.bincount(answers, minlength=8)
    ratio = np.where(cnt > 0, sums / np.maximum(cnt, 1), -np.inf)
    ok &= average_vote(list(answers), w) == int(np.argmax(ratio))
check_true("weighted-average vote equals argmax of bincount sums / bincount counts", ok)

# Weights can overturn the majority: two confident paths beat three hesitant ones.
check_true("weighted sum: weights 0.9, 0.9 for 'b' beat 0.3, 0.3, 0.3 for 'a'",
           vote(list("aaabb"), [0.3, 0.3, 0.3, 0.9, 0.9]) == "b" and vote(list("aaabb")) == "a")
check_true("weighted average ignores how many paths agree: one path at 0.8 beats four at 0.7",
           average_vote(list("aaaab"), [0.7] * 4 + [0.8]) == "b"
           and vote(list("aaaab"), [0.7] * 4 + [0.8]) == "a")

# Path weight, Eq. (1): the normalized weight is the geometric mean of the token probabilities.
lp = np.log(rng.uniform(0.05, 1.0, size=37))
check_close("normalized path weight = geometric mean of token probabilities (scipy.stats.gmean)",
            path_weight(lp), gmean(np.exp(lp)))
check_close("unnormalized path weight = product of token probabilities", path_weight(lp, False),
            np.prod(np.exp(lp)), rtol=1e-12)
# A 900-token path at -1 nat per token: the product underflows to 0, the mean form stays exp(-1).
long_lp = -np.ones(900)
check_true("unnormalized weight of a 900-token path underflows to 0.0; normalized one is e^-1",
           path_weight(long_lp, False) == 0.0 and np.isclose(path_weight(long_lp), np.exp(-1)))


# Accuracy of majority vote as a function of the number of samples m, three possible answers.
def exact_accuracy_enumeration(p, m):
    """Run the vote on every one of the 3^m answer sequences and add up their probabilities."""
    total = 0.0
    for seq in itertools.product(range(len(p)), repeat=m):
        if vote(list(seq)) == 0:
            total += float(np.prod([p[a] for a in seq]))
    return total


def exact_accuracy_counts(p, m):
    """Independent route over count vectors: answer 0 wins a k-way tie with probability 1/k, since
    each tied answer is equally likely to be the one sampled first."""
    c = np.array([(c0, c1, m - c0 - c1) for c0 in range(m + 1) for c1 in range(m + 1 - c0)])
    top = c.max(axis=1)
    share = (c[:, 0] == top) / np.sum(c == top[:, None], axis=1)
    return float(np.sum(multinomial.pmf(c, m, p) * share))


p_good = np.array([0.45, 0.35, 0.20])   # the correct answer 0 is the most likely single answer
p_bad = np.array([0.35, 0.45, 0.20])    # a wrong answer is more likely than the correct one
ms = np.arange(1, 8)
acc_enum = [exact_accuracy_enumeration(p_good, m) for m in ms]
acc_counts = [exact_accuracy_counts(p_good, m) for m in ms]
check_close("vote accuracy, enumeration of all 3^m answer sequences vs multinomial counts (m = 1..7)",
            acc_enum, acc_counts, rtol=1e-10)
check_close("m = 1: the vote is just one sample, accuracy p_0 = 0.45", acc_enum[0], 0.45, rtol=1e-12)

# Two answers and odd m: no ties, accuracy is the binomial tail P(Bin(m, p) > m/2).
p2 = np.array([0.6, 0.4, 0.0])
check_close("two answers, m = 5: accuracy equals binom.sf(2, 5, 0.6)",
            exact_accuracy_enumeration(p2, 5), binom.sf(2, 5, 0.6), rtol=1e-12)

# Monte-Carlo at m = 15 (too many sequences to enumerate) vs the count route.
m_mc, n_mc = 15, 12000
draws = rng.choice(3, size=(n_mc, m_mc), p=p_good)
hits = np.mean([vote(list(row)) == 0 for row in draws])
exact15 = exact_accuracy_counts(p_good, m_mc)
se = np.sqrt(exact15 * (1 - exact15) / n_mc)
check_close("m = 15 accuracy: Monte-Carlo over 12000 vote runs vs exact (4 standard errors)",
            hits, exact15, atol=4 * se)
check_true("voting helps when the correct answer is the plurality and hurts when it is not",
           exact15 > 0.45 and exact_accuracy_counts(p_bad, m_mc) < 0.35)

fig, ax = figure("Majority-vote accuracy vs number of sampled paths", "sampled paths m",
                 "P(vote = correct answer)")
grid = np.arange(1, 41)
ax.plot(grid, [exact_accuracy_counts(p_good, m) for m in grid], marker=".",
        label="correct answer most likely (0.45 / 0.35 / 0.20)")
ax.plot(grid, [exact_accuracy_counts(p_bad, m) for m in grid], marker=".",
        label="a wrong answer most likely (0.35 / 0.45 / 0.20)")
ax.set_ylim(0, 1)
ax.legend()
