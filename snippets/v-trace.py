"""IMPALA V-trace targets: worked two-step examples hit both sides of each truncation; the direct sum equals
the paper's backward recursion; on-policy with no truncation it is the n-step Bellman target; and on a
small random MDP the exact expected V-trace operator (every trajectory enumerated) has as fixed point
V^{pi_rhobar}, the value of the policy proportional to min(rhobar mu, pi) (exact linear solve)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import enumerate_trajectories
from rl_worlds import evaluate_policy, random_mdp, random_policy


# --- formula ---
def vtrace_targets(values, bootstrap, rewards, ratios, gamma, rho_bar=1.0, c_bar=1.0):
    """v_s = V(x_s) + sum_{t=s}^{n-1} gamma^(t-s) (prod_{i=s}^{t-1} c_i) rho_t delta_t, with
    delta_t = r_t + gamma V(x_{t+1}) - V(x_t), for every s of a segment x_0..x_n;
    values (..., n) = V(x_0..x_{n-1}), bootstrap (...) = V(x_n),
    ratios = pi(a_t|x_t) / mu(a_t|x_t); rho_t = min(rho_bar, ratio_t), c_i = min(c_bar, ratio_i)."""
    n = rewards.shape[-1]
    rho = np.minimum(rho_bar, ratios)
    c = np.minimum(c_bar, ratios)
    v_next = np.concatenate([values[..., 1:], bootstrap[..., None]], axis=-1)
    delta = rho * (rewards + gamma * v_next - values)
    targets = np.empty_like(values)
    for s in range(n):
        total, trace = 0.0, 1.0
        for t in range(s, n):
            total = total + gamma ** (t - s) * trace * delta[..., t]
            trace = trace * c[..., t]
        targets[..., s] = values[..., s] + total
    return targets
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Worked by hand: V = (1, 2), V(x_2) = 3, r = (0.5, -1), gamma = 0.9.
V2, boot, r2 = np.array([1.0, 2.0]), np.array(3.0), np.array([0.5, -1.0])
check_close("ratios (2, 0.5), rho_bar = c_bar = 1: first weight clipped, second not",
            vtrace_targets(V2, boot, r2, np.array([2.0, 0.5]), 0.9), [2.165, 1.85], rtol=1e-12)
check_close("ratios (0.5, 2): the other way round",
            vtrace_targets(V2, boot, r2, np.array([0.5, 2.0]), 0.9), [1.515, 1.7], rtol=1e-12)
check_close("rho_bar = 1.5, c_bar = 0.8: the two truncations act separately",
            vtrace_targets(V2, boot, r2, np.array([2.0, 0.5]), 0.9, rho_bar=1.5, c_bar=0.8), [2.842, 1.85],
            rtol=1e-12)

# 2. Direct sum vs the recursion v_s = V(x_s) + rho_s delta_s + gamma c_s (v_{s+1} - V(x_{s+1})),
#    with v_n = V(x_n).
B, n, gamma = 6, 7, 0.95
values, bootstrap = rng.normal(size=(B, n)), rng.normal(size=B)
rewards, ratios = rng.normal(size=(B, n)), np.exp(rng.normal(0, 0.8, size=(B, n)))
for rho_bar, c_bar in [(1.0, 1.0), (1.2, 0.7), (0.9, 0.5)]:
    rec = np.empty((B, n))
    nxt_v, nxt_val = bootstrap, bootstrap
    for s in range(n - 1, -1, -1):
        d = np.minimum(ratios[:, s], rho_bar) * (rewards[:, s] + gamma * nxt_val - values[:, s])
        rec[:, s] = values[:, s] + d + gamma * np.minimum(ratios[:, s], c_bar) * (nxt_v - nxt_val)
        nxt_v, nxt_val = rec[:, s], values[:, s]
    check_close(f"direct sum = backward recursion (rho_bar = {rho_bar}, c_bar = {c_bar})",
                vtrace_targets(values, bootstrap, rewards, ratios, gamma, rho_bar, c_bar), rec, rtol=1e-12)

# 3. On-policy (ratios 1) or no truncation with ratios 1: the n-step Bellman target from each s.
nstep = np.empty((B, n))
for s in range(n):
    nstep[:, s] = sum(gamma ** k * rewards[:, s + k] for k in range(n - s)) + gamma ** (n - s) * bootstrap
check_close("on-policy, rho_bar = c_bar = inf: v_s = sum_k gamma^k r_{s+k} + gamma^(n-s) V(x_n)",
            vtrace_targets(values, bootstrap, rewards, np.ones((B, n)), gamma, np.inf, np.inf), nstep,
            rtol=1e-12)

# 4. Fixed point on a random MDP (3 states, 2 actions, gamma = 0.9) with 3-step segments: the expected
#    target E_mu[v_0 | x_0 = x], computed exactly over all 216 trajectories from each state, iterated to
#    convergence, equals the value of pi_rhobar(a|x) = min(rho_bar mu, pi) / sum_b min(rho_bar mu, pi).
mdp = random_mdp(rng, n_states=3, n_actions=2, gamma=0.9)
mu = random_policy(mdp, rng)
pi = np.array([[0.9, 0.1], [0.15, 0.85], [0.6, 0.4]])
segments = [enumerate_trajectories(mdp, mu, x, 3) for x in range(3)]


def expected_operator(V, rho_bar, c_bar):
    out = np.empty(3)
    for x, (X, Aa, Rr, prob) in enumerate(segments):
        ratio = pi[X[:, :-1], Aa] / mu[X[:, :-1], Aa]
        v = vtrace_targets(V[X[:, :-1]], V[X[:, -1]], Rr, ratio, mdp.gamma, rho_bar, c_bar)
        out[x] = prob @ v[:, 0]
    return out


errors = {}
for rho_bar, c_bar in [(1.0, 1.0), (1.0, 0.6), (0.7, 0.7), (np.inf, np.inf)]:
    pi_rb = np.minimum(rho_bar * mu, pi)
    pi_rb /= pi_rb.sum(axis=1, keepdims=True)
    V_target = evaluate_policy(mdp, pi_rb)[0]
    check_close(f"V^(pi_rhobar) is a fixed point of the expected operator (rho_bar {rho_bar}, c_bar {c_bar})",
                expected_operator(V_target, rho_bar, c_bar), V_target, rtol=1e-12, atol=1e-13)
    V, err = np.zeros(3), []
    for _ in range(150):
        V = expected_operator(V, rho_bar, c_bar)
        err.append(np.abs(V - V_target).max())
    errors[(rho_bar, c_bar)] = err
    check_true(f"iterating from V = 0 contracts towards it, rho_bar = {rho_bar}, c_bar = {c_bar}",
               err[-1] < 0.1 * err[0] and bool(np.all(np.diff(err) <= 1e-12)),
               f"error {err[0]:.3f} -> {err[-1]:.2e} in 150 iterations, never increasing")
V_pi = evaluate_policy(mdp, pi)[0]
moved = np.abs(expected_operator(V_pi, 1.0, 1.0) - V_pi).max()
check_true("with rho_bar = 1, V^pi itself is not a fixed point (truncation biases the target towards mu)",
           moved > 0.01, f"max |R V^pi - V^pi| = {moved:.3f}")

# Figure: convergence of the exact expected V-trace iteration.
fig, ax = figure("Expected V-trace iteration on a 3-state MDP (3-step segments)", "iteration",
                 "max |V - V^(pi_rhobar)|")
for (rb, cb), err in errors.items():
    ax.semilogy(np.maximum(err, 1e-16), label=f"rho_bar = {rb}, c_bar = {cb}")
ax.legend(fontsize=7)
