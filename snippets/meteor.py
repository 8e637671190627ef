"""METEOR (exact-match module): hand-worked alignments and scores; the alignment vs a brute-force search."""

from itertools import combinations, pairwise, permutations, product

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from text_fixture import words


# --- formula ---
def crossings(mapping: list[tuple[int, int]]) -> int:
    """Pairs of alignment links (i -> j), (k -> q) that cross: i before k but j after q, or the reverse."""
    return sum(1 for (i, j), (k, q) in combinations(mapping, 2) if (i < k) != (j < q))


def align(cand: list[str], ref: list[str]) -> list[tuple[int, int]]:
    """Exact-match alignment: as many one-to-one links between equal words as possible and, among
    those, the one with the fewest crossings (Banerjee & Lavie 2005, Sec. 2)."""
    options = []
    for w in sorted(set(cand) & set(ref)):  # equivalent: a word absent from one side adds no link
        c_pos = [i for i, t in enumerate(cand) if t == w]
        r_pos = [j for j, t in enumerate(ref) if t == w]
        if len(c_pos) <= len(r_pos):
            options.append([list(zip(c_pos, p, strict=True)) for p in permutations(r_pos, len(c_pos))])
        else:
            options.append([list(zip(p, r_pos, strict=True)) for p in permutations(c_pos, len(r_pos))])
    best: list[tuple[int, int]] = []
    best_cross = None
    for choice in product(*options):
        mapping = sorted(link for links in choice for link in links)
        cross = crossings(mapping)
        if best_cross is None or cross < best_cross:
            best, best_cross = mapping, cross
    return best


def chunks(mapping: list[tuple[int, int]]) -> int:
    """Fewest groups of links that are adjacent in both sentences and in the same order."""
    links = sorted(mapping)
    if not links:
        return 0
    return 1 + sum(1 for a, b in pairwise(links) if not (b[0] == a[0] + 1 and b[1] == a[1] + 1))


def meteor(cand: list[str], ref: list[str]) -> float:
    """Fmean = 10 P R / (R + 9 P); Penalty = 0.5 (chunks / matches)^3; score = Fmean (1 - Penalty)."""
    # Swapping the sentences cannot change the result: a word seen equally often in both is linked in
    # order in every fewest-crossings alignment (any other pairing adds crossings), the other words'
    # options are tried in the same order either way, and m, crossings and chunks are symmetric.
    mapping = align(cand, ref)  # equivalent: align(ref, cand) finds the same links, swapped
    m = len(mapping)
    if m == 0:
        return 0.0
    p, r = m / len(cand), m / len(ref)
    fmean = 10 * p * r / (r + 9 * p)
    penalty = 0.5 * (chunks(mapping) / m) ** 3
    return fmean * (1 - penalty)
# --- end formula ---


# 1. Hand-worked: reference "the cat sat on the mat", candidate "the cat was on the mat".
#    Links the-the (0-0), cat, on, the-the (4-4), mat: m = 5, P = R = 5/6, Fmean = 5/6.
#    Chunks "the cat" and "on the mat": 2. Penalty = 0.5 (2/5)^3 = 0.032. Score = 5/6 * 0.968.
ref, cand = words("the cat sat on the mat"), words("the cat was on the mat")
check_true("alignment by hand: (0,0) (1,1) (3,3) (4,4) (5,5)", align(cand, ref) == [(0, 0), (1, 1), (3, 3),
                                                                                   (4, 4), (5, 5)])
check_close("score = 5/6 (1 - 0.5 (2/5)^3) = 0.80667", meteor(cand, ref), 5 / 6 * 0.968, rtol=1e-12)

# 2. Lin's reordered sentence: "the gunman kill police" vs "police killed the gunman" (no stemming,
#    so kill/killed do not match): m = 3, P = R = 3/4, chunks "the gunman" and "police": 2.
#    Penalty = 0.5 (2/3)^3 = 4/27; score = 3/4 * 23/27 = 23/36.
check_close("reordered: 23/36", meteor(words("the gunman kill police"), words("police killed the gunman")),
            23 / 36, rtol=1e-12)

