"""TRPO: the surrogate's gradient at theta_old is the policy gradient, its value is zero there, the mean
KL's Hessian is the Fisher matrix (finite differences), the KL matches scipy, the monotonic-improvement bound
with C = 4 eps gamma / (1 - gamma)^2 holds, and the constrained optimum (SLSQP) matches the natural step."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from policy_gradient_fixture import fd_gradient, objective, softmax_policy, tabular_score
from rl_worlds import MDPSampler, evaluate_policy, occupancy, random_mdp
from scipy.optimize import minimize
from scipy.stats import entropy


# --- formula ---
def surrogate(theta, q, rho, adv):
    """L(theta) = E_{s ~ rho, a ~ q}[pi_theta(a|s) / q(a|s) A_old(s, a)] (Schulman et al. 2015, Eq. 14 with
    the advantage in place of Q), for a softmax over a table of logits; rho is a distribution over states."""
    ratio = softmax_policy(theta) / q
    return float(np.sum(rho[:, None] * q * ratio * adv))


def kl_per_state(pi_old, theta):
    """D_KL(pi_old(.|s) || pi_theta(.|s)) for every state."""
    return np.sum(pi_old * (np.log(pi_old) - np.log(softmax_policy(theta))), axis=1)


def mean_kl(pi_old, theta, rho):
    """The trust-region constraint's left side, E_{s ~ rho}[D_KL(pi_old(.|s) || pi_theta(.|s))]."""
    return float(rho @ kl_per_state(pi_old, theta))
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, 4, 3, 0.9)
theta_old = 1.5 * rng.normal(size=(4, 3))
pi_old = softmax_policy(theta_old)
V_old, Q_old = evaluate_policy(mdp, pi_old)
A_old = Q_old - V_old[:, None]
rho = (1 - mdp.gamma) * occupancy(mdp, pi_old)  # normalized discounted state distribution of pi_old
J_old = objective(mdp, pi_old)

# 1. At theta_old the surrogate is 0 (advantages average to zero) and its gradient is the policy gradient,
#    scaled by (1 - gamma) because rho is normalized: compared with finite differences of the exact J.
check_close("L(theta_old) = 0", surrogate(theta_old, pi_old, rho, A_old), 0.0, atol=1e-13)
grad_L = fd_gradient(lambda th: surrogate(th, pi_old, rho, A_old), theta_old)
grad_J = fd_gradient(lambda th: objective(mdp, softmax_policy(th)), theta_old)
check_close("grad L(theta_old) = (1 - gamma) grad J(theta_old)", grad_L, (1 - mdp.gamma) * grad_J, rtol=1e-6,
            atol=1e-10)

# 2. Any sampling distribution q gives the same expectation (importance weights); with Q_old in place of
#    A_old the surrogate moves by a constant only (Sec. 5 of the paper).
q_unif = np.full((4, 3), 1 / 3)
theta_new = theta_old + 0.3 * rng.normal(size=(4, 3))
check_close("q = uniform vs q = pi_old: same surrogate", surrogate(theta_new, q_unif, rho, A_old),
            surrogate(theta_new, pi_old, rho, A_old), rtol=1e-12)
offsets = [surrogate(th, pi_old, rho, Q_old) - surrogate(th, pi_old, rho, A_old)
           for th in (theta_old, theta_new, theta_old - theta_new)]
check_close("Q in place of A shifts L by the same constant for every theta", offsets, [rho @ V_old] * 3,
            rtol=1e-11)

# 3. Sampled estimate (single path): states from rho, actions from pi_old, mean of ratio * A over 200,000
#    draws vs the exact surrogate, within 4.5 standard errors.
sampler = MDPSampler(mdp, rng)
n = 200_000
s = np.searchsorted(np.cumsum(rho), rng.random(n) * rho.sum())
a = sampler.actions(pi_old, s)
terms = softmax_policy(theta_new)[s, a] / pi_old[s, a] * A_old[s, a]
check_close("Monte-Carlo surrogate (200,000 samples) vs exact", terms.mean(),
            surrogate(theta_new, pi_old, rho, A_old), rtol=0, atol=4.5 * terms.std() / np.sqrt(n))

# 4. KL: zero at theta_old, equal to scipy.stats.entropy(p, q) per state, and its Hessian at theta_old is
#    the Fisher matrix E_{s~rho} sum_a pi grad log pi grad log pi^T (second differences vs scores).
check_close("KL(pi_old || pi_old) = 0", mean_kl(pi_old, theta_old, rho), 0.0, atol=1e-15)
pi_new = softmax_policy(theta_new)
check_close("per-state KL vs scipy.stats.entropy", kl_per_state(pi_old, theta_new),
            [entropy(pi_old[k], pi_new[k]) for k in range(4)], rtol=1e-10)
