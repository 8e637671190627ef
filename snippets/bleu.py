"""BLEU: clipped precisions vs the worked examples of Papineni et al.; BP, weights and corpus BLEU by hand."""

from collections import Counter
from fractions import Fraction
from math import exp, log

from cardcheck import check_close, check_true


# --- formula ---
def ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def clipped_counts(cand: list[str], refs: list[list[str]], n: int) -> tuple[int, int]:
    """Numerator and denominator of the modified n-gram precision for one sentence."""
    max_ref = Counter()
    for ref in refs:
        for gram, count in ngrams(ref, n).items():
            max_ref[gram] = max(max_ref[gram], count)
    cand_counts = ngrams(cand, n)
    return sum(min(c, max_ref[g]) for g, c in cand_counts.items()), sum(cand_counts.values())


def closest_ref_len(cand: list[str], refs: list[list[str]]) -> int:
    """Best-match reference length: closest to the candidate, shorter one on ties."""
    return min((abs(len(r) - len(cand)), len(r)) for r in refs)[1]


def brevity_penalty(c: int, r: int) -> float:
    return 1.0 if c > r else exp(1.0 - r / c)


def corpus_bleu(cands, refs_list, weights=(0.25, 0.25, 0.25, 0.25)) -> float:
    """Counts are pooled over the corpus before dividing; weights w_n (BLEU-4: uniform, 1/4)."""
    max_n = len(weights)
    num, den = [0] * max_n, [0] * max_n
    for cand, refs in zip(cands, refs_list, strict=True):
        for n in range(1, max_n + 1):
            a, b = clipped_counts(cand, refs, n)
            num[n - 1] += a
            den[n - 1] += b
    if min(num) == 0:
        return 0.0
    log_p = sum(w * log(a / b) for w, a, b in zip(weights, num, den, strict=True))
    c = sum(len(x) for x in cands)
    r = sum(closest_ref_len(x, refs) for x, refs in zip(cands, refs_list, strict=True))
    return brevity_penalty(c, r) * exp(log_p)
# --- end formula ---


def tok(s: str) -> list[str]:
    return s.lower().replace(".", "").split()


# Example 1 of the paper (Sec. 2.1): two candidates, three references.
cand1 = tok("It is a guide to action which ensures that the military always obeys the commands of the party.")
cand2 = tok("It is to insure the troops forever hearing the activity guidebook that party direct.")
refs = [tok("It is a guide to action that ensures that the military will forever heed Party commands."),
        tok("It is the guiding principle which guarantees the military forces always being under the "
            "command of the Party."),
        tok("It is the practical guide for the army always to heed the directions of the party.")]

got = [clipped_counts(cand1, refs, 1), clipped_counts(cand2, refs, 1),
       clipped_counts(cand1, refs, 2), clipped_counts(cand2, refs, 2)]
check_true("modified precisions 17/18, 8/14 (unigram), 10/17, 1/13 (bigram) as in the paper",
           got == [(17, 18), (8, 14), (10, 17), (1, 13)], str(got))

# Example 2 of the paper: clipping caps "the" at its maximum count in any one reference.
the7 = tok("the the the the the the the")
refs_cat = [tok("The cat is on the mat."), tok("There is a cat on the mat.")]
check_true("'the the the ...' gets modified unigram precision 2/7",
           clipped_counts(the7, refs_cat, 1) == (2, 7), str(clipped_counts(the7, refs_cat, 1)))

# Sentence BLEU of candidate 1 by hand: lengths 18 vs references 16, 18, 16, so r = 18 = c and BP = 1;
# p3 = 7/16 and p4 = 4/15 counted by hand from the sentences above.
hand = float(Fraction(17, 18) * Fraction(10, 17) * Fraction(7, 16) * Fraction(4, 15)) ** 0.25
check_close("BLEU-4 of candidate 1 vs hand-computed geometric mean", corpus_bleu([cand1], [refs]), hand)

# Corpus BLEU pools counts: p1 = 25/32, p2 = 11/30, p3 = 7/28, p4 = 4/26; c = 32, r = 18 + 16 = 34.
hand_corpus = exp(1 - 34 / 32) * float(Fraction(25, 32) * Fraction(11, 30) * Fraction(7, 28)
                                       * Fraction(4, 26)) ** 0.25
check_close("corpus BLEU (pooled counts, BP < 1) vs hand computation",
            corpus_bleu([cand1, cand2], [refs, refs]), hand_corpus)

