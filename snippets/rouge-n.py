"""ROUGE-N: against the pinned rouge_score package, the multi-reference pooling of Eq. (1), hand counts."""

from collections import Counter

from cardcheck import check_close, check_true
from rouge_score import rouge_scorer
from text_fixture import SUMMARY_PAIRS, words


# --- formula ---
def ngram_counts(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def rouge_n(candidate: list[str], references: list[list[str]], n: int) -> float:
    """Lin (2004), Eq. (1): clipped n-gram matches summed over all references, divided by the total
    number of reference n-grams (a recall)."""
    cand = ngram_counts(candidate, n)
    match = total = 0
    for ref in references:
        ref_counts = ngram_counts(ref, n)
        match += sum(min(c, cand[g]) for g, c in ref_counts.items())
        total += sum(ref_counts.values())
    return match / total if total else 0.0


def rouge_n_prf(candidate: list[str], reference: list[str], n: int) -> tuple[float, float, float]:
    """Single reference, as libraries report it: precision, recall and their harmonic mean F1."""
    cand, ref = ngram_counts(candidate, n), ngram_counts(reference, n)
    match = sum((cand & ref).values())
    p = match / max(sum(cand.values()), 1)
    r = match / max(sum(ref.values()), 1)
    return p, r, (2 * p * r / (p + r) if p + r > 0 else 0.0)
# --- end formula ---


# 1. Against rouge_score (use_stemmer=False; its tokenizer lower-cases and splits on non-alphanumerics,
#    like words()). Note its argument order: score(target, prediction).
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rouge3"], use_stemmer=False)
ours, lib = [], []
for ref, cand in SUMMARY_PAIRS:
    s = scorer.score(ref, cand)
    for n in (1, 2, 3):
        ours.append(rouge_n_prf(words(cand), words(ref), n))
        lib.append(tuple(s[f"rouge{n}"]))
        ours.append((rouge_n(words(cand), [words(ref)], n),) * 3)
        lib.append((s[f"rouge{n}"].recall,) * 3)
check_close("P, R, F1 of ROUGE-1/2/3 vs rouge_score, 6 pairs", ours, lib, rtol=1e-12)

# 2. Lin's example (Sec. 3.1): reference "police killed the gunman". "police kill the gunman" and
#    "the gunman kill police" both match only the bigram "the gunman": ROUGE-2 = 1/3 for both;
#    ROUGE-1 = 3/4 for both (police, the, gunman).
ref = [words("police killed the gunman")]
check_close("ROUGE-2 and ROUGE-1 of S2 and S3 (hand: 1/3, 1/3, 3/4, 3/4)",
            [rouge_n(words(s), ref, n) for n in (2, 1)
             for s in ("police kill the gunman", "the gunman kill police")],
            [1 / 3, 1 / 3, 3 / 4, 3 / 4], rtol=1e-12)

# 3. Several references (Eq. 1 sums matches and totals over them). Independent route: recover each
#    reference's match count from rouge_score's per-reference recall times that reference's n-gram
#    total, then pool.
refs = ["the cat sat on the mat near the door", "a cat was sitting on the mat", "the cat is on a mat"]
cand = "the cat was sitting on the mat by the door"
for n in (1, 2):
    matches, totals = 0.0, 0
    for r in refs:
        t = max(len(words(r)) - n + 1, 0)
        matches += scorer.score(r, cand)[f"rouge{n}"].recall * t
        totals += t
    check_close(f"ROUGE-{n} over 3 references vs pooled rouge_score matches / totals",
                rouge_n(words(cand), [words(r) for r in refs], n), matches / totals, rtol=1e-12)
multi = rouge_n(words(cand), [words(r) for r in refs], 1)
single = [rouge_n(words(cand), [words(r)], 1) for r in refs]
check_true("pooled multi-reference ROUGE-1 lies between the single-reference extremes",
           min(single) <= multi <= max(single), f"{multi:.3f} in [{min(single):.3f}, {max(single):.3f}]")

# 4. Clipping: "the the the the" against "the cat": one "the" is credited; recall 1/2, precision 1/4.
check_close("clipping: P, R, F1 of 'the the the the' vs 'the cat' = 1/4, 1/2, 1/3",
            rouge_n_prf(words("the the the the"), words("the cat"), 1), [0.25, 0.5, 1 / 3], rtol=1e-12)
check_close("a candidate shorter than n scores 0; identical texts score 1",
            [rouge_n(["police"], ref, 2), rouge_n(ref[0], ref, 2), rouge_n(ref[0], ref, 4)], [0.0, 1.0, 1.0],
            rtol=1e-12)
check_true("no overlap: P = R = F1 = 0", rouge_n_prf(["x", "y"], ["a", "b"], 1) == (0.0, 0.0, 0.0))

# 5. Edge cases against rouge_score: one-token texts, a reference shorter than n, an empty reference.
edge = [("police", "police kill the gunman"), ("police killed the gunman", "police"), ("gunman", "gunman"),
        ("the gunman", "gunman"), ("", "police"), ("police", "")]
ours = [rouge_n_prf(words(c), words(r), n) for r, c in edge for n in (1, 2)]
lib = [tuple(scorer.score(r, c)[f"rouge{n}"]) for r, c in edge for n in (1, 2)]
check_close("edge cases (1-token, shorter than n, empty) vs rouge_score", ours, lib, rtol=1e-12)
check_close("Eq. (1) recall with an empty reference or one shorter than n is 0",
            [rouge_n(words("police"), [[]], 1), rouge_n(words("police kill"), [["police"]], 2)], [0.0, 0.0])

# --- in code: rouge-score ---
# RougeScorer(...).score(target, prediction) takes the reference first; check 1 runs it on every
# pair, and checks 3 and 5 on several references and on edge cases.
reference, candidate = SUMMARY_PAIRS[3]                # 9 reference words, 10 candidate words
p1, r1, _ = rouge_n_prf(words(candidate), words(reference), 1)
swapped = scorer.score(candidate, reference)["rouge1"]
check_close("pitfall: score(candidate, reference), the card's order, swaps precision and recall",
            [swapped.precision, swapped.recall], [r1, p1], rtol=1e-12)
check_true("and they differ here", abs(p1 - r1) > 1e-3, f"P {p1:.4f}, R {r1:.4f}")
# Several references: score_multi keeps the single reference with the best F1, where Eq. (1) pools
# the matches and totals of all references.
best = scorer.score_multi(refs, cand)["rouge1"]
check_close("score_multi(refs, cand) is the best single reference by F1",
            best.recall, max((rouge_n_prf(words(cand), words(r), 1) for r in refs), key=lambda s: s[2])[1],
            rtol=1e-12)
check_true("pitfall: which is not Eq. (1)'s pooled recall over all references",
           abs(best.recall - rouge_n(words(cand), [words(r) for r in refs], 1)) > 1e-3,
           f"best single {best.recall:.4f} vs pooled {rouge_n(words(cand), [words(r) for r in refs], 1):.4f}")
# use_stemmer=True (Porter) makes "kill" match "killed": Lin's S2 gets ROUGE-1 4/4 instead of 3/4.
stemmed = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True).score("police killed the gunman",
                                                                       "police kill the gunman")
check_close("use_stemmer=True counts 'kill' as 'killed': recall 1, not the card's unstemmed 3/4",
            [stemmed["rouge1"].recall, rouge_n(words("police kill the gunman"), [ref[0]], 1)], [1.0, 0.75],
            rtol=1e-12)
# --- end in code ---
