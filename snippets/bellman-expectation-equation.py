"""Bellman expectation equation: V^pi from a linear solve is its fixed point; iterative policy evaluation
converges to it at rate gamma; a Monte Carlo estimate of V^pi satisfies it within sampling error."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, random_mdp, random_policy, solve_optimal


# --- formula ---
def bellman_expectation_backup(V, pi, P, R_sas, gamma):
    """(T^pi V)(s) = sum_a pi(a|s) sum_s' P(s'|s,a) [R(s,a,s') + gamma V(s')]."""
    backed_up = R_sas + gamma * V[None, None, :]
    per_action = np.sum(P * backed_up, axis=2)
    return np.sum(pi * per_action, axis=1)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. A dense random MDP (6 states, 3 actions, rewards depending on s, a and s') and a random stochastic
#    policy. V^pi comes from the linear system (I - gamma P_pi) V = r_pi, solved with numpy.linalg.solve
#    in rl_worlds from the expected rewards r(s, a); it must be a fixed point of the backup.
mdp = random_mdp(rng, n_states=6, n_actions=3, gamma=0.9)
pi = random_policy(mdp, rng)
V, Q = evaluate_policy(mdp, pi)
check_close("random MDP: T^pi V^pi = V^pi for the linear-solve V^pi",
            bellman_expectation_backup(V, pi, mdp.P, mdp.R_sas, mdp.gamma), V, rtol=1e-12)
V_wrong = V + rng.normal(size=V.shape)
residual = np.abs(bellman_expectation_backup(V_wrong, pi, mdp.P, mdp.R_sas, mdp.gamma) - V_wrong).max()
check_true("a perturbed V is not a fixed point", residual > 0.1, f"sup residual {residual:.3f}")

# 2. Backup of an arbitrary V against the matrix form r_pi + gamma P_pi V (independent: expected rewards,
#    the policy's own transition matrix).
P_pi, r_pi = mdp.policy_matrices(pi)
check_close("T^pi U = r_pi + gamma P_pi U for an arbitrary U",
            bellman_expectation_backup(V_wrong, pi, mdp.P, mdp.R_sas, mdp.gamma),
            r_pi + mdp.gamma * P_pi @ V_wrong, rtol=1e-12)

# 3. Iterative policy evaluation (Sutton and Barto, Eq. 4.5): repeated backups from V = 0 converge to
#    the linear solve, and the sup error shrinks at least by gamma per sweep (contraction).
U = np.zeros(mdp.n_states)
errors = [np.abs(U - V).max()]
for _ in range(300):
    U = bellman_expectation_backup(U, pi, mdp.P, mdp.R_sas, mdp.gamma)
    errors.append(np.abs(U - V).max())
check_close("300 sweeps of iterative policy evaluation = linear solve", U, V, rtol=1e-11)
ratios = np.array(errors[1:60]) / np.array(errors[:59])
check_true("each sweep shrinks the sup error by a factor <= gamma", np.all(ratios <= mdp.gamma + 1e-12),
           f"largest ratio {ratios.max():.4f} (gamma = {mdp.gamma})")
check_true("and the rate is close to gamma (the bound is attained asymptotically)",
           ratios[-1] > 0.5 * mdp.gamma, f"last ratio {ratios[-1]:.4f}")

# 4. The gridworld (terminal states absorbing with zero reward) under two policies: uniform random and
#    an optimal one.
grid = GRIDWORLD
_, _, pi_star = solve_optimal(grid)
pi_unif = np.full((grid.n_states, grid.n_actions), 0.25)
for name, pol in (("uniform", pi_unif), ("optimal", pi_star)):
    Vg, _ = evaluate_policy(grid, pol)
    check_close(f"gridworld, {name} policy: T^pi V^pi = V^pi",
                bellman_expectation_backup(Vg, pol, grid.P, grid.R_sas, grid.gamma), Vg, rtol=1e-12,
                atol=1e-15)

# 5. Monte Carlo: V^pi estimated from sampled returns (2000 rollouts of 100 steps from every state,
#    gamma^100 < 3e-5) satisfies the equation within sampling error. Tolerance: 4 standard errors of
#    the estimates, propagated through the backup (a weighted average of them, scaled by gamma).
Vg, _ = evaluate_policy(grid, pi_unif)
sampler = MDPSampler(grid, rng)
n_roll, horizon = 2000, 100
starts = np.flatnonzero(~grid.terminal)
_, _, rew = sampler.rollouts(pi_unif, n_roll * len(starts), horizon, s0=np.repeat(starts, n_roll))
G = (rew @ grid.gamma ** np.arange(horizon)).reshape(len(starts), n_roll)
V_mc, se = np.zeros(grid.n_states), np.zeros(grid.n_states)
V_mc[starts], se[starts] = G.mean(axis=1), G.std(axis=1) / np.sqrt(n_roll)
tol = 4 * (se.max() * (1 + grid.gamma))
check_close("Monte Carlo V^pi (uniform policy) satisfies T^pi V = V within 4 standard errors",
            bellman_expectation_backup(V_mc, pi_unif, grid.P, grid.R_sas, grid.gamma), V_mc, rtol=0,
            atol=tol)
check_close("and matches the linear solve within 4 standard errors", V_mc, Vg, rtol=0, atol=4 * se.max())