score = tabular_score(pi_old)
fisher = np.einsum("s,sa,sai,saj->ij", rho, pi_old, score, score)
h = 1e-4
hess = np.zeros((12, 12))
for i in range(12):
    for j in range(12):
        e_i, e_j = np.eye(12)[i].reshape(4, 3) * h, np.eye(12)[j].reshape(4, 3) * h
        kl = [mean_kl(pi_old, theta_old + si * e_i + sj * e_j, rho)
              for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
        hess[i, j] = (kl[0] - kl[1] - kl[2] + kl[3]) / (4 * h * h)
check_close("Hessian of the mean KL at theta_old = Fisher matrix", hess, fisher, rtol=1e-4, atol=1e-7)

# 5. Theorem 1 of the paper: eta(new) >= L_old(new) - C D_KL^max, C = 4 eps gamma / (1 - gamma)^2,
#    eps = max |A|, with L_old(new) = eta(old) + surrogate / (1 - gamma). Checked for 200 random new policies
#    at several distances; the surrogate alone (without the penalty) overestimates the gain for large steps.
C = 4 * np.abs(A_old).max() * mdp.gamma / (1 - mdp.gamma) ** 2
slack, overshoot, kl_max, model_err = [], 0, [], []
for _k in range(200):
    th = theta_old + rng.choice([0.05, 0.3, 1.0, 3.0]) * rng.normal(size=(4, 3))
    eta_new = objective(mdp, softmax_policy(th))
    L_new = J_old + surrogate(th, pi_old, rho, A_old) / (1 - mdp.gamma)
    slack.append(eta_new - (L_new - C * kl_per_state(pi_old, th).max()))
    overshoot += L_new > eta_new + 1e-9
    kl_max.append(kl_per_state(pi_old, th).max())
    model_err.append(abs(eta_new - L_new))
check_true("monotonic-improvement lower bound holds for 200 random policies", min(slack) >= -1e-10,
           f"min slack {min(slack):.2e}")
check_true("the unpenalized surrogate overestimates the true gain for some of them", overshoot > 0,
           f"{overshoot} of 200")

# 6. The constrained problem itself (Eq. 14) solved by SLSQP for delta = 1e-3, against the natural-gradient
#    step sqrt(2 delta / g^T F^+ g) F^+ g from the quadratic model (what TRPO's conjugate gradient computes).
delta = 1e-3
g = grad_L.ravel()
step = np.linalg.pinv(fisher) @ g
step *= np.sqrt(2 * delta / (g @ step))
res = minimize(lambda x: -surrogate(x.reshape(4, 3), pi_old, rho, A_old), theta_old.ravel(), method="SLSQP",
               constraints=[{"type": "ineq", "fun": lambda x: delta - mean_kl(pi_old, x.reshape(4, 3), rho)}],
               options={"ftol": 1e-12, "maxiter": 200})
L_nat = surrogate(theta_old + step.reshape(4, 3), pi_old, rho, A_old)
kl_opt = mean_kl(pi_old, res.x.reshape(4, 3), rho)
check_true("SLSQP optimum respects the trust region", kl_opt <= delta * 1.001, f"KL = {kl_opt:.3e}")
check_close("natural-gradient step reaches the constrained optimum of L (delta = 1e-3)", L_nat, -res.fun,
            rtol=0.03)
check_close("natural-gradient step lands on the KL boundary",
            mean_kl(pi_old, theta_old + step.reshape(4, 3), rho), delta, rtol=0.05)

# Figure: how far the surrogate model is from the true gain, against the largest per-state KL, with the
# penalty C max KL of Theorem 1 (an upper bound on that error, loose by orders of magnitude here).
kl_max, model_err = np.array(kl_max), np.array(model_err)
fig, ax = figure("TRPO: surrogate error vs KL for 200 random policies", "max_s KL(π_old ‖ π_new)",
                 "|η(new) − L_old(new)|")
ax.loglog(kl_max, np.maximum(model_err, 1e-12), "o", ms=3, label="random new policies")
grid = np.logspace(np.log10(kl_max.min()), np.log10(kl_max.max()), 50)
ax.loglog(grid, C * grid, "--", label="C · max KL, C = 4εγ / (1 − γ)²")
ax.legend(fontsize=8)
