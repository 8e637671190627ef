"""Softmax tabular policies on the rl_worlds MDPs, with exact objectives, for the policy-gradient cards.

The policy-gradient and advantage cards need the same few pieces, kept here so that each is written
once: a softmax policy over a table of logits theta[s, a]; the exact objective J(theta) (the start
distribution's value, from rl_worlds.evaluate_policy) and its finite-horizon version J_H(theta)
(matrix powers of the policy's transition matrix); a central finite-difference gradient, the
references the cards' gradient formulas are compared with; and an exact enumeration of every
trajectory of a short horizon with its probability, to take expectations of estimators exactly.
Nothing here computes a policy gradient by a formula: that is the cards' job.
"""

from __future__ import annotations

import numpy as np
from rl_worlds import TabularMDP, evaluate_policy


def softmax_policy(theta: np.ndarray) -> np.ndarray:
    """pi[s, a] = exp(theta[s, a]) / sum_b exp(theta[s, b]), shifted by the row maximum."""
    z = theta - theta.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def objective(mdp: TabularMDP, pi: np.ndarray) -> float:
    """J = sum_s mu(s) V^pi(s), the expected discounted return from the start distribution."""
    V, _ = evaluate_policy(mdp, pi)
    return float(mdp.start @ V)


def finite_horizon_objective(mdp: TabularMDP, pi: np.ndarray, horizon: int) -> float:
    """J_H = E[sum_{t<H} gamma^t R_{t+1}] = sum_{t<H} gamma^t mu^T P_pi^t r_pi, by matrix powers."""
    P_pi, r_pi = mdp.policy_matrices(pi)
    dist = mdp.start.astype(float)
    total = 0.0
    for t in range(horizon):
        total += mdp.gamma**t * float(dist @ r_pi)
        dist = dist @ P_pi
    return total


def fd_gradient(fun, theta: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central finite differences of a scalar function of an array, entry by entry (error O(h^2))."""
    grad = np.zeros_like(theta, dtype=float)
    for idx in np.ndindex(theta.shape):
        up, down = theta.astype(float), theta.astype(float)
        up[idx] += h
        down[idx] -= h
        grad[idx] = (fun(up) - fun(down)) / (2 * h)
    return grad


def enumerate_trajectories(mdp: TabularMDP, pi: np.ndarray, horizon: int
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every trajectory of `horizon` steps from the start distribution, with its probability.

    Returns states (N, H+1), actions (N, H), rewards (N, H) (rewards[:, t] is R_{t+1}) and prob (N,),
    prob summing to 1. Branches of probability zero are dropped. Size grows like (|A| |S|)^H, so keep
    the MDP and the horizon small."""
    S, A = mdp.n_states, mdp.n_actions
    states = np.flatnonzero(mdp.start > 0)[:, None]
    prob = mdp.start[states[:, 0]].astype(float)
    actions = np.zeros((len(prob), 0), dtype=int)
    rewards = np.zeros((len(prob), 0))
    for _ in range(horizon):
        s = states[:, -1]
        # branch on (a, s'): every current path times |A| |S|
        a_grid, s2_grid = np.meshgrid(np.arange(A), np.arange(S), indexing="ij")
        a_new = np.tile(a_grid.ravel(), len(prob))
        s2_new = np.tile(s2_grid.ravel(), len(prob))
        rep = np.repeat(np.arange(len(prob)), A * S)
        p_new = prob[rep] * pi[s[rep], a_new] * mdp.P[s[rep], a_new, s2_new]
        keep = p_new > 0
        rep, a_new, s2_new = rep[keep], a_new[keep], s2_new[keep]
        r_new = mdp.R_sas[states[rep, -1], a_new, s2_new]
        states = np.column_stack([states[rep], s2_new])
        actions = np.column_stack([actions[rep], a_new])
        rewards = np.column_stack([rewards[rep], r_new])
        prob = p_new[keep]
    return states, actions, rewards, prob


def tabular_score(pi: np.ndarray) -> np.ndarray:
    """Score of a softmax over a table of logits theta[s', b], flattened over (s', b):
    d log pi(a|s) / d theta[s', b] = [s = s'] ([a = b] - pi(b|s)); shape (S, A, S * A)."""
    S, A = pi.shape
    score = np.zeros((S, A, S, A))
    for s in range(S):
        score[s, :, s, :] = np.eye(A) - pi[s][None, :]
    return score.reshape(S, A, S * A)
