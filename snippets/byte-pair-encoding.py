"""BPE merges: pair counts vs a hand count, merge order vs the paper's regex algorithm, encoding by hand."""

import re
from collections import Counter, defaultdict
from itertools import pairwise

from cardcheck import check_true
from cardplot import figure
from text_fixture import EMBED_CORPUS, TRAIN_WORDS, words

EOW = "</w>"


# --- formula ---
def pair_counts(vocab: dict[tuple[str, ...], int]) -> Counter:
    """Frequency-weighted count of adjacent symbol pairs inside each word (never across words)."""
    counts: Counter = Counter()
    for symbols, freq in vocab.items():
        for a, b in pairwise(symbols):
            counts[a, b] += freq
    return counts


def merge_pair(symbols: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """Replace each occurrence of the pair, scanning left to right, by one merged symbol."""
    out, i = [], 0
    while i < len(symbols):
        if i < len(symbols) - 1 and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def learn_bpe(word_freqs: dict[str, int], num_merges: int):
    """Sennrich et al. (2016), Algorithm 1: repeatedly merge the most frequent pair.
    Ties go to the pair seen first when scanning the words in order."""
    vocab = {(*w, EOW): f for w, f in word_freqs.items()}
    merges = []
    for _ in range(num_merges):
        counts = pair_counts(vocab)
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges.append(best)
        vocab = {merge_pair(s, best): f for s, f in vocab.items()}
    return merges, vocab


def apply_bpe(word: str, merges) -> tuple[str, ...]:
    """Segment a (possibly unseen) word by replaying the learned merges in order."""
    symbols = (*word, EOW)
    for pair in merges:
        symbols = merge_pair(symbols, pair)
    return symbols
# --- end formula ---


# 1. Pair counts of the paper's dictionary (low x5, lower x2, newest x6, widest x3), counted by hand:
#    l-o: 5 + 2; o-w: 5 + 2; w-</w>: 5; w-e: 2 + 6; e-r: 2; r-</w>: 2; n-e: 6; e-w: 6;
#    e-s: 6 + 3; s-t: 6 + 3; t-</w>: 6 + 3; w-i: 3; i-d: 3; d-e: 3.
hand = {("l", "o"): 7, ("o", "w"): 7, ("w", EOW): 5, ("w", "e"): 8, ("e", "r"): 2, ("r", EOW): 2,
        ("n", "e"): 6, ("e", "w"): 6, ("e", "s"): 9, ("s", "t"): 9, ("t", EOW): 9, ("w", "i"): 3,
        ("i", "d"): 3, ("d", "e"): 3}
start = {(*w, EOW): f for w, f in TRAIN_WORDS.items()}
got = pair_counts(start)
check_true("pair counts of the paper's dictionary == hand count (14 pairs)", dict(got) == hand,
           str(sorted(got.items())))

# 2. The first ten merges, worked by hand from the counts (ties at 9, 7 and 6 go to the pair met
#    first): e s, es t, est </w>, l o, lo w, n e, ne w, new est</w>, low </w>, w i.
merges, vocab = learn_bpe(TRAIN_WORDS, 10)
hand_merges = [("e", "s"), ("es", "t"), ("est", EOW), ("l", "o"), ("lo", "w"), ("n", "e"),
               ("ne", "w"), ("new", "est</w>"), ("low", EOW), ("w", "i")]
check_true("ten merges == the hand-worked sequence", merges == hand_merges, str(merges))
check_true("vocabulary after ten merges == hand segmentation",
           vocab == {("low</w>",): 5, ("low", "e", "r", EOW): 2, ("newest</w>",): 6,
                     ("wi", "d", "est</w>"): 3}, str(vocab))
check_true("after 15 merges every word is one symbol and no pair is left (learning stops)",
           learn_bpe(TRAIN_WORDS, 40)[1] == {(w + EOW,): f for w, f in TRAIN_WORDS.items()}
           and len(learn_bpe(TRAIN_WORDS, 40)[0]) == 15)


# 3. Independent route: the paper's own formulation (Algorithm 1), where words are space-joined
#    strings and a merge is a regex substitution of "a b" by "ab" between whitespace boundaries.
def paper_bpe(word_freqs: dict[str, int], num_merges: int) -> list[tuple[str, str]]:
    vocab = {" ".join(w) + " " + EOW: f for w, f in word_freqs.items()}
    out = []
    for _ in range(num_merges):
        pairs: dict[tuple[str, str], int] = defaultdict(int)
        for word, freq in vocab.items():
            sym = word.split()
            for i in range(len(sym) - 1):
                pairs[sym[i], sym[i + 1]] += freq
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        pattern = re.compile(r"(?<!\S)" + re.escape(" ".join(best)) + r"(?!\S)")
        vocab = {pattern.sub("".join(best), w): f for w, f in vocab.items()}
        out.append(best)
    return out


corpus_words = Counter(w for s in EMBED_CORPUS for w in words(s))
corpus_words.update(TRAIN_WORDS)
check_true("30 merges on a larger word list == the paper's regex formulation",
           learn_bpe(dict(corpus_words), 30)[0] == paper_bpe(dict(corpus_words), 30))

# 4. Each merge shortens the corpus by exactly the count of the merged pair (no pair here overlaps
#    itself), so the symbol total drops by the winning count at every step.
vocab = dict(start)
drops_ok = True
for _ in range(15):
    counts = pair_counts(vocab)
    best = max(counts, key=counts.get)
    before = sum(len(s) * f for s, f in vocab.items())
    vocab = {merge_pair(s, best): f for s, f in vocab.items()}
    drops_ok &= before - sum(len(s) * f for s, f in vocab.items()) == counts[best]
check_true("every merge removes exactly count(a, b) symbols from the corpus", drops_ok)

# 5. Overlapping pairs: "a a a" holds the pair (a, a) twice, but a left-to-right merge makes only one.
check_true("overlap: pair count of 'aaaa' is 3, merging gives aa aa; 'aaa' gives aa a",
           pair_counts({("a",) * 4: 1})[("a", "a")] == 3
           and merge_pair(("a",) * 4, ("a", "a")) == ("aa", "aa")
           and merge_pair(("a",) * 3, ("a", "a")) == ("aa", "a"))

# 6. Unseen words are segmented by replaying the merges (worked by hand from the list above).
check_true("unseen 'lowest' -> low + est</w>; 'newer' -> new e r </w>; 'slow' -> s low</w>",
           apply_bpe("lowest", hand_merges) == ("low", "est</w>")
           and apply_bpe("newer", hand_merges) == ("new", "e", "r", EOW)
           and apply_bpe("slow", hand_merges) == ("s", "low</w>"),
           str([apply_bpe(w, hand_merges) for w in ("lowest", "newer", "slow")]))

# --- in code: tokenizers ---
import json  # noqa: E402

from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402


def hf_bpe(**trainer_options) -> Tokenizer:
    """Hugging Face's BpeTrainer on the paper's dictionary, each word fed as often as it occurs."""
    tokenizer = Tokenizer(models.BPE(end_of_word_suffix=EOW))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=1000, end_of_word_suffix=EOW, show_progress=False,
                                  **trainer_options)
    tokenizer.train_from_iterator([w for w, f in TRAIN_WORDS.items() for _ in range(f)], trainer)
    return tokenizer


