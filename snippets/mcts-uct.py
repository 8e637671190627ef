"""UCT (UCB1 applied to trees): the selection score with its infinite bonus for unvisited children, the UCB1
constant checked through Hoeffding's bound (the bonus is the radius at confidence N^-4), UCB1 on a bandit
within Auer et al.'s bound, and UCT on a small game tree converging to the exact minimax value."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from games_fixture import mcts, minimax_children, random_game_tree
from rl_worlds import BERNOULLI_BANDIT

# --- formula ---
UCB1_C = np.sqrt(2.0)


def uct_scores(q, n, n_parent, c=UCB1_C):
    """Q(s, a) + c sqrt(ln N(s) / N(s, a)); +inf for a child never visited. c = sqrt(2) is UCB1 for
    payoffs in [0, 1] (Kocsis and Szepesvari write the bonus as 2 C_p sqrt(ln n / n_j), C_p = 1/sqrt(2))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        bonus = c * np.sqrt(np.log(n_parent) / n)
    return np.where(n > 0, q + bonus, np.inf)


def uct_select(q, n, n_parent, prior=None):
    return int(np.argmax(uct_scores(q, n, n_parent)))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The bonus is UCB1's: for payoffs in [0, 1], Hoeffding gives P(mean of n draws >= mu + eps) <=
#    exp(-2 n eps^2), and at eps = bonus this is N^-4 (Auer, Cesa-Bianchi and Fischer 2002, proof of Thm 1).
N_parent = np.array([10, 100, 1000, 12345])
n_child = np.array([1, 7, 50, 999])
bonus = uct_scores(np.zeros(4), n_child, N_parent)
check_close("exp(-2 n bonus^2) = N^-4: the default constant is UCB1's sqrt(2)",
            np.exp(-2 * n_child * bonus ** 2),
            N_parent ** -4.0, rtol=1e-9)
check_close("the score adds Q to the bonus", uct_scores(np.full(4, 0.3), n_child, N_parent) - bonus,
            np.full(4, 0.3), rtol=1e-12)
check_close("other c: bonus scales linearly (c = 0.5 gives a quarter of 2 sqrt(ln 25 / 4))",
            uct_scores(np.zeros(1), np.array([4.0]), 25, c=0.5), [0.25 * np.sqrt(np.log(25.0))], rtol=1e-12)

# 2. Branches: unvisited children score +inf and are all tried before any is tried twice; among visited
#    children with equal counts the higher Q wins; a rarely tried child can beat a better-looking one.
scores = uct_scores(np.array([0.9, 0.0, 0.5]), np.array([3.0, 0.0, 1.0]), 4)
check_true("an unvisited child scores +inf, visited ones are finite",
           bool(np.isposinf(scores[1]) and np.all(np.isfinite(scores[[0, 2]]))), f"scores {scores}")
check_true("equal counts: the larger mean is selected",
           uct_select(np.array([0.2, 0.7, 0.4]), np.array([5.0, 5.0, 5.0]), 15) == 1)
check_true("Q = (0.6, 0.4), N(s, a) = (20, 5), N(s) = 25: exploration picks the second child",
           uct_select(np.array([0.6, 0.4]), np.array([20.0, 5.0]), 25) == 1)
check_true("... but with N(s, a) = (20, 40), N(s) = 60 the first", uct_select(np.array([0.6, 0.4]),
           np.array([20.0, 40.0]), 60) == 0)
order, counts = [], np.zeros(5)
for t in range(5):
    a = uct_select(np.zeros(5), counts, t + 1)
    order.append(a)
    counts[a] += 1
check_true("first five selections of a fresh node visit each of five children once",
           sorted(order) == list(range(5)),
           f"order {order}")

# 3. UCB1 on the Bernoulli bandit of rl_worlds (means 0.30 .. 0.70), 2000 pulls: every sub-optimal arm is
#    pulled no more than Auer et al.'s bound 8 ln T / gap^2 + 1 + pi^2 / 3 (Thm 1, a bound on the
#    expectation, comfortably met by one run), and the best arm gets most pulls.
bandit, T = BERNOULLI_BANDIT, 2000
sums, pulls = np.zeros(bandit.n_arms), np.zeros(bandit.n_arms)
for t in range(T):
    a = uct_select(np.divide(sums, pulls, out=np.zeros_like(sums), where=pulls > 0), pulls, t)
    sums[a] += bandit.pull(a, rng)
    pulls[a] += 1
gaps = bandit.gaps
sub = gaps > 0
bound = 8 * np.log(T) / gaps[sub] ** 2 + 1 + np.pi ** 2 / 3
check_true("UCB1 pulls of each sub-optimal arm <= 8 ln T / gap^2 + 1 + pi^2/3",
           bool(np.all(pulls[sub] <= bound)),
           f"pulls {pulls[sub].astype(int).tolist()} vs bounds {np.round(bound).astype(int).tolist()}")
check_true("the best arm is pulled most", int(np.argmax(pulls)) == bandit.best_arm,
           f"pulls {pulls.astype(int)}")

# 4. UCT on a random game tree (3 moves per node, 4 plies, payoffs in [0, 1]): after 2000 simulations the
#    most visited root move is the minimax move (exact backward induction), its mean payoff is within 0.05
#    of its minimax value, and so is the root's running estimate.
leaves = random_game_tree(rng, branching=3, depth=4)
exact = minimax_children(leaves)
n_root, q_root, running = mcts(leaves, uct_select, 2000, rng)
best = int(np.argmax(exact))
check_true("most visited root move = minimax move", int(np.argmax(n_root)) == best,
           f"visits {n_root.tolist()}, minimax child values {np.round(exact, 3).tolist()}")
check_close("mean payoff of the chosen move vs its minimax value", q_root[best], exact[best], rtol=0,
            atol=0.05)
check_close("root estimate after 2000 simulations vs the minimax value", running[-1], exact.max(), rtol=0,
            atol=0.05)

fig, ax = figure("UCT on a 3-move, 4-ply game tree", "simulations", "|root estimate - minimax value|")
ax.loglog(np.arange(1, 2001), np.abs(running - exact.max()))

# The page's calculator is checked against uct_scores on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows) for visited children, whose score is finite: N(s) = 1 (no bonus), a child
# visited once and one visited often, several constants and negative payoffs, with N(s, a) <= N(s).
import cardcalc  # noqa: E402

cardcalc.table(lambda Q, N_s, N_sa, c: {"bonus": uct_scores(np.zeros(1), np.array([N_sa]), N_s, c)[0],
                                        "score": uct_scores(np.array([Q]), np.array([N_sa]), N_s, c)[0]},
               [row for row in cardcalc.grid(Q=(-1.0, 0.0, 0.6), N_s=(1, 25, 12345), N_sa=(1, 4, 999),
                                             c=(0.5, UCB1_C, 2.0))
                if row["N_sa"] <= row["N_s"]])
