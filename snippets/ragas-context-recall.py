"""RAGAS context recall on hand-labelled references: exact fractions, scikit-learn's recall_score, the
empty-reference branch, and monotonicity over every subset of the retrieved passages."""

import itertools
import math
from fractions import Fraction

import numpy as np
import ragas_fixture as rf
from cardcheck import check_close, check_true
from cardplot import figure
from sklearn.metrics import recall_score


# --- formula ---
# few mutants: attributed claims over all claims, NaN when there is none: four sites
def context_recall(attributed) -> float:
    """Reference-answer claims attributable to the retrieved context over all reference claims;
    NaN for a reference with no claim (as in the ragas library)."""
    a = np.asarray(attributed, dtype=float)
    if a.size == 0:
        return math.nan
    return float(np.sum(a) / a.size)
# --- end formula ---


def attributions(qid: str, docs=None) -> list[int]:
    """The judge: each reference statement against the given passages (default: all retrieved) together."""
    ex = rf.EXAMPLES[qid]
    docs = ex["retrieved"] if docs is None else docs
    return [int(rf.supports(docs, facts)) for _, facts in ex["reference"]]


# 1. Hand-labelled: q1 retrieves every reference fact (4/4); q4 misses "fine-tuning also helps" (3/4);
#    q5 misses "int8 scalar quantization" (3/4).
hand = {"q1": Fraction(4, 4), "q4": Fraction(3, 4), "q5": Fraction(3, 4)}
for qid, value in hand.items():
    check_close(f"{qid}: context recall {value} (by hand) from attributions {attributions(qid)}",
                context_recall(attributions(qid)), float(value), rtol=1e-12)

# 2. Context recall is the recall of the reference's claims: every claim is a positive, and it is found
#    when the context supports it. scikit-learn's recall_score agrees.
rng = np.random.default_rng(0)
for n in (1, 3, 8, 50):
    a = rng.integers(0, 2, size=n)
    check_close(f"{n} random attributions: vs sklearn recall_score(y_true=all ones, y_pred=attributions)",
                context_recall(a), recall_score(np.ones(n, dtype=int), a), rtol=1e-12)

# 3. Branch: a reference with no claim has no defined recall.
check_true("reference with no claims: NaN, as ragas returns", math.isnan(context_recall([])))

# 4. More context never lowers recall: over every subset of q5's five retrieved passages (32 subsets),
#    a superset scores at least as high, the empty context scores 0 and the full one 3/4.
ex = rf.EXAMPLES["q5"]
subsets = [s for r in range(6) for s in itertools.combinations(ex["retrieved"], r)]
score = {s: context_recall(attributions("q5", list(s))) for s in subsets}
monotone = all(score[s] <= score[t] + 1e-12 for s in subsets for t in subsets if set(s) <= set(t))
check_true("q5: recall is monotone under adding passages, over all 32 x 32 subset pairs", monotone)
check_close("q5: empty context 0, all five passages 3/4", [score[()], score[tuple(ex["retrieved"])]],
            [0.0, 0.75], rtol=1e-12)

fig, ax = figure("Context recall as more of the ranked list is kept", "passages kept (top k)",
                 "context recall")
for qid in rf.EXAMPLES:
    docs = rf.EXAMPLES[qid]["retrieved"]
    ax.plot(range(0, 6), [context_recall(attributions(qid, docs[:k])) for k in range(0, 6)], "o-", label=qid)
ax.legend()
