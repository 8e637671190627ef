"""Shared helpers for the chunking, diversity (MMR, DPP) and context-packing cards: subset enumeration
and a small similarity kernel built from the toy corpus embeddings.

Only enumeration and data live here; each card implements its own formula in its own snippet.
"""

from itertools import combinations

import numpy as np
from toy_corpus import doc_embeddings, query_embedding


def all_subsets(n: int) -> list[tuple[int, ...]]:
    """Every subset of range(n) as a sorted tuple, the empty one first (2**n of them)."""
    return [c for k in range(n + 1) for c in combinations(range(n), k)]


def toy_candidates(qid: str = "q1", n: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The n documents of the toy corpus closest to query qid by cosine: (doc indices, relevance
    cos(q, d) of each, similarity matrix cos(d_i, d_j)). Embeddings are unit length."""
    emb = doc_embeddings()
    rel_all = emb @ query_embedding(qid)
    idx = np.argsort(-rel_all, kind="stable")[:n]
    sub = emb[idx]
    return idx, rel_all[idx], sub @ sub.T


def toy_dpp_kernel(qid: str = "q1", n: int = 6) -> np.ndarray:
    """A positive semi-definite L-ensemble kernel L_ij = g_i cos(d_i, d_j) g_j for the top-n documents
    of query qid, with quality g_i = exp(2 cos(q, d_i)) (the quality/diversity split of Kulesza & Taskar)."""
    _, rel, sim = toy_candidates(qid, n)
    g = np.exp(2.0 * rel)
    return g[:, None] * sim * g[None, :]
