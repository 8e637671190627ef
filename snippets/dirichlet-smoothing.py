"""Dirichlet smoothing on the toy corpus: posterior mean by sampling, JM with lambda_d = mu/(|d|+mu)."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: (c + mu P(t|C)) / (|d| + mu): four operators and nothing else
def dirichlet_smoothing(counts: np.ndarray, doc_len: np.ndarray, p_collection: np.ndarray,
                        mu: float) -> np.ndarray:
    """P(t | d) = (c(t, d) + mu P(t | C)) / (|d| + mu); counts is documents x vocabulary."""
    return (counts + mu * p_collection) / (doc_len[:, None] + mu)
# --- end formula ---


vocab = tc.vocabulary()
counts = tc.count_matrix(vocab)
lengths = tc.doc_lengths()
p_c = tc.collection_model(vocab)
P = dirichlet_smoothing(counts, lengths, p_c, 50.0)

check_close("every document's smoothed model sums to 1 over the 449-term vocabulary", P.sum(axis=1),
            np.ones(len(lengths)), rtol=1e-12)
i_bm25 = vocab.index("bm25")
check_close("hand value: P(bm25 | d04) = (3 + 50 x 7/1086) / (15 + 50)", P[3, i_bm25],
            (3 + 50 * 7 / 1086) / 65, rtol=1e-13)
check_close("unseen term: P(hnsw | d01) = 50 / (50 + 50) x P(hnsw | C) = 0.5 x 3/1086",
            P[0, vocab.index("hnsw")], 0.5 * 3 / 1086, rtol=1e-13)

# Bayesian reading: it is the posterior mean of the document's word distribution under a Dirichlet
# prior with parameters mu P(.|C). Sample that posterior and average.
rng = np.random.default_rng(0)
for doc in (1, 27):
    theta = rng.dirichlet(counts[doc] + 50.0 * p_c, size=20_000)
    mean, se = theta.mean(axis=0), theta.std(axis=0) / np.sqrt(len(theta))
    check_true(f"d{doc + 1:02d}: Monte-Carlo posterior mean (20 000 draws) within 4.5 standard errors, "
               "all terms",
               np.all(np.abs(mean - P[doc]) <= 4.5 * se + 1e-12),
               f"largest |error| / se {np.max(np.abs(mean - P[doc]) / (se + 1e-300)):.2f}")

# Jelinek-Mercer with a document-dependent weight lambda_d = mu / (|d| + mu).
lam_d = 50.0 / (lengths + 50.0)
check_close("equals (1 - lambda_d) c/|d| + lambda_d P(t|C) with lambda_d = mu / (|d| + mu)", P,
            (1 - lam_d[:, None]) * counts / lengths[:, None] + lam_d[:, None] * p_c, rtol=1e-12)
check_close("mu = 0 gives the maximum-likelihood estimate c / |d|",
            dirichlet_smoothing(counts, lengths, p_c, 0.0), counts / lengths[:, None], rtol=1e-14)
check_close("mu = 10^12 gives the collection model", dirichlet_smoothing(counts, lengths, p_c, 1e12)[[0, 27]],
            np.stack([p_c, p_c]), rtol=1e-7)

# Longer documents are smoothed less: 'saturation' occurs once in d02 (32 tokens) and once in d28 (133).
j = vocab.index("saturation")
mle_short, mle_long = 1 / lengths[1], 1 / lengths[27]
check_true("one occurrence: the short d02 keeps a smaller share of its ML estimate than the long d28",
           P[1, j] / mle_short < P[27, j] / mle_long,
           f"kept: d02 {P[1, j] / mle_short:.2f}, d28 {P[27, j] / mle_long:.2f}")

# The page's calculator is checked against dirichlet_smoothing on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): unseen and seen terms, short and long documents, mu = 0 (the
# maximum-likelihood estimate) to 10^12. The weight on the collection model is the smoothed probability of
# a term absent from the document that makes up the whole collection (c = 0, P(t|C) = 1): mu / (|d| + mu).
import cardcalc  # noqa: E402


def one_term(c, dl, pC, mu):
    """P_mu(t | d) for one term of one document, and the weight mu / (|d| + mu) on the collection model."""
    return {"P": float(dirichlet_smoothing(np.array([[c]]), np.array([dl]), pC, mu)[0, 0]),
            "weight": float(dirichlet_smoothing(np.array([[0.0]]), np.array([dl]), 1.0, mu)[0, 0])}


cardcalc.table(one_term, cardcalc.grid(c=(0, 1, 3), dl=(3, 15, 300), pC=(0.0, 1e-4, 0.01),
                                       mu=(0.0, 50.0, 2000.0, 1e12)))

# Figure: weight on the collection model as a function of document length.
L = np.linspace(1, 400, 400)
fig, ax = figure("Weight given to the collection model", "document length |d| (tokens)",
                 "λ (weight on P(t|C))")
for mu in (20, 50, 200, 2000):
    ax.plot(L, mu / (L + mu), label=f"Dirichlet, μ = {mu}")
ax.axhline(0.5, color="gray", linestyle="--", label="Jelinek–Mercer, λ = 0.5")
ax.plot(lengths, np.full_like(lengths, 0.02), "|", color="black", markersize=10, label="toy-corpus lengths")
ax.set_ylim(0, 1)
ax.legend(fontsize=8)
