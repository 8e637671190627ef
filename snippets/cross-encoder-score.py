"""monoBERT-style cross-encoder head and pointwise loss: the two-way softmax head vs scipy's softmax,
the loss vs scikit-learn's log_loss, its gradient by finite differences, stability at |logit| = 800, and
a head fitted on toy-corpus features against scikit-learn's LogisticRegression."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import softmax
from scipy.stats import kendalltau
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss


# --- formula ---
def relevance_logit(h_cls, W, b):
    """Two-way linear head on the [CLS] vector: logit of 'relevant' minus logit of 'not relevant'."""
    logits = h_cls @ W.T + b
    return logits[:, 1] - logits[:, 0]


def relevance_probability(h_cls, W, b):
    """s = softmax(W h + b)[relevant] = sigmoid(logit difference)."""
    return 1 / (1 + np.exp(-relevance_logit(h_cls, W, b)))


def pointwise_loss(z, y):
    """-sum_pos log s - sum_neg log(1 - s), with s = sigmoid(z), in log-sum-exp form."""
    return float(np.sum(y * np.logaddexp(0.0, -z) + (1 - y) * np.logaddexp(0.0, z)))
# --- end formula ---


rng = np.random.default_rng(0)
H, n = 16, 50
h_cls = rng.normal(size=(n, H))
W, b = rng.normal(0, 0.4, size=(2, H)), rng.normal(size=2)
y = (rng.random(n) < 0.3).astype(float)

# 1. The head against scipy's two-class softmax.
check_close("P(relevant) vs scipy softmax(h W^T + b)[:, 1]", relevance_probability(h_cls, W, b),
            softmax(h_cls @ W.T + b, axis=1)[:, 1], rtol=1e-12)

# 2. The loss (monoBERT Eq. 1) against scikit-learn's summed log loss.
z = relevance_logit(h_cls, W, b)
check_close("pointwise loss vs sklearn log_loss(y, s, normalize=False)", pointwise_loss(z, y),
            log_loss(y, relevance_probability(h_cls, W, b), normalize=False, labels=[0, 1]), rtol=1e-10)

# 3. Confident mistakes: log(1 - sigmoid(800)) is -inf in floating point; the loss must be 800.
check_close("logits -800 (positive), +800 (negative), +800 (positive): losses 800, 800, 0",
            [pointwise_loss(np.array([v]), np.array([t])) for v, t in ((-800.0, 1), (800.0, 0), (800.0, 1))],
            [800.0, 800.0, 0.0], rtol=1e-12, atol=1e-300)

# 4. Gradient in the logit: sigmoid(z) - y, by central finite differences.
hstep = 1e-6
fd = np.array([(pointwise_loss(z + hstep * e, y) - pointwise_loss(z - hstep * e, y)) / (2 * hstep)
               for e in np.eye(n)])
check_close("d loss / d z = sigmoid(z) - y vs finite differences", 1 / (1 + np.exp(-z)) - y, fd,
            rtol=1e-6, atol=1e-9)

# 5. Toy corpus: a head on three query-document features of all 6 x 32 pairs, labels grade >= 1.
#    Fitting 1/2 |w|^2 + C * loss with scipy must land on scikit-learn's LogisticRegression solution.
E = tc.doc_embeddings()


def features(qid):
    terms = set(tc.query_tokens(qid))
    coverage = [len(terms & set(d)) / len(terms) for d in tc.doc_tokens()]
    return np.column_stack([E @ tc.query_embedding(qid), tc.bm25_reference(tc.query_tokens(qid)) / 10,
                            coverage])


X = np.concatenate([features(q) for q in tc.QUERIES])
Y = np.concatenate([tc.grades(q) >= 1 for q in tc.QUERIES]).astype(float)
C = 2.0


def objective(theta):
    w = theta[:3]
    head = np.zeros((2, 3))
    head[1] = w                               # one row of the two-way head carries the weights
    return 0.5 * w @ w + C * pointwise_loss(relevance_logit(X, head, np.array([0.0, theta[3]])), Y)


ours = minimize(objective, np.zeros(4), method="BFGS", options={"gtol": 1e-10}).x
ref = LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(X, Y)
check_close("fitted head (w, b) vs sklearn LogisticRegression(C = 2) coefficients and intercept",
            ours, np.r_[ref.coef_.ravel(), ref.intercept_], rtol=1e-4, atol=1e-5)

# 6. Ranking by probability or by logit is the same ranking (the sigmoid is monotone).
head = np.zeros((2, 3))
head[1] = ours[:3]
p_rel = relevance_probability(X, head, np.array([0.0, ours[3]]))
tau = kendalltau(p_rel, relevance_logit(X, head, np.array([0.0, ours[3]]))).statistic
check_true("Kendall tau between probability and logit rankings is 1", np.isclose(tau, 1.0), f"tau = {tau}")

fig, ax = figure("Fitted pointwise head on the toy corpus (6 queries × 32 documents)", "judged grade",
                 "P(relevant | q, d)")
grades_all = np.concatenate([tc.grades(q) for q in tc.QUERIES])
ax.boxplot([p_rel[grades_all == g] for g in range(4)], positions=range(4))
ax.set_xticks(range(4))
