"""BM25: vectorized scores vs a brute-force loop, a hand-computed value and limiting cases."""

from collections import Counter

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

corpus = [
    "cat cat dog fish",
    "dog bird bird fish fish fish",
    "fish fish bird bird dog",
    "bird dog dog fish bird",
]
docs = [text.split() for text in corpus]


# --- formula ---
def rsj_idf(n_t: np.ndarray, n_docs: int) -> np.ndarray:
    """Robertson-Sparck Jones IDF without relevance information."""
    return np.log((n_docs - n_t + 0.5) / (n_t + 0.5))


def bm25_matrix(query: list[str], docs: list[list[str]], k1: float = 1.2, b: float = 0.75,
                idf=rsj_idf) -> np.ndarray:
    """BM25 score of every document, computed from a term-document count matrix."""
    vocab = sorted({t for d in docs for t in d} | set(query))
    index = {t: i for i, t in enumerate(vocab)}
    tf = np.zeros((len(docs), len(vocab)))
    for j, d in enumerate(docs):
        for t in d:
            tf[j, index[t]] += 1
    lengths = np.array([[len(d)] for d in docs], dtype=float)   # |d|, one row per document
    norm = 1 - b + b * lengths / lengths.mean()
    weights = idf((tf > 0).sum(axis=0), len(docs))
    denom = tf + k1 * norm
    # Absent terms contribute 0 (guards the 0/0 that k1 = 0 would produce).
    per_term = weights * np.divide(tf * (k1 + 1), denom, out=np.zeros_like(tf), where=tf > 0)
    cols = [index[t] for t in query]
    return per_term[:, cols].sum(axis=1)
# --- end formula ---


def bm25_loop(query: list[str], doc: list[str], docs: list[list[str]], k1: float = 1.2,
              b: float = 0.75) -> float:
    """The same score, term by term, with plain Python counting."""
    avgdl = sum(len(d) for d in docs) / len(docs)
    counts = Counter(doc)
    score = 0.0
    for t in query:
        n_t = sum(t in d for d in docs)
        idf = np.log((len(docs) - n_t + 0.5) / (n_t + 0.5))
        f = counts[t]
        score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
    return score


query = ["cat", "bird", "fish"]
check_close("vectorized BM25 vs brute-force loop, 4 documents",
            bm25_matrix(query, docs), [bm25_loop(query, d, docs) for d in docs])

# By hand, query "cat" against document 0: N = 4, n = 1, f = 2, |d| = 4, avgdl = 20/4 = 5.
# IDF = ln(3.5/1.5) = 0.8472979; tf factor = 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 0.8)) = 4.4/3.02
# = 1.4569536; score = 1.2344737.
check_close("hand-computed score for 'cat' in document 0", bm25_matrix(["cat"], docs)[0],
            1.2344737, rtol=1e-7)

one_hit = ["cat"]
check_close("k1 = 0: score is the IDF of the matched terms",
            bm25_matrix(one_hit, docs, k1=0.0), [np.log(3.5 / 1.5), 0, 0, 0])
long_doc = [["cat"] * 10_000 + ["dog"], *docs[1:]]
check_close("tf -> infinity: contribution saturates at (k1 + 1) * IDF",
            bm25_matrix(one_hit, long_doc, b=0.0)[0], 2.2 * np.log(3.5 / 1.5), rtol=1e-3)

# "dog" is in every document: the RSJ IDF is negative, the Lucene variant is not.
dog_rsj = bm25_matrix(["dog"], docs)
dog_lucene = bm25_matrix(["dog"], docs, idf=lambda n, N: np.log1p((N - n + 0.5) / (n + 0.5)))
check_true("RSJ IDF turns negative for a term in > N/2 documents; Lucene's log(1 + .) stays positive",
           np.all(dog_rsj < 0) and np.all(dog_lucene > 0),
           f"RSJ scores {np.round(dog_rsj, 3)}, Lucene scores {np.round(dog_lucene, 3)}")

