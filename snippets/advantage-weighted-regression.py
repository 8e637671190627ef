"""Advantage-weighted regression: pi* proportional to mu exp(A / beta) maximizes E_pi[A] - beta KL(pi || mu)
(numerical maximization over the simplex); minimizing the AWR loss over a tabular softmax policy with data
drawn from mu (exact proportions) recovers that pi*, also jointly over two states with different Z(s);
the weight clip acts only above w_max; beta -> infinity is plain behaviour cloning."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import maximize_on_simplex
from scipy.optimize import minimize
from scipy.special import log_softmax, rel_entr, softmax
from scipy.stats import entropy


# --- formula ---
def awr_weights(adv, beta, w_max=20.0):
    """w = min(exp(A / beta), w_max)."""
    return np.minimum(np.exp(adv / beta), w_max)


def awr_loss(log_pi, adv, beta, w_max=20.0):
    """L_AWR = -mean_i[w_i log pi_theta(a_i | s_i)] over dataset pairs (s_i, a_i) with advantages A_i."""
    return -np.mean(awr_weights(adv, beta, w_max) * log_pi)


def awr_optimal_policy(mu, adv, beta):
    """The closed-form target pi*(a) = mu(a) exp(A(a) / beta) / Z (one state)."""
    logits = np.log(mu) + adv / beta
    e = np.exp(logits - np.max(logits))
    return e / np.sum(e)
# --- end formula ---


def kl(p, q):
    """KL(p || q) for probability vectors: the sum of scipy.special.rel_entr, as scipy.stats.entropy(p, q)
    computes it. The simplex searches below call it thousands of times, where entropy's argument handling
    costs far more than the sum itself."""
    return np.sum(rel_entr(p, q))


rng = np.random.default_rng(0)

# One state, behaviour policy mu with rational probabilities (so a 10-sample batch has them exactly).
mu = np.array([0.4, 0.3, 0.2, 0.1])
batch = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 3])
adv = np.array([-0.5, 0.2, 0.8, 1.5])

# 1. The closed form is the maximizer of expected advantage minus beta KL(pi || mu).
for beta in (0.6, 1.0, 3.0):
    p_num, v_num = maximize_on_simplex(lambda p, b=beta: p @ adv - b * kl(p, mu), 4, rng)
    p_cf = awr_optimal_policy(mu, adv, beta)
    check_close(f"pi* = mu exp(A/beta)/Z maximizes E_pi[A] - beta KL(pi||mu), beta = {beta}", p_cf, p_num,
                rtol=0, atol=1e-5)
    check_close(f"... with maximum beta log E_mu[exp(A/beta)], beta = {beta}",
                p_cf @ adv - beta * entropy(p_cf, mu),
                beta * np.log(mu @ np.exp(adv / beta)), rtol=1e-9)

# 2. Weighted maximum likelihood on data from mu lands on pi*: minimize the AWR loss over softmax logits.
for beta in (0.6, 1.0, 3.0):
    res = minimize(lambda z, b=beta: awr_loss(log_softmax(z)[batch], adv[batch], b), np.zeros(4),
                   method="BFGS", options={"gtol": 1e-11})
    check_close(f"argmin of the AWR loss = pi*, beta = {beta}", softmax(res.x),
                mu * np.exp(adv / beta) / (mu @ np.exp(adv / beta)), rtol=0, atol=1e-5)

# 2b. Several states: the loss leaves out Z(s), which differs between states, yet a tabular policy fitted to a
#     joint batch still lands on each state's own KL-penalized optimum (found by numerical maximization).
mu2 = np.array([[0.5, 0.25, 0.125, 0.125], [0.125, 0.125, 0.25, 0.5]])
adv2 = np.array([[-1.0, 0.5, -2.0, -0.5], [4.0, -2.0, 0.5, -0.5]])  # exp(A / beta) < 20: no clipping
states2 = np.repeat([0, 1], 8)
acts2 = np.concatenate([[0, 0, 0, 0, 1, 1, 2, 3], [0, 1, 2, 2, 3, 3, 3, 3]])
beta2 = 1.5
Z2 = np.sum(mu2 * np.exp(adv2 / beta2), axis=1)
check_true("the two states' normalizers Z(s) really differ", abs(np.log(Z2[0] / Z2[1])) > 0.5,
           f"Z = {Z2[0]:.3f}, {Z2[1]:.3f}")
res2 = minimize(lambda z: awr_loss(log_softmax(z.reshape(2, 4), axis=1)[states2, acts2], adv2[states2, acts2],
                                   beta2), np.zeros(8), method="BFGS", options={"gtol": 1e-11})
for st in (0, 1):
    p_num, _ = maximize_on_simplex(lambda p, st=st: p @ adv2[st] - beta2 * kl(p, mu2[st]), 4, rng)
    check_close(f"joint two-state fit, state {st}: pi_theta = argmax E_pi[A] - beta KL(pi||mu)",
                softmax(res2.x.reshape(2, 4), axis=1)[st], p_num, rtol=0, atol=1e-5)

# 3. Weights: exp(A/beta) below the clip, w_max above it (worked values).
check_close("weights exp(A/beta) below the clip", awr_weights(np.array([0.0, 1.0, -2.0]), 0.5),
            [1.0, np.e ** 2, np.e ** -4], rtol=1e-12)
check_close("weights clipped at w_max = 20 above it (exp(5) = 148.4)", awr_weights(np.array([5.0, 3.0]), 1.0),
            [20.0, 20.0], rtol=1e-12)
check_close("loss with one clipped pair, worked by hand",
            awr_loss(np.log([0.5, 0.25]), np.array([0.0, 5.0]), 1.0),
            -(1.0 * np.log(0.5) + 20.0 * np.log(0.25)) / 2, rtol=1e-12)

# 4. beta -> infinity: every weight is 1 and the loss is the behaviour-cloning negative log-likelihood.
lp = np.log(rng.dirichlet(np.ones(4)))[batch]
check_close("beta -> infinity: AWR = behaviour cloning", awr_loss(lp, adv[batch], 1e9), -np.mean(lp),
            rtol=1e-8)
check_true("beta -> 0: pi* concentrates on the highest-advantage action seen in the data",
           awr_optimal_policy(mu, adv, 1e-3)[3] > 0.999, "pi*(a=3) > 0.999")

# Figure: pi* as beta varies.
fig, ax = figure("AWR target policy pi* = mu exp(A/beta) / Z", "temperature beta", "pi*(a)")
betas = np.geomspace(0.05, 20, 100)
probs = np.array([awr_optimal_policy(mu, adv, b) for b in betas])
for j in range(4):
    ax.semilogx(betas, probs[:, j], label=f"A = {adv[j]}, mu = {mu[j]}")
ax.legend(fontsize=7)
