"""Action value Q^pi(s,a) = E[G_t | S_t = s, A_t = a]: one-step lookahead from V^pi vs an independent
linear solve over state-action pairs, V = sum_a pi Q, Monte Carlo returns with a forced first action,
and the policy-improvement step that Q^pi makes possible."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import (
    GRIDWORLD,
    MDPSampler,
    evaluate_policy,
    greedy_policy,
    random_mdp,
    random_policy,
    uniform_policy,
)


# --- formula ---
def action_values(V, P, R_sas, gamma):
    """Q^pi(s, a) = sum_s' P(s'|s, a) [R(s, a, s') + gamma V^pi(s')]: take a once, then follow pi."""
    return np.sum(P * (R_sas + gamma * V[None, None, :]), axis=2)


def state_values(Q, pi):
    """V^pi(s) = sum_a pi(a|s) Q^pi(s, a)."""
    return np.sum(pi * Q, axis=1)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Random MDP (6 states, 3 actions): rl_worlds solves for V^pi over states and, separately, for Q^pi
#    over the 18 state-action pairs, (I - gamma M) q = r with M[(s,a),(s',a')] = P(s'|s,a) pi(a'|s').
mdp = random_mdp(rng, n_states=6, n_actions=3, gamma=0.9)
pi = random_policy(mdp, rng)
V, Q = evaluate_policy(mdp, pi)
check_close("Q^pi from V^pi by one-step lookahead vs the state-action linear solve",
            action_values(V, mdp.P, mdp.R_sas, mdp.gamma), Q, rtol=1e-12)
check_close("V^pi = sum_a pi(a|s) Q^pi(s, a) vs the state linear solve", state_values(Q, pi), V, rtol=1e-12)
check_close("advantages Q^pi - V^pi average to zero under pi",
            state_values(Q - V[:, None], pi), np.zeros(6), atol=1e-13)

# 2. Monte Carlo on the gridworld, uniform random policy: force the first action, follow pi after.
#    Each of 4 (s, a) pairs gets 6000 episodes, cut at 150 steps (a bias of at most
#    gamma^150 max|R| / (1 - gamma) ~ 2e-6); tolerance 4 standard errors.
grid = GRIDWORLD
pi_u = uniform_policy(grid)
Vg, Qg = evaluate_policy(grid, pi_u)
Q_formula = action_values(Vg, grid.P, grid.R_sas, grid.gamma)
sampler = MDPSampler(grid, rng)


def returns_from(s, a, n, horizon=150):
    """Discounted returns of n episodes that take a in s, then follow pi_u. An episode that enters a
    terminal state stops there (terminal states are absorbing with zero reward, so its return is
    complete); only the episodes still running are stepped, about 10 steps each instead of 150."""
    G, running = np.zeros(n), np.arange(n)
    states, actions = np.full(n, s), np.full(n, a)
    for t in range(horizon):
        rewards, states, done = sampler.transitions(states, actions)
        G[running] += grid.gamma**t * rewards
        running, states = running[~done], states[~done]
        if running.size == 0:
            break
        actions = sampler.actions(pi_u, states)
    return G


for s, a in ((0, 2), (10, 1), (14, 1), (6, 0)):
    G = returns_from(s, a, 6000)
    check_close(f"Monte Carlo Q(s={s}, a={grid.action_names[a]}) vs lookahead", Q_formula[s, a], G.mean(),
                rtol=0, atol=4 * G.std() / np.sqrt(len(G)))
check_close("gridworld: lookahead Q vs state-action linear solve", Q_formula, Qg, rtol=1e-12, atol=1e-15)

# 3. Policy improvement (Sutton and Barto, Sec. 4.2): acting greedily on Q^pi never lowers any
#    state's value and raises some; the new values come from rl_worlds' exact evaluation.
for name, m, p in (("random MDP", mdp, pi), ("gridworld", grid, pi_u)):
    Vp, Qp = evaluate_policy(m, p)
    V_new, _ = evaluate_policy(m, greedy_policy(action_values(Vp, m.P, m.R_sas, m.gamma)))
    gain = V_new - Vp
    check_true(f"{name}: greedy on Q^pi gives V^pi' >= V^pi everywhere, > somewhere",
               bool(np.all(gain > -1e-12) and gain.max() > 0.05),
               f"gain from {gain.min():.2e} to {gain.max():.3f}")
