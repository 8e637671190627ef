"""Binary Independence Model: the score vs exact posterior log-odds by enumeration, simulation, toy corpus."""

import itertools

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true


# --- formula ---
def bim_score(present: np.ndarray, p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Sum over the query terms a document contains of log[p_t (1 - u_t) / (u_t (1 - p_t))].
    present: documents x query terms, 0/1; p, u: P(term present | relevant), P(term present | not)."""
    return present @ np.log(p * (1 - u) / (u * (1 - p)))
# --- end formula ---


rng = np.random.default_rng(0)
m = 6
p = rng.uniform(0.05, 0.95, size=m)
u = rng.uniform(0.05, 0.95, size=m)
prior = 0.2                                        # P(R = 1 | q)

# Exact posterior by Bayes' rule for every one of the 2^6 binary documents, terms independent given R.
x = np.array(list(itertools.product((0, 1), repeat=m)), dtype=float)
like_rel = np.prod(np.where(x == 1, p, 1 - p), axis=1)
like_non = np.prod(np.where(x == 1, u, 1 - u), axis=1)
posterior = prior * like_rel / (prior * like_rel + (1 - prior) * like_non)
log_odds = np.log(posterior / (1 - posterior))
check_close("all 64 term-presence patterns: score = log O(R | d) - log O(R | empty document)",
            bim_score(x, p, u), log_odds - log_odds[0], rtol=1e-10, atol=1e-12)
check_true("so ranking by the score is ranking by P(R = 1 | d) (probability ranking principle)",
           np.array_equal(np.argsort(-bim_score(x, p, u), kind="stable"),
                          np.argsort(-log_odds, kind="stable")))
check_true("a term with p_t = u_t carries no weight; p_t > u_t adds, p_t < u_t subtracts",
           np.isclose(bim_score(np.ones((1, 1)), np.array([0.3]), np.array([0.3]))[0], 0.0)
           and bim_score(np.ones((1, 1)), np.array([0.6]), np.array([0.2]))[0] > 0
           > bim_score(np.ones((1, 1)), np.array([0.2]), np.array([0.6]))[0])

# Monte Carlo: generate documents from the model; per presence pattern, the fraction that is relevant.
n = 400_000
rel = rng.random(n) < prior
docs = np.where(rel[:, None], rng.random((n, m)) < p, rng.random((n, m)) < u)
code = docs.astype(int) @ (2 ** np.arange(m - 1, -1, -1))        # pattern index, same order as x
seen = np.bincount(code, minlength=2 ** m)
frac = np.bincount(code, weights=rel, minlength=2 ** m) / np.maximum(seen, 1)
busy = seen >= 2000
se = np.sqrt(posterior * (1 - posterior) / np.maximum(seen, 1))
check_true(f"400 000 simulated documents: relevant fraction per pattern within 4.5 standard errors of "
           f"the posterior ({int(busy.sum())} patterns with >= 2000 documents)",
           np.all(np.abs(frac - posterior)[busy] <= 4.5 * se[busy]),
           f"largest |error| / se {np.max(np.abs(frac - posterior)[busy] / se[busy]):.2f}")

# Toy corpus, query q5: estimate p_t and u_t from the judgments (relevant = grade >= 1) with the usual
# 0.5 corrections, then score every document by term presence.
q = tc.query_tokens("q5")
present = (tc.count_matrix(q) > 0).astype(float)
relevant = np.array(sorted(tc.relevant("q5")))
is_rel = np.isin(np.arange(tc.N_DOCS), relevant)
r_t = present[is_rel].sum(axis=0)
n_t = present.sum(axis=0)
R, N = is_rel.sum(), tc.N_DOCS
p_hat, u_hat = (r_t + 0.5) / (R + 1), (n_t - r_t + 0.5) / (N - R + 1)
scores = bim_score(present, p_hat, u_hat)
check_close("q5: weights equal the RSJ relevance weights log[(r+.5)(N-n-R+r+.5)/((n-r+.5)(R-r+.5))]",
            np.log(p_hat * (1 - u_hat) / (u_hat * (1 - p_hat))),
            np.log((r_t + 0.5) * (N - n_t - R + r_t + 0.5) / ((n_t - r_t + 0.5) * (R - r_t + 0.5))),
            rtol=1e-12)
top = np.argsort(-scores, kind="stable")[:R]
check_true(f"q5 with weights fitted on its own {R} relevant documents: the top {R} are exactly those",
           set(top) == set(relevant), f"top {[tc.DOC_IDS[i] for i in top]}")
