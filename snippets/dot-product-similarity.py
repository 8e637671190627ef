"""Dot product: vs the polarization identity and scipy's cosine, MIPS on the toy corpus, MIPS -> L2 search."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from scipy.spatial.distance import cdist
from scipy.spatial.distance import cosine as cosine_distance


# --- formula ---
# few mutants: a sum of coordinate-wise products: the product, the sum and its axis
def dot_similarity(queries: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """s(x, y) = sum_i x_i y_i for every (query row, document row) pair."""
    return np.sum(queries[:, None, :] * docs[None, :, :], axis=-1)
# --- end formula ---


rng = np.random.default_rng(0)
x = rng.normal(size=(3, 48)) * np.array([[0.5], [2.0], [7.0]])
y = rng.normal(size=(5, 48)) + 0.3
s = dot_similarity(x, y)

# Polarization identity: x.y = (|x + y|^2 - |x - y|^2) / 4, with norms from numpy.linalg.
polar = np.array([[(np.linalg.norm(a + b) ** 2 - np.linalg.norm(a - b) ** 2) / 4 for b in y] for a in x])
check_close("x.y vs polarization identity (|x+y|^2 - |x-y|^2)/4, 3 x 5 pairs", s, polar, rtol=1e-10)
# Length times cosine: x.y = |x| |y| cos(x, y), with the cosine from scipy.
len_cos = np.array([[np.linalg.norm(a) * np.linalg.norm(b) * (1 - cosine_distance(a, b)) for b in y]
                    for a in x])
check_close("x.y vs |x| |y| (1 - scipy cosine distance)", s, len_cos, rtol=1e-10)
check_true("bilinear: s(3x, y) = 3 s(x, y) and s(x, y) = s(y, x) elementwise",
           np.allclose(dot_similarity(3 * x, y), 3 * s)
           and np.allclose(dot_similarity(y, x), s.T))

# Toy corpus: unit-length embeddings, so the dot product is the cosine.
E = tc.doc_embeddings()
q = tc.query_embedding("q2")[None, :]
unit_scores = dot_similarity(q, E)[0]
check_close("unit vectors: dot product = cosine (scipy), query q2 vs 32 documents", unit_scores,
            [1 - cosine_distance(q[0], e) for e in E], rtol=1e-10)

# Unnormalized: scale each document vector by its length in tokens; the dot product now rewards long
# documents (norm x direction), cosine does not.
lengths = tc.doc_lengths()
scaled = E * lengths[:, None]
raw = dot_similarity(q, scaled)[0]
check_close("scaled documents: dot product = length x cosine", raw, lengths * unit_scores, rtol=1e-10)
top_raw, top_cos = np.argsort(-raw)[:5], np.argsort(-unit_scores)[:5]
check_true("the longest document (d28) enters the dot-product top 5 but not the cosine top 5",
           27 in top_raw and 27 not in top_cos,
           f"dot top 5 {[tc.DOC_IDS[i] for i in top_raw]}, cosine top 5 {[tc.DOC_IDS[i] for i in top_cos]}")

# int8-quantized embeddings, as vector databases store them: each coordinate rounded to 127 / max |E| steps.
step = 127 / np.abs(E).max()
E_int8, q_int8 = np.round(E * step).astype(np.int8), np.round(q * step).astype(np.int8)
exact_int = dot_similarity(q_int8.astype(float), E_int8.astype(float))[0]  # integers below 2^53: exact

# --- in code: numpy ---
# Sums of 32 products in another order: a few ulps apart, so 1e-12.
check_close("numpy: Q @ D.T on the float vectors, query q2 against 32 documents", (q @ E.T)[0], unit_scores,
            rtol=1e-12)
check_true("pitfall: on int8 vectors Q @ D.T adds up in int8 and wraps around modulo 256",
           (q_int8 @ E_int8.T).dtype == np.int8 and not np.array_equal((q_int8 @ E_int8.T)[0], exact_int),
           f"d01: int8 {(q_int8 @ E_int8.T)[0, 0]}, exact {exact_int[0]:.0f}")
check_close("fix: widen first, Q.astype(np.int32) @ D.T.astype(np.int32)",
            (q_int8.astype(np.int32) @ E_int8.T.astype(np.int32))[0], exact_int, rtol=0)
# --- end in code ---

# Maximum inner product search as nearest-neighbour search (Bachrach et al. 2014): append
# sqrt(M^2 - |y|^2) to every document and 0 to the query; then |q' - y'|^2 = |q|^2 + M^2 - 2 q.y.
M = np.linalg.norm(scaled, axis=1).max()
docs_aug = np.hstack([scaled, np.sqrt(M ** 2 - np.sum(scaled ** 2, axis=1))[:, None]])
query_aug = np.hstack([q, [[0.0]]])
l2 = cdist(query_aug, docs_aug, metric="sqeuclidean")[0]
check_close("MIPS reduction: |q|^2 + M^2 - 2 q.y equals the squared L2 distance (scipy)",
            (q @ q.T)[0, 0] + M ** 2 - 2 * raw, l2, rtol=1e-9)
check_true("MIPS reduction: L2 nearest-neighbour order = descending dot-product order",
           np.array_equal(np.argsort(l2, kind="stable"), np.argsort(-raw, kind="stable")))

# --- in code: torch ---
import torch  # noqa: E402

Q, Docs = torch.tensor(q), torch.tensor(E)
check_close("torch: Q @ D.T (torch.matmul), query q2 against 32 documents", (Q @ Docs.T)[0].numpy(),
            unit_scores, rtol=1e-12)
Q8, Docs8 = torch.tensor(q_int8), torch.tensor(E_int8)
check_true("pitfall: on int8 tensors the products wrap around in int8 too",
           (Q8 @ Docs8.T).dtype == torch.int8 and not np.array_equal((Q8 @ Docs8.T)[0].numpy(), exact_int))
check_close("fix: widen first, Q.int() @ D.int().T", (Q8.int() @ Docs8.int().T)[0].numpy(), exact_int, rtol=0)
# --- end in code ---
