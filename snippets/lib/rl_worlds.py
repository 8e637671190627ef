"""Small exact worlds for the reinforcement-learning cards, with their exact solutions.

RL formulas can be checked exactly on problems small enough to solve by linear algebra or linear
programming. The snippets of the RL cards import their test problems from here, so that every card
is checked on the same worlds and the exact answers are computed once, in one readable place:

1. ``TabularMDP``: a finite discounted MDP with arrays ``P[s, a, s']`` and ``R_sas[s, a, s']``;
   ``GRIDWORLD`` is a 4 x 4 slippery gridworld with a goal, two pits and a step cost, and
   ``random_mdp`` draws dense non-symmetric MDPs. Exact solvers: ``evaluate_policy`` (V^pi and
   Q^pi from the linear Bellman systems, numpy.linalg.solve), ``solve_optimal`` (V*, Q* and a
   greedy optimal policy from the linear program of Puterman, Sec. 6.9, scipy.optimize.linprog,
   polished by an exact policy evaluation). Samplers: ``MDPSampler.step`` (one transition),
   ``MDPSampler.transitions`` (a batch of independent transitions, for synchronous updates),
   ``MDPSampler.episode`` (one episode) and ``MDPSampler.rollouts`` (many episodes in parallel).
2. ``Bandit``: a stochastic multi-armed bandit with known means, Bernoulli or Gaussian rewards
   (``BERNOULLI_BANDIT``, ``GAUSSIAN_BANDIT``).
3. ``solve_zero_sum``: the value and optimal mixed strategies of a two-player zero-sum matrix game
   by linear programming (``ROCK_PAPER_SCISSORS``, ``MATRIX_GAME``).
4. ``TabularPOMDP``: a finite POMDP with an observation model; ``TIGER`` is the tiger problem of
   Kaelbling, Littman and Cassandra (1998) and ``random_pomdp`` draws small dense ones.

Conventions (shared by every card that imports this module):

- States, actions and observations are integers ``0..n-1``. A policy is an array ``pi[s, a]`` of
  action probabilities (rows sum to 1); a deterministic policy is a one-hot array.
- ``P[s, a, s'] = Pr(S_{t+1} = s' | S_t = s, A_t = a)``; ``R_sas[s, a, s']`` is the reward received on
  that transition (deterministic given the transition); ``R[s, a] = sum_s' P[s, a, s'] R_sas[s, a, s']``
  is the expected reward r(s, a) of Sutton and Barto (2018), Eq. (3.5).
- Terminal states are absorbing with zero reward (``P[t, a, t] = 1``, ``R_sas[t] = 0``), so value
  functions are 0 there and the infinite discounted sum needs no special case; ``terminal[s]`` marks
  them and the samplers report ``done`` when one is entered.
- Rewards are indexed as in Sutton and Barto: the transition taken at time t yields R_{t+1}, stored at
  ``rewards[t]`` by the samplers.
- Everything random takes a ``numpy.random.Generator``; nothing here draws from a global seed.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.optimize import linprog

# =============================================================================================
# 1. Finite discounted MDPs
# =============================================================================================


@dataclass(frozen=True, eq=False)
class TabularMDP:
    """A finite MDP (S, A, P, R, gamma) with a start distribution; see the module docstring."""

    P: np.ndarray  # (S, A, S) transition probabilities
    R_sas: np.ndarray  # (S, A, S) reward on the transition s --a--> s'
    gamma: float
    start: np.ndarray  # (S,) distribution of S_0
    terminal: np.ndarray  # (S,) bool, absorbing zero-reward states
    name: str = ""
    shape: tuple[int, int] | None = None  # grid shape when the states are cells of a grid
    action_names: tuple[str, ...] = field(default=())

    @property
    def n_states(self) -> int:
        return self.P.shape[0]

    @property
    def n_actions(self) -> int:
        return self.P.shape[1]

    @cached_property
    def R(self) -> np.ndarray:
        """Expected reward r(s, a) = sum_s' P(s'|s, a) R(s, a, s'), shape (S, A)."""
        return np.einsum("ijk,ijk->ij", self.P, self.R_sas)

    def policy_matrices(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Markov reward process of policy pi: P_pi[s, s'] and r_pi[s]."""
        P_pi = np.einsum("ij,ijk->ik", pi, self.P)
        r_pi = np.einsum("ij,ij->i", pi, self.R)
        return P_pi, r_pi


def evaluate_policy(mdp: TabularMDP, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact V^pi and Q^pi of a stochastic policy pi[s, a].

    V solves (I - gamma P_pi) V = r_pi over states; Q solves its own system over state-action pairs,
    (I - gamma M) q = r with M[(s,a), (s',a')] = P(s'|s,a) pi(a'|s'), so the two come from separate
    linear solves (each may serve as the other's check)."""
    S, A = mdp.n_states, mdp.n_actions
    P_pi, r_pi = mdp.policy_matrices(pi)
    V = np.linalg.solve(np.eye(S) - mdp.gamma * P_pi, r_pi)
    M = (mdp.P[:, :, :, None] * pi[None, None, :, :]).reshape(S * A, S * A)
    q = np.linalg.solve(np.eye(S * A) - mdp.gamma * M, mdp.R.reshape(-1))
    return V, q.reshape(S, A)


def occupancy(mdp: TabularMDP, pi: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Discounted state occupancy sum_t gamma^t Pr(S_t = s) from the start distribution (unnormalized;
    multiply by 1 - gamma for the discounted state distribution)."""
    mu = mdp.start if start is None else start
    P_pi, _ = mdp.policy_matrices(pi)
    return np.linalg.solve((np.eye(mdp.n_states) - mdp.gamma * P_pi).T, mu)


def greedy_policy(Q: np.ndarray) -> np.ndarray:
    """One-hot policy taking argmax_a Q[s, a] (the first action among exact ties)."""
    pi = np.zeros_like(Q, dtype=float)
    pi[np.arange(Q.shape[0]), np.argmax(Q, axis=1)] = 1.0
    return pi


def epsilon_greedy_policy(Q: np.ndarray, epsilon: float) -> np.ndarray:
    """pi(a|s) = epsilon / |A| + (1 - epsilon) [a = argmax Q[s]] (the first action among exact ties)."""
    n_actions = Q.shape[1]
    return epsilon / n_actions + (1.0 - epsilon) * greedy_policy(Q)


def uniform_policy(mdp: TabularMDP) -> np.ndarray:
    return np.full((mdp.n_states, mdp.n_actions), 1.0 / mdp.n_actions)


def random_policy(mdp: TabularMDP, rng: np.random.Generator) -> np.ndarray:
    """A stochastic policy with Dirichlet(1) rows: every action has positive probability."""
    return rng.dirichlet(np.ones(mdp.n_actions), size=mdp.n_states)


def solve_optimal(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact V*, Q* and a deterministic optimal policy.

    The LP (Puterman 1994, Sec. 6.9): minimize sum_s V(s) subject to
    V(s) >= r(s, a) + gamma sum_s' P(s'|s, a) V(s') for every (s, a). Its solution is V*. The LP's
    answer carries the solver's tolerance (~1e-9), so the greedy policy it implies is then evaluated
    exactly with numpy.linalg.solve; that policy's values are V* and Q* to rounding error."""
    S, A = mdp.n_states, mdp.n_actions
    # Constraint rows (s, a): gamma P[s, a] . V - V(s) <= -r(s, a).
    A_ub = mdp.gamma * mdp.P.reshape(S * A, S) - np.repeat(np.eye(S), A, axis=0)
    res = linprog(np.ones(S), A_ub=A_ub, b_ub=-mdp.R.reshape(-1), bounds=[(None, None)] * S,
                  method="highs")
    if not res.success:
        raise RuntimeError(f"LP for V* failed: {res.message}")
    Q_lp = mdp.R + mdp.gamma * mdp.P @ res.x
    pi_star = greedy_policy(Q_lp)
    V, Q = evaluate_policy(mdp, pi_star)
    if np.max(np.abs(V - res.x)) > 1e-6:
        raise RuntimeError("policy extracted from the LP is not optimal")
    return V, Q, pi_star


@dataclass
class Episode:
    """One sampled episode: states[0..T] (states[T] is where it stopped), actions[0..T-1] and
    rewards[0..T-1], rewards[t] being R_{t+1}; terminated says whether states[T] is terminal."""

    states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminated: bool


class MDPSampler:
    """Seeded simulation of a TabularMDP (all randomness from the Generator passed in)."""

    def __init__(self, mdp: TabularMDP, rng: np.random.Generator):
        self.mdp = mdp
        self.rng = rng
        self._cumP = np.cumsum(mdp.P, axis=2)
        self._cumP[..., -1] = 1.0  # guard against rounding: u < 1 always lands in a state

    def _draw(self, cum: np.ndarray, u: np.ndarray | float) -> np.ndarray:
        """Inverse-CDF draw along the last axis of cum (rows of cumulative probabilities)."""
        return np.sum(cum <= np.asarray(u)[..., None], axis=-1)

    def step(self, s: int, a: int) -> tuple[float, int, bool]:
        """One transition from (s, a): (reward, next state, whether the next state is terminal)."""
        s2 = int(np.searchsorted(self._cumP[s, a], self.rng.random(), side="right"))
        return float(self.mdp.R_sas[s, a, s2]), s2, bool(self.mdp.terminal[s2])

    def transitions(self, states: np.ndarray, actions: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Independent transitions for arrays of (s, a): rewards, next states, done flags."""
        s2 = self._draw(self._cumP[states, actions], self.rng.random(np.shape(states)))
        return self.mdp.R_sas[states, actions, s2], s2, self.mdp.terminal[s2]

    def actions(self, pi: np.ndarray, states: np.ndarray) -> np.ndarray:
        """Actions drawn from pi[s] for an array of states."""
        cum = np.cumsum(pi[states], axis=-1)
        cum[..., -1] = 1.0
        return self._draw(cum, self.rng.random(np.shape(states)))

    def episode(self, pi: np.ndarray, s0: int | None = None, a0: int | None = None,
                max_steps: int = 1000) -> Episode:
        """Run pi from s0 (default: drawn from mdp.start) until a terminal state or max_steps.
        If a0 is given it is the first action (for action values), pi is followed afterwards."""
        mdp = self.mdp
        s = int(self._draw(np.cumsum(mdp.start), self.rng.random())) if s0 is None else s0
        cum_pi = np.cumsum(pi, axis=1)
        cum_pi[:, -1] = 1.0
        states, actions, rewards = [s], [], []
        done = bool(mdp.terminal[s])
        while not done and len(actions) < max_steps:
            if a0 is not None and not actions:
                a = a0
            else:
                a = int(np.searchsorted(cum_pi[s], self.rng.random(), side="right"))
            r, s, done = self.step(s, a)
            states.append(s)
            actions.append(a)
            rewards.append(r)
        return Episode(np.array(states), np.array(actions, dtype=int), np.array(rewards), done)

    def rollouts(self, pi: np.ndarray, n: int, horizon: int, s0: int | np.ndarray | None = None,
                 a0: int | np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """n episodes in parallel for a fixed horizon: states (n, H+1), actions (n, H), rewards (n, H).
        Episodes that reach a terminal state stay there with zero reward, so sums over the horizon
        are episode returns truncated at H (error <= gamma^H max|R| / (1 - gamma))."""
        mdp = self.mdp
        if s0 is None:
            s = self._draw(np.cumsum(mdp.start), self.rng.random(n))
        else:
            s = np.broadcast_to(np.asarray(s0), (n,)).copy()
        S = np.empty((n, horizon + 1), dtype=int)
        Aa = np.empty((n, horizon), dtype=int)
        Rr = np.empty((n, horizon))
        S[:, 0] = s
        for t in range(horizon):
            a = self.actions(pi, s)
            if t == 0 and a0 is not None:
                a = np.broadcast_to(np.asarray(a0), (n,)).copy()
            r, s, _ = self.transitions(s, a)
            Aa[:, t], Rr[:, t], S[:, t + 1] = a, r, s
        return S, Aa, Rr


def make_gridworld(slip: float = 0.2, gamma: float = 0.9, step_reward: float = -0.04,
                   goal_reward: float = 1.0, pit_reward: float = -1.0) -> TabularMDP:
    """A 4 x 4 slippery gridworld; state s is the cell (s // 4, s % 4), row 0 at the top.

        S . . .      S: start (state 0)
        . X . .      X: pits (states 5 and 11), terminal
        . . . X      G: goal (state 15), terminal
        . . . G

    Actions 0..3 = up, right, down, left. The intended move happens with probability 1 - slip,
    each of the two perpendicular moves with probability slip / 2; a move into the outer wall leaves
    the agent where it is. Every transition from a non-terminal cell pays step_reward, plus
    goal_reward on entering G or pit_reward on entering a pit."""
    n, S, A = 4, 16, 4
    goal, pits = 15, (5, 11)
    moves = [(-1, 0), (0, 1), (1, 0), (0, -1)]
    terminal = np.zeros(S, dtype=bool)
    terminal[[goal, *pits]] = True
    P = np.zeros((S, A, S))
    R_sas = np.zeros((S, A, S))
    for s in range(S):
        if terminal[s]:
            P[s, :, s] = 1.0
            continue
        row, col = divmod(s, n)
        for a in range(A):
            for direction, prob in ((a, 1 - slip), ((a + 1) % 4, slip / 2), ((a + 3) % 4, slip / 2)):
                r2, c2 = row + moves[direction][0], col + moves[direction][1]
                if not (0 <= r2 < n and 0 <= c2 < n):
                    r2, c2 = row, col
                P[s, a, r2 * n + c2] += prob
            R_sas[s, a, :] = step_reward
            R_sas[s, a, goal] += goal_reward
            for p in pits:
                R_sas[s, a, p] += pit_reward
    start = np.zeros(S)
    start[0] = 1.0
    return TabularMDP(P, R_sas, gamma, start, terminal, name="4x4 slippery gridworld", shape=(4, 4),
                      action_names=("up", "right", "down", "left"))


def random_mdp(rng: np.random.Generator, n_states: int = 5, n_actions: int = 3,
               gamma: float = 0.9) -> TabularMDP:
    """A dense random MDP without terminal states: Dirichlet(1) transition rows, rewards R(s, a, s')
    i.i.d. standard normal, uniform start. Nothing is symmetric, so swapped axes show up."""
    P = rng.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    R_sas = rng.normal(size=(n_states, n_actions, n_states))
    return TabularMDP(P, R_sas, gamma, np.full(n_states, 1.0 / n_states),
                      np.zeros(n_states, dtype=bool), name=f"random MDP ({n_states} x {n_actions})")


GRIDWORLD = make_gridworld()

# =============================================================================================
# 2. Multi-armed bandits with known means
# =============================================================================================


@dataclass(frozen=True, eq=False)
class Bandit:
    """K arms with known mean rewards; kind 'bernoulli' (rewards 0/1) or 'gaussian' (N(mean, sigma^2))."""

    means: np.ndarray
    kind: str = "bernoulli"
    sigma: float = 1.0

    @property
    def n_arms(self) -> int:
        return len(self.means)

    @property
    def best_arm(self) -> int:
        return int(np.argmax(self.means))

    @property
    def best_mean(self) -> float:
        return float(np.max(self.means))

    @property
    def gaps(self) -> np.ndarray:
        """Delta_k = mu* - mu_k (0 for the best arm)."""
        return self.best_mean - self.means

    def pull(self, arms: np.ndarray | int, rng: np.random.Generator) -> np.ndarray | float:
        """Rewards of the given arm(s), one independent draw each."""
        mu = self.means[arms]
        if self.kind == "bernoulli":
            return (rng.random(np.shape(mu)) < mu).astype(float)
        return mu + self.sigma * rng.standard_normal(np.shape(mu))

    def pseudo_regret(self, arms: np.ndarray) -> np.ndarray:
        """Cumulative pseudo-regret sum_t (mu* - mu_{A_t}) after each pull of the sequence arms."""
        return np.cumsum(self.gaps[np.asarray(arms)])


BERNOULLI_BANDIT = Bandit(np.array([0.30, 0.55, 0.45, 0.70, 0.60]), "bernoulli")
GAUSSIAN_BANDIT = Bandit(np.array([0.0, 0.5, -0.3, 1.0, 0.8, 0.2]), "gaussian", sigma=1.0)

# =============================================================================================
# 3. Two-player zero-sum matrix games
# =============================================================================================


def solve_zero_sum(A: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value v and optimal mixed strategies (x, y) of the game where the row player picks row i with
    probability x_i, the column player column j with probability y_j, and the row player receives
    A[i, j] (the column player pays it): v = max_x min_y x^T A y = min_y max_x x^T A y.

    Two linear programs (von Neumann's minimax theorem makes their optima equal): the row player
    maximizes v subject to (A^T x)_j >= v for all j; the column player minimizes w subject to
    (A y)_i <= w for all i."""
    m, n = A.shape
    # Row player: variables (x_1..x_m, v); minimize -v; v - (A^T x)_j <= 0; sum x = 1.
    row = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-A.T, np.ones(n)], b_ub=np.zeros(n),
                  A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    # Column player: variables (y_1..y_n, w); minimize w; (A y)_i - w <= 0; sum y = 1.
    col = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.c_[A, -np.ones(m)], b_ub=np.zeros(m),
                  A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    if not (row.success and col.success):
        raise RuntimeError("matrix-game LP failed")
    return float(row.x[-1]), row.x[:m], col.x[:n]


ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
# A 3 x 4 game with no pure saddle point and an asymmetric mixed equilibrium.
MATRIX_GAME = np.array([[3.0, -1.0, 2.0, 0.5], [-2.0, 4.0, -1.0, 1.0], [1.0, 0.0, -3.0, 2.0]])

# =============================================================================================
# 4. Finite POMDPs
# =============================================================================================


@dataclass(frozen=True, eq=False)
class TabularPOMDP:
    """A finite POMDP (S, A, T, R, Omega, O, gamma) with an initial belief b0.

    T[s, a, s'] = Pr(s' | s, a); O[s', a, o] = Pr(o | s', a), the probability of observing o after
    action a led to state s' (the argument order of Kaelbling et al. 1998, O(s', a, o)); R[s, a] is
    the expected immediate reward of doing a in s."""

    T: np.ndarray  # (S, A, S)
    O: np.ndarray  # (S, A, Z)  # noqa: E741 - the observation model's name in the literature
    R: np.ndarray  # (S, A)
    gamma: float
    b0: np.ndarray  # (S,)
    name: str = ""
    state_names: tuple[str, ...] = ()
    action_names: tuple[str, ...] = ()
    observation_names: tuple[str, ...] = ()

    @property
    def n_states(self) -> int:
        return self.T.shape[0]

    @property
    def n_actions(self) -> int:
        return self.T.shape[1]

    @property
    def n_observations(self) -> int:
        return self.O.shape[2]

    def step(self, s: int, a: int, rng: np.random.Generator) -> tuple[float, int, int]:
        """Simulate one step from the hidden state s: (reward, next hidden state, observation)."""
        s2 = int(rng.choice(self.n_states, p=self.T[s, a]))
        o = int(rng.choice(self.n_observations, p=self.O[s2, a]))
        return float(self.R[s, a]), s2, o

    def joint(self, b: np.ndarray, a: int) -> np.ndarray:
        """The joint Pr(S = s, S' = s', O = o | b, a) = b(s) T(s'|s,a) O(o|s',a), shape (S, S, Z),
        by plain enumeration (the reference that Bayes-rule computations are compared with)."""
        out = np.zeros((self.n_states, self.n_states, self.n_observations))
        for s, s2, o in itertools.product(range(self.n_states), range(self.n_states),
                                          range(self.n_observations)):
            out[s, s2, o] = b[s] * self.T[s, a, s2] * self.O[s2, a, o]
        return out


def make_tiger(listen_accuracy: float = 0.85, listen_reward: float = -1.0, treasure: float = 10.0,
               tiger: float = -100.0, gamma: float = 0.95) -> TabularPOMDP:
    """The tiger problem (Kaelbling, Littman and Cassandra 1998). A tiger is behind the left (state 0)
    or right (state 1) door. Actions: 0 listen, 1 open-left, 2 open-right. Listening costs 1, leaves
    the state unchanged and reports the tiger's side correctly with probability 0.85 (observation
    0 = hear-left, 1 = hear-right). Opening the tiger's door pays -100, the other door +10; either
    way the problem resets (tiger placed uniformly at random) and the observation is uninformative."""
    T = np.zeros((2, 3, 2))
    T[:, 0, :] = np.eye(2)
    T[:, 1:, :] = 0.5
    obs_model = np.zeros((2, 3, 2))
    obs_model[:, 0, :] = [[listen_accuracy, 1 - listen_accuracy], [1 - listen_accuracy, listen_accuracy]]
    obs_model[:, 1:, :] = 0.5
    R = np.array([[listen_reward, tiger, treasure], [listen_reward, treasure, tiger]])
    return TabularPOMDP(T, obs_model, R, gamma, np.array([0.5, 0.5]), name="tiger",
                        state_names=("tiger-left", "tiger-right"),
                        action_names=("listen", "open-left", "open-right"),
                        observation_names=("hear-left", "hear-right"))


def random_pomdp(rng: np.random.Generator, n_states: int = 3, n_actions: int = 2,
                 n_observations: int = 3, gamma: float = 0.9) -> TabularPOMDP:
    """A dense random POMDP: Dirichlet(1) rows for T and O, standard normal R, Dirichlet belief."""
    T = rng.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    obs_model = rng.dirichlet(np.ones(n_observations), size=(n_states, n_actions))
    R = rng.normal(size=(n_states, n_actions))
    return TabularPOMDP(T, obs_model, R, gamma, rng.dirichlet(np.ones(n_states)), name="random POMDP")


TIGER = make_tiger()
