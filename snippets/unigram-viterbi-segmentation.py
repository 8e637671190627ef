"""Unigram Viterbi segmentation vs brute force over every segmentation; a hand example; greedy differs."""

from itertools import combinations, pairwise, product

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp


# --- formula ---
def viterbi(word: str, logp: dict[str, float]) -> tuple[float, tuple[str, ...] | None]:
    """best[j]: highest sum of log p over segmentations of word[:j]; back[j]: the last piece used.
    Returns (log P(x*), x*), or (-inf, None) when no segmentation exists."""
    n = len(word)
    best = np.full(n + 1, -np.inf)
    back: list[str | None] = [None] * (n + 1)
    best[0] = 0.0
    for j in range(1, n + 1):
        for t, lp in logp.items():
            if word.endswith(t, 0, j) and best[j - len(t)] + lp > best[j]:
                best[j] = best[j - len(t)] + lp
                back[j] = t
    if back[-1] is None:
        return -np.inf, None
    pieces, j = [], n
    while j > 0:
        pieces.append(back[j])
        j -= len(back[j])
    return float(best[-1]), tuple(reversed(pieces))
# --- end formula ---


def all_segmentations(word: str):
    n = len(word)
    for k in range(n):
        for cuts in combinations(range(1, n), k):
            yield tuple(word[a:b] for a, b in pairwise((0, *cuts, n)))


def brute_best(word: str, logp: dict[str, float]):
    scored = [(sum(logp[t] for t in s), s) for s in all_segmentations(word) if all(t in logp for t in s)]
    return max(scored) if scored else (-np.inf, None)


# 1. Hand example. Vocabulary and probabilities chosen so the answer is easy to work out:
#    p(l)=p(o)=p(w)=p(e)=p(s)=p(t)=0.05, p(lo)=0.1, p(low)=0.2, p(est)=0.15, p(es)=0.05, p(we)=0.05.
#    "lowest": low+est = 0.2 * 0.15 = 0.03 beats lo+we+s+t (0.1*0.05*0.05*0.05) and every other split.
hand = {"l": .05, "o": .05, "w": .05, "e": .05, "s": .05, "t": .05, "lo": .1, "low": .2, "est": .15,
        "es": .05, "we": .05}
logp_hand = {t: np.log(p) for t, p in hand.items()}
score, pieces = viterbi("lowest", logp_hand)
check_true("'lowest' -> low + est (hand)", pieces == ("low", "est"), str(pieces))
check_close("its log-probability is log(0.2 * 0.15)", score, np.log(0.03), rtol=1e-12)
score, pieces = viterbi("slow", logp_hand)
check_true("'slow' -> s + low, log P = log(0.05 * 0.2)", pieces == ("s", "low")
           and abs(score - np.log(0.01)) < 1e-12, str(pieces))
check_true("no segmentation when a character is missing ('lowly': no 'y')",
           viterbi("lowly", logp_hand) == (-np.inf, None))

# 2. Brute force over all 2^(n-1) segmentations: 60 random strings over {a, b, c} of length 1..9,
#    vocabulary = every string of length <= 3 (39 pieces) with random probabilities (no ties).
rng = np.random.default_rng(0)
pieces_abc = ["".join(p) for k in (1, 2, 3) for p in product("abc", repeat=k)]
probs = rng.dirichlet(np.ones(len(pieces_abc)))
logp_abc = dict(zip(pieces_abc, np.log(probs), strict=True))
words = ["".join(rng.choice(list("abc"), size=rng.integers(1, 10))) for _ in range(60)]
got = [viterbi(w, logp_abc) for w in words]
ref = [brute_best(w, logp_abc) for w in words]
check_close("best log P(x*) vs brute-force max, 60 random strings", [g[0] for g in got], [r[0] for r in ref],
            rtol=1e-12)
check_true("argmax segmentation vs brute force, 60 random strings",
           all(g[1] == r[1] for g, r in zip(got, ref, strict=True)))
check_true("x* always spells the word", all("".join(g[1]) == w for g, w in zip(got, words, strict=True)))

