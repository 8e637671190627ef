"""Shared toy corpus for the retrieval cards: 32 short documents, 6 queries, graded judgments.

Every card of the retrieval part (similarity, sparse and dense retrieval, fusion, reranking,
diversity, retrieval metrics) reads its documents from here, so a reader sees TF-IDF, BM25 and
its variants, query likelihood, a dense score, fusion, MMR and every metric computed on the same
texts. The texts were written for this project. Only data, plain counting and one reference
score live here; each card implements its own formula in its own snippet and checks it against
an independent route.

What is in it
- DOCS: 32 documents (id, title, body) about LLMs, RAG and agents, 15 to 133 tokens long. Some
  terms are in most documents ("the", "a", "of"), some in one or two ("bm25", "hnsw", "lora").
  d04 repeats query terms many times (keyword stuffing); d28 is a long survey that mentions each
  of them once, the case where length normalization matters.
- QUERIES: 6 queries; every query term occurs somewhere in the corpus, so collection language
  models give it a non-zero probability.
- QRELS: graded judgments per query, 0 (judged not relevant) to 3 (highly relevant). Documents
  not listed for a query are unjudged and count as 0, as in TREC practice.

API
- DOCS, DOC_IDS, N_DOCS, QUERIES, QRELS, FIELDS
- tokenize(text), doc_tokens(field), query_tokens(qid), vocabulary(field)
- count_matrix(terms, field): documents x terms counts; df(term), cf(term), doc_lengths(),
  avgdl(), collection_length(), collection_model(terms) = cf / |C|
- grades(qid): grade of every document (unjudged = 0); relevant(qid, min_grade)
- embed(text), doc_embeddings(), query_embedding(qid), EMBED_DIM, trigram_counts(text)
- rsj_idf(n_t, N) and bm25_reference(query, k1, b, idf): a plain-loop BM25, the reference the
  BM25-variant cards use for their limiting cases (the BM25 card holds the formula itself).

Conventions
- tokenize(): lower-case, split on anything that is not a letter or a digit, no stemming and no
  stop-word removal ("retriever" and "retrieval" are different terms; "the" is a term).
- A document's text is its title followed by its body; fields "title" and "body" are available
  separately (for BM25F).
- embed(): a small deterministic dense embedding, NOT a trained model. Each token, wrapped as
  "<token>", is cut into character trigrams; each trigram is hashed with CRC-32 (stable across
  runs and machines, unlike Python's hash) into one of N_BUCKETS buckets; the bucket counts are
  multiplied by a fixed Gaussian matrix (numpy default_rng(20240611), N_BUCKETS x EMBED_DIM) and
  the result is scaled to unit length. Texts that share words or word pieces ("retriever",
  "retrieval") get high cosine, so it behaves like a crude semantic encoder that is not fooled by
  morphology the way exact term matching is.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from functools import cache
from typing import NamedTuple

import numpy as np


class Doc(NamedTuple):
    id: str
    title: str
    body: str

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.body}"


_RAW = [
    ("d01", "BM25 in one paragraph",
     "BM25 scores a document by summing, over the query terms, an inverse document frequency weight "
     "times a term frequency factor. The factor saturates: the tenth occurrence of a term adds far "
     "less than the first. Long documents are normalized by their length relative to the average."),
    ("d02", "Why term frequency saturates",
     "Repeating a keyword does not make a page more relevant. Saturation caps the contribution of "
     "term frequency, and the parameter k1 sets how quickly the cap is reached."),
    ("d03", "TF-IDF weighting",
     "TF-IDF multiplies the term frequency in a document by the inverse document frequency of the "
     "term. Rare terms get large weights and common terms such as the or of get weights near zero."),
    ("d04", "Keyword stuffing",
     "term frequency term frequency term frequency term frequency term frequency bm25 bm25 bm25"),
    ("d05", "Dense retrieval with a bi-encoder",
     "A dense retriever encodes the query and each passage into embeddings with two transformer "
     "encoders and scores them by a dot product. Semantic matches are found even when the words "
     "differ."),
    ("d06", "Sentence embeddings",
     "Sentence embeddings map a whole sentence to one vector so that paraphrases land close "
     "together; cosine similarity between embeddings measures semantic relatedness."),
    ("d07", "Hybrid search",
     "Hybrid search runs a sparse keyword retriever such as BM25 and a dense retriever side by side "
     "and fuses the two ranked lists, for example with reciprocal rank fusion."),
    ("d08", "Approximate nearest neighbour search",
     "Exact nearest neighbour search compares the query vector with every stored vector. An "
     "approximate nearest neighbour index such as HNSW or IVF trades a little recall for a large "
     "speedup."),
    ("d09", "Product quantization",
     "Product quantization splits each vector into sub-vectors and replaces every sub-vector by the "
     "nearest centroid of a small codebook, so the vector index fits in memory and distances are "
     "computed from lookup tables."),
    ("d10", "HNSW graphs",
     "HNSW builds a layered proximity graph over the vectors; a greedy search descends from the "
     "sparse top layer to the dense bottom layer to find approximate nearest neighbours."),
    ("d11", "Retrieval-augmented generation",
     "Retrieval-augmented generation retrieves passages relevant to the question and places them in "
     "the prompt, so the language model can ground its answer in the retrieved text instead of its "
     "parametric memory."),
    ("d12", "Reducing hallucination",
     "A model hallucinates when it states facts that no source supports. Grounding answers in "
     "retrieved passages and asking the model to cite them helps to reduce hallucination, but only "
     "if the retriever finds the right passages."),
    ("d13", "Faithfulness metrics",
     "Faithfulness checks whether every claim in a generated answer can be inferred from the "
     "retrieved context; answer relevance checks whether the answer addresses the question."),
    ("d14", "Chunking documents",
     "Long documents are split into chunks of a few hundred tokens, often with overlap, before "
     "indexing. Chunks that are too long dilute the embedding; chunks that are too short lose "
     "context."),
    ("d15", "Reranking with a cross-encoder",
     "A cross-encoder reads the query and a candidate passage together and outputs a relevance "
     "score. It is too slow for the whole collection, so it reranks the top candidates of a "
     "first-stage retriever."),
    ("d16", "Learning to rank",
     "Learning to rank trains a scoring function from graded relevance labels with pointwise, "
     "pairwise or listwise losses."),
    ("d17", "Ranking metrics",
     "Precision and recall ignore the order of results. Mean reciprocal rank rewards the first "
     "relevant hit, and nDCG discounts graded relevance by the logarithm of the rank, so it "
     "measures ranking quality when judgments are graded."),
    ("d18", "Relevance judgments",
     "Test collections pair queries with graded relevance judgments made by assessors, for example "
     "0 for not relevant up to 3 for highly relevant."),
    ("d19", "Tool-using agents",
     "An agent is a language model in a loop: it reads the task, decides on an action, calls a tool "
     "such as a search engine or a calculator, observes the result and plans the next step."),
    ("d20", "Planning for agents",
     "Planning breaks a goal into steps before acting. ReAct interleaves reasoning with tool calls, "
     "while plan-and-execute agents write the whole plan first and revise it when a tool call "
     "fails."),
    ("d21", "Agent memory",
     "Agents store past observations in a memory and retrieve the most relevant ones with "
     "embeddings, weighting them by recency and importance."),
    ("d22", "Function calling",
     "Function calling lets the model emit a structured tool call with arguments; the runtime "
     "executes the tool and returns the output to the model."),
    ("d23", "Tokenization",
     "A tokenizer splits text into subword tokens using byte pair encoding. The vocabulary size "
     "trades sequence length against the size of the embedding table."),
    ("d24", "Attention",
     "Self-attention lets every token attend to every other token. The cost grows with the square "
     "of the sequence length, which is why long context is expensive."),
    ("d25", "LoRA fine-tuning",
     "LoRA fine-tunes a large model by adding trainable low-rank matrices to frozen weights, so "
     "only a small fraction of parameters is updated."),
    ("d26", "Quantization",
     "Quantization stores weights in eight or four bits instead of sixteen, shrinking memory and "
     "speeding up inference at a small cost in accuracy."),
    ("d27", "Query likelihood",
     "The query likelihood model ranks documents by the probability that a language model "
     "estimated from the document generates the query. Smoothing with the collection model avoids "
     "zero probabilities for missing terms."),
    ("d28", "A long survey of search engines",
     "A search engine has many parts. A crawler fetches pages and follows links; a parser removes "
     "markup and splits the text into words; the indexer writes an inverted index whose posting "
     "lists are compressed with variable byte codes. At query time the engine looks up the posting "
     "list of each word, merges the lists, and scores the candidates, classically with BM25 or a "
     "language model, where term frequency, document length and rarity all play a part, with "
     "saturation keeping repeated words in check. Caches keep popular results in memory. Snippets "
     "are generated for the result page, spam filters demote pages that stuff keywords, and "
     "click logs are mined to tune the ranking. Finally the whole system is evaluated offline on "
     "test collections and online with interleaving experiments."),
    ("d29", "Inverted index",
     "An inverted index maps every term to the list of documents that contain it, with the term "
     "frequency in each; document frequency is the length of that list."),
    ("d30", "Semantic search",
     "Semantic search finds text by meaning rather than exact words, usually by embedding queries "
     "and documents in the same vector space and returning the nearest neighbours."),
    ("d31", "Prompt engineering",
     "A prompt tells the model what to do; few-shot examples in the prompt show the format of the "
     "answer."),
    ("d32", "Evaluating RAG",
     "Evaluating a RAG system needs both retrieval metrics, such as recall of the relevant "
     "passages, and generation metrics, such as faithfulness of the answer to the retrieved "
     "context."),
]

DOCS: tuple[Doc, ...] = tuple(Doc(*row) for row in _RAW)
DOC_IDS: tuple[str, ...] = tuple(d.id for d in DOCS)
N_DOCS = len(DOCS)

QUERIES: dict[str, str] = {
    "q1": "bm25 term frequency saturation",
    "q2": "dense retriever embeddings for semantic search",
    "q3": "agent tool calls and planning",
    "q4": "grounding answers in retrieved passages to reduce hallucination",
    "q5": "approximate nearest neighbour vector index",
    "q6": "evaluating ranking quality with graded relevance",
}

# Graded judgments: 3 highly relevant, 2 relevant, 1 marginal, 0 judged not relevant.
QRELS: dict[str, dict[str, int]] = {
    "q1": {"d01": 3, "d02": 3, "d03": 1, "d28": 1, "d29": 1, "d07": 1, "d04": 0},
    "q2": {"d05": 3, "d30": 3, "d06": 2, "d07": 2, "d21": 1, "d08": 1, "d14": 0},
    "q3": {"d19": 3, "d20": 3, "d22": 2, "d21": 1, "d31": 0},
    "q4": {"d12": 3, "d11": 3, "d13": 2, "d32": 1, "d15": 1},
    "q5": {"d08": 3, "d10": 3, "d09": 2, "d30": 1, "d29": 0},
    "q6": {"d17": 3, "d18": 2, "d16": 2, "d32": 1, "d15": 1},
}

FIELDS = ("text", "title", "body")
_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case, then split on every character that is not a letter or a digit."""
    return _TOKEN.findall(text.lower())