# The page's calculator is checked against rsj_idf and bm25_matrix on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows). Each row is a collection built to have the row's statistics,
# scored as the one-term query "t": absent (f = 0) and present terms, k1 = 0, b = 0 and 1, documents
# shorter and longer than average, and a term in most documents (negative IDF).
import cardcalc  # noqa: E402


def collection(f, dl, avgdl, N, n):
    """N documents: the first has dl tokens, f of them "t"; n documents in all hold "t" (the first among
    them when f > 0); the others share the remaining tokens so that the lengths average avgdl."""
    others, holders = int(N) - 1, int(n) - (f > 0)
    rest = int(N * avgdl) - int(dl)
    lengths = [rest // others + (i < rest % others) for i in range(others)]
    return [["t"] * int(f) + ["x"] * int(dl - f),
            *(["t"] * (i < holders) + ["x"] * (length - (i < holders)) for i, length in enumerate(lengths))]


cardcalc.table(lambda f, dl, avgdl, N, n, k1, b: {
                   "idf": float(rsj_idf(n, N)),
                   "score": float(bm25_matrix(["t"], collection(f, dl, avgdl, N, n), k1, b)[0])},
               cardcalc.grid(f=(0, 1, 3, 20), dl=(20, 90), avgdl=(25, 40), N=(5, 40), n=(1, 4), k1=(0.0, 1.2),
                             b=(0.0, 0.75, 1.0)))

# --- in code: rank-bm25 ---
from rank_bm25 import BM25Okapi  # noqa: E402

okapi = BM25Okapi(docs, k1=1.2, b=0.75)
# "cat" is the one term in fewer than half the documents: its IDF is the card's.
check_close("BM25Okapi(docs, k1=1.2, b=0.75).get_scores(q) = BM25 where every IDF is positive",
            okapi.get_scores(["cat"]), bm25_matrix(["cat"], docs), rtol=1e-12)
check_close("pitfall: the default k1 is 1.5, not 1.2",
            BM25Okapi(docs).get_scores(["cat"]), bm25_matrix(["cat"], docs, k1=1.5), rtol=1e-12)


def floored_idf(n_t: np.ndarray, n_docs: int) -> np.ndarray:
    """rank_bm25's IDF: a negative one is replaced by 0.25 times the mean IDF of the vocabulary."""
    vocabulary = sorted({t for d in docs for t in d})
    mean = rsj_idf(np.array([sum(t in d for d in docs) for t in vocabulary]), n_docs).mean()
    raw = rsj_idf(n_t, n_docs)
    return np.where(raw < 0, 0.25 * mean, raw)


check_close("pitfall: a negative IDF is floored at epsilon * mean IDF (epsilon = 0.25)",
            okapi.get_scores(query), bm25_matrix(query, docs, idf=floored_idf), rtol=1e-12)
bird_okapi, bird_card = okapi.get_scores(["bird"]), bm25_matrix(["bird"], docs)
check_true("so 'bird', in 3 of 4 documents, is not weighted by its own IDF ln(1.5/3.5)",
           np.abs(bird_okapi - bird_card).max() > 0.1, f"rank_bm25 {np.round(bird_okapi, 3)}, "
           f"card {np.round(bird_card, 3)}")
# --- end in code ---

# Saturation of the term-frequency factor (per unit of IDF).
f = np.arange(0, 21)
fig, ax = figure("BM25 term-frequency saturation", "occurrences of the term  f(t, d)",
                 "contribution / IDF")
for colour, k1 in enumerate((0.5, 1.2, 2.0)):
    for rel_len, style in ((1.0, "-"), (2.0, "--")):
        factor = f * (k1 + 1) / (f + k1 * (1 - 0.75 + 0.75 * rel_len))
        ax.plot(f, factor, style, color=f"C{colour}", label=f"$k_1$={k1}, |d|/avgdl={rel_len:g}")
ax.legend(fontsize=7, ncol=2)