# A sparser vocabulary (some strings have no segmentation at all): drop 'c' as a single piece.
sparse = {t: lp for t, lp in logp_abc.items() if (t != "c" and rng.random() < 0.6) or t in ("a", "b")}
got = [viterbi(w, sparse) for w in words]
ref = [brute_best(w, sparse) for w in words]
check_true("sparse vocabulary: same answers as brute force, including 'no segmentation'",
           all(g[0] == r[0] or abs(g[0] - r[0]) < 1e-12 for g, r in zip(got, ref, strict=True))
           and all(g[1] == r[1] for g, r in zip(got, ref, strict=True))
           and any(g[1] is None for g in got) and any(g[1] is not None for g in got))

# 3. Viterbi keeps the single best path; the forward sum over all paths is larger (max <= log-sum-exp).
w = "abcabca"
all_scores = [sum(logp_abc[t] for t in s) for s in all_segmentations(w) if all(t in logp_abc for t in s)]
check_true("log P(x*) <= log sum_x P(x), strictly when several segmentations exist",
           viterbi(w, logp_abc)[0] < logsumexp(all_scores))

# 4. Greedy longest-match-first (WordPiece-style encoding) is not the Viterbi answer in general.
#    "abcd" with p(abc) = 0.1, p(d) = 0.1, p(ab) = 0.3, p(cd) = 0.3: greedy takes abc + d (0.01),
#    Viterbi ab + cd (0.09).
v = {t: np.log(p) for t, p in {"a": .05, "b": .05, "c": .05, "d": .1, "ab": .3, "abc": .1, "cd": .3}.items()}
check_true("'abcd': Viterbi gives ab + cd (0.09), not greedy longest match abc + d (0.01)",
           viterbi("abcd", v)[1] == ("ab", "cd") and abs(viterbi("abcd", v)[0] - np.log(0.09)) < 1e-12)

# --- in code: tokenizers ---
from tokenizers import Tokenizer, models  # noqa: E402


def hf_unigram(logp: dict[str, float], **options) -> Tokenizer:
    """Hugging Face's Unigram model over the card's pieces and log-probabilities, <unk> as id 0."""
    return Tokenizer(models.Unigram([("<unk>", 0.0)] + [(t, float(lp)) for t, lp in logp.items()], unk_id=0,
                                    **options))


# encode() is the Viterbi path; the segmentations are compared piece by piece (no score ties here).
abc_tok = hf_unigram(logp_abc)
check_true("Unigram(vocab=[(piece, log p)]).encode(w).tokens = x*, 60 random strings",
           all(tuple(abc_tok.encode(w).tokens) == viterbi(w, logp_abc)[1] for w in words))
hand_tok = hf_unigram(logp_hand)
check_true("and the hand example: 'lowest' -> low + est, 'slow' -> s + low",
           hand_tok.encode("lowest").tokens == ["low", "est"]
           and hand_tok.encode("slow").tokens == ["s", "low"])
# Where the card finds no segmentation, the library still returns one: the unknown characters as
# pieces of id unk_id (a run of them as one piece); without unk_id, encode() raises.
lowly = hand_tok.encode("lowly")
check_true("pitfall: 'lowly' (no 'y') gives low + l + y with y as <unk>, where the card has none",
           lowly.tokens == ["low", "l", "y"] and lowly.ids[-1] == 0
           and viterbi("lowly", logp_hand)[1] is None,
           str(lowly.tokens))
# alpha switches encode() from the Viterbi path to sampling a segmentation (subword regularization).
# With alpha = 1 a segmentation is drawn with probability P(x) / sum P; low + est holds 0.958 of the
# mass, so 2000 draws all giving it has probability 0.958^2000 < 1e-37 (the library's sampler is unseeded).
sampler = hf_unigram(logp_hand, alpha=1.0)
samples = {tuple(sampler.encode("lowest").tokens) for _ in range(2000)}
check_true("pitfall: with alpha=1.0 encode() samples: 2000 calls give several segmentations of 'lowest'",
           len(samples) > 1 and ("low", "est") in samples and all("".join(x) == "lowest" for x in samples),
           f"{len(samples)} distinct")
# --- end in code ---