@cache
def _tokens(field: str) -> tuple[tuple[str, ...], ...]:
    if field not in FIELDS:
        raise ValueError(f"field must be one of {FIELDS}, not {field!r}")
    return tuple(tuple(tokenize(getattr(d, field))) for d in DOCS)


def doc_tokens(field: str = "text") -> list[list[str]]:
    """The tokens of every document, in DOCS order (a fresh list, safe to modify)."""
    return [list(t) for t in _tokens(field)]


def query_tokens(qid: str) -> list[str]:
    return tokenize(QUERIES[qid])


@cache
def _vocabulary(field: str) -> tuple[str, ...]:
    return tuple(sorted({t for doc in _tokens(field) for t in doc}))


def vocabulary(field: str = "text") -> list[str]:
    """Sorted distinct terms of the collection."""
    return list(_vocabulary(field))


def count_matrix(terms: list[str] | None = None, field: str = "text") -> np.ndarray:
    """Term counts c(t, d): one row per document, one column per term (default: the vocabulary)."""
    terms = vocabulary(field) if terms is None else list(terms)
    col = {t: j for j, t in enumerate(terms)}
    counts = np.zeros((N_DOCS, len(terms)))
    for i, doc in enumerate(_tokens(field)):
        for t, c in Counter(doc).items():
            if t in col:
                counts[i, col[t]] = c
    return counts


