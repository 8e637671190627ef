"""Dueling aggregation: the mean-subtracted advantages sum to zero, so V and A are identified from Q
(the centering is the orthogonal projection onto zero-sum vectors, checked with scipy.linalg.null_space);
the naive sum V + A is not identifiable; the max form makes V = max_a Q; gradients by finite differences."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, solve_optimal
from scipy.linalg import null_space


# --- formula ---
def dueling_q(V, A):
    """Q(s, a) = V(s) + A(s, a) - mean_a' A(s, a') (Wang et al., Eq. 9); V (batch,), A (batch, |A|)."""
    return V[:, None] + A - np.mean(A, axis=-1, keepdims=True)


def dueling_q_max(V, A):
    """Q(s, a) = V(s) + A(s, a) - max_a' A(s, a') (Wang et al., Eq. 8)."""
    return V[:, None] + A - np.max(A, axis=-1, keepdims=True)
# --- end formula ---


rng = np.random.default_rng(0)
B, n_act = 5, 7  # batch and action counts differ, so a reduction over the wrong axis shows
V = rng.normal(size=B) * 3
A = rng.normal(size=(B, n_act)) * 2 + rng.normal(size=(B, 1)) * 5  # advantages with arbitrary offsets
Q = dueling_q(V, A)

# 1. Identifiability: the advantage part of Q sums to zero over actions, so V = mean_a Q and the
#    advantages are recovered as Q - V. The centered advantages are the orthogonal projection of A onto
#    the zero-sum subspace, built here from an orthonormal basis of the null space of the all-ones row.
check_close("mean_a Q(s, a) = V(s)", Q.mean(axis=1), V, rtol=1e-12)
check_close("sum_a [Q(s, a) - V(s)] = 0", (Q - V[:, None]).sum(axis=1), np.zeros(B), atol=1e-12)
N = null_space(np.ones((1, n_act)))
check_close("Q - V = projection of A onto zero-sum vectors (scipy null_space basis)", Q - V[:, None],
            A @ N @ N.T, rtol=1e-10, atol=1e-12)

# 2. Shifting the advantage stream by any per-state constant does not change Q; shifting V shifts Q.
c = rng.normal(size=(B, 1)) * 10
check_close("Q(V, A + c) = Q(V, A): the aggregation absorbs the offset", dueling_q(V, A + c), Q, rtol=1e-12)
check_close("Q(V + c, A) = Q(V, A) + c", dueling_q(V + c[:, 0], A), Q + c, rtol=1e-12)
naive = V[:, None] + A
check_true("the naive sum V + A is not identifiable: (V + c, A - c) gives the same Q with a different V",
           np.allclose((V + c[:, 0])[:, None] + (A - c), naive) and np.abs(c).max() > 1)

# 3. The max form (Eq. 8): the best action's advantage is zero, so V = max_a Q and the greedy action is
#    unchanged; both aggregations keep the ordering of the actions.
Qm = dueling_q_max(V, A)
check_close("max form: max_a Q(s, a) = V(s)", Qm.max(axis=1), V, rtol=1e-12)
check_true("both forms rank actions as A does", bool(np.all(np.argsort(Q, axis=1) == np.argsort(A, axis=1))
           and np.all(np.argsort(Qm, axis=1) == np.argsort(A, axis=1))))
check_close("max form minus mean form = mean_a A - max_a A (a per-state constant)", Qm - Q,
            np.broadcast_to(A.mean(axis=1, keepdims=True) - A.max(axis=1, keepdims=True), (B, n_act)),
            rtol=1e-12)

# 4. What the V stream learns: fitting Q* of the gridworld exactly, the mean form's V is the average of
#    Q* over actions, not V*; the max form's V is V* = max_a Q*.
_, Q_star, _ = solve_optimal(GRIDWORLD)
V_mean, A_mean = Q_star.mean(axis=1), Q_star - Q_star.mean(axis=1, keepdims=True)
V_max, A_max = Q_star.max(axis=1), Q_star - Q_star.max(axis=1, keepdims=True)
check_close("mean form reproduces Q* with V = mean_a Q*", dueling_q(V_mean, A_mean), Q_star, rtol=1e-12,
            atol=1e-15)
check_close("max form reproduces Q* with V = V* = max_a Q*", dueling_q_max(V_max, A_max), Q_star, rtol=1e-12,
            atol=1e-15)
gap = (V_max - V_mean).max()
check_true("so the mean form's value stream is not V*", gap > 0.05, f"V* - mean_a Q* up to {gap:.3f}")

# 5. Gradients (central differences): dQ(s, a)/dV(s) = 1, dQ(s, a)/dA(s, a') = [a = a'] - 1/|A|.
h = 1e-6
E = np.eye(n_act)
jac = np.stack([(dueling_q(V, A + h * E[j]) - dueling_q(V, A - h * E[j]))[0] / (2 * h) for j in range(n_act)],
               axis=1)
check_close("dQ/dA = I - 1/|A| (every action's advantage moves every Q)", jac, np.eye(n_act) - 1 / n_act,
            rtol=0, atol=1e-8)
dV = (dueling_q(V + h, A) - dueling_q(V - h, A)) / (2 * h)
check_close("dQ/dV = 1 for every action", dV, np.ones((B, n_act)), rtol=0, atol=1e-8)
