"""Shared toy data for the RAG-objective and RAG-evaluation cards: a retrieve-then-generate model
small enough to enumerate, and hand-labelled question/answer/context examples with a fact oracle.

Only data, a sampler and an exact "judge" live here; each card implements its own formula in its
own snippet and checks it against an independent route.

What is in it
- A toy RAG model (RAG-Sequence and RAG-Token cards): an input x, K_TOP = 3 passages kept from 5
  candidates by retriever score, a retriever distribution p_eta(z | x) (softmax over the kept
  scores, as RAG does over its top-k), and per passage a bigram generator p_theta(y_i | x, z, y_{i-1})
  over a 3-token vocabulary (row 0 of each table is the start state). The numbers were drawn once
  from a Dirichlet with a fixed seed and are stored here, so they never change.
  token_logprobs(y): the K x N matrix log p_theta(y_i | x, z, y_{<i}) for an output y;
  all_outputs(n): every output of length n; sample_outputs(rng, size, n, per_token): draws from the
  generative story (one passage for the whole output, or a fresh passage for every token).
- A fact oracle standing in for the LLM judge of RAGAS and the NLI model of ALCE: every statement
  and every passage carries a set of atomic facts (labels written for this project), and a set of
  passages supports a statement when the union of their facts contains all of the statement's facts.
  The texts are from the shared toy corpus (toy_corpus.DOCS), so the passages are real corpus
  documents; the fact labels were assigned by hand from their wording.
- EXAMPLES: three questions (q1, q4 and q5 of the toy corpus) with a ranked list of retrieved
  documents, a generated answer split into statements (with ALCE-style citations), and a reference
  answer split into statements.
"""

from __future__ import annotations

import itertools

import numpy as np

# ---------------------------------------------------------------------------------------------
# 1. Toy RAG model.
# ---------------------------------------------------------------------------------------------
VOCAB = ("yes", "no", "maybe")
V = len(VOCAB)
CANDIDATE_SCORES = np.array([2.1, 0.3, 1.4, -0.5, 0.9])  # inner products d(z)^T q(x) of 5 passages
K_TOP = 3
TOP = np.argsort(-CANDIDATE_SCORES)[:K_TOP]               # passages 0, 2, 4
_s = CANDIDATE_SCORES[TOP]
RETRIEVER = np.exp(_s - _s.max()) / np.exp(_s - _s.max()).sum()   # p_eta(z | x) over the kept three

# GENERATOR[z, prev, next]: prev = 0 is the start state, prev = t + 1 after token t.
GENERATOR = np.array([
    [[0.70, 0.20, 0.10], [0.60, 0.30, 0.10], [0.25, 0.50, 0.25], [0.30, 0.30, 0.40]],
    [[0.10, 0.80, 0.10], [0.20, 0.20, 0.60], [0.05, 0.85, 0.10], [0.40, 0.40, 0.20]],
    [[0.30, 0.30, 0.40], [0.10, 0.10, 0.80], [0.50, 0.25, 0.25], [0.15, 0.15, 0.70]],
])
assert np.allclose(GENERATOR.sum(axis=-1), 1.0)


def token_logprobs(y) -> np.ndarray:
    """log p_theta(y_i | x, z, y_{<i}) for each kept passage z (rows) and position i (columns)."""
    prev = np.concatenate([[0], np.asarray(y[:-1], dtype=int) + 1])
    return np.log(GENERATOR[:, prev, np.asarray(y, dtype=int)])


def all_outputs(n: int) -> list[tuple[int, ...]]:
    """Every output sequence of length n over the toy vocabulary."""
    return list(itertools.product(range(V), repeat=n))


def output_index(y) -> int:
    """Position of an output in all_outputs(len(y)) (base-V number)."""
    return int(sum(t * V ** (len(y) - 1 - i) for i, t in enumerate(y)))


def sample_outputs(rng: np.random.Generator, size: int, n: int, per_token: bool) -> np.ndarray:
    """Simulate the generative story `size` times; returns each output's index in all_outputs(n).
    per_token=False: draw one passage z ~ p_eta, then all n tokens from it (RAG-Sequence).
    per_token=True: draw a fresh passage for every token (RAG-Token)."""
    z = rng.choice(K_TOP, size=size, p=RETRIEVER)
    prev = np.zeros(size, dtype=int)
    index = np.zeros(size, dtype=int)
    for _ in range(n):
        if per_token:
            z = rng.choice(K_TOP, size=size, p=RETRIEVER)
        cdf = np.cumsum(GENERATOR[z, prev], axis=1)
        tok = np.minimum((rng.random(size)[:, None] > cdf).sum(axis=1), V - 1)
        index = index * V + tok
        prev = tok + 1
    return index