def df(term: str, field: str = "text") -> int:
    """Document frequency: number of documents that contain the term at least once."""
    return sum(term in doc for doc in _tokens(field))


def cf(term: str, field: str = "text") -> int:
    """Collection frequency: total number of occurrences of the term in the collection."""
    return sum(doc.count(term) for doc in _tokens(field))


def doc_lengths(field: str = "text") -> np.ndarray:
    """Document lengths |d| in tokens."""
    return np.array([len(doc) for doc in _tokens(field)], dtype=float)


def avgdl(field: str = "text") -> float:
    """Average document length."""
    return float(doc_lengths(field).mean())


def collection_length(field: str = "text") -> int:
    """Total number of tokens in the collection, |C|."""
    return int(doc_lengths(field).sum())


def collection_model(terms: list[str] | None = None, field: str = "text") -> np.ndarray:
    """Collection language model P(t | C) = cf(t) / |C| (maximum likelihood over all tokens)."""
    counts = count_matrix(terms, field)
    return counts.sum(axis=0) / collection_length(field)


def rsj_idf(n_t: float, n_docs: int) -> float:
    """Robertson-Spärck Jones IDF without relevance information, ln((N - n + 0.5) / (n + 0.5))."""
    return math.log((n_docs - n_t + 0.5) / (n_t + 0.5))


