"""Jaccard similarity on toy-corpus token sets: vs scipy, inclusion-exclusion, and MinHash by simulation."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist
from scipy.spatial.distance import jaccard as jaccard_distance


# --- formula ---
# few mutants: |A & B| / |A | B|: one intersection, one union and one ratio
def jaccard(a: set, b: set) -> float:
    """|A & B| / |A | B| for two sets, not both empty."""
    return len(a & b) / len(a | b)
# --- end formula ---


sets = [set(doc) for doc in tc.doc_tokens()]
vocab = tc.vocabulary()
index = {t: i for i, t in enumerate(vocab)}
incidence = np.zeros((len(sets), len(vocab)), dtype=bool)
for i, s in enumerate(sets):
    incidence[i, [index[t] for t in s]] = True

n = len(sets)
J = np.array([[jaccard(sets[i], sets[j]) for j in range(n)] for i in range(n)])
no_terms = np.zeros(len(vocab), dtype=bool)

# --- in code: scipy ---
# One ratio of two counts each way: an ulp apart, so 1e-12.
check_close("1 - scipy jaccard(u, v) on 0/1 incidence vectors: d01 and d02",
            1 - jaccard_distance(incidence[0], incidence[1]), J[0, 1], rtol=1e-12)
check_close("1 - scipy cdist(U, V, metric='jaccard'): all 32 x 32 document pairs in one call",
            1 - cdist(incidence, incidence, metric="jaccard"), J, rtol=1e-12, atol=1e-15)
check_close("pitfall: two empty sets, where J is undefined, get distance 0, so 1 - distance = 1",
            1 - jaccard_distance(no_terms, no_terms), 1.0, rtol=0)
# --- end in code ---

# --- in code: scikit-learn ---
import warnings  # noqa: E402

from sklearn.metrics import jaccard_score  # noqa: E402

# Four pairs only: each call validates its input at length (milliseconds per call).
check_close("jaccard_score(u, v) on 0/1 incidence vectors: d01 against d01 .. d04",
            [jaccard_score(incidence[0], incidence[j]) for j in range(4)], J[0, :4], rtol=1e-12)
with warnings.catch_warnings():  # the default zero_division="warn" warns, then returns 0
    warnings.simplefilter("ignore")
    empty_score = jaccard_score(no_terms, no_terms)
check_close("pitfall: two empty sets score 0 here, where scipy's 1 - distance gives 1",
            [empty_score, jaccard_score(no_terms, no_terms, zero_division=1.0)], [0.0, 1.0], rtol=0)
# --- end in code ---
# Inclusion-exclusion: |A u B| = |A| + |B| - |A n B|, with the intersection from the 0/1 vectors.
inter = incidence.astype(float) @ incidence.T.astype(float)
sizes = incidence.sum(axis=1)
check_close("vs |A n B| / (|A| + |B| - |A n B|) from incidence counts", J,
            inter / (sizes[:, None] + sizes[None, :] - inter), rtol=1e-12)
check_close("hand value: {bm25, term, frequency} vs {term, frequency, saturation} = 2/4",
            jaccard({"bm25", "term", "frequency"}, {"term", "frequency", "saturation"}), 0.5, rtol=1e-15)
check_true("J = 1 on the diagonal, symmetric, in [0, 1]",
           np.all(np.diag(J) == 1) and np.allclose(J, J.T) and J.min() >= 0 and J.max() <= 1)

# Query q3 against every document: the best Jaccard matches are judged relevant.
q3 = set(tc.query_tokens("q3"))
jq = np.array([jaccard(q3, s) for s in sets])
top = np.argsort(-jq, kind="stable")[:2]
check_true("q3 'agent tool calls and planning': the two highest-Jaccard documents are judged relevant",
           np.all(tc.grades("q3")[top] >= 2), f"{[(tc.DOC_IDS[i], round(float(jq[i]), 3)) for i in top]}")

# MinHash (Broder 1997): under a random permutation of the vocabulary, the smallest-ranked element of
# A and of B coincide with probability J(A, B). Estimate it with 400 permutations for every pair.
rng = np.random.default_rng(0)
n_perm = 400
ranks = np.array([rng.permutation(len(vocab)) for _ in range(n_perm)])      # (n_perm, V)
masked = np.where(incidence[None, :, :], ranks[:, None, :], len(vocab))     # (n_perm, n, V)
signatures = masked.min(axis=2)                                              # (n_perm, n)
estimate = (signatures[:, :, None] == signatures[:, None, :]).mean(axis=0)
iu = np.triu_indices(n, 1)
err = estimate[iu] - J[iu]
se = np.sqrt(J[iu] * (1 - J[iu]) / n_perm)
check_true("MinHash estimates within 4.5 binomial standard errors of J for all 496 pairs",
           np.all(np.abs(err) <= 4.5 * se + 1e-12), f"largest |error| {np.abs(err).max():.3f}")

fig, ax = figure("MinHash estimate vs exact Jaccard (toy-corpus pairs)", "exact J(A, B)",
                 "MinHash estimate (400 permutations)")
ax.plot([0, 1], [0, 1], color="gray", linewidth=1)
ax.scatter(J[iu], estimate[iu], s=8)
ax.set_xlim(0, 0.5)
ax.set_ylim(0, 0.5)
