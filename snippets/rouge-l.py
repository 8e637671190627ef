"""ROUGE-L: LCS by dynamic programming vs brute force over subsequences; P, R, F vs rouge_score;
Lin's worked example; the beta limits."""

from itertools import combinations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rouge_score import rouge_scorer
from text_fixture import SUMMARY_PAIRS, words


# --- formula ---
def lcs_length(x: list[str], y: list[str]) -> int:
    """Length of the longest common subsequence, by the standard dynamic programme."""
    table = np.zeros((len(x) + 1, len(y) + 1), dtype=int)
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            if x[i - 1] == y[j - 1]:
                table[i, j] = table[i - 1, j - 1] + 1
            else:
                table[i, j] = max(table[i - 1, j], table[i, j - 1])
    return int(table[-1, -1])


def rouge_l(candidate: list[str], reference: list[str], beta: float = 1.0) -> tuple[float, float, float]:
    """Lin (2004), Eqs. (2)-(4): R = LCS/m (m = reference length), P = LCS/n (n = candidate length),
    F = (1 + beta^2) R P / (R + beta^2 P)."""
    lcs = lcs_length(reference, candidate)
    if lcs == 0:
        return 0.0, 0.0, 0.0
    r = lcs / len(reference)
    p = lcs / len(candidate)
    return p, r, (1 + beta**2) * r * p / (r + beta**2 * p)
# --- end formula ---


def is_subsequence(sub, seq) -> bool:
    it = iter(seq)
    return all(tok in it for tok in sub)


def lcs_brute(x, y) -> int:
    """Try every subsequence of x, longest first, until one is also a subsequence of y."""
    for k in range(len(x), 0, -1):
        for idx in combinations(range(len(x)), k):
            if is_subsequence([x[i] for i in idx], y):
                return k
    return 0


# 1. LCS vs brute force on the fixture pairs, both argument orders, and on random token strings.
rng = np.random.default_rng(0)
pairs = [(words(r), words(c)) for r, c in SUMMARY_PAIRS]
pairs += [(list(rng.choice(list("abcd"), size=rng.integers(0, 11))),
           list(rng.choice(list("abcd"), size=9))) for _ in range(25)]
check_true("LCS by DP == brute force (31 pairs, both orders)",
           all(lcs_length(a, b) == lcs_brute(a, b) == lcs_length(b, a) for a, b in pairs))

# 2. P, R, F (beta = 1) vs rouge_score's rougeL.
scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
ours = [rouge_l(words(c), words(r)) for r, c in SUMMARY_PAIRS]
lib = [tuple(scorer.score(r, c)["rougeL"]) for r, c in SUMMARY_PAIRS]
check_close("ROUGE-L precision, recall, F1 vs rouge_score, 6 pairs", ours, lib, rtol=1e-12)

# 3. Lin's example (Sec. 3.1): against "police killed the gunman", S2 "police kill the gunman" has
#    LCS 3 (police, the, gunman) and ROUGE-L 3/4; S3 "the gunman kill police" has LCS 2 and 1/2,
#    although their ROUGE-2 scores are equal.
ref = words("police killed the gunman")
check_close("S2 and S3: ROUGE-L (beta = 1) = 3/4 and 1/2",
            [rouge_l(words(s), ref)[2] for s in ("police kill the gunman", "the gunman kill police")],
            [0.75, 0.5], rtol=1e-12)

# 4. beta: a hand value, and the limits. Candidate "the cat sat" (n = 3) vs reference
#    "the cat sat on the mat" (m = 6): LCS 3, R = 1/2, P = 1; beta = 2: 5 * 0.5 / (0.5 + 4) = 5/9.
c, r = words("the cat sat"), words("the cat sat on the mat")
check_close("beta = 2: F = 5/9 (hand); beta = 1: F = 2/3", [rouge_l(c, r, 2.0)[2], rouge_l(c, r)[2]],
            [5 / 9, 2 / 3], rtol=1e-12)
check_close("beta -> large gives recall (Lin's DUC setting); beta = 0 gives precision",
            [rouge_l(c, r, 1e6)[2], rouge_l(c, r, 0.0)[2]], [0.5, 1.0], rtol=1e-9)
check_true("no common token: all three are 0", rouge_l(["x"], ["y", "z"]) == (0.0, 0.0, 0.0))
check_close("unequal lengths: P = LCS/n uses the candidate, R = LCS/m the reference",
            rouge_l(words("a b c d e"), words("a c")), [2 / 5, 1.0, 2 * 0.4 / 1.4], rtol=1e-12)

# --- in code: rouge-score ---
# RougeScorer(["rougeL"]).score(target, prediction) takes the reference first (check 2 runs it on
# every pair); its F is beta = 1.
reference, candidate = SUMMARY_PAIRS[3]                # 9 reference words, 10 candidate words
card_p, card_r, _ = rouge_l(words(candidate), words(reference))
swapped = scorer.score(candidate, reference)["rougeL"]
check_close("pitfall: score(candidate, reference) swaps precision and recall",
            [swapped.precision, swapped.recall], [card_r, card_p], rtol=1e-12)
check_true("and they differ here", abs(card_p - card_r) > 1e-3, f"P {card_p:.4f}, R {card_r:.4f}")
# "rougeLsum" is another measure: it splits the texts at newlines and takes a union LCS per
# reference sentence (Lin's summary-level ROUGE-L), so for multi-sentence text it is not the card's:
# here 3 + 6 of the reference's 10 words, where one LCS across both sentences keeps only 6.
ref_two = "police killed the gunman\nthe cat sat on the mat"
cand_two = "the cat sat on the mat\npolice kill the gunman"
lsum = rouge_scorer.RougeScorer(["rougeLsum"]).score(ref_two, cand_two)["rougeLsum"]
check_close("rougeLsum's recall on two sentences in swapped order: 9/10, the card's LCS gives 6/10",
            [lsum.recall, rouge_l(words(cand_two), words(ref_two))[1]], [0.9, 0.6], rtol=1e-12)
# --- end in code ---

# Figure: F as beta moves weight from precision to recall.
betas = np.logspace(-2, 2, 200)
fig, ax = figure("ROUGE-L F-measure vs beta ('the cat sat' vs a 6-word reference)", "beta",
                 "F_LCS")
ax.semilogx(betas, [rouge_l(c, r, b)[2] for b in betas])
ax.axhline(1.0, color="gray", ls=":", label="precision (beta -> 0)")
ax.axhline(0.5, color="gray", ls="--", label="recall (beta -> inf)")
ax.legend()