def hf_split(word: str) -> tuple[str, ...]:
    """The library's first split: the end-of-word suffix glued to the last character (w</w>)."""
    return (*word[:-1], word[-1] + EOW)


hf = hf_bpe()
hf_merges = [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]
# The card's criterion on the library's own symbols: replaying its merges with the card's
# pair_counts and merge_pair, every merge is a most frequent pair at its step.
vocab = {hf_split(w): f for w, f in TRAIN_WORDS.items()}
every_step_max = True
for pair in hf_merges:
    counts = pair_counts(vocab)
    every_step_max &= counts[pair] == max(counts.values())
    vocab = {merge_pair(s, pair): f for s, f in vocab.items()}
check_true("BpeTrainer: each of its merges is an argmax of the card's pair count", every_step_max,
           str(hf_merges))
check_true("and it stops when every word is one symbol", set(vocab) == {(w + EOW,) for w in TRAIN_WORDS},
           str(vocab))
replayed = {w: tuple(hf.encode(w).tokens) for w in ("lowest", "newer", "slow")}


def replay(word: str) -> tuple[str, ...]:
    symbols = hf_split(word)
    for pair in hf_merges:
        symbols = merge_pair(symbols, pair)
    return symbols


check_true("encode() of unseen words = replaying its merges in order with the card's merge_pair",
           replayed == {w: replay(w) for w in replayed}, str(replayed))
check_true("pitfall: the suffix is glued to the last character, so 13 merges, not the card's 15",
           len(hf_merges) == 13 and len(learn_bpe(TRAIN_WORDS, 40)[0]) == 15)
# Ties at count 6 (n e, e w, w est</w>): the card takes the pair met first, (n, e); the library the
# pair with the smallest symbol ids, and it numbers the first characters alphabetically: (e, w).
check_true("pitfall: ties go to the smallest symbol ids (e, w), not the pair met first (n, e)",
           hf_merges[3] == ("e", "w") and learn_bpe(TRAIN_WORDS, 6)[0][5] == ("n", "e"), str(hf_merges[:5]))
check_true("pitfall: with the glued suffix no mid-word 'low' is learned: lowest -> lo w est</w>, "
           "the card's merges give low est</w>",
           replayed["lowest"] == ("lo", "w", "est</w>")
           and apply_bpe("lowest", hand_merges) == ("low", "est</w>"))
# min_frequency stops training at the first best pair rarer than it (d est</w>, count 3).
short = [tuple(m) for m in json.loads(hf_bpe(min_frequency=4).to_str())["model"]["merges"]]
check_true("pitfall: min_frequency=4 stops after the 7 merges of count >= 4", short == hf_merges[:7],
           str(short))
# Byte-level pre-tokenization (GPT-2): every word keeps its leading space as the byte 'Ġ', and the
# alphabet is all 256 bytes, so the merges are learned on other symbols than the card's.
check_true("pitfall: ByteLevel pre-tokenization marks the space, 'low lower' -> Ġlow, Ġlower",
           [w for w, _ in pre_tokenizers.ByteLevel().pre_tokenize_str("low lower")] == ["Ġlow", "Ġlower"]
           and len(pre_tokenizers.ByteLevel.alphabet()) == 256)
# --- end in code ---

# Figure: corpus length in symbols as merges accumulate.
vocab = {(*w, EOW): f for w, f in corpus_words.items()}
lengths = [sum(len(s) * f for s, f in vocab.items())]
for pair in learn_bpe(dict(corpus_words), 40)[0]:
    vocab = {merge_pair(s, pair): f for s, f in vocab.items()}
    lengths.append(sum(len(s) * f for s, f in vocab.items()))
fig, ax = figure("BPE on the toy word list: corpus length vs merges", "number of merges",
                 "symbols in the corpus")
ax.plot(range(len(lengths)), lengths, marker="o", ms=3)
