"""Shared toy knowledge graph for the graph-retrieval and agent-memory cards (no formula lives here)."""

from __future__ import annotations

import numpy as np

# Eleven entities as an LLM extractor might return them from a small corpus: a machine-learning
# cluster, a Paris cluster and one bridge entity ("Mistral AI", a Paris-based model company).
ENTITIES = [
    "Transformer", "Attention", "BERT", "GPT", "Tokenizer",      # 0-4
    "Paris", "France", "Eiffel Tower", "Louvre", "Seine",        # 5-9
    "Mistral AI",                                                # 10
]
N_ENTITIES = len(ENTITIES)

# Text chunks, each given as the set of entities mentioned in it (entity co-occurrence input).
CHUNKS = [
    [0, 1, 2], [0, 1, 3], [2, 4], [3, 4, 0], [1, 0],
    [5, 6, 7], [5, 8, 9], [7, 9, 5], [6, 5],
    [10, 3, 5], [10, 6], [8],
]

# Directed, weighted relations (subject, object, weight in (0, 1]): extracted triples with the
# extractor's confidence as weight. "Seine" (9) has no outgoing relation: a dangling node.
RELATIONS = [
    (1, 0, 0.9), (0, 2, 0.8), (0, 3, 0.9), (2, 4, 0.6), (3, 4, 0.7), (4, 0, 0.5), (2, 1, 0.4),
    (3, 1, 0.5), (10, 3, 0.7), (10, 5, 0.8), (5, 6, 0.9), (6, 5, 0.6), (7, 5, 0.9), (8, 5, 0.9),
    (5, 7, 0.5), (7, 9, 0.4), (8, 9, 0.3), (6, 10, 0.3),
]


def relation_matrix(directed: bool = True) -> np.ndarray:
    """Dense weight matrix W[i, j] = weight of the relation i -> j (symmetrised by max if undirected)."""
    w = np.zeros((N_ENTITIES, N_ENTITIES))
    for i, j, weight in RELATIONS:
        w[i, j] = max(w[i, j], weight)
        if not directed:
            w[j, i] = max(w[j, i], weight)
    return w


def out_links(directed_w: np.ndarray) -> list[list[int]]:
    """Adjacency lists of a weight matrix: the targets of each node's outgoing edges."""
    return [list(np.flatnonzero(row)) for row in directed_w]
