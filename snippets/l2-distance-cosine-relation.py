"""L2 vs cosine on unit vectors: checked against scipy distances and brute-force search rankings."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.spatial.distance import cdist


# --- formula ---
# few mutants: 2 - 2 cos: two constants and two operators
def sq_l2_from_cosine(cos: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance between unit vectors with cosine similarity cos."""
    return 2.0 - 2.0 * cos
# --- end formula ---


rng = np.random.default_rng(0)
query = rng.normal(size=(1, 32))
corpus = rng.normal(size=(500, 32)) * rng.uniform(0.2, 5.0, size=(500, 1))  # varied norms
unit = corpus / np.linalg.norm(corpus, axis=1, keepdims=True)
unit_query = query / np.linalg.norm(query)

cos = 1.0 - cdist(unit_query, unit, metric="cosine")[0]
check_close("2 - 2 cos vs scipy squared Euclidean on unit vectors", sq_l2_from_cosine(cos),
            cdist(unit_query, unit, metric="sqeuclidean")[0], rtol=1e-9, atol=1e-12)
check_close("2 sin(theta/2) vs Euclidean distance (chord length)",
            2 * np.sin(np.arccos(np.clip(cos, -1, 1)) / 2),
            cdist(unit_query, unit, metric="euclidean")[0], rtol=1e-7, atol=1e-9)

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import cosine_distances, euclidean_distances  # noqa: E402
from sklearn.preprocessing import normalize  # noqa: E402

# normalize() divides each row by its L2 norm; the squared distances come from the Gram form, which
# on unit vectors is 2 - 2 a.b itself, so the two routes agree to a few ulps of 2: atol 1e-12.
unit_sk, query_sk = normalize(corpus), normalize(query)
check_close("euclidean_distances(normalize(A), normalize(B), squared=True) = 2 - 2 cos",
            euclidean_distances(query_sk, unit_sk, squared=True)[0], sq_l2_from_cosine(cos), rtol=1e-9,
            atol=1e-12)
check_close("pitfall: by default (squared=False) it is the distance: its square is 2 - 2 cos",
            euclidean_distances(query_sk, unit_sk)[0] ** 2, sq_l2_from_cosine(cos), rtol=1e-9, atol=1e-12)
check_close("pitfall: cosine_distances is 1 - cos, half the squared distance: times 2 it is 2 - 2 cos",
            2 * cosine_distances(query, corpus)[0], sq_l2_from_cosine(cos), rtol=1e-9, atol=1e-12)
# --- end in code ---

# Brute-force top-10 search: L2 on unit vectors, inner product on unit vectors and cosine agree.
top = 10
by_l2 = np.argsort(cdist(unit_query, unit, metric="sqeuclidean")[0])[:top]
by_ip = np.argsort(-(unit @ unit_query[0]))[:top]
by_cos = np.argsort(sq_l2_from_cosine(cos))[:top]
check_true("normalized: L2, inner-product and cosine top-10 coincide",
           np.array_equal(by_l2, by_ip) and np.array_equal(by_l2, by_cos))

# Without normalization the rankings come apart (the norms enter the distance).
raw_l2 = np.argsort(cdist(query, corpus, metric="sqeuclidean")[0])[:top]
raw_ip = np.argsort(-(corpus @ query[0]))[:top]
check_true("unnormalized: L2 and inner-product top-10 differ from cosine top-10",
           not np.array_equal(raw_l2, by_cos) and not np.array_equal(raw_ip, by_cos),
           f"overlap with cosine top-10: L2 {len(set(raw_l2) & set(by_cos))}, "
           f"inner product {len(set(raw_ip) & set(by_cos))}")
