"""Behaviour cloning: the negative log-likelihood of logged actions under a tabular softmax policy equals
scikit-learn's log_loss (and scipy log_softmax on logits spanning 1660); its excess over the empirical
conditional entropy is the data-weighted KL divergence from the empirical action frequencies (so those
frequencies are the unique minimizer); scipy's BFGS lands within the distance that its own final loss
gap allows (Pinsker); the gradient (finite differences) is softmax minus the one-hot action, averaged."""

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
counts = np.zeros((S, A))
np.add.at(counts, (s, a), 1)
n_s = counts.sum(axis=1)
freq = counts / n_s[:, None]
H_cond = np.sum(n_s / len(s) * entropy(freq, axis=1))
with np.errstate(divide="ignore"):  # log 0 = -inf: the never-taken action gets probability 0
    log_freq = np.log(freq)
check_close("L_BC at logits = log n(s, a)/n(s) is the empirical conditional entropy", bc_loss(log_freq, s, a),
            H_cond, rtol=1e-12)
# L_BC(theta) - H = sum_s n(s)/N KL(freq(.|s) || pi_theta(.|s)) for every theta: KL >= 0 with equality only at
# pi = freq, so freq is the unique minimizer. Checked on random logits, far from the optimum and near it.
for scale in (3.0, 1e-3):
    th = log_freq.clip(-30, None) + scale * rng.normal(size=(S, A))
    kl = np.sum(n_s / len(s) * entropy(freq, softmax(th, axis=1), axis=1))
    check_close(f"L_BC - H = data-weighted KL(freq || pi), logits perturbed by {scale:g}",
                bc_loss(th, s, a) - H_cond, kl, rtol=1e-7, atol=1e-15)

# The solver: BFGS stops when the loss no longer decreases in floating point (on every BLAS kernel it reports
# "precision loss", at a gap of ~1e-8), so its probabilities are only as close to freq as that gap allows:
# by the identity above and Pinsker, ||pi_fit(.|s) - freq(.|s)||_1 <= sqrt(2 gap N / n(s)). The bound is
# computed from the run's own gap (plus the rounding of the two losses), never from one machine's result.
res = minimize(lambda th: bc_loss(th.reshape(S, A), s, a), np.zeros(S * A), method="BFGS",
               options={"gtol": 1e-10})
pi_fit = softmax(res.x.reshape(S, A), axis=1)
gap = res.fun - H_cond
check_true("BFGS reaches the minimum value (gap >= 0, below 1e-6)", -1e-12 <= gap <= 1e-6, f"gap = {gap:.2e}")
l1 = np.abs(pi_fit - freq).sum(axis=1)
bound = np.sqrt(2 * (max(gap, 0.0) + 1e-14) * len(s) / n_s)
check_true("argmin L_BC: ||pi(.|s) - n(s, .)/n(s)||_1 within the Pinsker bound of the solver's gap",
           bool(np.all(l1 <= bound)), f"largest L1 distance / bound = {np.max(l1 / bound):.2f}")
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