def bm25_reference(query: list[str], k1: float = 1.2, b: float = 0.75, idf=rsj_idf,
                   field: str = "text") -> np.ndarray:
    """Plain BM25 of every document for a tokenized query, one term at a time with Python loops.

    A reference for the BM25-variant cards' limiting cases (the BM25 card holds the formula itself):
    sum over query tokens t of idf(n_t, N) * f (k1 + 1) / (f + k1 (1 - b + b |d| / avgdl)), where f is
    the count of t in the document; absent terms contribute 0. `idf` takes (n_t, N)."""
    docs = _tokens(field)
    mean_len = sum(len(d) for d in docs) / len(docs)
    scores = []
    for doc in docs:
        total = 0.0
        for t in query:
            f = doc.count(t)
            if f:
                n_t = sum(t in other for other in docs)
                total += idf(n_t, len(docs)) * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / mean_len))
        scores.append(total)
    return np.array(scores)


def grades(qid: str) -> np.ndarray:
    """Relevance grade of every document (DOCS order) for a query; unjudged documents are 0."""
    judged = QRELS[qid]
    return np.array([judged.get(d, 0) for d in DOC_IDS])


def relevant(qid: str, min_grade: int = 1) -> set[int]:
    """Indices of the documents judged at least min_grade for a query."""
    return {i for i, g in enumerate(grades(qid)) if g >= min_grade}


# Dense embeddings (see the module docstring).
EMBED_DIM = 32
N_BUCKETS = 512
_PROJECTION_SEED = 20240611


@cache
def _projection() -> np.ndarray:
    rng = np.random.default_rng(_PROJECTION_SEED)
    return rng.standard_normal((N_BUCKETS, EMBED_DIM)) / np.sqrt(EMBED_DIM)


def trigram_counts(text: str) -> np.ndarray:
    """Hashed character-trigram counts of a text (length N_BUCKETS)."""
    counts = np.zeros(N_BUCKETS)
    for token in tokenize(text):
        padded = f"<{token}>"
        for i in range(len(padded) - 2):
            counts[zlib.crc32(padded[i:i + 3].encode()) % N_BUCKETS] += 1
    return counts


def embed(text: str) -> np.ndarray:
    """Unit-length EMBED_DIM-dimensional embedding of a text (deterministic, not learned)."""
    v = trigram_counts(text) @ _projection()
    return v / np.linalg.norm(v)


@cache
def _doc_embeddings() -> np.ndarray:
    return np.stack([embed(d.text) for d in DOCS])


def doc_embeddings() -> np.ndarray:
    """Embeddings of every document, one unit row per document (a copy)."""
    return _doc_embeddings().copy()


def query_embedding(qid: str) -> np.ndarray:
    return embed(QUERIES[qid])


def _validate() -> None:
    vocab = set(_vocabulary("text"))
    for qid, query in QUERIES.items():
        missing = [t for t in tokenize(query) if t not in vocab]
        if missing:
            raise ValueError(f"query {qid} has terms absent from the corpus: {missing}")
    for qid, judged in QRELS.items():
        unknown = set(judged) - set(DOC_IDS)
        if unknown or not all(0 <= g <= 3 for g in judged.values()):
            raise ValueError(f"bad judgments for {qid}")


_validate()
