"""Nash equilibrium of a bimatrix game: the 2x2 indifference formula gives a profile from which no
unilateral deviation pays, checked by brute force over a grid of deviations, by enumerating pure
profiles, and against the LP solution of zero-sum games (rl_worlds.solve_zero_sum)."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import MATRIX_GAME, solve_zero_sum


# --- formula ---
def deviation_gains(A, B, x, y):
    """How much each player gains by its best unilateral deviation from (x, y): row player's payoffs A,
    column player's payoffs B. (x, y) is a Nash equilibrium iff both gains are <= 0."""
    row_gain = np.max(A @ y) - x @ A @ y
    col_gain = np.max(x @ B) - x @ B @ y
    return row_gain, col_gain


def mixed_equilibrium_2x2(A, B):
    """The fully mixed equilibrium of a 2x2 game: y makes the row player indifferent between its rows,
    x makes the column player indifferent between its columns."""
    q = (A[1, 1] - A[0, 1]) / (A[0, 0] - A[0, 1] - A[1, 0] + A[1, 1])
    p = (B[1, 1] - B[1, 0]) / (B[0, 0] - B[0, 1] - B[1, 0] + B[1, 1])
    return np.array([p, 1.0 - p]), np.array([q, 1.0 - q])
# --- end formula ---


def grid_deviation_gain(A, B, x, y, n=2001):
    """Brute force: best payoff over a grid of mixed deviations (and the pure ones), minus the current."""
    w = np.linspace(0.0, 1.0, n)
    devs = np.stack([w, 1.0 - w], axis=1)
    row = float(np.max(devs @ A @ y)) - float(x @ A @ y)
    col = float(np.max(devs @ B.T @ x)) - float(x @ B @ y)
    return row, col


def pure_equilibria_brute_force(A, B):
    """(i, j) is an equilibrium iff no row beats i against j and no column beats j against i."""
    m, n = A.shape
    return {(i, j) for i, j in itertools.product(range(m), range(n))
            if all(A[i, j] >= A[k, j] for k in range(m)) and all(B[i, j] >= B[i, k] for k in range(n))}


rng = np.random.default_rng(0)

# 1. Battle of the sexes: A = [[3, 0], [0, 2]], B = [[2, 0], [0, 3]]. By hand: the column player mixes
#    y = (2/5, 3/5) so that rows pay 6/5 each; the row player mixes x = (3/5, 2/5).
A_bos = np.array([[3.0, 0.0], [0.0, 2.0]])
B_bos = np.array([[2.0, 0.0], [0.0, 3.0]])
x, y = mixed_equilibrium_2x2(A_bos, B_bos)
check_close("battle of the sexes: mixed equilibrium x = (3/5, 2/5), y = (2/5, 3/5)", [x, y],
            [[0.6, 0.4], [0.4, 0.6]], rtol=1e-12)
check_close("battle of the sexes: no profitable deviation (both gains 0)",
            deviation_gains(A_bos, B_bos, x, y),
            [0.0, 0.0], rtol=0, atol=1e-12)
check_close("brute force over 2001 mixed deviations per player agrees: nothing gains",
            grid_deviation_gain(A_bos, B_bos, x, y), [0.0, 0.0], rtol=0, atol=1e-12)
uniform = np.array([0.5, 0.5])
check_close("uniform play is not an equilibrium: gains (0.25, 0.25) by hand", deviation_gains(A_bos, B_bos,
            uniform, uniform), [0.25, 0.25], rtol=1e-12)

# 2. Pure profiles: the gains are <= 0 exactly on the pure equilibria found by brute force
#    (battle of the sexes: both coordinated outcomes; prisoner's dilemma: only mutual defection; a random
#    3 x 4 bimatrix game).
A_pd = np.array([[-1.0, -3.0], [0.0, -2.0]])  # rows/cols: cooperate, defect (payoff = -years in prison)
games = {"battle of the sexes": (A_bos, B_bos), "prisoner's dilemma": (A_pd, A_pd.T),
         "random 3x4": (rng.integers(-3, 4, size=(3, 4)).astype(float),
                        rng.integers(-3, 4, size=(3, 4)).astype(float))}
for name, (A, B) in games.items():
    m, n = A.shape
    found = {(i, j) for i, j in itertools.product(range(m), range(n))
             if max(deviation_gains(A, B, np.eye(m)[i], np.eye(n)[j])) <= 0}
    check_true(f"{name}: pure profiles with no profitable deviation = brute-force equilibria",
               found == pure_equilibria_brute_force(A, B), f"{sorted(found)}")

# 3. Random 2x2 games with no pure equilibrium (drawn until found): the closed form lies inside (0, 1) and
#    brute force finds no profitable deviation.
worst, count = 0.0, 0
while count < 40:
    A, B = rng.normal(size=(2, 2, 2))
    if pure_equilibria_brute_force(A, B):
        continue
    count += 1
    x, y = mixed_equilibrium_2x2(A, B)
    inside = bool(np.all((x > 0) & (x < 1) & (y > 0) & (y < 1)))
    worst = max(worst, *grid_deviation_gain(A, B, x, y), -1.0 if inside else 1.0)
check_true("40 random 2x2 games without pure equilibria: interior mixed profile, no deviation gains",
           worst <= 1e-12, f"largest brute-force gain {worst:.1e}")

# 4. Zero-sum games (B = -A): the equilibrium is the minimax solution. Against the LP of rl_worlds on random
#    2x2 games without saddle point, and the LP's strategies for a 3 x 4 game have zero deviation gain.
errs = []
for _ in range(20):
    A = rng.normal(size=(2, 2))
    if pure_equilibria_brute_force(A, -A):
        continue
    x, y = mixed_equilibrium_2x2(A, -A)
    v, x_lp, y_lp = solve_zero_sum(A)
    errs.append(np.abs(np.r_[x - x_lp, y - y_lp, x @ A @ y - v]).max())
check_close("zero-sum 2x2: closed form = LP strategies and value", max(errs), 0.0, rtol=0, atol=1e-7)
v, x_lp, y_lp = solve_zero_sum(MATRIX_GAME)
check_close("zero-sum 3x4 game: the LP's minimax strategies have no profitable deviation",
            deviation_gains(MATRIX_GAME, -MATRIX_GAME, x_lp, y_lp), [0.0, 0.0], rtol=0, atol=1e-7)
check_true("... and moving the row player's mix off the LP solution lets the column player gain",
           deviation_gains(MATRIX_GAME, -MATRIX_GAME, np.array([0.6, 0.2, 0.2]), y_lp)[1] > 0.05)

# Figure: best-response curves of the battle of the sexes; they cross at the three equilibria.
p = np.linspace(0, 1, 401)
br_col = np.where(2 * p > 3 * (1 - p), 1.0, 0.0)  # column 0 pays 2p, column 1 pays 3(1 - p)
q = np.linspace(0, 1, 401)
br_row = np.where(3 * q > 2 * (1 - q), 1.0, 0.0)  # row 0 pays 3q, row 1 pays 2(1 - q)
fig, ax = figure("Battle of the sexes: best responses", "p = row player's prob. of row 0",
                 "q = column player's prob. of column 0")
ax.plot(br_row, q, label="row player's best response")
ax.plot(p, br_col, label="column player's best response")
ax.plot([0, 0.6, 1], [0, 0.4, 1], "ko", label="equilibria")
ax.legend(fontsize=8)
