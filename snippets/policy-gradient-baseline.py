"""Baseline subtraction in the policy gradient: by exact enumeration of every trajectory, the baseline term
has expectation zero for any state baseline, the mean estimate is the finite-difference gradient, and a value
baseline lowers the variance while an action-dependent one biases the estimate."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import (
    enumerate_trajectories,
    fd_gradient,
    finite_horizon_objective,
    softmax_policy,
)
from rl_worlds import random_mdp
from scipy.signal import lfilter


# --- formula ---
def baseline_estimates(states, actions, returns, pi, gamma, b):
    """Per-episode sum_t gamma^t (G_t - b_t(s_t)) grad log pi(a_t | s_t) for a tabular softmax policy.
    returns[:, t] is G_t; b has shape (H, S): it may depend on the time and the state, not on the action.
    Returns one (S, A) gradient estimate per episode."""
    n, horizon = actions.shape
    n_states, n_actions = pi.shape
    advantage = returns - b[np.arange(horizon), states[:, :horizon]]
    weight = gamma ** np.arange(horizon) * advantage
    score = np.eye(n_actions)[actions] - pi[states[:, :horizon]]
    g = np.zeros((n, n_states, n_actions))
    for t in range(horizon):
        g[np.arange(n), states[:, t]] += weight[:, t, None] * score[:, t]
    return g
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, 3, 2, 0.8)
theta = 1.5 * rng.normal(size=(3, 2))
pi = softmax_policy(theta)
H = 5
S_, A_, R_, prob = enumerate_trajectories(mdp, pi, H)
# Reward-to-go of every step by a backward linear filter (scipy.signal.lfilter), independent of the formula.
G = lfilter([1.0], [1.0, -mdp.gamma], R_[:, ::-1], axis=1)[:, ::-1]
grad_exact = fd_gradient(lambda th: finite_horizon_objective(mdp, softmax_policy(th), H), theta)


def expectation(g):
    return np.einsum("n,nsa->sa", prob, g)


def total_variance(g):
    return float(np.einsum("n,nsa->", prob, (g - expectation(g)) ** 2))


# Value of the remaining horizon, V_{H-t}(s) = sum_{k < H-t} gamma^k (P^k r)(s): the natural baseline.
P_pi, r_pi = mdp.policy_matrices(pi)
V_rem = np.zeros((H, 3))
for t in range(H):
    V_rem[t] = sum(mdp.gamma**k * np.linalg.matrix_power(P_pi, k) @ r_pi for k in range(H - t))

zero = np.zeros((H, 3))
arbitrary = 5.0 * rng.normal(size=(H, 3))
g0 = baseline_estimates(S_, A_, G, pi, mdp.gamma, zero)
gb = baseline_estimates(S_, A_, G, pi, mdp.gamma, arbitrary)
gv = baseline_estimates(S_, A_, G, pi, mdp.gamma, V_rem)

# 1. Unbiased for any state baseline: the expectation over all trajectories is the gradient of J_H.
for name, g in (("no baseline", g0), ("arbitrary b_t(s)", gb), ("value baseline V_{H-t}(s)", gv)):
    check_close(f"E[estimate], {name}, vs finite differences of J_H", expectation(g), grad_exact, rtol=1e-7,
                atol=1e-10)
check_close("the baseline term alone has expectation exactly zero", expectation(gb - g0), np.zeros((3, 2)),
            atol=1e-13)

# 2. A single trajectory, by hand: states (0, 1), actions (1, 0), G = (2, 1), b = 0.5 everywhere, gamma = 0.8
#    -> row 0 gets (2 - 0.5) (e_1 - pi_0), row 1 gets 0.8 (1 - 0.5) (e_0 - pi_1).
one = baseline_estimates(np.array([[0, 1, 2]]), np.array([[1, 0]]), np.array([[2.0, 1.0]]), pi, 0.8,
                         np.full((2, 3), 0.5))[0]
hand = np.zeros((3, 2))
hand[0] = 1.5 * (np.array([0.0, 1.0]) - pi[0])
hand[1] = 0.8 * 0.5 * (np.array([1.0, 0.0]) - pi[1])
check_close("one trajectory computed by hand", one, hand, rtol=1e-14)

# 3. Variance: the value baseline lowers the total variance of the estimate; a constant far from the
#    returns raises it (the baseline changes the variance, never the mean).
v0, vv = total_variance(g0), total_variance(gv)
check_true("value baseline reduces the variance", vv < 0.8 * v0, f"{vv:.4f} vs {v0:.4f} without baseline")
v_bad = total_variance(baseline_estimates(S_, A_, G, pi, mdp.gamma, zero + 10.0))
check_true("a constant baseline of 10 raises it", v_bad > v0, f"{v_bad:.4f} vs {v0:.4f}")

# 4. The baseline must not depend on the action: b = Q_{H-t}(s, a) (the exact action value of the remaining
#    horizon) makes every term zero-mean and the expected "gradient" vanishes.
Q_rem = np.zeros((H, 3, 2))
for t in range(H):
    Q_rem[t] = mdp.R + (mdp.gamma * mdp.P @ V_rem[t + 1] if t + 1 < H else 0.0)
adv_q = G - Q_rem[np.arange(H), S_[:, :H], A_]
g_q = np.zeros_like(g0)
for t in range(H):
    score_t = np.eye(2)[A_[:, t]] - pi[S_[:, t]]
    g_q[np.arange(len(prob)), S_[:, t]] += (mdp.gamma**t * adv_q[:, t])[:, None] * score_t
e_q = np.abs(expectation(g_q)).max()
check_true("an action-dependent b(s, a) = Q(s, a) biases it (to zero here)",
           e_q < 1e-12 < np.abs(grad_exact).max(),
           f"max |E| = {e_q:.1e}, true max |grad| = {np.abs(grad_exact).max():.3f}")

# Figure: total variance as a function of a constant baseline c, with the value baseline for comparison.
cs = np.linspace(-4, 4, 17)
variances = [total_variance(baseline_estimates(S_, A_, G, pi, mdp.gamma, zero + c)) for c in cs]
fig, ax = figure("Variance of the policy-gradient estimate vs a constant baseline", "baseline c",
                 "total variance (exact)")
ax.plot(cs, variances, label="constant baseline c")
ax.axhline(vv, ls="--", color="C1", label="baseline V(s) of the remaining horizon")
ax.legend()
