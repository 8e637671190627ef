"""Potential-based reward shaping: adding F = gamma Phi(s') - Phi(s) shifts Q* and V* by exactly -Phi(s)
(both optimal solutions from the LP, shaped and unshaped), so the optimal policies coincide; every policy's
value shifts the same way; a shaping bonus that is not of this form changes the optimal policy."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, TabularMDP, evaluate_policy, random_mdp, random_policy, solve_optimal


# --- formula ---
# few mutants: F = gamma Phi(s') - Phi(s), added to R: three operators
def shaping_reward(Phi, gamma):
    """F[s, a, s'] = gamma Phi(s') - Phi(s), broadcast over actions."""
    return gamma * Phi[None, None, :] - Phi[:, None, None]


def shaped(mdp, F):
    """The same MDP with reward R(s, a, s') + F(s, a, s')."""
    return TabularMDP(mdp.P, mdp.R_sas + F, mdp.gamma, mdp.start, mdp.terminal, name=mdp.name)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Ng, Harada and Russell (1999), Theorem 1, on dense random MDPs with arbitrary potentials (scale 5,
#    large next to the unit rewards): Q*_shaped(s, a) = Q*(s, a) - Phi(s) and V*_shaped = V* - Phi,
#    each side from its own linear program; the greedy policies agree.
for gamma in (0.5, 0.9, 0.97):
    mdp = random_mdp(rng, n_states=6, n_actions=3, gamma=gamma)
    Phi = rng.normal(scale=5.0, size=6)
    V_star, Q_star, pi_star = solve_optimal(mdp)
    V_sh, Q_sh, pi_sh = solve_optimal(shaped(mdp, shaping_reward(Phi, gamma)))
    check_close(f"gamma = {gamma}: Q*_shaped = Q* - Phi(s) (two LPs)", Q_sh, Q_star - Phi[:, None], rtol=1e-9,
                atol=1e-9)
    check_close(f"gamma = {gamma}: V*_shaped = V* - Phi", V_sh, V_star - Phi, rtol=1e-9, atol=1e-9)
    check_true(f"gamma = {gamma}: same optimal policy", np.array_equal(pi_sh, pi_star))
    # Any fixed policy: V^pi and Q^pi move by -Phi(s) too (the shaping telescopes along every trajectory).
    pi = random_policy(mdp, rng)
    V_pi, Q_pi = evaluate_policy(mdp, pi)
    V_pi_sh, Q_pi_sh = evaluate_policy(shaped(mdp, shaping_reward(Phi, gamma)), pi)
    check_close(f"gamma = {gamma}: random policy, Q^pi_shaped = Q^pi - Phi(s)", Q_pi_sh, Q_pi - Phi[:, None],
                rtol=1e-9, atol=1e-9)

# 2. The shaping reward of one transition, by hand: gamma = 0.9, Phi(s) = 2, Phi(s') = 5 gives
#    0.9 * 5 - 2 = 2.5; the reverse transition gives 0.9 * 2 - 5 = -3.2.
F = shaping_reward(np.array([2.0, 5.0]), 0.9)
check_close("F(s=0 -> s'=1) = 2.5 and F(1 -> 0) = -3.2 (any action)", [F[0, 0, 1], F[1, 0, 0]],
            [2.5, -3.2], rtol=1e-12)
check_close("a self-transition pays (gamma - 1) Phi(s)", [F[0, 0, 0], F[1, 0, 1]], [-0.2, -0.5], rtol=1e-12)

# 3. Gridworld with a distance-to-goal potential: Phi(s) = -(Manhattan distance to the goal) / 2, zero at
#    the goal and at the pits (terminal, absorbing). Same optimal policy, values shifted by -Phi.
grid = GRIDWORLD
rows, cols = np.divmod(np.arange(16), 4)
Phi_grid = -0.5 * ((3 - rows) + (3 - cols)).astype(float)
Phi_grid[grid.terminal] = 0.0
V_star, Q_star, pi_star = solve_optimal(grid)
V_sh, Q_sh, pi_sh = solve_optimal(shaped(grid, shaping_reward(Phi_grid, grid.gamma)))
check_close("gridworld: V*_shaped = V* - Phi", V_sh, V_star - Phi_grid, rtol=1e-9, atol=1e-9)
check_true("gridworld: same optimal policy in every non-terminal cell",
           np.array_equal(pi_sh[~grid.terminal], pi_star[~grid.terminal]))

# 4. A bonus that is not a potential difference changes the optimal policy: +0.5 for every transition
#    into cell 14 (next to the goal). Bumping into the bottom wall from 14 collects it forever,
#    worth more than the goal's +1, so the agent stops entering the goal. The potential-based bonus built
#    from Phi = 0.5 [s = 14] leaves the policy unchanged.
bonus = np.zeros((16, 4, 16))
bonus[:, :, 14] = 0.5
bonus[grid.terminal] = 0.0
_, _, pi_bonus = solve_optimal(shaped(grid, bonus))
changed = np.flatnonzero(np.any(pi_bonus != pi_star, axis=1) & ~grid.terminal)
check_true("non-potential bonus: the optimal action changes in some cell", changed.size > 0,
           f"changed in cells {changed.tolist()}")
Phi14 = np.zeros(16)
Phi14[14] = 0.5
_, _, pi_pot = solve_optimal(shaped(grid, shaping_reward(Phi14, grid.gamma)))
check_true("potential-based version of the same bonus: policy unchanged",
           np.array_equal(pi_pot[~grid.terminal], pi_star[~grid.terminal]))

# 5. The discount in F must be the MDP's. Dropping it (F = Phi(s') - Phi(s)) with Phi = 2 [s = 14] pays
#    nothing for staying in cell 14 but -2 for leaving it, and the optimal action in cell 14 changes;
#    the potential-based F with the MDP's gamma and the same Phi keeps the optimal policy.
Phi2 = np.zeros(16)
Phi2[14] = 2.0
undiscounted = Phi2[None, None, :] - Phi2[:, None, None]
_, _, pi_undisc = solve_optimal(shaped(grid, undiscounted))
_, _, pi_disc = solve_optimal(shaped(grid, shaping_reward(Phi2, grid.gamma)))
moved = np.flatnonzero(np.any(pi_undisc != pi_star, axis=1) & ~grid.terminal)
check_true("F without the discount (Phi(s') - Phi(s)) changes the optimal action in cell 14", 14 in moved,
           f"changed in cells {moved.tolist()}")
check_true("F = gamma Phi(s') - Phi(s) with the same Phi: policy unchanged",
           np.array_equal(pi_disc[~grid.terminal], pi_star[~grid.terminal]))

# The page's calculator is checked against shaping_reward on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): the transition from state 0 to state 1 of a two-state potential, potentials
# of both signs, gamma from 0 to 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda gamma, Phi_s, Phi_next: shaping_reward(np.array([Phi_s, Phi_next]), gamma)[0, 0, 1],
               cardcalc.grid(gamma=(0.0, 0.9, 0.99, 1.0), Phi_s=(-4.0, 0.0, 2.0), Phi_next=(-1.5, 0.0, 5.0)))
