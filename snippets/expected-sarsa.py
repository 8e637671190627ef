"""Expected SARSA: expected update alpha (T^pi Q - Q); with a greedy target policy its target is
Q-learning's; its target variance is SARSA's minus gamma^2 E[Var_pi Q(s', .)] (exact); it learns Q^pi
of an epsilon-greedy policy on-policy and from uniformly random behaviour (off-policy, no importance
weights)."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import (
    GRIDWORLD,
    MDPSampler,
    epsilon_greedy_policy,
    evaluate_policy,
    greedy_policy,
    random_mdp,
    random_policy,
    solve_optimal,
)


# --- formula ---
def expected_sarsa_update(Q, s, a, r, s_next, done, pi_next, alpha, gamma):
    """In place: Q(s,a) <- Q(s,a) + alpha [r + gamma sum_a' pi(a'|s') Q(s',a') - Q(s,a)]; pi_next holds
    pi(.|s') (one row per transition when arrays are passed); no bootstrap after a terminal s'."""
    expected_next = np.sum(pi_next * Q[s_next], axis=-1)
    target = r + gamma * np.where(done, 0.0, expected_next)
    Q[s, a] += alpha * (target - Q[s, a])
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
pi = random_policy(mdp, rng)
Q0 = rng.normal(size=(5, 3))
s_all, a_all = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
no_done = np.zeros((5, 3), dtype=bool)


def targets_for(s2, policy, Qref):
    """Expected SARSA targets of every (s, a) pair for the next state s2 (alpha = 1 applied to a copy)."""
    Qc = Qref.copy()
    expected_sarsa_update(Qc, s_all, a_all, mdp.R_sas[:, :, s2], np.full((5, 3), s2), no_done,
                          policy[np.full((5, 3), s2)], 1.0, mdp.gamma)
    return Qc


# 1. Expected update: average over s' ~ P(.|s, a) = alpha (T^pi Q - Q), T^pi Q = r + gamma P (sum pi Q).
expected_inc = np.zeros((5, 3))
for s2 in range(5):
    Qc = Q0.copy()
    expected_sarsa_update(Qc, s_all, a_all, mdp.R_sas[:, :, s2], np.full((5, 3), s2), no_done,
                          pi[np.full((5, 3), s2)], 0.3, mdp.gamma)
    expected_inc += mdp.P[:, :, s2] * (Qc - Q0)
check_close("E[increment | s, a] = alpha (T^pi Q - Q)", expected_inc,
            0.3 * (mdp.R + mdp.gamma * mdp.P @ (pi * Q0).sum(axis=1) - Q0), rtol=1e-12)

# 2. Greedy target policy: the target is exactly Q-learning's, r + gamma max_a' Q(s', a').
greedy = greedy_policy(Q0)
for s2 in range(5):
    check_close(f"greedy pi, next state {s2}: target = r + gamma max Q(s', .)", targets_for(s2, greedy, Q0),
                mdp.R_sas[:, :, s2] + mdp.gamma * Q0[s2].max(), rtol=1e-12)

Qt = Q0.copy()
expected_sarsa_update(Qt, 3, 2, -1.2, 0, True, pi[0], 0.5, mdp.gamma)
check_close("terminal next state: target is the reward alone", Qt[3, 2], 0.5 * Q0[3, 2] - 0.6, rtol=1e-12)

# 3. Variance (law of total variance, by enumeration): the SARSA target r + gamma Q(s', a') varies over
#    s' and a'; expected SARSA's only over s'. The difference is gamma^2 E_s'[Var_{a'~pi} Q(s', a')].
es = np.stack([targets_for(s2, pi, Q0) for s2 in range(5)], axis=2)  # [s, a, s']
mean_es = (mdp.P * es).sum(axis=2)
var_es = (mdp.P * (es - mean_es[:, :, None]) ** 2).sum(axis=2)
sarsa_t = mdp.R_sas[:, :, :, None] + mdp.gamma * Q0[None, None, :, :]  # [s, a, s', a']
w = mdp.P[:, :, :, None] * pi[None, None, :, :]
var_sarsa = (w * (sarsa_t - (w * sarsa_t).sum(axis=(2, 3))[:, :, None, None]) ** 2).sum(axis=(2, 3))
var_pi = (pi * (Q0 - (pi * Q0).sum(axis=1, keepdims=True)) ** 2).sum(axis=1)
check_close("Var[SARSA target] - Var[expected SARSA target] = gamma^2 E_s'[Var_pi Q(s', .)]",
            var_sarsa - var_es, mdp.gamma**2 * mdp.P @ var_pi, rtol=1e-10)
check_true("so the expected SARSA target never has more variance", bool(np.all(var_es <= var_sarsa + 1e-12)))

# 4. Learning on the gridworld: the target policy is pi = epsilon-greedy(Q*, 0.3), whose Q^pi comes from
#    the linear solve. (a) on-policy, behaving with pi; (b) off-policy, behaving uniformly at random with
#    no importance weights: the expectation over a' already uses pi. Both within 0.12 of Q^pi.
grid = GRIDWORLD
_, Q_star, _ = solve_optimal(grid)
pi_eps = epsilon_greedy_policy(Q_star, 0.3)
_, Q_eps = evaluate_policy(grid, pi_eps)
sampler = MDPSampler(grid, rng)
nonterminal = np.flatnonzero(~grid.terminal)
runs = (("on-policy", pi_eps, 8000), ("off-policy, uniform behaviour", None, 5000))
for label, behaviour, n_episodes in runs:
    cum = np.cumsum(pi_eps if behaviour is not None else np.full((16, 4), 0.25), axis=1)
    Q = np.zeros((16, 4))
    n_sa = np.zeros((16, 4))
    for _episode in range(n_episodes):
        s = int(rng.choice(nonterminal))
        for _ in range(40):
            a = int(np.searchsorted(cum[s], rng.random(), side="right"))
            r, s2, done = sampler.step(s, a)
            n_sa[s, a] += 1
            expected_sarsa_update(Q, s, a, r, s2, done, pi_eps[s2], n_sa[s, a] ** -0.8, grid.gamma)
            if done:
                break
            s = s2
    rms = np.sqrt(np.mean((Q - Q_eps)[nonterminal] ** 2))
    check_close(f"{label}: expected SARSA ({int(n_sa.sum())} updates) vs Q^pi, every entry (tol 0.12)",
                Q[nonterminal], Q_eps[nonterminal], rtol=0, atol=0.12)
    check_true(f"{label}: RMS error below 0.04 and RMS distance to Q* above 0.15",
               rms < 0.04 and np.sqrt(np.mean((Q - Q_star)[nonterminal] ** 2)) > 0.15, f"RMS error {rms:.4f}")
