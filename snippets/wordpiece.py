"""WordPiece: the pair score vs hand counts, the likelihood gain vs re-segmenting and re-counting."""

from collections import Counter
from itertools import pairwise

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import xlogy
from text_fixture import TRAIN_WORDS


# --- formula ---
def initial_split(word: str) -> tuple[str, ...]:
    """First character as is, every later character with the continuation prefix ##."""
    return (word[0], *("##" + ch for ch in word[1:]))


def merged(a: str, b: str) -> str:
    return a + (b[2:] if b.startswith("##") else b)


def counts(vocab: dict[tuple[str, ...], int]) -> tuple[Counter, Counter]:
    units, pairs = Counter(), Counter()
    for symbols, freq in vocab.items():
        for s in symbols:
            units[s] += freq
        for a, b in pairwise(symbols):
            pairs[a, b] += freq
    return units, pairs


def scores(vocab) -> dict[tuple[str, str], float]:
    """The library score count(ab) / (count(a) count(b))."""
    units, pairs = counts(vocab)
    return {(a, b): c / (units[a] * units[b]) for (a, b), c in pairs.items()}


def merge(vocab, pair):
    out = {}
    for symbols, freq in vocab.items():
        new, i = [], 0
        while i < len(symbols):
            if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
                new.append(merged(*pair))
                i += 2
            else:
                new.append(symbols[i])
                i += 1
        out[tuple(new)] = freq
    return out


