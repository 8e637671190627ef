"""Exact match (SQuAD): the official normalization written out by hand for every case, EM per case and
for the dataset, and the max over gold answers."""

from cardcheck import check_close, check_true
from text_fixture import QA_CASES, squad_normalize


# --- formula ---
def exact_match(prediction: str, golds: tuple[str, ...]) -> float:
    """1 if the normalized prediction equals any normalized gold answer, else 0."""
    return max(float(squad_normalize(prediction) == squad_normalize(g)) for g in golds)


def dataset_exact_match(cases) -> float:
    """Average over questions, reported in percent as in the SQuAD evaluation script."""
    return 100.0 * sum(exact_match(p, golds) for p, golds in cases) / len(cases)
# --- end formula ---


# 1. The normalization written out by hand for every string of the fixture: lower-case, delete
#    punctuation, delete the words a/an/the, collapse spaces. "a.m." loses its dots and is not an
#    article afterwards; "the atre" loses "the"; "Levi's" loses the apostrophe.
hand = {
    "Denver Broncos": "denver broncos", "The Denver Broncos": "denver broncos",
    "the Denver Broncos!": "denver broncos", "Broncos": "broncos", "in the year 1876": "in year 1876",
    "1876": "1876", "a.m. shift": "am shift", "am shift": "am shift", "An apple, an orange": "apple orange",
    "apple and orange": "apple and orange", "orange apple": "orange apple",
    "Theatre district": "theatre district", "the atre district": "atre district",
    "Santa Clara, California": "santa clara california", "Levi's Stadium": "levis stadium",
    "Santa Clara": "santa clara",
}
check_true("normalization of all 16 fixture strings == hand-written forms",
           all(squad_normalize(s) == t for s, t in hand.items()),
           str({s: squad_normalize(s) for s, t in hand.items() if squad_normalize(s) != t}))

# 2. EM per question from the hand-normalized strings: equal to some gold or not.
by_hand = [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
check_close("EM per question vs hand", [exact_match(p, g) for p, g in QA_CASES], by_hand)
check_close("dataset EM = 100 * 3/8 = 37.5", dataset_exact_match(QA_CASES), 37.5, rtol=1e-12)

# 3. Several gold answers: the best one counts (a max, not an average or a min).
check_close("max over golds: 'Santa Clara' vs (Levi's Stadium, Santa Clara) = 1; vs (Levi's Stadium,) = 0",
            [exact_match("Santa Clara", ("Levi's Stadium", "Santa Clara")),
             exact_match("Santa Clara", ("Santa Clara", "Levi's Stadium")),
             exact_match("Santa Clara", ("Levi's Stadium",))], [1.0, 1.0, 0.0])
check_close("dataset EM over two questions, one right: 50", dataset_exact_match(
    [("Broncos", ("Broncos",)), ("Denver", ("Broncos",))]), 50.0, rtol=1e-12)

# 4. Without normalization, raw string equality would give only 1 of the 8.
raw = sum(max(float(p == g) for g in golds) for p, golds in QA_CASES)
check_true("raw string equality: 1 of 8; normalized EM: 3 of 8", raw == 1.0
           and sum(exact_match(p, g) for p, g in QA_CASES) == 3.0)

# --- in code: scikit-learn ---
from sklearn.metrics import accuracy_score  # noqa: E402

# accuracy_score compares one label per question; the fixture plus a question whose second gold matches.
cases = [*QA_CASES, ("Santa Clara", ("Levi's Stadium", "Santa Clara"))]
predicted = [squad_normalize(p) for p, _ in cases]
golds = [[squad_normalize(g) for g in answers] for _, answers in cases]
# The max over golds taken first: the gold the prediction equals, if any, stands for the question.
best_gold = [next((g for g in gs if g == p), gs[0]) for p, gs in zip(predicted, golds, strict=True)]
# A mean of nine 0/1 values times 100: exact up to one rounding of the division.
check_close("pitfall: accuracy_score(best normalized gold, normalized prediction) is a fraction: x100 = EM",
            accuracy_score(best_gold, predicted) * 100, dataset_exact_match(cases), rtol=1e-12)
check_close("pitfall: with only the first gold per question it counts 3 of 9, not 4",
            accuracy_score([gs[0] for gs in golds], predicted) * 100,
            dataset_exact_match([(p, answers[:1]) for p, answers in cases]), rtol=1e-12)
check_true("... so the first gold alone scores lower than the card's max over golds",
           accuracy_score([gs[0] for gs in golds], predicted) < accuracy_score(best_gold, predicted))
# normalize=False asks for a count; it does nothing to the strings, so raw answers match 1 of the 9.
check_close("pitfall: normalize=False counts matches of the raw strings: 1 of 9",
            accuracy_score([a[0] for _, a in cases], [p for p, _ in cases], normalize=False), 1.0)
# --- end in code ---
