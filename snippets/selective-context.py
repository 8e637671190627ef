"""Selective Context: token self-information from a bigram LM of the toy corpus; unit sums vs exact
chain-rule probabilities (fractions), expectation = entropy (scipy), percentile filter vs sorting."""

from collections import Counter
from fractions import Fraction
from math import log

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import entropy
from toy_corpus import DOC_IDS, doc_tokens


# --- formula ---
# few mutants: -log p per token, summed per unit, kept at a percentile: a minus, a log, a test
def self_information(token_probs):
    """I(x_t) = -log P(x_t | x_<t), in nats."""
    return -np.log(np.asarray(token_probs, dtype=float))


def unit_information(token_info, unit_of_token):
    """I(u) = sum of I(x_t) over the tokens of unit u (units numbered 0, 1, ...)."""
    return np.bincount(unit_of_token, weights=token_info)


def keep_units(unit_info, p):
    """Keep the units whose self-information is at or above the p-th percentile of all units."""
    return unit_info >= np.percentile(unit_info, p)
# --- end formula ---


# A small causal LM: add-one bigram model over the toy corpus, probabilities as exact fractions.
docs = doc_tokens()
vocab = sorted({t for d in docs for t in d} | {"<s>"})
V = len(vocab)
pair = Counter((a, b) for d in docs for a, b in zip(["<s>", *d[:-1]], d, strict=True))
left = Counter(a for d in docs for a in ["<s>", *d[:-1]])


def prob(prev, tok):
    return Fraction(pair[(prev, tok)] + 1, left[prev] + V)


text = docs[DOC_IDS.index("d28")]  # the long survey document
probs = [prob(prev, tok) for prev, tok in zip(["<s>", *text[:-1]], text, strict=True)]
unit = np.arange(len(text)) // 4  # lexical units: consecutive 4-token phrases
info = self_information([float(p) for p in probs])
u_info = unit_information(info, unit)

# 1. Additivity: a unit's self-information is -log of the exact chain-rule probability of its tokens.
exact = []
for k in range(unit.max() + 1):
    joint = Fraction(1)
    for p in (p for p, uu in zip(probs, unit, strict=True) if uu == k):
        joint *= p
    exact.append(-(log(joint.numerator) - log(joint.denominator)))
check_close("unit self-information = -log(product of its token probabilities), exact fractions", u_info,
            exact, rtol=1e-12)
check_close("whole text: sum of unit information = -log P(text)", u_info.sum(), sum(exact), rtol=1e-12)

# 2. In expectation over the next token, self-information is the entropy of the LM's distribution.
row = np.array([float(prob("the", t)) for t in vocab])
check_close("sum_x P(x | 'the') I(x) equals scipy.stats.entropy of that distribution",
            np.dot(row, self_information(row)), entropy(row), rtol=1e-12)
check_close("P = 1/4 carries log 4 nats", self_information([0.25])[0], np.log(4.0), rtol=1e-12)

# 3. Percentile filter: p = 50 keeps the half of the units with the largest information (by sorting).
keep = keep_units(u_info, 50.0)
n_units = len(u_info)
check_true(f"p = 50 keeps exactly the top {n_units // 2 + n_units % 2} of {n_units} units by sorting",
           set(np.flatnonzero(keep)) == set(np.argsort(u_info)[-(n_units // 2 + n_units % 2):]))
check_true("p = 0 keeps every unit", bool(np.all(keep_units(u_info, 0.0))))
# The paper writes log base 2; bits are nats / ln 2, a common factor, so the kept set is the same.
bits = np.bincount(unit, weights=[-(log(p.numerator, 2) - log(p.denominator, 2)) for p in probs])
check_true("p = 35 keeps the same units whether information is in bits (paper) or nats (code)",
           bool(np.array_equal(keep_units(bits, 35.0), keep_units(u_info, 35.0))))
check_true("ties at the threshold are kept (>=)", bool(np.all(keep_units(np.array([1.0, 2.0, 2.0, 2.0]), 50.0)
                                                            == [False, True, True, True])))

# 4. Predictable text carries little information: 'of the' costs fewer nats than a rare term pair.
i_common = self_information([float(prob("of", "the"))])[0]
i_rare = self_information([float(prob("of", "hnsw"))])[0]
check_true("'the' after 'of' is cheaper to drop than 'hnsw' after 'of'", i_common < i_rare,
           f"{i_common:.2f} vs {i_rare:.2f} nats")

ps = np.arange(0, 100, 5)
fig, ax = figure("Selective Context on the toy survey document (d28)", "percentile p",
                 "fraction of tokens kept")
ax.plot(ps, [np.isin(unit, np.flatnonzero(keep_units(u_info, p))).mean() for p in ps], marker="o")