def learn_wordpiece(word_freqs: dict[str, int], num_merges: int):
    vocab = {initial_split(w): f for w, f in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        sc = scores(vocab)
        if not sc:
            break
        best = max(sc, key=sc.get)  # ties: the pair met first
        merges.append(best)
        vocab = merge(vocab, best)
    return merges, vocab


def xlogx(x: float) -> float:
    return x * np.log(x) if x > 0 else 0.0


def likelihood_gain(units: Counter, k: int, a: str, b: str) -> float:
    """Exact change of the unigram-LM log-likelihod sum_u c_u log(c_u / N) when the k occurrences
    of the pair (a, b), a != b, become one new unit: c_a, c_b drop by k, N drops by k."""
    ca, cb, n = units[a], units[b], sum(units.values())
    return (xlogx(k) + xlogx(ca - k) - xlogx(ca) + xlogx(cb - k) - xlogx(cb)
            - xlogx(n - k) + xlogx(n))
# --- end formula ---


# 1. The example of the Hugging Face course: hug x10, pug x5, pun x12, bun x4, hugs x5.
#    Hand count: units h 15, p 17, b 4, ##u 36, ##g 20, ##n 16, ##s 5; pairs (h,##u) 15, (p,##u) 17,
#    (b,##u) 4, (##u,##g) 20, (##u,##n) 16, (##g,##s) 5. Every pair scores 1/36 except
#    (##g,##s) = 5 / (20 * 5) = 1/20, the first merge.
hf = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
hf_vocab = {initial_split(w): f for w, f in hf.items()}
sc = scores(hf_vocab)
keys = [("h", "##u"), ("p", "##u"), ("b", "##u"), ("##u", "##g"), ("##u", "##n"), ("##g", "##s")]
check_true("six pairs, as counted by hand", set(sc) == set(keys), str(sorted(sc)))
check_close("scores vs hand values 1/36 (x5) and 1/20", [sc[k] for k in keys], [1 / 36] * 5 + [1 / 20],
            rtol=1e-12)
check_true("first WordPiece merge is (##g, ##s) -> ##gs", learn_wordpiece(hf, 1)[0] == [("##g", "##s")])
units, pairs = counts(hf_vocab)
check_true("unit counts vs hand count",
           dict(units) == {"h": 15, "p": 17, "b": 4, "##u": 36, "##g": 20, "##n": 16, "##s": 5})

# 2. Second and third merges worked by hand. After ##gs: all six pairs tie at 1/36, so (h, ##u),
#    met first, wins. Then units hu 15, p 17, b 4, ##u 21, ##g 15, ##n 16, ##gs 5 and
#    (hu, ##gs) = 5 / (15 * 5) = 1/15 beats (p,##u) = (##u,##n) = (b,##u) = 1/21 and (hu,##g) = 10/225.
m3, v3 = learn_wordpiece(hf, 3)
check_true("merges 2 and 3: (h, ##u) -> hu, then (hu, ##gs) -> hugs",
           m3 == [("##g", "##s"), ("h", "##u"), ("hu", "##gs")], str(m3))
check_true("segmentation after three merges", v3 == {("hu", "##g"): 10, ("p", "##u", "##g"): 5,
                                                      ("p", "##u", "##n"): 12, ("b", "##u", "##n"): 4,
                                                      ("hugs",): 5}, str(v3))

# 3. BPE would merge the most frequent pair instead: (##u, ##g), 20 times.
check_true("BPE's choice on the same counts is (##u, ##g) (count 20), not WordPiece's",
           max(pairs, key=pairs.get) == ("##u", "##g"))


# 4. The primary criterion (Schuster & Nakajima 2012): the gain in training log-likelihood under a
#    unigram model of the units. Independent route: actually merge, re-count from the segmented
#    text, and evaluate sum c log(c/N) with scipy's xlogy, for every candidate pair.
def loglik(vocab) -> float:
    flat = Counter()
    for symbols, freq in vocab.items():
        for s in symbols:
            flat[s] += freq
    c = np.array(list(flat.values()), dtype=float)
    return float(np.sum(xlogy(c, c / c.sum())))


# Word weights need not be integers (down-weighted or sampled text): with weights 0.05 x the course
# counts, several piece counts fall below 1, where x log x is negative.
for name, data in (("Hugging Face example", hf), ("Sennrich dictionary", TRAIN_WORDS),
                   ("fractional weights", {w: 0.05 * f for w, f in hf.items()})):
    vocab = {initial_split(w): f for w, f in data.items()}
    units, pairs = counts(vocab)
    cand = [p for p in pairs if p[0] != p[1]]
    gains = [likelihood_gain(units, pairs[p], *p) for p in cand]
    brute = [loglik(merge(vocab, p)) - loglik(vocab) for p in cand]
    check_close(f"{name}: closed-form likelihood gain vs merge-and-recount, all pairs", gains, brute,
                rtol=1e-11)

# 5. For rare pairs among frequent units the gain is about count(ab) (log(N score) - 1): the score is
#    exp(PMI) / N, and the gain weights the PMI by the pair's count.
big = Counter({"x": 2_000_000, "y": 3_000_000, "z": 95_000_000})
k = 400
approx = k * (np.log(sum(big.values()) * k / (2_000_000 * 3_000_000)) - 1)
check_close("rare pair: gain vs count (log(N score) - 1)", likelihood_gain(big, k, "x", "y"), approx,
            rtol=1e-3)

# On the course example the two criteria disagree: the score picks (##g, ##s), the likelihood
# gain picks the frequent (##u, ##g).
units, pairs = counts(hf_vocab)
gain = {p: likelihood_gain(units, pairs[p], *p) for p in pairs}
check_true("likelihood gain prefers (##u, ##g) over the score's (##g, ##s)",
           max(gain, key=gain.get) == ("##u", "##g") and gain[("##u", "##g")] > gain[("##g", "##s")],
           f"gains {gain[('##u', '##g')]:.2f} vs {gain[('##g', '##s')]:.2f}")

# The page's calculator is checked against scores and likelihood_gain on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows), on a text whose pieces have exactly the given counts:
# the word "a##b" c(ab) times, a and ##b alone for the rest of their counts, and a filler piece. The rows
# include a pair that never occurs and pairs where every a (or every b) is in the pair, where a term
# of the gain is 0 log 0 = 0, and fractional counts below 1.
import cardcalc  # noqa: E402


def pair_score_and_gain(c_ab, c_a, c_b, N):
    vocab = {("a", "##b"): c_ab, ("a",): c_a - c_ab, ("##b",): c_b - c_ab, ("z",): N - c_a - c_b}
    return {"score": scores(vocab)["a", "##b"], "gain": likelihood_gain(counts(vocab)[0], c_ab, "a", "##b")}


# Fractional counts are dyadic so that the re-counted pieces sum to exactly the given values.
cardcalc.table(pair_score_and_gain,
               [row for row in cardcalc.grid(c_ab=(0, 0.25, 5, 20), c_a=(0.5, 5, 20, 1e6),
                                             c_b=(0.375, 5, 20, 1e6), N=(113, 1e4, 2e6))
                if row["c_ab"] <= min(row["c_a"], row["c_b"]) and row["c_a"] + row["c_b"] <= row["N"]])
# --- in code: tokenizers ---
import json  # noqa: E402

from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

# Hugging Face's WordPieceTrainer on the course example, four merges past its alphabet.
hf_tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
hf_tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
alphabet = {ch for w in hf for ch in w} | {"##" + ch for w in hf for ch in w[1:]}
hf_tok.train_from_iterator([w for w, f in hf.items() for _ in range(f)],
                           trainers.WordPieceTrainer(vocab_size=1 + len(alphabet) + 4, show_progress=False,
                                                     special_tokens=["[UNK]"]))
hf_vocab_ids = json.loads(hf_tok.to_str())["model"]["vocab"]
learned = sorted((t for t in hf_vocab_ids if t not in alphabet and t != "[UNK]"), key=hf_vocab_ids.get)
# Replay its learned units, in id order, on the card's counts and merge: each one is the pair with
# the highest COUNT at its step (BPE's rule), not the highest score.
vocab, by_count, by_score = hf_vocab, True, True
for unit in learned:
    step_pairs = counts(vocab)[1]
    pair = next(p for p in step_pairs if merged(*p) == unit)
    by_count &= step_pairs[pair] == max(step_pairs.values())
    by_score &= pair == max(scores(vocab), key=scores(vocab).get)
    vocab = merge(vocab, pair)
check_true("pitfall: WordPieceTrainer's 4 merges (##ug, ##un, hug, pun) are each the most frequent pair",
           learned == ["##ug", "##un", "hug", "pun"] and by_count, str(learned))
check_true("and not the score's choice: its first merge is (##u, ##g), the card's (##g, ##s) never comes",
           not by_score and "##gs" not in hf_vocab_ids and learn_wordpiece(hf, 1)[0] == [("##g", "##s")])
# Encoding does not replay merges: it takes the longest vocabulary entry from the left, then
# continues with ##-pieces; one unmatched character makes the whole word [UNK].
check_true("encode: greedy longest match, 'hugs' -> hug ##s, 'bugs' -> b ##ug ##s",
           hf_tok.encode("hugs bugs").tokens == ["hug", "##s", "b", "##ug", "##s"],
           str(hf_tok.encode("hugs bugs").tokens))
check_true("pitfall: 'mug' (no 'm' in the vocabulary) becomes one [UNK], not [UNK] ##ug",
           hf_tok.encode("mug").tokens == ["[UNK]"])
# --- end in code ---

fig, ax = figure("First WordPiece step on the course example", "library score count(ab)/(count(a)count(b))",
                 "exact log-likelihood gain (nats)")
for p in pairs:
    ax.plot(sc[p], gain[p], "o")
    ax.annotate(f"{p[0]} {p[1]}", (sc[p], gain[p]), textcoords="offset points", xytext=(4, 4), fontsize=8)
