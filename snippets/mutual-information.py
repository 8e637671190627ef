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
