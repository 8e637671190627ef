"""Bellman optimality equation for V*: the LP optimum is its fixed point; value iteration and policy
iteration reach the same V*; the backup is a gamma-contraction in the sup norm, monotone, and shifts a
constant by gamma."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GRIDWORLD, evaluate_policy, greedy_policy, random_mdp, solve_optimal


# --- formula ---
def bellman_optimality_backup(V, P, R_sas, gamma):
    """(T* V)(s) = max_a sum_s' P(s'|s,a) [R(s,a,s') + gamma V(s')]."""
    lookahead = np.sum(P * (R_sas + gamma * V[None, None, :]), axis=2)
    return np.max(lookahead, axis=1)


def value_iteration(P, R_sas, gamma, sweeps):
    """V_{k+1} = T* V_k from V_0 = 0 (Sutton and Barto, Eq. 4.10); returns V_K."""
    V = np.zeros(P.shape[0])
    for _ in range(sweeps):
        V = bellman_optimality_backup(V, P, R_sas, gamma)
    return V
# --- end formula ---


def policy_iteration(mdp):
    """Howard's policy iteration with exact evaluation (an independent route to V*): evaluate, act
    greedily on Q^pi = r + gamma P V^pi, stop when the policy is stable. Returns V and the sweep count."""
    pi = np.eye(mdp.n_actions)[np.zeros(mdp.n_states, dtype=int)]
    for it in range(1, 100):
        V, Q = evaluate_policy(mdp, pi)
        new = greedy_policy(Q)
        if np.array_equal(new, pi) or np.allclose(Q.max(axis=1), V, rtol=0, atol=1e-13):
            return V, it
        pi = new
    raise RuntimeError("policy iteration did not converge")


rng = np.random.default_rng(0)
worlds = [random_mdp(rng, n_states=7, n_actions=3, gamma=0.9), GRIDWORLD]
for mdp in worlds:
    name = mdp.name
    # V* from the linear program min sum V s.t. V >= r + gamma P V (scipy linprog), polished by an
    # exact evaluation of its greedy policy (rl_worlds.solve_optimal).
    V_star, Q_star, pi_star = solve_optimal(mdp)
    check_close(f"{name}: T* V* = V* for the LP optimum", bellman_optimality_backup(V_star, mdp.P, mdp.R_sas,
                mdp.gamma), V_star, rtol=1e-12, atol=1e-15)
    check_close(f"{name}: value iteration (400 sweeps) = LP optimum", value_iteration(mdp.P, mdp.R_sas,
                mdp.gamma, 400), V_star, rtol=1e-11, atol=1e-14)
    V_pi, iters = policy_iteration(mdp)
    check_close(f"{name}: policy iteration ({iters} improvements) = LP optimum", V_pi, V_star, rtol=1e-11,
                atol=1e-14)
    # Value of a sub-optimal policy lies below, and T* of it lies strictly above it somewhere.
    V_u, _ = evaluate_policy(mdp, np.full((mdp.n_states, mdp.n_actions), 1 / mdp.n_actions))
    lift = bellman_optimality_backup(V_u, mdp.P, mdp.R_sas, mdp.gamma) - V_u
    check_true(f"{name}: T* V^uniform >= V^uniform, with a strict gain", bool(np.all(lift > -1e-12) and
               lift.max() > 0.01), f"gain up to {lift.max():.3f}")

# One sweep from V = 0 is the best expected immediate reward, max_a r(s, a); two sweeps look two steps ahead.
m0 = worlds[0]
V1 = m0.R.max(axis=1)
check_close("one sweep of value iteration = max_a r(s, a)", value_iteration(m0.P, m0.R_sas, m0.gamma, 1), V1,
            rtol=1e-12)
check_close("two sweeps = max_a [r(s, a) + gamma P(.|s, a) . max_a' r]",
            value_iteration(m0.P, m0.R_sas, m0.gamma, 2), (m0.R + m0.gamma * m0.P @ V1).max(axis=1),
            rtol=1e-12)

# The contraction property, on the random MDP: for 500 random pairs (U, W) the sup-norm ratio
# ||T*U - T*W|| / ||U - W|| never exceeds gamma; a constant shift is moved by exactly gamma times
# itself, so the bound is tight; and the backup is monotone (U <= W implies T*U <= T*W).
mdp = worlds[0]
ratios = []
for _ in range(500):
    U, W = rng.normal(scale=5, size=(2, mdp.n_states))
    diff = (bellman_optimality_backup(U, mdp.P, mdp.R_sas, mdp.gamma)
            - bellman_optimality_backup(W, mdp.P, mdp.R_sas, mdp.gamma))
    ratios.append(np.abs(diff).max() / np.abs(U - W).max())
check_true("sup-norm ratio <= gamma over 500 random pairs", max(ratios) <= mdp.gamma + 1e-12,
           f"largest ratio {max(ratios):.4f}, gamma = {mdp.gamma}")
U = rng.normal(size=mdp.n_states)
check_close("T*(U + c) = T*U + gamma c (the ratio gamma is attained)",
            bellman_optimality_backup(U + 3.0, mdp.P, mdp.R_sas, mdp.gamma),
            bellman_optimality_backup(U, mdp.P, mdp.R_sas, mdp.gamma) + mdp.gamma * 3.0, rtol=1e-12)
W = U + rng.uniform(0, 1, size=mdp.n_states)
check_true("monotone: U <= W implies T*U <= T*W", bool(np.all(
    bellman_optimality_backup(U, mdp.P, mdp.R_sas, mdp.gamma)
    <= bellman_optimality_backup(W, mdp.P, mdp.R_sas, mdp.gamma) + 1e-12)))

# Value iteration's error bound: ||V_k - V*|| <= gamma^k ||V_0 - V*|| on the gridworld.
grid = worlds[1]
V_star, _, pi_star = solve_optimal(grid)
errs = np.array([np.abs(value_iteration(grid.P, grid.R_sas, grid.gamma, k) - V_star).max()
                 for k in range(40)])
bound = grid.gamma ** np.arange(40) * np.abs(V_star).max()
check_true("value iteration error <= gamma^k ||V*|| for k < 40", bool(np.all(errs <= bound + 1e-12)),
           f"error after 39 sweeps {errs[-1]:.2e}")

# Figure: V* of the gridworld with the greedy (optimal) action in each cell.
fig, ax = figure("Gridworld: optimal values V* and greedy actions", "column", "row", size=(5.0, 4.2))
ax.grid(False)
im = ax.imshow(V_star.reshape(4, 4), cmap="viridis")
arrows = {0: (0, -0.3), 1: (0.3, 0), 2: (0, 0.3), 3: (-0.3, 0)}
for s in range(16):
    r, c = divmod(s, 4)
    if grid.terminal[s]:
        ax.text(c, r, "G" if s == 15 else "pit", ha="center", va="center", color="w")
        continue
    dx, dy = arrows[int(np.argmax(pi_star[s]))]
    ink = "k" if V_star[s] > 0.6 else "w"
    ax.annotate("", xy=(c + dx, r + dy), xytext=(c, r), arrowprops=dict(arrowstyle="->", color=ink))
    ax.text(c, r + 0.35, f"{V_star[s]:.2f}", ha="center", va="center", color=ink, fontsize=8)
ax.set_xticks(range(4))
ax.set_yticks(range(4))
fig.colorbar(im, ax=ax, label="V*(s)")
