"""Learned linear fusion w . phi(q, d) on the toy corpus: the pointwise (ridge) fit against scikit-learn's
Ridge, the pairwise logistic fit against LogisticRegression on feature differences, scale invariance of
the ranking, and MAP of the learned combination against its single features."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import average_precision_score


# --- formula ---
def linear_score(phi, w):
    """s(q, d) = w . phi(q, d), one row of phi per document."""
    return phi @ w


def fit_pointwise(phi, grades, lam: float):
    """Ridge regression of the grades on the features, intercept not penalized: returns (w, b)."""
    X = np.column_stack([phi, np.ones(len(phi))])
    penalty = lam * np.eye(X.shape[1])
    penalty[-1, -1] = 0.0
    theta = np.linalg.solve(X.T @ X + penalty, X.T @ grades)
    return theta[:-1], theta[-1]


def pairwise_objective(w, diffs, C: float):
    """1/2 |w|^2 + C * sum over preference pairs of log(1 + exp(-w . (phi_better - phi_worse)))."""
    return 0.5 * w @ w + C * np.sum(np.logaddexp(0.0, -(diffs @ w)))
# --- end formula ---


E = tc.doc_embeddings()
FEATURES = ["dense cosine", "BM25 / 10", "query-term coverage", "title match"]


def features(qid):
    terms = set(tc.query_tokens(qid))
    coverage = [len(terms & set(d)) / len(terms) for d in tc.doc_tokens()]
    title = [len(terms & set(tc.tokenize(d.title))) / len(terms) for d in tc.DOCS]
    return np.column_stack([E @ tc.query_embedding(qid), tc.bm25_reference(tc.query_tokens(qid)) / 10,
                            coverage, title])


phi = {q: features(q) for q in tc.QUERIES}
grades = {q: tc.grades(q).astype(float) for q in tc.QUERIES}
Phi = np.concatenate([phi[q] for q in tc.QUERIES])
Y = np.concatenate([grades[q] for q in tc.QUERIES])

# 1. The score is the weighted sum of the features, document by document.
w_test = np.array([0.7, -0.2, 1.3, 0.4])
check_close("w . phi vs explicit per-feature sum (q3)", linear_score(phi["q3"], w_test),
            sum(w_test[k] * phi["q3"][:, k] for k in range(4)), rtol=1e-12)

# 2. Pointwise learning: ridge regression onto the grades, against scikit-learn's Ridge.
for lam in (0.1, 3.0):
    w, b = fit_pointwise(Phi, Y, lam)
    ref = Ridge(alpha=lam).fit(Phi, Y)
    check_close(f"pointwise fit, lambda = {lam}: (w, b) vs sklearn Ridge", np.r_[w, b],
                np.r_[ref.coef_, ref.intercept_], rtol=1e-9, atol=1e-12)

# 3. Pairwise learning: logistic loss on feature differences of preference pairs (same query,
#    different grades); its minimizer is LogisticRegression without intercept on those differences.
diffs = []
for q in tc.QUERIES:
    i, j = np.nonzero(np.greater.outer(grades[q], grades[q]))
    diffs.append(phi[q][i] - phi[q][j])
diffs = np.concatenate(diffs)
C = 0.1
w_pair = minimize(pairwise_objective, np.zeros(4), args=(diffs, C), method="BFGS", options={"gtol": 1e-9}).x
flip = np.where(np.arange(len(diffs)) % 2 == 0, 1.0, -1.0)          # both classes, same loss
ref = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000)
ref.fit(diffs * flip[:, None], flip)
check_close(f"pairwise fit ({len(diffs)} pairs) vs sklearn LogisticRegression on feature differences",
            w_pair, ref.coef_.ravel(), rtol=1e-4, atol=1e-6)


# 4. Only the direction of w matters for the ranking: scaling by 5 keeps it, negating reverses it.
def mean_ap(w):
    return np.mean([average_precision_score(grades[q] >= 1, linear_score(phi[q], w)) for q in tc.QUERIES])


s = linear_score(phi["q1"], w_pair)
check_true("ranking unchanged by w -> 5 w and reversed by w -> -w",
           np.array_equal(np.argsort(-linear_score(phi["q1"], 5 * w_pair)), np.argsort(-s))
           and np.array_equal(np.argsort(linear_score(phi["q1"], -w_pair)), np.argsort(-s)))

# 5. On these six training queries the learned combination beats every single feature (MAP).
single = [mean_ap(np.eye(4)[k]) for k in range(4)]
learned = mean_ap(w_pair)
check_true("learned linear fusion: MAP above every single feature", learned > max(single),
           f"learned {learned:.3f}; single features {np.round(single, 3).tolist()}")

fig, ax = figure("Learned linear fusion on the toy corpus (training queries)", "ranker", "MAP over 6 queries")
names = [*FEATURES, "pointwise (ridge)", "pairwise (logistic)"]
values = [*single, mean_ap(fit_pointwise(Phi, Y, 0.1)[0]), learned]
ax.bar(range(len(names)), values)
ax.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
ax.set_ylim(0, 1)