# Brevity penalty: a 4-token candidate against a closest reference of 16 tokens gets exp(1 - 16/4).
short = tok("it is a guide")
check_close("BP for a short candidate = exp(-3)", brevity_penalty(len(short), closest_ref_len(short, refs)),
            exp(-3.0))
check_true("a candidate equal to a reference scores exactly 1",
           abs(corpus_bleu([refs[0]], [refs]) - 1.0) < 1e-12)

# Non-uniform weights w_n (the paper's general form): candidate 1 with w = (0.1, 0.2, 0.3, 0.4),
# and BLEU-2 (w = (1/2, 1/2)), from the hand-counted precisions above.
check_close("weights (0.1, 0.2, 0.3, 0.4): p1^0.1 p2^0.2 p3^0.3 p4^0.4 by hand",
            corpus_bleu([cand1], [refs], weights=(0.1, 0.2, 0.3, 0.4)),
            (17 / 18) ** 0.1 * (10 / 17) ** 0.2 * (7 / 16) ** 0.3 * (4 / 15) ** 0.4)
check_close("BLEU-2 of candidate 1 = sqrt(17/18 * 10/17) = sqrt(10/18)",
            corpus_bleu([cand1], [refs], weights=(0.5, 0.5)), (10 / 18) ** 0.5)

# A candidate longer than its closest reference: reference 1 plus one word absent from every
# reference. c = 17; references 16 and 18 are equally close, the shorter (16) is taken, c > r, BP = 1.
# Each order loses exactly the n-grams that contain the extra word: p_n = (17 - n)/(18 - n), so
# BLEU = (16/17 * 15/16 * 14/15 * 13/14)^(1/4) = (13/17)^(1/4).
longer = refs[0] + ["indeed"]
check_close("longer candidate: BP = 1 and BLEU = (13/17)^(1/4)", corpus_bleu([longer], [refs]),
            (13 / 17) ** 0.25)
check_close("BP = 1 whenever c > r", [brevity_penalty(17, 16), brevity_penalty(40, 18)], [1.0, 1.0])

# No matching 4-gram: the geometric mean is 0 (unsmoothed BLEU), although lower orders match.
no4 = tok("party it is military troops")
check_true("no matching 4-gram: unigram and bigram matches exist, BLEU = 0",
           clipped_counts(no4, refs, 2)[0] > 0 and clipped_counts(no4, refs, 4)[0] == 0
           and corpus_bleu([no4], [refs]) == 0.0, str(corpus_bleu([no4], [refs])))

# --- in code: sacrebleu ---
import sacrebleu  # noqa: E402

# sacrebleu takes the hypotheses and then the references as streams (stream j holds each sentence's
# j-th reference), and reports 100 x BLEU. On the already-tokenized text (tokenize="none") with no
# smoothing it is the card's corpus BLEU; a few float operations apart, so 1e-12.
hyps = [" ".join(cand1), " ".join(cand2)]
streams = [[" ".join(r), " ".join(r)] for r in refs]
plain = sacrebleu.corpus_bleu(hyps, streams, tokenize="none", smooth_method="none")
check_close("corpus_bleu(hyps, ref streams, tokenize='none', smooth_method='none').score / 100 = BLEU",
            plain.score / 100, corpus_bleu([cand1, cand2], [refs, refs]), rtol=1e-12)
# Its default smoothing ("exp") replaces the k-th zero match count by 1 / 2^k, so a sentence with no
# matching 4-gram scores above the card's 0. Here the 3- and 4-grams have none: 1/2 and 1/4 matches.
smoothed = sacrebleu.corpus_bleu([" ".join(no4)], [[" ".join(r)] for r in refs], tokenize="none")
log_p, zeros = 0.0, 0
for n in (1, 2, 3, 4):
    matched, total = clipped_counts(no4, refs, n)
    zeros += matched == 0
    log_p += log((matched or 0.5**zeros) / total) / 4
check_close("pitfall: the default smooth_method='exp' counts the k-th zero match as 1/2^k, not 0",
            smoothed.score / 100, brevity_penalty(len(no4), closest_ref_len(no4, refs)) * exp(log_p),
            rtol=1e-12)
# On raw text it is case-sensitive by default: "Party" and "party" do not match.
raw_hyp = ["It is a guide to action which ensures that the military always obeys the commands of the party."]
raw_refs = [["It is a guide to action that ensures that the military will forever heed Party commands."]]
check_true("pitfall: lowercase=False by default, so 'Party' does not match 'party'",
           sacrebleu.corpus_bleu(raw_hyp, raw_refs).score < sacrebleu.corpus_bleu(raw_hyp, raw_refs,
                                                                                  lowercase=True).score)
# --- end in code ---
