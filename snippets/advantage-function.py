"""Advantage A = Q - V: one-step lookahead vs separate linear solves, policy-weighted mean zero, the
performance-difference identity, optimal advantages <= 0, and sampled TD errors averaging to A."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import objective, softmax_policy
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, occupancy, random_mdp, solve_optimal


# --- formula ---
# few mutants: r + gamma P V minus V: one sum, two products and one difference
def advantage(mdp, V):
    """A(s, a) = Q(s, a) - V(s) with Q(s, a) = r(s, a) + gamma sum_s' P(s'|s, a) V(s'): the expected one-step
    lookahead through the model minus the state's value. With V = V^pi this is A^pi."""
    Q = mdp.R + mdp.gamma * mdp.P @ V
    return Q - V[:, None]
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, 5, 3, 0.9)
pi = softmax_policy(2.0 * rng.normal(size=(5, 3)))
V, Q = evaluate_policy(mdp, pi)  # two separate linear solves: over states and over state-action pairs
A = advantage(mdp, V)

# 1. Against Q^pi from its own linear system over state-action pairs.
check_close("lookahead advantage vs Q^pi - V^pi from separate linear solves", A, Q - V[:, None], rtol=1e-10,
            atol=1e-12)

# 2. Its policy-weighted mean is zero in every state (V is the policy's average of Q).
check_close("sum_a pi(a|s) A(s, a) = 0 in every state", (pi * A).sum(axis=1), np.zeros(5), atol=1e-12)

# 3. Performance difference (Kakade and Langford 2002): for any other policy pi',
#    J(pi') - J(pi) = sum_s d^{pi'}(s) sum_a pi'(a|s) A^pi(s, a), d^{pi'} the discounted occupancy of pi'.
for k in range(3):
    pi2 = softmax_policy(3.0 * rng.normal(size=(5, 3)))
    lhs = objective(mdp, pi2) - objective(mdp, pi)
    rhs = occupancy(mdp, pi2) @ (pi2 * A).sum(axis=1)
    check_close(f"performance difference identity, random pi' #{k + 1}", rhs, lhs, rtol=1e-9)

# 4. Optimal policy (LP): every advantage A*(s, a) <= 0 and the optimal action's is 0.
V_star, Q_star, pi_star = solve_optimal(GRIDWORLD)
A_star = advantage(GRIDWORLD, V_star)
check_true("optimal advantages are <= 0", A_star.max() < 1e-9, f"max A* = {A_star.max():.1e}")
check_close("max_a A*(s, a) = 0 in every state", A_star.max(axis=1), np.zeros(16), atol=1e-9)
check_close("gridworld terminal states: A = 0 for every action", A_star[GRIDWORLD.terminal], np.zeros((3, 4)),
            atol=1e-15)

# 5. Monte Carlo: 40,000 sampled transitions from each (s, a) of the random MDP; the mean TD error
#    r + gamma V(s') - V(s) matches A within 4.5 standard errors.
sampler = MDPSampler(mdp, rng)
s_idx, a_idx = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
s_rep = np.repeat(s_idx.ravel(), 40_000)
a_rep = np.repeat(a_idx.ravel(), 40_000)
r, s2, _ = sampler.transitions(s_rep, a_rep)
td = (r + mdp.gamma * V[s2] - V[s_rep]).reshape(15, 40_000)
check_close("mean sampled TD error vs A (4.5 standard errors)", td.mean(axis=1), A.ravel(), rtol=0,
            atol=4.5 * td.std(axis=1).max() / np.sqrt(40_000))

# 6. Greedy improvement: acting greedily on A^pi never lowers any state's value (policy improvement).
greedy = np.eye(3)[A.argmax(axis=1)]
V_new, _ = evaluate_policy(mdp, greedy)
check_true("greedy on A^pi improves every state", np.all(V_new >= V - 1e-12),
           f"min gain {np.min(V_new - V):.3f}")

# Figure: advantages of the optimal gridworld policy, per state and action.
fig, ax = figure("Optimal advantages A*(s, a) on the gridworld", "state", "A*(s, a)")
for a, name in enumerate(GRIDWORLD.action_names):
    ax.plot(np.arange(16) + 0.15 * (a - 1.5), A_star[:, a], "o", label=name)
ax.legend(fontsize=8)
