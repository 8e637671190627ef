"""Shared reference code for the bandit and constrained-agent cards: a three-state constrained MDP with its
exact constrained optimum found without linear programming (the upper envelope of the deterministic
policies' (cost, return) points)."""

from __future__ import annotations

import itertools

import numpy as np
from rl_worlds import TabularMDP

# A 3-state, 2-action discounted MDP (gamma 0.9, start in state 0). Action 0 is "safe" (low reward, no cost),
# action 1 is "risky" (more reward, positive cost). CMDP_BUDGET bounds the expected discounted cost
# J_C; at this budget the constrained optimum must randomise.
_P = np.array(
    [
        [[0.8, 0.2, 0.0], [0.2, 0.5, 0.3]],
        [[0.5, 0.4, 0.1], [0.1, 0.4, 0.5]],
        [[0.6, 0.1, 0.3], [0.2, 0.2, 0.6]],
    ]
)
_R = np.array([[0.0, 1.0], [0.5, 1.5], [0.2, 2.5]])
CMDP_WORLD = TabularMDP(
    _P,
    np.repeat(_R[:, :, None], 3, axis=2),
    0.9,
    np.array([1.0, 0.0, 0.0]),
    np.zeros(3, dtype=bool),
    name="three-state CMDP",
)
CMDP_COST = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 2.0]])
CMDP_BUDGET = 6.0


def policy_values(mdp: TabularMDP, cost: np.ndarray, pis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expected discounted return J_R and cost J_C from the start distribution, for a batch of policies
    pis[m, s, a], by solving (I - gamma P_pi) V = r_pi for each policy (batched numpy.linalg.solve)."""
    P_pi = np.einsum("msa,sat->mst", pis, mdp.P)
    rc = np.stack([np.einsum("msa,sa->ms", pis, mdp.R), np.einsum("msa,sa->ms", pis, cost)], axis=-1)
    V = np.linalg.solve(np.eye(mdp.n_states) - mdp.gamma * P_pi, rc)
    J = np.einsum("s,msk->mk", mdp.start, V)
    return J[:, 0], J[:, 1]


def deterministic_policies(mdp: TabularMDP) -> np.ndarray:
    """All A^S deterministic policies as one-hot arrays, shape (A^S, S, A)."""
    S, A = mdp.n_states, mdp.n_actions
    eye = np.eye(A)
    return np.array([eye[list(choice)] for choice in itertools.product(range(A), repeat=S)])


def envelope_optimum(JR: np.ndarray, JC: np.ndarray, d: float) -> float:
    """Best return reachable with expected cost <= d by mixing (in occupancy measure) at most two of the
    given points (J_C, J_R): the upper concave envelope evaluated at d. With one constraint, some optimal
    occupancy measure mixes at most two deterministic policies, so this is the CMDP optimum."""
    best = max((r for r, c in zip(JR, JC, strict=True) if c <= d), default=-np.inf)
    for i, j in itertools.product(range(len(JR)), repeat=2):
        if JC[i] < d < JC[j]:
            w = (JC[j] - d) / (JC[j] - JC[i])
            best = max(best, w * JR[i] + (1 - w) * JR[j])
    return float(best)