# 3. Duplicated words: which "the" links to which decides the crossings. Reference
#    "the cat and the dog", candidate "the dog and the cat". Keeping the-the in order gives
#    5 crossings, swapping them 8; the aligner must keep them in order. Chunks: the | dog | and the | cat
#    = 4, P = R = 1, score = 1 - 0.5 (4/5)^3 = 0.744.
ref, cand = words("the cat and the dog"), words("the dog and the cat")
mapping = align(cand, ref)
check_true("duplicates: links (0,0) (1,4) (2,2) (3,3) (4,1), 5 crossings (swapped: 8)",
           mapping == [(0, 0), (1, 4), (2, 2), (3, 3), (4, 1)] and crossings(mapping) == 5
           and crossings([(0, 3), (1, 4), (2, 2), (3, 0), (4, 1)]) == 8)
check_close("duplicates: 4 chunks, score 0.744", [chunks(mapping), meteor(cand, ref)], [4, 0.744], rtol=1e-12)

# 3b. Chunks need adjacency in BOTH sentences and the same order. Counted by hand:
#    reversed "one two three four" vs "four three two one": every link is its own chunk (4), since each
#    neighbour pair is adjacent in both but runs backwards in the reference; m = 4, P = R = 1,
#    penalty 0.5 (4/4)^3 = 0.5, score 1/2.
#    a word inserted in the candidate, "the black cat" vs "the cat": links (0,0), (2,1) are adjacent in
#    the reference only, so 2 chunks; P = 2/3, R = 1, Fmean = 20/21, penalty 0.5, score 10/21.
#    a word inserted in the reference, "the cat" vs "the black cat": adjacent in the candidate only,
#    2 chunks; P = 1, R = 2/3, Fmean = 20/29, penalty 0.5, score 10/29.
cases = [("one two three four", "four three two one"), ("the black cat", "the cat"),
         ("the cat", "the black cat")]
found = [(chunks(align(words(c), words(r))), meteor(words(c), words(r))) for c, r in cases]
check_close("reversed order: 4 chunks, score 1/2; inserted word in candidate: 2 chunks, 10/21; "
            "in reference: 2 chunks, 10/29", found, [(4, 1 / 2), (2, 10 / 21), (2, 10 / 29)], rtol=1e-12)

# 3c. A repeated word: candidate "the cat the" vs reference "the cat". Both 2-link alignments exist;
#    (0,0) (1,1) has no crossing and one chunk, score (20/21)(1 - 0.5/8) = 25/28. Linking the final
#    "the" instead, (1,1) (2,0), as a greedy right-to-left matcher does, crosses once and makes 2 chunks.
cand, ref = words("the cat the"), words("the cat")
check_true("repeated word: the fewest-crossings links (0,0) (1,1), 1 chunk; (1,1) (2,0) would be 2 chunks",
           align(cand, ref) == [(0, 0), (1, 1)] and chunks(align(cand, ref)) == 1
           and chunks([(1, 1), (2, 0)]) == 2)
check_close("repeated word: score 25/28 (the greedy links would give 10/21)", meteor(cand, ref), 25 / 28,
            rtol=1e-12)

# 4. Recall weighs 9 times precision. "the cat" vs the 6-word reference: P = 1, R = 1/3,
#    Fmean = 10 (1/3) / (1/3 + 9) = 5/14; one chunk of 2: penalty 1/16; score 75/224.
#    Swapped roles (P = 1/3, R = 1): Fmean = 10/3 / (1 + 3) = 5/6, score 5/6 * 15/16.
short, full = words("the cat"), words("the cat sat on the mat")
check_close("short candidate 75/224; long candidate 25/32", [meteor(short, full), meteor(full, short)],
            [75 / 224, 5 / 6 * 15 / 16], rtol=1e-12)

# 5. Identical sentences do not score 1: one chunk of m words still costs 0.5 / m^3.
check_close("identical 6-word sentence: 1 - 0.5/216", meteor(full, full), 1 - 0.5 / 216, rtol=1e-12)
check_true("no common word: score 0 (and an empty alignment has 0 chunks)",
           meteor(words("a b c"), words("x y")) == 0.0 and chunks([]) == 0)


