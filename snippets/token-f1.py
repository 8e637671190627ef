"""Token F1 (SQuAD): hand-worked bags of tokens, the library route via rouge_score's ROUGE-1 F-measure,
duplicates, empty answers and the max over gold answers."""

from collections import Counter

from cardcheck import check_close, check_true
from text_fixture import QA_CASES, squad_normalize


# --- formula ---
def token_f1_single(prediction: str, gold: str) -> float:
    """F1 of the multiset overlap of normalized tokens; SQuAD 2.0 rule for empty answers."""
    pred, ref = squad_normalize(prediction).split(), squad_normalize(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(ref)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, golds: tuple[str, ...]) -> float:
    """The best F1 over the gold answers."""
    return max(token_f1_single(prediction, g) for g in golds)


def dataset_f1(cases) -> float:
    return 100.0 * sum(token_f1(p, golds) for p, golds in cases) / len(cases)
# --- end formula ---


# 1. Hand-worked F1 for the fixture (normalized forms in the exact-match card):
#    broncos vs denver broncos: P 1, R 1/2 -> 2/3.  in year 1876 vs 1876: P 1/3, R 1 -> 1/2.
#    apple orange vs orange apple: a bag, so P = R = 1 (EM is 0).  theatre district vs atre district:
#    P = R = 1/2.  santa clara california vs santa clara: P 2/3, R 1 -> 4/5.
hand = [1.0, 1.0, 2 / 3, 0.5, 1.0, 1.0, 0.5, 0.8]
check_close("token F1 per question vs hand", [token_f1(p, g) for p, g in QA_CASES], hand, rtol=1e-12)
check_close("dataset F1 = 100 * mean", dataset_f1(QA_CASES), 100 * sum(hand) / 8, rtol=1e-12)
check_close("the max over golds: 'An apple, an orange' scores 0.8 vs gold 1 and 1.0 vs gold 2",
            [token_f1_single("An apple, an orange", g) for g in ("apple and orange", "orange apple")],
            [0.8, 1.0], rtol=1e-12)

# 2. Duplicates count as a multiset: "the the cat cat cat" vs "cat cat dog" -> cat x3 vs cat x2:
#    2 common tokens, P = 2/3, R = 2/3, F1 = 2/3.  Unequal P and R: 3 of 4 predicted tokens in a
#    6-token gold: P = 3/4, R = 1/2, F1 = 3/5.
check_close("multiset overlap: 2/3; P = 3/4, R = 1/2 gives 3/5",
            [token_f1_single("the the cat cat cat", "cat cat dog"),
             token_f1_single("p q r x", "p q r s t u")], [2 / 3, 0.6], rtol=1e-12)

# 3. Empty answers (SQuAD 2.0 rule: both empty scores 1, one empty 0); no overlap scores 0.
check_close("empty/empty 1, empty/'x' 0, 'x'/'the' 0 (gold normalizes to empty), no overlap 0",
            [token_f1_single("", "the"), token_f1_single("", "x"), token_f1_single("x", "the"),
             token_f1_single("red", "blue")], [1.0, 0.0, 0.0, 0.0])
pairs = [(p, g) for p, golds in QA_CASES for g in golds]
pairs += [("cat cat cat dog", "the cat cat bird bird"), ("one two three four five", "five four")]
check_true("F1 is symmetric in prediction and gold",
           all(abs(token_f1_single(p, g) - token_f1_single(g, p)) < 1e-15 for p, g in pairs))

# --- in code: rouge-score ---
from rouge_score import rouge_scorer  # noqa: E402

# After SQuAD normalization the tokens are lower-case alphanumeric words, which rouge_score's tokenizer
# leaves as they are, so ROUGE-1's F-measure (a bag-of-unigrams F1) is the card's F1. Both divide the
# same small integers, so 1e-12 holds.
scorer = rouge_scorer.RougeScorer(["rouge1"])
check_close("RougeScorer(['rouge1']).score(norm(gold), norm(pred)).fmeasure = token F1, every pair",
            [scorer.score(squad_normalize(g), squad_normalize(p))["rouge1"].fmeasure for p, g in pairs],
            [token_f1_single(p, g) for p, g in pairs], rtol=1e-12)
check_close("pitfall: on raw strings it keeps the articles: 'the Denver Broncos!' vs 'Denver Broncos' "
            "scores 0.8, not 1", scorer.score("Denver Broncos", "the Denver Broncos!")["rouge1"].fmeasure,
            0.8 * token_f1_single("the Denver Broncos!", "Denver Broncos"), rtol=1e-12)
# Prediction 'broncos', gold 'denver broncos': P = 1/1, R = 1/2. Passing the prediction first, as
# the target, returns them the other way round.
swapped = scorer.score("broncos", "denver broncos")["rouge1"]
check_close("pitfall: score(target, prediction) wants the gold first; swapped, it reports P = 1/2, R = 1",
            [swapped.precision, swapped.recall], [0.5, 1.0], rtol=1e-12)
# --- end in code ---
