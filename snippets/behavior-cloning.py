"""Behaviour cloning: the negative log-likelihood of logged actions under a tabular softmax policy equals
scikit-learn's log_loss (and scipy log_softmax on logits spanning 1660); minimizing it (scipy BFGS) gives the
empirical action frequencies of each state, at a minimum equal to the empirical conditional entropy; its
gradient (finite differences) is softmax minus the one-hot action, averaged."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from scipy.stats import entropy
from sklearn.metrics import log_loss


# --- formula ---
def bc_loss(logits, s, a):
    """L_BC = -mean_i log pi_theta(a_i | s_i), pi_theta(.|s) = softmax(logits[s]) (stable log-softmax)."""
    z = logits[s]
    m = np.max(z, axis=1, keepdims=True)
    log_pi = z - m - np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))
    return -np.mean(log_pi[np.arange(len(a)), a])
# --- end formula ---


rng = np.random.default_rng(0)
S, A = 3, 4

# A logged dataset from a skewed "expert": 300 (state, action) pairs.
expert = np.array([[0.7, 0.2, 0.1, 0.0], [0.1, 0.1, 0.4, 0.4], [0.25, 0.25, 0.25, 0.25]])
s = rng.integers(S, size=300)
a = np.array([rng.choice(A, p=expert[si]) for si in s])

# 1. Value: against scikit-learn's log_loss (natural log, mean over samples) and scipy on wide logits.
theta = rng.normal(size=(S, A))
check_close("L_BC = sklearn.metrics.log_loss", bc_loss(theta, s, a),
            log_loss(a, softmax(theta[s], axis=1), labels=np.arange(A)), rtol=1e-10)
wide = np.array([[900.0, -600.0, 899.0, 0.0], [-750.0, -740.0, -760.0, -745.0], [0.0, 1.0, 2.0, 3.0]])
check_close("wide logits (span 1660) vs scipy log_softmax", bc_loss(wide, s, a),
            -np.mean(log_softmax(wide[s], axis=1)[np.arange(len(a)), a]), rtol=1e-12)

# 2. The optimum of a tabular softmax policy is the empirical action frequency in each state.
res = minimize(lambda th: bc_loss(th.reshape(S, A), s, a), np.zeros(S * A), method="BFGS",
               options={"gtol": 1e-10})
pi_fit = softmax(res.x.reshape(S, A), axis=1)
counts = np.zeros((S, A))
np.add.at(counts, (s, a), 1)
freq = counts / counts.sum(axis=1, keepdims=True)
check_close("argmin L_BC: pi(a|s) = n(s, a) / n(s)", pi_fit, freq, rtol=0, atol=1e-5)
check_close("min L_BC = empirical conditional entropy sum_s n(s)/N H(freq(.|s))", res.fun,
            np.sum(counts.sum(axis=1) / len(s) * entropy(freq, axis=1)), rtol=1e-8)
check_true("an action never shown in a state gets (nearly) zero probability", pi_fit[0, 3] < 1e-3,
           f"pi(3 | 0) = {pi_fit[0, 3]:.1e}; the expert never took it")

# 3. Gradient: dL/dlogits[s, b] = (1/N) sum_{i: s_i = s} (softmax(logits[s])_b - 1(a_i = b)).
grad_ref = np.zeros((S, A))
np.add.at(grad_ref, s, softmax(theta[s], axis=1))
np.add.at(grad_ref, (s, a), -1.0)
grad_ref /= len(s)
fd = np.zeros((S, A))
for idx in np.ndindex(S, A):
    e = np.zeros((S, A))
    e[idx] = 1e-6
    fd[idx] = (bc_loss(theta + e, s, a) - bc_loss(theta - e, s, a)) / 2e-6
check_close("gradient: finite differences vs softmax - one-hot", fd, grad_ref, rtol=1e-6, atol=1e-10)

# Figure: the fitted probabilities against the data frequencies.
fig, ax = figure("Behaviour cloning, tabular softmax policy", "empirical frequency n(s,a)/n(s)",
                 "fitted pi(a|s)")
ax.plot(freq.ravel(), pi_fit.ravel(), "o")
ax.plot([0, 1], [0, 1], "k--", lw=0.6)