# 6. The alignment vs a brute-force search over every one-to-one set of equal-word links (any size),
#    keeping the largest and then the least-crossing ones, on 300 random pairs over a 3-word vocabulary.
def brute_alignments(cand, ref):
    links = [(i, j) for i, a in enumerate(cand) for j, b in enumerate(ref) if a == b]
    best_size, best_cross = 0, 0
    for k in range(len(links), 0, -1):
        found = [s for s in combinations(links, k) if len({i for i, _ in s}) == k == len({j for _, j in s})]
        if found:
            best_size, best_cross = k, min(crossings(list(s)) for s in found)
            break
    return best_size, best_cross


rng = np.random.default_rng(0)
ok = True
for _ in range(300):
    c = list(rng.choice(list("abc"), size=rng.integers(1, 6)))
    r = list(rng.choice(list("abc"), size=rng.integers(1, 6)))
    a = align(c, r)
    ok &= (len(a), crossings(a)) == brute_alignments(c, r) and all(c[i] == r[j] for i, j in a)
check_true("alignment has the brute-force maximum size and minimum crossings (300 random pairs)", ok)

# --- in code: nltk ---
from nltk.translate.meteor_score import meteor_score  # noqa: E402


class ExactOnly:
    """Stands in for both the stemmer and the WordNet reader: a stem is the word itself and no word has
    synonyms, so only the exact stage links words (and no WordNet data has to be downloaded)."""

    def stem(self, word):
        return word

    def synsets(self, word):
        return []


exact = {"stemmer": ExactOnly(), "wordnet": ExactOnly()}
# Pairs without a repeated word out of order, where nltk's greedy links are the fewest-crossings ones.
pairs = [("the cat was on the mat", "the cat sat on the mat"),
         ("the gunman kill police", "police killed the gunman"),
         ("the dog and the cat", "the cat and the dog"), ("the black cat", "the cat"),
         ("the cat", "the black cat"), ("one two three four", "four three two one")]
# Its defaults alpha=0.9, beta=3, gamma=0.5 (Fmean = PR / (0.9 P + 0.1 R)) are the card's constants.
# The same three ratios and power in both routes: a few ulps.
check_close("meteor_score([ref], cand, stemmer, wordnet without synonyms) = the card's exact-stage METEOR",
            [meteor_score([words(r)], words(c), **exact) for c, r in pairs],
            [meteor(words(c), words(r)) for c, r in pairs], rtol=1e-12)
cand, ref = words("the cat"), words("the black cat")
check_close("pitfall: references come first; meteor_score([cand], ref) scores ref as the candidate: 10/21",
            meteor_score([cand], ref, **exact), meteor(ref, cand), rtol=1e-12)
check_true("... not the card's 10/29, since recall weighs 9 times precision",
           np.isclose(meteor(cand, ref), 10 / 29) and np.isclose(meteor(ref, cand), 10 / 21))
# Porter stems kill and killed alike, as if the candidate said "killed": m = 4, links (0,2) (1,3) (2,1)
# (3,0), 3 chunks, score 1 - 0.5 (3/4)^3 = 101/128 instead of the exact stage's 23/36.
ref = words("police killed the gunman")
check_close("pitfall: the default Porter stemmer also links kill/killed: 101/128, not the exact 23/36",
            meteor_score([ref], words("the gunman kill police"), wordnet=ExactOnly()),
            meteor(words("the gunman killed police"), ref), rtol=1e-12)
check_close("pitfall: greedy links on a repeated word: 'the cat the' vs 'the cat' gives 10/21, not 25/28",
            meteor_score([words("the cat")], words("the cat the"), **exact), 10 / 21, rtol=1e-12)
check_true("... where the card's fewest-crossings alignment scores 25/28",
           np.isclose(meteor(words("the cat the"), words("the cat")), 25 / 28))
# --- end in code ---

fig, ax = figure("METEOR fragmentation penalty", "chunks / matched unigrams", "penalty")
frac = np.linspace(0, 1, 101)
ax.plot(frac, 0.5 * frac**3)
ax.set_ylim(0, 0.55)
