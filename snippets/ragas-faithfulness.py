"""RAGAS faithfulness on hand-labelled answers: exact fractions, scikit-learn's precision_score (faithfulness
is the precision of the answer's claims), the empty-answer branch, and judging against the joint context."""

import math
from fractions import Fraction

import numpy as np
import ragas_fixture as rf
from cardcheck import check_close, check_true
from sklearn.metrics import precision_score


# --- formula ---
# few mutants: supported statements over all statements, NaN when there is none: four sites
def faithfulness(verdicts) -> float:
    """|V| / |S|: statements of the answer inferable from the context over all its statements;
    NaN for an answer with no statement (as in the ragas library)."""
    v = np.asarray(verdicts, dtype=float)
    if v.size == 0:
        return math.nan
    return float(np.sum(v) / v.size)
# --- end formula ---


def verdicts(qid: str) -> list[int]:
    """The judge: each answer statement against all retrieved passages read together."""
    ex = rf.EXAMPLES[qid]
    return [int(rf.supports(ex["retrieved"], facts)) for _, facts, _ in ex["answer"]]


# 1. Hand-labelled answers. q1: the "invented in 1994" statement is in no retrieved passage (3 of 4);
#    q4: "grounding removes every hallucination" is unsupported (2 of 3); q5: all 3 supported.
hand = {"q1": Fraction(3, 4), "q4": Fraction(2, 3), "q5": Fraction(3, 3)}
for qid, value in hand.items():
    check_close(f"{qid}: faithfulness {value} (by hand) from verdicts {verdicts(qid)}",
                faithfulness(verdicts(qid)), float(value), rtol=1e-12)

# 2. Faithfulness is the precision of the answer's claims: every statement is a positive prediction,
#    and a true positive when the context supports it. scikit-learn's precision_score agrees.
rng = np.random.default_rng(0)
for n in (1, 2, 7, 40):
    v = rng.integers(0, 2, size=n)
    v[0] = 1
    check_close(f"{n} random verdicts: vs sklearn precision_score(y_true=verdicts, y_pred=all ones)",
                faithfulness(v), precision_score(v, np.ones(n, dtype=int)), rtol=1e-12)
check_close("no supported statement among 5: faithfulness 0", faithfulness([0] * 5), 0.0)

# 3. Branch: an answer with no extractable statement has no defined score.
check_true("empty answer (no statements): NaN, as ragas returns", math.isnan(faithfulness([])))

# 4. The judge reads the retrieved context as a whole: q1's second statement needs d01 and d02 together.
#    Judging each passage on its own would call it unsupported and lower the score.
ex = rf.EXAMPLES["q1"]
alone = [int(any(rf.supports([d], facts) for d in ex["retrieved"])) for _, facts, _ in ex["answer"]]
check_true("q1: joint context supports 3 of 4 statements; passage-by-passage judging only 2",
           faithfulness(verdicts("q1")) > faithfulness(alone), f"joint {verdicts('q1')}, alone {alone}")

# 5. Splitting the answer differently changes the score: merging q4's two supported statements into one
#    claim leaves 1 of 2 supported instead of 2 of 3.
check_close("q4 with two statements merged: 1/2, not 2/3 (the score depends on the decomposition)",
            faithfulness([1, 0]), 0.5, rtol=1e-12)
