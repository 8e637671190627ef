"""Boltzmann (softmax) exploration pi(a|s) = exp(Q/tau) / sum exp(Q/tau): matches scipy.special.softmax
on Q-values spanning more than 700/tau, keeps the odds exp((Q_a - Q_b)/tau), tends to greedy and to
uniform at the temperature limits, maximises E_pi[Q] + tau H(pi) (scipy SLSQP), and its samples follow
it (chi-square)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy import optimize, special, stats


# --- formula ---
def boltzmann_policy(Q, tau):
    """Row-wise softmax of Q / tau (Q of shape (n_states, n_actions)), shifted by the row max."""
    z = Q / tau
    e = np.exp(z - np.max(z, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def boltzmann_sample(Q, tau, rng):
    """One action per state, drawn from the Boltzmann policy by inverting its cumulative distribution."""
    cdf = np.cumsum(boltzmann_policy(Q, tau), axis=1)
    return np.argmax(rng.random((Q.shape[0], 1)) < cdf, axis=1)


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Library reference on wide-range Q values (spread 2000 / tau = 0.5: exp would overflow without the shift).
Q = np.array([[1.0, 2.0, 0.5, -1.0], [900.0, 850.0, -1100.0, 899.0], [-800.0, -801.0, -799.5, -1500.0]])
for tau in (0.5, 1.0, 7.0):
    check_close(
        f"tau = {tau}: pi = scipy.special.softmax(Q / tau) row by row",
        boltzmann_policy(Q, tau),
        special.softmax(Q / tau, axis=1),
        rtol=1e-12,
        atol=1e-300,
    )
check_true(
    "all probabilities finite with logits spanning 4000", np.all(np.isfinite(boltzmann_policy(Q, 0.5)))
)
pi = boltzmann_policy(Q, 7.0)
check_close(
    "odds pi(a)/pi(b) = exp((Q_a - Q_b) / tau)", np.log(pi[0, 1] / pi[0, 3]), (2.0 - (-1.0)) / 7.0, rtol=1e-12
)

# 2. Temperature limits: tau -> 0 greedy (ties split), tau -> infinity uniform.
Qt = np.array([[0.3, 1.2, 1.2, -4.0]])
check_close(
    "tau = 1e-3: greedy, the two tied maximisers share the mass",
    boltzmann_policy(Qt, 1e-3),
    [[0.0, 0.5, 0.5, 0.0]],
    rtol=0,
    atol=1e-12,
)
check_close("tau = 1e6: uniform", boltzmann_policy(Qt, 1e6), np.full((1, 4), 0.25), rtol=0, atol=1e-5)

# 3. Variational characterisation: pi maximises sum_a pi(a) Q(a) + tau H(pi) over the simplex (scipy SLSQP).
q, tau = np.array([0.4, -0.3, 1.1, 0.9, 0.0]), 0.6


def neg_objective(p):
    p = np.clip(p, 1e-300, None)
    return -(p @ q - tau * np.sum(p * np.log(p)))


res = optimize.minimize(
    neg_objective,
    np.full(5, 0.2),
    method="SLSQP",
    bounds=[(0, 1)] * 5,
    constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}],
    options={"ftol": 1e-14},
)
check_close(
    "Boltzmann policy = argmax of E_pi[Q] + tau H(pi) (SLSQP, 1e-5)",
    boltzmann_policy(q[None], tau)[0],
    res.x,
    rtol=0,
    atol=1e-5,
)
check_close(
    "its value is tau log sum exp(Q / tau) (scipy logsumexp)",
    -neg_objective(boltzmann_policy(q[None], tau)[0]),
    tau * special.logsumexp(q / tau),
    rtol=1e-12,
)

# 4. Sampling: 100,000 states sharing one Q row; action counts vs the policy (chi-square test).
n = 100_000
acts = boltzmann_sample(np.tile(q, (n, 1)), tau, rng)
counts = np.bincount(acts, minlength=5)
p_exact = special.softmax(q / tau)
check_close(
    "sampled frequencies vs softmax(Q / tau) (4 sigma)",
    counts / n,
    p_exact,
    rtol=0,
    atol=4 * np.sqrt(0.25 / n),
)
check_true(
    "chi-square goodness of fit (scipy) does not reject",
    stats.chisquare(counts, p_exact * n).pvalue > 1e-3,
    f"p = {stats.chisquare(counts, p_exact * n).pvalue:.3f}",
)

fig, ax = figure(
    "Boltzmann exploration: Q = (0.4, -0.3, 1.1, 0.9, 0)", "temperature tau (log scale)", "pi(a)"
)
taus = np.logspace(-2, 1.5, 200)
probs = np.array([boltzmann_policy(q[None], t)[0] for t in taus])
for k in range(5):
    ax.semilogx(taus, probs[:, k], label=f"Q = {q[k]}")
ax.legend(fontsize=7)
