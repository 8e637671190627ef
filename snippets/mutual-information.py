"""Mutual information: checked against scipy KL of joint vs product of marginals and entropy identities."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import rel_entr
from scipy.stats import entropy


# --- formula ---
def mutual_information(joint: np.ndarray) -> float:
    """I(X;Y) in nats from a joint table p(x, y) (rows x, columns y); zero cells contribute 0."""
    px = joint.sum(axis=1, keepdims=True)
    py = joint.sum(axis=0, keepdims=True)
    support = joint > 0
    ratio = joint[support] / (px * py)[support]
    return float(np.sum(joint[support] * np.log(ratio)))
# --- end formula ---


rng = np.random.default_rng(0)
joint = rng.dirichlet(0.5 * np.ones(35)).reshape(5, 7)
joint[0, :3] = 0.0  # a few impossible pairs, to exercise the 0 log 0 convention
joint /= joint.sum()
px, py = joint.sum(axis=1), joint.sum(axis=0)
mi = mutual_information(joint)

check_close("I = KL(p(x,y) || p(x)p(y)) via scipy rel_entr", mi,
            rel_entr(joint, np.outer(px, py)).sum())
# H(X|Y) computed column by column: sum_y p(y) H(X | Y = y).
h_x_given_y = sum(py[j] * entropy(joint[:, j] / py[j]) for j in range(joint.shape[1]))
check_close("I = H(X) - H(X|Y)", mi, entropy(px) - h_x_given_y)
check_close("I = H(X) + H(Y) - H(X,Y)", mi, entropy(px) + entropy(py) - entropy(joint.ravel()))
check_close("symmetry: I(X;Y) = I(Y;X)", mi, mutual_information(joint.T))
check_close("independent variables: I = 0", mutual_information(np.outer(px, py)), 0.0, atol=1e-15)
check_close("I(X;X) = H(X)", mutual_information(np.diag(px)), entropy(px))
check_true("0 <= I <= min(H(X), H(Y))", 0 <= mi <= min(entropy(px), entropy(py)),
           f"I = {mi:.4f}, H(X) = {entropy(px):.4f}, H(Y) = {entropy(py):.4f} nats")

# --- in code: scikit-learn ---
from sklearn.metrics import mutual_info_score, normalized_mutual_info_score  # noqa: E402

# mutual_info_score works from paired labels, or from a contingency table of counts; either way the
# table is divided by its total. Sums over 35 cells, a few ulps each: 1e-12.
counts = rng.multinomial(500, joint.ravel()).reshape(joint.shape)
x_labels, y_labels = np.unravel_index(np.repeat(np.arange(joint.size), counts.ravel()), joint.shape)
check_close("mutual_info_score(x labels, y labels) = I of their empirical joint, in nats",
            mutual_info_score(x_labels, y_labels), mutual_information(counts / counts.sum()), rtol=1e-12)
check_close("mutual_info_score(None, None, contingency=counts) = the same",
            mutual_info_score(None, None, contingency=counts), mutual_information(counts / counts.sum()),
            rtol=1e-12)
# A contingency table of probabilities is cast to integers first: 1000 p(x, y) is floored.
check_close("pitfall: contingency=1000 p(x, y) computes I of floor(1000 p(x, y)), not of p",
            mutual_info_score(None, None, contingency=1000 * joint),
            mutual_information(np.floor(1000 * joint) / np.floor(1000 * joint).sum()), rtol=1e-12)
check_true("pitfall: ... which differs from I(X;Y)",
           abs(mutual_info_score(None, None, contingency=1000 * joint) - mi) > 1e-3,
           f"{mutual_info_score(None, None, contingency=1000 * joint):.4f} vs {mi:.4f} nats")
empirical = counts / counts.sum()
check_close("pitfall: normalized_mutual_info_score is I / ((H(X) + H(Y)) / 2), not I",
            normalized_mutual_info_score(x_labels, y_labels),
            mutual_information(empirical)
            / (0.5 * (entropy(empirical.sum(axis=1)) + entropy(empirical.sum(axis=0)))),
            rtol=1e-12)
# --- end in code ---
