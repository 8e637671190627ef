"""Shared text data for the tokenization and evaluation-metric cards.

The tokenizer cards (BPE, WordPiece, Unigram LM) train on the same tiny word-frequency list, the
word-embedding cards (skip-gram, CBOW, GloVe) read the same short corpus, the text-overlap metrics
(ROUGE-N, ROUGE-L, METEOR, BERTScore) score the same reference/candidate pairs, and the QA metrics
(exact match, token F1) the same prediction/answer cases. Only data and plain tokenization live
here; each card implements and checks its own formula in its own snippet.

What is in it
- TRAIN_WORDS: the word-frequency dictionary of Sennrich et al. (2016), Algorithm 1:
  low x5, lower x2, newest x6, widest x3.
- EMBED_CORPUS: eight short sentences (written for this project) over a vocabulary of 16 words.
- SUMMARY_PAIRS: (reference, candidate) sentence pairs; the first three are the example of Lin
  (2004, Sec. 3.1): reference "police killed the gunman", candidates "police kill the gunman" and
  "the gunman kill police".
- QA_CASES: (prediction, gold answers) for extractive QA, chosen to exercise every step of the SQuAD
  normalization (case, punctuation, articles, whitespace) and several gold answers per question.
- words(text): lower-case, split on anything that is not a letter or a digit.
- squad_normalize(text): the answer normalization of the official SQuAD v1.1 evaluation script
  (Rajpurkar et al., 2016): lower-case, delete punctuation, delete the articles a/an/the as whole
  words, collapse whitespace, in that order.
"""

from __future__ import annotations

import re
import string

TRAIN_WORDS: dict[str, int] = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

EMBED_CORPUS: tuple[str, ...] = (
    "the cat sat on the mat",
    "the dog sat on the rug",
    "a cat chased a mouse",
    "the dog chased the cat",
    "the mouse ate the cheese",
    "a dog ate a bone",
    "the cat ate the fish",
    "a mouse sat on a rug",
)

SUMMARY_PAIRS: tuple[tuple[str, str], ...] = (
    ("police killed the gunman", "police kill the gunman"),
    ("police killed the gunman", "the gunman kill police"),
    ("police killed the gunman", "the gunman police killed"),
    ("the cat sat on the mat near the door", "the cat was sitting on the mat by the door"),
    ("a quick brown fox jumps over the lazy dog", "the fast brown fox leaped over a lazy dog"),
    ("the model was trained on four GPUs for two days",
     "training the model took two days on four GPUs"),
)

QA_CASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Denver Broncos", ("Denver Broncos", "The Denver Broncos")),
    ("the Denver Broncos!", ("Denver Broncos",)),
    ("Broncos", ("Denver Broncos", "The Denver Broncos")),
    ("in the year 1876", ("1876",)),
    ("a.m. shift", ("am shift",)),
    ("An apple, an orange", ("apple and orange", "orange apple")),
    ("Theatre district", ("the atre district",)),
    ("Santa Clara, California", ("Levi's Stadium", "Santa Clara")),
)


def words(text: str) -> list[str]:
    """Lower-case and split on every run of characters that are not letters or digits."""
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def squad_normalize(text: str) -> str:
    """SQuAD v1.1 answer normalization: lower, strip punctuation, drop articles, fix whitespace."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())
