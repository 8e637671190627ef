"""CQL(H) loss: the log-sum-exp term matches scipy.special.logsumexp on Q-values spanning 1500; the penalty
equals the cross-entropy H(beta) + KL(beta || softmax Q) (scipy.stats.entropy); the gradient of the whole
loss matches finite differences; the minimizer keeps the data-average of Q equal to that of the targets
while pushing down the actions that softmax(Q) over-weights relative to the data."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax
from scipy.stats import entropy


# --- formula ---
def cql_h_loss(Q, s, a, y, alpha):
    """alpha * mean_i[log sum_b exp Q(s_i, b) - Q(s_i, a_i)] + 1/2 mean_i (Q(s_i, a_i) - y_i)^2 over a batch
    (s_i, a_i, y_i) from the dataset; y_i is the Bellman target, held fixed."""
    q_rows = Q[s]
    m = np.max(q_rows, axis=1)
    lse = m + np.log(np.sum(np.exp(q_rows - m[:, None]), axis=1))
    q_data = Q[s, a]
    penalty = np.mean(lse - q_data)
    bellman = 0.5 * np.mean((q_data - y) ** 2)
    return alpha * penalty + bellman
# --- end formula ---


rng = np.random.default_rng(0)
S, A = 4, 5

# 1. The soft-maximum term on wide-range Q-values (spanning about 1500: exp overflows without the shift).
Qw = rng.normal(size=(S, A)) * 5
Qw[0, 2], Qw[1, 0], Qw[2, 4], Qw[3] = 800.0, -500.0, 710.0, [-700.0, -650.0, -705.0, -699.0, -702.0]
s = np.array([0, 1, 2, 3, 3, 0, 2])
a = np.array([1, 0, 4, 2, 0, 2, 3])
got = cql_h_loss(Qw, s, a, Qw[s, a], alpha=1.0)  # Bellman term zero by construction
check_close("penalty on wide-range Q vs scipy logsumexp", got,
            np.mean(logsumexp(Qw[s], axis=1) - Qw[s, a]), rtol=1e-12)
check_close("alpha scales the penalty linearly", cql_h_loss(Qw, s, a, Qw[s, a], alpha=2.5), 2.5 * got,
            rtol=1e-12)

# 2. Per state, with the batch in exact data proportions beta = (1/2, 1/4, 1/8, 1/8, 0), the penalty is the
#    cross-entropy of softmax(Q) under beta: H(beta) + KL(beta || softmax Q) >= 0, zero KL iff they agree.
beta = np.array([0.5, 0.25, 0.125, 0.125, 0.0])
a8 = np.array([0, 0, 0, 0, 1, 1, 2, 3])
q_row = rng.normal(size=A) * 3
pen = cql_h_loss(q_row[None, :], np.zeros(8, int), a8, q_row[a8], 1.0)
check_close("penalty = H(beta) + KL(beta || softmax Q)", pen,
            entropy(beta) + entropy(beta, softmax(q_row)), rtol=1e-12)

# 3. Gradient of the full loss by central finite differences vs
#    dL/dQ(s, b) = (alpha/N) sum_{i: s_i = s}[softmax(Q(s))_b - 1(a_i = b)]
#                   + (1/N) sum_{i: (s_i,a_i) = (s,b)} (Q - y_i)
Q = rng.normal(size=(S, A))
y = rng.normal(size=s.size)
alpha = 0.7
grad_ref = np.zeros((S, A))
for i in range(s.size):
    grad_ref[s[i]] += alpha * softmax(Q[s[i]]) / s.size
    grad_ref[s[i], a[i]] += (-alpha + Q[s[i], a[i]] - y[i]) / s.size
fd = np.zeros((S, A))
h = 1e-6
for idx in np.ndindex(S, A):
    Qp, Qm = Q.copy(), Q.copy()
    Qp[idx] += h
    Qm[idx] -= h
    fd[idx] = (cql_h_loss(Qp, s, a, y, alpha) - cql_h_loss(Qm, s, a, y, alpha)) / (2 * h)
check_close("gradient of the CQL(H) loss: finite differences vs softmax - data frequency + residual", fd,
            grad_ref, rtol=1e-6, atol=1e-9)

# 4. What the penalty does: one state, every action in the data with frequency beta2, fixed targets y2.
#    At the minimizer, E_beta[Q] = E_beta[y] (the penalty gradient sums to zero) while each action moves
#    by alpha (1 - softmax(Q)_a / beta_a): the favoured high-target actions are pulled down.
beta2 = np.array([0.4, 0.3, 0.2, 0.1])
a10 = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 3])
y2 = np.array([1.0, 0.0, 2.0, 3.0])
res = minimize(lambda q: cql_h_loss(q[None, :], np.zeros(10, int), a10, y2[a10], 1.0), np.zeros(4),
               method="BFGS", options={"gtol": 1e-12})
q_hat = res.x
check_close("minimizer keeps the data-weighted mean: E_beta[Q] = E_beta[y]", beta2 @ q_hat, beta2 @ y2,
            rtol=0, atol=1e-6)
check_close("stationarity: Q - y = alpha (1 - softmax(Q) / beta)", q_hat - y2,
            1.0 * (1 - softmax(q_hat) / beta2), rtol=0, atol=1e-5)
check_true("the rarely seen, highest-target action is pushed furthest down", np.argmin(q_hat - y2) == 3,
           f"Q - y = {np.round(q_hat - y2, 3)}")

# Figure: fitted Q against the targets for growing alpha.
fig, ax = figure("CQL(H): minimizer for one state as alpha grows", "alpha", "Q(a) - y(a)")
alphas = np.linspace(0, 3, 13)
shifts = []
for al in alphas:
    r = minimize(lambda q, al=al: cql_h_loss(q[None, :], np.zeros(10, int), a10, y2[a10], al), y2,
                 method="BFGS")
    shifts.append(r.x - y2)
shifts = np.array(shifts)
for j in range(4):
    ax.plot(alphas, shifts[:, j], label=f"action {j}: beta = {beta2[j]}, y = {y2[j]}")
ax.legend(fontsize=7)
