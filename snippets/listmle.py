"""ListMLE: exp(-loss) is a Plackett-Luce probability that sums to 1 over all permutations, its most
likely permutation is the score order, the loss matches a term-by-term scipy logsumexp, finite
differences, and stays finite on scores spanning 2000."""

from itertools import permutations

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, logsumexp


# --- formula ---
def listmle_loss(scores, perm):
    """-log P(perm | scores) under Plackett-Luce: sum over positions i of
    logsumexp(s of the items at positions i..n) - s of the item at position i."""
    s = np.asarray(scores, dtype=float)[np.asarray(perm)]
    suffix_lse = np.logaddexp.accumulate(s[::-1])  # logsumexp of every suffix (order irrelevant: summed)
    return float(np.sum(suffix_lse) - np.sum(s))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Term by term with scipy's logsumexp, on random lists of several lengths.
for n in (2, 5, 12):
    s, perm = rng.normal(0, 2, n), rng.permutation(n)
    ref = sum(logsumexp(s[perm[i:]]) - s[perm[i]] for i in range(n))
    check_close(f"n = {n}: loss vs sum_i [logsumexp(s_pi(i..n)) - s_pi(i)] (scipy)", listmle_loss(s, perm),
                ref, rtol=1e-12)

# 2. exp(-loss) is a probability distribution over the n! orderings.
s6 = rng.normal(0, 1.5, 6)
probs = np.array([np.exp(-listmle_loss(s6, p)) for p in permutations(range(6))])
check_close("sum over all 720 permutations of exp(-loss) = 1", probs.sum(), 1.0, rtol=1e-12)
best = list(permutations(range(6)))[int(np.argmax(probs))]
check_true("the most likely permutation sorts the items by decreasing score",
           list(best) == list(np.argsort(-s6)), f"{best}")

# 3. Its first term is the top-one cross-entropy with a one-hot target: -log softmax(s)[pi(1)].
perm = rng.permutation(6)
first_term = listmle_loss(s6, perm) - listmle_loss(s6[perm[1:]], np.arange(5))
check_close("first position's term = -log_softmax(s)[pi(1)]", first_term, -log_softmax(s6)[perm[0]],
            rtol=1e-10)

# 4. Gradient by finite differences vs the Plackett-Luce form: dL/ds_k = -1 + sum over positions
#    i <= position of k of softmax over the tail at i.
q_scores = tc.doc_embeddings() @ tc.query_embedding("q6") * 5
grades = tc.grades("q6")
truth = np.lexsort((np.arange(32), -grades))              # by grade, ties by document order
h = 1e-5
fd = np.array([(listmle_loss(q_scores + h * e, truth) - listmle_loss(q_scores - h * e, truth)) / (2 * h)
               for e in np.eye(32)])
grad = -np.ones(32)
for i in range(32):
    tail = truth[i:]
    grad[tail] += np.exp(q_scores[tail] - logsumexp(q_scores[tail]))
check_close("q6 (32 documents): gradient vs finite differences", grad, fd, rtol=1e-6, atol=1e-7)

# 5. Scores spanning 2000: the naive product of softmax ratios underflows, the loss must not.
wide = np.array([1000.0, -1000.0, 400.0, 999.0])
check_close("scores from -1000 to 1000, order (0, 3, 2, 1): loss = log(1 + e^-1) + 0 + 0 (hand)",
            listmle_loss(wide, [0, 3, 2, 1]), np.log1p(np.exp(-1.0)), rtol=1e-12)
# Worst order (1, 2, 3, 0): terms 2000 + c, 600 + c and 1 + c with c = log(1 + e^-1), then 0.
check_close("same scores, worst order (1, 2, 3, 0): loss = 2601 + 3 log(1 + e^-1) (hand)",
            listmle_loss(wide, [1, 2, 3, 0]), 2601 + 3 * np.log1p(np.exp(-1.0)), rtol=1e-12)

# 6. Ties in the labels: q6 has two documents graded 2, so two "true" permutations with different losses.
tied = np.flatnonzero(grades == 2)
alt = truth.copy()
a, b = np.flatnonzero(np.isin(truth, tied))
alt[[a, b]] = alt[[b, a]]
gap = listmle_loss(q_scores, truth) - listmle_loss(q_scores, alt)
check_true("breaking the tie between q6's two grade-2 documents the other way changes the loss",
           abs(gap) > 1e-3, f"difference {gap:+.4f}")

fig, ax = figure("ListMLE: probability of each ordering of 6 items", "permutation (sorted by probability)",
                 "Plackett–Luce probability exp(−loss)", size=(6.0, 3.2))
ax.semilogy(np.sort(probs)[::-1], ".", ms=3)
