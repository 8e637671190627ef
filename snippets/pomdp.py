"""POMDP as a belief MDP: Pr(o | b, a) and the expected reward vs enumeration and sampling; the optimal
finite-horizon value computed on beliefs equals the best conditional plan found by brute force over
all policy trees evaluated on the hidden states (the belief is a sufficient statistic)."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import TIGER, random_pomdp


# --- formula ---
def observation_probability(b, a, T, obs_model):
    """Pr(o | b, a) = sum_s' O(o|s', a) sum_s T(s'|s, a) b(s), for every o;
    T[s, a, s'], obs_model[s', a, o]."""
    return (b @ T[:, a, :]) @ obs_model[:, a, :]


def belief_reward(b, a, R):
    """rho(b, a) = sum_s b(s) R(s, a)."""
    return b @ R[:, a]


def belief_value(b, horizon, T, obs_model, R, gamma):
    """Optimal h-step value on beliefs:
    V_h(b) = max_a [rho(b, a) + gamma sum_o Pr(o|b, a) V_{h-1}(b'_{a,o})], V_0 = 0."""
    if horizon == 0:
        return 0.0
    best = -np.inf
    for a in range(T.shape[1]):
        predicted = b @ T[:, a, :]
        total = belief_reward(b, a, R)
        for o in range(obs_model.shape[2]):
            joint = predicted * obs_model[:, a, o]
            p_o = np.sum(joint)  # equivalent: V_h is 1-homogeneous in b, so p_o * V(joint / p_o) = V(joint)
            if p_o > 0:
                total = total + gamma * p_o * belief_value(joint / p_o, horizon - 1, T, obs_model, R, gamma)
        best = max(best, total)
    return best
# --- end formula ---


def all_plan_values(pomdp, horizon):
    """Every horizon-h conditional plan (an action, then one sub-plan per observation), as its vector of
    values over hidden start states: alpha(s) = R(s, a) + gamma sum_s' T(s'|s,a) sum_o O(o|s',a) alpha_o(s').
    Evaluated on states, never on beliefs (Kaelbling et al., Sec. 4, policy trees)."""
    if horizon == 0:
        return [np.zeros(pomdp.n_states)]
    sub = all_plan_values(pomdp, horizon - 1)
    plans = []
    for a in range(pomdp.n_actions):
        for pick in itertools.product(range(len(sub)), repeat=pomdp.n_observations):
            future = sum(pomdp.O[:, a, o] * sub[k] for o, k in enumerate(pick))
            plans.append(pomdp.R[:, a] + pomdp.gamma * pomdp.T[:, a, :] @ future)
    return plans


rng = np.random.default_rng(0)
pomdp = random_pomdp(rng, n_states=3, n_actions=2, n_observations=3, gamma=0.9)
b = rng.dirichlet(np.ones(3))

# 1. Pr(o | b, a) and rho(b, a) against the joint Pr(s, s', o | b, a) tabulated by enumeration.
for a in range(2):
    joint = pomdp.joint(b, a)
    check_close(f"Pr(o | b, a={a}) vs enumeration of the joint",
                observation_probability(b, a, pomdp.T, pomdp.O), joint.sum(axis=(0, 1)), rtol=1e-12)
    check_close(f"rho(b, a={a}) vs sum over the joint of R(s, a)", belief_reward(b, a, pomdp.R),
                np.sum(joint.sum(axis=(1, 2)) * pomdp.R[:, a]), rtol=1e-12)

# 2. Monte Carlo: simulate the hidden process 200,000 times (s ~ b, s' ~ T(.|s, a), o ~ O(.|s', a)).
n = 200_000
s = np.searchsorted(np.cumsum(b), rng.random(n), side="right")
s2 = (rng.random(n)[:, None] > np.cumsum(pomdp.T[s, 1], axis=1)).sum(axis=1)
obs = (rng.random(n)[:, None] > np.cumsum(pomdp.O[s2, 1], axis=1)).sum(axis=1)
check_close("Pr(o | b, a=1) vs 200,000 simulated steps", observation_probability(b, 1, pomdp.T, pomdp.O),
            np.bincount(obs, minlength=3) / n, rtol=0, atol=4 * np.sqrt(0.25 / n))

# 3. Belief-space planning = best conditional plan. The optimal h-step value at a belief is the best
#    policy tree's value there, max_alpha b . alpha, with every tree enumerated (random POMDP: 8192
#    trees of depth 3; tiger: 2187).
for name, m, bel, h in (("random POMDP", pomdp, b, 3), ("tiger", TIGER, TIGER.b0, 3),
                        ("tiger, belief 0.8", TIGER, np.array([0.8, 0.2]), 2)):
    alphas = np.array(all_plan_values(m, h))
    check_close(f"{name}: V_{h}(b) on beliefs = best of {len(alphas)} policy trees",
                belief_value(bel, h, m.T, m.O, m.R, m.gamma), np.max(alphas @ bel), rtol=1e-12)
check_close("random POMDP: V_1(b) = max_a rho(b, a)",
            belief_value(b, 1, pomdp.T, pomdp.O, pomdp.R, pomdp.gamma), np.max(b @ pomdp.R), rtol=1e-12)

# 4. Tiger numbers: at even odds, one step: listen (-1) beats opening (0.5 * 10 - 0.5 * 100 = -45);
#    two steps: listen twice, -1 - 0.95 = -1.95 (after one listen the better door is still worse than
#    listening: 0.85 * 10 - 0.15 * 100 = -6.5).
check_close("tiger: V_1(1/2, 1/2) = -1", belief_value(TIGER.b0, 1, TIGER.T, TIGER.O, TIGER.R, TIGER.gamma),
            -1.0, rtol=1e-12)
check_close("tiger: V_2(1/2, 1/2) = -1.95", belief_value(TIGER.b0, 2, TIGER.T, TIGER.O, TIGER.R, TIGER.gamma),
            -1.95, rtol=1e-12)
# Knowing the state is worth something: the POMDP value is below the value with the tiger revealed.
revealed = max(10.0 + 0.95 * 10.0 + 0.95**2 * 10.0, 0.0)
check_true("tiger: V_3(b0) < value with the state revealed (10 per step)",
           belief_value(TIGER.b0, 3, TIGER.T, TIGER.O, TIGER.R, TIGER.gamma) < revealed)

# Figure: the horizon-h values over the belief, piecewise linear and convex.
grid_p = np.linspace(0, 1, 41)
fig, ax = figure("Tiger problem: optimal h-step value over the belief", "P(tiger behind left door)",
                 "V_h(b)")
for h in (1, 2, 3):
    ax.plot(grid_p, [belief_value(np.array([p, 1 - p]), h, TIGER.T, TIGER.O, TIGER.R, TIGER.gamma)
                     for p in grid_p], label=f"h = {h}")
ax.legend()
