"""SAC soft value and maximum-entropy objective: V = E_pi[Q] + alpha H(pi) (scipy.stats.entropy); for
discrete actions the best policy is softmax(Q/alpha) with V = alpha logsumexp(Q/alpha) (numerical
maximization over the simplex, scipy logsumexp on Q spanning 2000); soft policy evaluation reaches the
value of the entropy-augmented reward (a linear solve in rl_worlds), whose start-state average is J(pi);
soft value iteration's policy beats random policies; the temperature loss has gradient H(pi) - H_target."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import maximize_on_simplex
from rl_worlds import TabularMDP, evaluate_policy, random_mdp, random_policy
from scipy.special import logsumexp
from scipy.stats import entropy


# --- formula ---
def soft_value(Q, pi, alpha):
    """V(s) = E_{a ~ pi}[Q(s, a) - alpha log pi(a|s)] (terms with pi = 0 contribute 0)."""
    placeholder = 1.0  # equivalent: only used where pi = 0, and those terms are multiplied by pi = 0
    log_pi = np.log(np.where(pi > 0, pi, placeholder))
    return np.sum(pi * (Q - alpha * log_pi), axis=-1)


def soft_greedy(Q, alpha):
    """Discrete actions: the maximizer softmax(Q/alpha) and the maximum alpha logsumexp(Q/alpha)."""
    z = Q / alpha
    m = np.max(z, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))
    return np.exp(z - lse), alpha * lse[..., 0]


def soft_policy_evaluation(mdp, pi, alpha, n_iter):
    """Iterate Q <- r + gamma E_{s'}[V(s')], V from soft_value; returns (Q, V)."""
    Q = np.zeros((mdp.n_states, mdp.n_actions))
    for _ in range(n_iter):
        Q = mdp.R + mdp.gamma * mdp.P @ soft_value(Q, pi, alpha)
    return Q, soft_value(Q, pi, alpha)


def temperature_loss(log_pi_samples, alpha, target_entropy):
    """J(alpha) = E_{a ~ pi}[-alpha log pi(a|s) - alpha H_target] (SAC automatic temperature)."""
    return np.mean(-alpha * log_pi_samples - alpha * target_entropy)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Soft value = expected Q plus alpha times the policy's entropy, including a zero-probability action.
Q = rng.normal(size=(3, 4)) * 2
pi = rng.dirichlet(np.ones(4), size=3)
pi[1, 2] = 0.0
pi[1] /= pi[1].sum()
for alpha in (0.1, 0.5, 2.0):
    check_close(f"V = E_pi[Q] + alpha H(pi), alpha = {alpha}", soft_value(Q, pi, alpha),
                np.sum(pi * Q, axis=1) + alpha * entropy(pi, axis=1), rtol=1e-12)

# 2. Soft-greedy policy: maximize E_p[Q] + alpha H(p) over the simplex numerically.
for alpha in (0.3, 1.0, 3.0):
    q_row = Q[0]
    p_num, v_num = maximize_on_simplex(lambda p, a=alpha, q=q_row: p @ q + a * entropy(p), 4, rng)
    p_cf, v_cf = soft_greedy(q_row, alpha)
    check_close(f"max over the simplex = alpha logsumexp(Q/alpha), alpha = {alpha}", v_cf, v_num, rtol=1e-8)
    check_close(f"argmax over the simplex = softmax(Q/alpha), alpha = {alpha}", p_cf, p_num,
                rtol=0, atol=1e-5)

# 3. Wide-range Q (span 2000): the shifted log-sum-exp vs scipy, and the soft value of the soft-greedy
#    policy is that maximum even when most probabilities underflow to 0.
Qw = np.array([[1000.0, -1000.0, 999.0, 0.0], [-800.0, -790.0, -805.0, -1000.0]])
for alpha in (0.5, 4.0):
    pw, vw = soft_greedy(Qw, alpha)
    check_close(f"alpha logsumexp on wide range vs scipy, alpha = {alpha}", vw,
                alpha * logsumexp(Qw / alpha, axis=1), rtol=1e-13)
    check_close(f"soft value of softmax(Q/alpha) equals the maximum, alpha = {alpha}",
                soft_value(Qw, pw, alpha),
                vw, rtol=1e-12)
check_close("alpha -> 0: the soft maximum becomes max Q", soft_greedy(Qw, 1e-3)[1], Qw.max(axis=1), rtol=1e-9)

# 4. Soft policy evaluation on a random MDP (gamma = 0.9): the fixed point is the ordinary value of the
#    entropy-augmented reward r(s, a) - alpha log pi(a|s) (linear solve, rl_worlds.evaluate_policy), and
#    J(pi) = E_{s_0}[V(s_0)] = sum_t gamma^t E[r_t + alpha H(pi(.|s_t))].
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
pi_m = random_policy(mdp, rng)
alpha = 0.7
aug = TabularMDP(mdp.P, mdp.R_sas - alpha * np.log(pi_m)[:, :, None], mdp.gamma, mdp.start, mdp.terminal)
V_ref, Q_ref = evaluate_policy(aug, pi_m)
Q_it, V_it = soft_policy_evaluation(mdp, pi_m, alpha, 400)
Q_one = soft_policy_evaluation(mdp, pi_m, alpha, 1)[0]
check_close("one backup from Q = 0: Q = r + gamma alpha E[H(pi(.|s'))]", Q_one,
            mdp.R + mdp.gamma * mdp.P @ (alpha * entropy(pi_m, axis=1)), rtol=1e-12)
check_close("soft policy evaluation: V = value of the entropy-augmented reward", V_it, V_ref, rtol=1e-10)
check_close("... and Q = r + gamma E[V(s')]", Q_it, mdp.R + mdp.gamma * mdp.P @ V_ref, rtol=1e-10)
ent_reward = mdp.policy_matrices(pi_m)[1] + alpha * entropy(pi_m, axis=1)
P_pi = mdp.policy_matrices(pi_m)[0]
J_sum, d_t = 0.0, mdp.start.copy()
for _ in range(400):
    J_sum, d_t = J_sum + d_t @ ent_reward, mdp.gamma * d_t @ P_pi
check_close("J(pi) = E[V(s_0)] = sum_t gamma^t E[r_t + alpha H_t]", mdp.start @ V_it, J_sum, rtol=1e-10)

# 5. Soft value iteration, then the soft-greedy policy: its soft value is alpha logsumexp(Q*/alpha) and
#    no random policy has a larger soft objective J.
Qs = np.zeros((5, 3))
for _ in range(400):
    Qs = mdp.R + mdp.gamma * mdp.P @ soft_greedy(Qs, alpha)[1]
pi_s, V_s = soft_greedy(Qs, alpha)
check_close("the soft-greedy policy's own soft value = alpha logsumexp(Q*/alpha)",
            soft_policy_evaluation(mdp, pi_s, alpha, 400)[1], V_s, rtol=1e-9)
J_rand = [mdp.start @ soft_policy_evaluation(mdp, random_policy(mdp, rng), alpha, 200)[1] for _ in range(12)]
check_true("no random policy beats softmax(Q*/alpha) on the soft objective", max(J_rand) < mdp.start @ V_s,
           f"best random {max(J_rand):.3f} < {mdp.start @ V_s:.3f}")

# 6. Temperature: dJ/dalpha = H(pi) - H_target, so gradient descent lowers alpha when the policy is more
#    random than the target and raises it when less.
p = np.array([0.5, 0.3, 0.2])
samples = np.log(p[rng.choice(3, size=50_000, p=p)])
h = 1e-4
for target in (0.5, 1.5):
    fd = (temperature_loss(samples, 0.3 + h, target) - temperature_loss(samples, 0.3 - h, target)) / (2 * h)
    check_close(f"dJ/dalpha = H(pi) - H_target (Monte Carlo, H_target = {target})", fd, entropy(p) - target,
                rtol=0, atol=0.01)

# Figure: soft maximum vs alpha for one row of Q.
fig, ax = figure("Soft value of the soft-greedy policy", "temperature alpha", "V(s)")
alphas = np.linspace(0.02, 3, 100)
ax.plot(alphas, [soft_greedy(Q[0], al)[1] for al in alphas], label="alpha logsumexp(Q/alpha)")
ax.axhline(Q[0].max(), color="k", lw=0.6, ls="--", label="max_a Q")
ax.plot(alphas, [soft_value(Q[0], np.full(4, 0.25), al) for al in alphas], label="uniform policy")
ax.legend()
