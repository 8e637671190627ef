"""A small two-player game tree with its exact minimax values, and a plain Monte Carlo tree search whose
child-selection rule is passed in: shared by the UCT (MCTS UCB1) and AlphaZero PUCT cards.

The tree is complete, with ``branching`` moves per node and ``depth`` plies; players alternate and the
first player (at the root) maximises. ``leaves[a_0, a_1, ..., a_{depth-1}]`` is the final payoff to the
first player, in [0, 1]; the second player receives 1 minus it (a constant-sum game, so that both see
rewards in [0, 1], the range UCB1's constant assumes)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def random_game_tree(rng: np.random.Generator, branching: int = 3, depth: int = 4) -> np.ndarray:
    """Leaf payoffs to the first player, i.i.d. uniform on [0, 1]."""
    return rng.uniform(size=(branching,) * depth)


def minimax_children(leaves: np.ndarray) -> np.ndarray:
    """Exact minimax value (to the first player) of each child of the root, by backward induction: the
    player at depth k chooses along axis k, maximising for even k and minimising for odd k."""
    v = leaves
    for k in range(leaves.ndim - 1, 0, -1):
        v = v.max(axis=k) if k % 2 == 0 else v.min(axis=k)
    return v


Select = Callable[[np.ndarray, np.ndarray, int, np.ndarray], int]


def mcts(leaves: np.ndarray, select: Select, n_simulations: int, rng: np.random.Generator,
         prior: Callable[[tuple[int, ...]], np.ndarray] | None = None):
    """Monte Carlo tree search on ``leaves``.

    Each simulation descends from the root with ``select(q, n, n_node, p)`` while the current node has been
    visited before, so one new node is added per simulation; it then finishes the game with uniformly
    random moves and backs the payoff up. Arguments of ``select`` for the node being left: ``q`` the mean
    payoffs of its children from the point of view of the player to move there (0 for unvisited
    children), ``n`` the children's visit counts, ``n_node`` the node's own visit count and ``p`` the
    prior over its children (``prior(path)``, uniform when ``prior`` is None). Returns the root children's
    visit counts, their mean payoffs to the first player, and the running root estimate (the mean payoff
    of all simulations so far) after each simulation."""
    b, d = leaves.shape[0], leaves.ndim
    visits: dict[tuple[int, ...], int] = {}
    totals: dict[tuple[int, ...], float] = {}  # payoff summed from the view of the player who moved there
    running, root_sum = np.empty(n_simulations), 0.0
    for t in range(n_simulations):
        path: tuple[int, ...] = ()
        while len(path) < d and visits.get(path, 0) > 0:
            kids = [(*path, a) for a in range(b)]
            n = np.array([visits.get(k, 0) for k in kids], dtype=float)
            q = np.array([totals[k] / visits[k] if k in visits else 0.0 for k in kids])
            p = prior(path) if prior is not None else np.full(b, 1.0 / b)
            path = kids[select(q, n, visits[path], p)]
        value = float(leaves[path + tuple(int(a) for a in rng.integers(b, size=d - len(path)))])
        visits[()] = visits.get((), 0) + 1
        for k in range(1, len(path) + 1):
            node = path[:k]
            visits[node] = visits.get(node, 0) + 1
            totals[node] = totals.get(node, 0.0) + (value if (k - 1) % 2 == 0 else 1.0 - value)
        root_sum += value
        running[t] = root_sum / (t + 1)
    n_root = np.array([visits.get((a,), 0) for a in range(b)])
    q_root = np.array([totals[(a,)] / visits[(a,)] if (a,) in visits else np.nan for a in range(b)])
    return n_root, q_root, running