# ---------------------------------------------------------------------------------------------
# 2. Fact oracle and hand-labelled examples.
# ---------------------------------------------------------------------------------------------
# Facts each toy-corpus document states (only the documents the examples retrieve).
DOC_FACTS: dict[str, frozenset[str]] = {
    "d01": frozenset({"bm25-sums-idf-times-tf", "tf-saturates", "length-normalized"}),
    "d02": frozenset({"tf-saturates", "k1-sets-saturation-speed", "repetition-not-relevance"}),
    "d03": frozenset({"tfidf-multiplies-tf-idf", "rare-terms-weigh-more"}),
    "d04": frozenset(),
    "d28": frozenset({"tf-saturates", "inverted-index-postings"}),
    "d29": frozenset({"inverted-index-postings"}),
    "d11": frozenset({"rag-puts-passages-in-prompt", "grounding-in-retrieved-text"}),
    "d12": frozenset({"hallucination-unsupported-facts", "grounding-reduces-hallucination",
                      "citing-helps", "needs-right-passages"}),
    "d13": frozenset({"faithfulness-claims-inferable"}),
    "d15": frozenset({"cross-encoder-reranks"}),
    "d32": frozenset({"rag-eval-needs-both"}),
    "d08": frozenset({"ann-trades-recall-for-speed", "hnsw-ivf-are-ann"}),
    "d09": frozenset({"pq-codebook-compression"}),
    "d10": frozenset({"hnsw-layered-graph", "greedy-descent"}),
    "d30": frozenset({"semantic-search-nearest-neighbours"}),
}


def supports(doc_ids, facts) -> bool:
    """The oracle: do these documents, read together, state every fact of the statement?"""
    known = set().union(*(DOC_FACTS[d] for d in doc_ids)) if doc_ids else set()
    return set(facts) <= known


# Each statement: (text, facts it asserts, documents it cites). Written for this project.
EXAMPLES: dict[str, dict] = {
    "q1": {
        "question": "Why does BM25 stop rewarding repeated terms?",
        "retrieved": ["d04", "d01", "d03", "d02", "d29"],
        "answer": [
            ("BM25 adds an IDF weight times a term-frequency factor per query term.",
             {"bm25-sums-idf-times-tf"}, ["d01"]),
            ("The factor saturates at a rate set by k1, and long documents are length-normalized.",
             {"k1-sets-saturation-speed", "length-normalized"}, ["d01", "d02"]),
            ("BM25 was invented in 1994 at City University London.",
             {"bm25-invented-1994"}, ["d01"]),
            ("Rare terms get larger weights.", {"rare-terms-weigh-more"}, ["d03", "d29"]),
        ],
        "reference": [
            ("The term-frequency factor saturates.", {"tf-saturates"}),
            ("k1 sets how quickly the saturation is reached.", {"k1-sets-saturation-speed"}),
            ("Repeating a keyword does not make a page more relevant.", {"repetition-not-relevance"}),
            ("Long documents are normalized by their length.", {"length-normalized"}),
        ],
    },
    "q4": {
        "question": "How does grounding in retrieved passages reduce hallucination?",
        "retrieved": ["d12", "d15", "d11", "d32", "d13"],
        "answer": [
            ("A model hallucinates when it states facts no source supports.",
             {"hallucination-unsupported-facts"}, ["d12"]),
            ("Putting retrieved passages in the prompt grounds the answer.",
             {"rag-puts-passages-in-prompt", "grounding-in-retrieved-text"}, ["d11", "d12"]),
            ("Grounding removes every hallucination.", {"grounding-removes-all"}, []),
        ],
        "reference": [
            ("Hallucination is stating facts that no source supports.", {"hallucination-unsupported-facts"}),
            ("Grounding answers in retrieved passages reduces it.", {"grounding-reduces-hallucination"}),
            ("It only works if the retriever finds the right passages.", {"needs-right-passages"}),
            ("Fine-tuning on the domain lowers hallucination too.", {"finetuning-lowers-hallucination"}),
        ],
    },
    "q5": {
        "question": "What is an approximate nearest neighbour vector index?",
        "retrieved": ["d30", "d08", "d09", "d10", "d29"],
        "answer": [
            ("An ANN index trades a little recall for a large speedup.",
             {"ann-trades-recall-for-speed"}, ["d08", "d10", "d30"]),
            ("HNSW builds a layered graph and searches it greedily.",
             {"hnsw-layered-graph", "greedy-descent"}, ["d10"]),
            ("HNSW is an ANN index built on a layered graph.",
             {"hnsw-ivf-are-ann", "hnsw-layered-graph"}, ["d08", "d10"]),
        ],
        "reference": [
            ("ANN indexes trade some recall for speed.", {"ann-trades-recall-for-speed"}),
            ("HNSW and IVF are examples.", {"hnsw-ivf-are-ann"}),
            ("Product quantization compresses the vectors.", {"pq-codebook-compression"}),
            ("Scalar quantization to int8 is another option.", {"int8-scalar-quantization"}),
        ],
    },
}
