"""Shared exact references for the off-policy, actor-critic and offline-RL cards (DDPG, DPG, SAC, V-trace,
importance sampling, AWR, behaviour cloning).

1. ``maximize_on_simplex``: numerical maximizer of a function of a probability vector (softmax
   parameterization, several BFGS starts), the brute-force route for closed-form optimal policies.
2. ``enumerate_trajectories``: every length-n trajectory of a small ``rl_worlds.TabularMDP`` with its
   probability under a policy, for exact expectations over trajectories.
3. ``LQProblem``: a discounted linear-quadratic control problem with Gaussian noise and a linear
   deterministic policy a = K s, whose value, action value, action gradient and objective are known in
   closed form (scipy.linalg.solve_discrete_lyapunov), plus Gauss-Hermite quadrature for Gaussian
   expectations that is exact for the low-degree polynomials that appear.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from rl_worlds import TabularMDP
from scipy.linalg import solve_discrete_lyapunov
from scipy.optimize import minimize

# =============================================================================================
# 1. Maximizing over the probability simplex
# =============================================================================================


def maximize_on_simplex(f, k: int, rng: np.random.Generator, starts: int = 5) -> tuple[np.ndarray, float]:
    """argmax and max of f(p) over probability vectors p of length k (BFGS on softmax logits)."""
    best_p, best_v = None, -np.inf
    for _ in range(starts):
        def neg(z):
            p = np.exp(z - z.max())
            return -f(p / p.sum())
        res = minimize(neg, rng.normal(size=k), method="BFGS", options={"gtol": 1e-10})
        p = np.exp(res.x - res.x.max())
        p /= p.sum()
        if f(p) > best_v:
            best_p, best_v = p, f(p)
    return best_p, float(best_v)


# =============================================================================================
# 2. Exact enumeration of trajectories
# =============================================================================================


def enumerate_trajectories(mdp: TabularMDP, pi: np.ndarray, x0: int, n: int
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All (a_0, x_1, ..., a_{n-1}, x_n) from x0 under policy pi: states (N, n+1), actions (N, n),
    rewards (N, n) with rewards[:, t] = R_sas[x_t, a_t, x_{t+1}], and probabilities (N,) summing to 1."""
    S, A = mdp.n_states, mdp.n_actions
    steps = list(itertools.product(range(A), range(S)))
    states, actions, rewards, probs = [], [], [], []
    for path in itertools.product(steps, repeat=n):
        x, p = [x0], 1.0
        a_list, r_list = [], []
        for a, x2 in path:
            p *= pi[x[-1], a] * mdp.P[x[-1], a, x2]
            r_list.append(mdp.R_sas[x[-1], a, x2])
            a_list.append(a)
            x.append(x2)
        states.append(x)
        actions.append(a_list)
        rewards.append(r_list)
        probs.append(p)
    return np.array(states), np.array(actions), np.array(rewards), np.array(probs)


# =============================================================================================
# 3. Linear-quadratic control with a linear deterministic policy
# =============================================================================================


@dataclass(frozen=True, eq=False)
class LQProblem:
    """s' = A s + B a + w, w ~ N(0, W); reward r(s, a) = -s^T C s - a^T D a; s_0 ~ N(0, S0);
    discount gamma. Under a = K s the value is V(s) = -s^T P s - c with
    P = C + K^T D K + gamma (A + B K)^T P (A + B K) and c = gamma tr(P W) / (1 - gamma)."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    W: np.ndarray
    S0: np.ndarray
    gamma: float

    def value_params(self, K: np.ndarray) -> tuple[np.ndarray, float]:
        F = self.A + self.B @ K
        P = solve_discrete_lyapunov(np.sqrt(self.gamma) * F.T, self.C + K.T @ self.D @ K)
        return P, float(self.gamma * np.trace(P @ self.W) / (1.0 - self.gamma))

    def objective(self, K: np.ndarray) -> float:
        """J(K) = E_{s_0}[V^K(s_0)] in closed form."""
        P, c = self.value_params(K)
        return float(-np.trace(P @ self.S0) - c)

    def q_value(self, K: np.ndarray, s: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Q^K(s, a) for rows s (N, ds), a (N, da)."""
        P, c = self.value_params(K)
        m = s @ self.A.T + a @ self.B.T
        return (-np.einsum("ni,ij,nj->n", s, self.C, s) - np.einsum("ni,ij,nj->n", a, self.D, a)
                - self.gamma * (np.einsum("ni,ij,nj->n", m, P, m) + np.trace(P @ self.W) + c))

    def action_gradient(self, K: np.ndarray):
        """The function (s, a) -> d Q^K(s, a) / d a, rows (N, da), differentiated by hand from q_value
        (P is solved once, so the function is cheap to call many times)."""
        P, _ = self.value_params(K)

        def grad(s: np.ndarray, a: np.ndarray) -> np.ndarray:
            m = s @ self.A.T + a @ self.B.T
            return -2.0 * a @ self.D.T - 2.0 * self.gamma * m @ P @ self.B
        return grad

    def noise_nodes(self, order: int = 5) -> tuple[np.ndarray, np.ndarray]:
        """Gauss-Hermite nodes and weights for w ~ N(0, W) (tensor product, exact to degree 2 order - 1)."""
        x, wts = np.polynomial.hermite_e.hermegauss(order)
        wts = wts / wts.sum()
        d = self.W.shape[0]
        grid = np.array(list(itertools.product(x, repeat=d)))
        weights = np.prod(np.array(list(itertools.product(wts, repeat=d))), axis=1)
        return grid @ np.linalg.cholesky(self.W).T, weights


LQ = LQProblem(
    A=np.array([[0.9, 0.3], [-0.2, 0.8]]),
    B=np.array([[1.0, 0.2], [0.4, 0.7]]),
    C=np.array([[1.0, 0.2], [0.2, 0.5]]),
    D=np.array([[0.3, 0.05], [0.05, 0.2]]),
    W=np.array([[0.10, 0.02], [0.02, 0.05]]),
    S0=np.array([[1.0, 0.3], [0.3, 0.6]]),
    gamma=0.9,
)
K_LQ = np.array([[-0.5, -0.1], [0.2, -0.6]])
