"""REINFORCE: the expectation of sum_t gamma^t G_t grad log pi(a_t|s_t) over every trajectory equals the
finite-difference gradient of J_H; Monte-Carlo means on the gridworld agree within a statistical tolerance."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import (
    enumerate_trajectories,
    fd_gradient,
    finite_horizon_objective,
    softmax_policy,
)
from rl_worlds import GRIDWORLD, MDPSampler, random_mdp
from scipy.signal import lfilter


# --- formula ---
def reinforce(states, actions, rewards, pi, gamma):
    """One REINFORCE gradient estimate per episode, g = sum_t gamma^t G_t grad log pi(a_t | s_t), for a
    softmax policy over a table of logits (shape (S, A)). states (N, H+1), actions (N, H), rewards (N, H)
    with rewards[:, t] the reward of the step taken at t. Returns (N, S, A)."""
    n, horizon = actions.shape
    n_states, n_actions = pi.shape
    returns = np.zeros((n, horizon))
    running = np.zeros(n)
    for t in range(horizon - 1, -1, -1):
        running = rewards[:, t] + gamma * running
        returns[:, t] = running
    weight = gamma ** np.arange(horizon) * returns
    # grad of log pi(a|s) w.r.t. the logits of row s: one-hot(a) - pi(.|s); other rows are zero
    score = np.eye(n_actions)[actions] - pi[states[:, :horizon]]
    g = np.zeros((n, n_states, n_actions))
    for t in range(horizon):
        g[np.arange(n), states[:, t]] += weight[:, t, None] * score[:, t]
    return g
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Exact expectation: a random MDP (3 states, 2 actions, gamma = 0.8), episodes of H = 5 steps. Every
#    trajectory is enumerated with its probability; the probability-weighted mean of the estimates is
#    compared with central finite differences of J_H = sum_{t<H} gamma^t mu P^t r (matrix powers).
small = random_mdp(rng, 3, 2, 0.8)
theta = 1.5 * rng.normal(size=(3, 2))
pi = softmax_policy(theta)
H = 5
S_, A_, R_, prob = enumerate_trajectories(small, pi, H)
g_all = reinforce(S_, A_, R_, pi, small.gamma)
grad_exact = fd_gradient(lambda th: finite_horizon_objective(small, softmax_policy(th), H), theta)
check_close(f"E[REINFORCE] over all {len(prob)} trajectories vs finite differences of J_H",
            np.einsum("n,nsa->sa", prob, g_all), grad_exact, rtol=1e-7, atol=1e-10)

# 2. Williams's episodic form uses the whole-episode return for every step: G_0 sum_t grad log pi(a_t|s_t).
#    Its expectation is the same gradient (rewards before step t are independent of the score at t);
#    the enumeration checks the per-trajectory reward-to-go form against it.
G0 = (small.gamma ** np.arange(H) * R_).sum(axis=1)
score_sum = np.zeros((len(prob), 3, 2))
for t in range(H):
    np.add.at(score_sum, (np.arange(len(prob)), S_[:, t]), np.eye(2)[A_[:, t]] - pi[S_[:, t]])
check_close("same expectation as Williams's whole-return form E[G_0 sum_t score_t]",
            np.einsum("n,nsa->sa", prob, g_all), np.einsum("n,n,nsa->sa", prob, G0, score_sum), rtol=1e-9,
            atol=1e-12)
var_togo = np.einsum("n,nsa->sa", prob, g_all**2) - grad_exact**2
var_whole = np.einsum("n,nsa->sa", prob, (G0[:, None, None] * score_sum) ** 2) - grad_exact**2
check_true("reward-to-go has lower total variance than the whole-return form",
           var_togo.sum() < var_whole.sum(),
           f"{var_togo.sum():.4f} vs {var_whole.sum():.4f}")

# 3. The seed's estimator drops gamma^t in front of G_t: its expectation is not the gradient of J_H.
no_discount = np.zeros_like(g_all)
returns_ = lfilter([1.0], [1.0, -small.gamma], R_[:, ::-1], axis=1)[:, ::-1]  # reward-to-go, backwards
for t in range(H):
    no_discount[np.arange(len(prob)), S_[:, t]] += returns_[:, t, None] * (np.eye(2)[A_[:, t]] - pi[S_[:, t]])
bias = np.abs(np.einsum("n,nsa->sa", prob, no_discount) - grad_exact).max()
check_true("without gamma^t the expected update is biased", bias > 1e-2, f"max deviation {bias:.3f}")

# 4. Monte Carlo on the slippery gridworld (64 logits, gamma = 0.9, start in the corner): 20,000 sampled
#    episodes of 30 steps. The mean estimate must match grad J_30 in every component within 4.5 standard
#    errors of the mean (the per-component sampling error, estimated from the same episodes).
theta_g = rng.normal(size=(16, 4))
pi_g = softmax_policy(theta_g)
Hg, N = 30, 20_000
states, actions, rewards = MDPSampler(GRIDWORLD, rng).rollouts(pi_g, N, Hg, s0=0)
g_mc = reinforce(states, actions, rewards, pi_g, GRIDWORLD.gamma)
mean, se = g_mc.mean(axis=0), g_mc.std(axis=0) / np.sqrt(N)
grad_grid = fd_gradient(lambda th: finite_horizon_objective(GRIDWORLD, softmax_policy(th), Hg), theta_g)
check_close("gridworld: Monte-Carlo mean of 20,000 estimates vs exact gradient (4.5 s.e. per entry)",
            (mean - grad_grid) / np.maximum(se, 1e-9), np.zeros((16, 4)), rtol=0, atol=4.5)
z = (mean - grad_grid) / np.maximum(se, 1e-9)
check_true("standardized errors look like noise (RMS z between 0.5 and 1.5)",
           0.5 < np.sqrt(np.mean(z[se > 0] ** 2)) < 1.5, f"RMS z = {np.sqrt(np.mean(z[se > 0] ** 2)):.2f}")

# Figure: error of the Monte-Carlo mean vs number of episodes, against the 1/sqrt(N) rate.
ns = np.unique(np.logspace(2, np.log10(N), 15).astype(int))
cum = np.cumsum(g_mc.reshape(N, -1), axis=0)
err = [np.linalg.norm(cum[k - 1] / k - grad_grid.ravel()) for k in ns]
fig, ax = figure("REINFORCE on the gridworld: error of the mean estimate", "episodes N",
                 "‖mean estimate − ∇J‖")
ax.loglog(ns, err, marker="o", label="Monte-Carlo mean")
ax.loglog(ns, err[0] * np.sqrt(ns[0] / ns), "--", label="∝ 1/√N")
ax.legend()
