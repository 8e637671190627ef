"""Verifier best-of-N selection and the PRM solution score, checked by Monte-Carlo against an exact
accuracy integral (scipy.integrate.quad), its N = 1 and perfect-verifier limits, and brute force."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.special import ndtr


# --- formula ---
def prm_score(step_probs):
    """Lightman et al.: probability that every step is correct = product of step probabilities."""
    return np.prod(np.asarray(step_probs, dtype=float), axis=-1)


def prm_log_score(step_probs):
    """The same score in log space, sum_k log P(step k correct), safe for long solutions."""
    return np.sum(np.log(np.asarray(step_probs, dtype=float)), axis=-1)


def best_of_n(scores):
    """Cobbe et al.: index of the sampled solution the verifier ranks highest (last axis)."""
    return np.argmax(np.asarray(scores, dtype=float), axis=-1)


def combined_score(logp, verifier, lam):
    """The seed's blend log p(y | x) + lam * v(x, y), for reranking a candidate set."""
    return np.asarray(logp, dtype=float) + lam * np.asarray(verifier, dtype=float)
# --- end formula ---


rng = np.random.default_rng(0)

# PRM score: hand value and Monte-Carlo over independent step outcomes.
steps = [0.95, 0.88, 0.72, 0.91]
check_close("PRM score of steps 0.95, 0.88, 0.72, 0.91 = 0.5477...", prm_score(steps),
            0.95 * 0.88 * 0.72 * 0.91, rtol=1e-12)
n_mc = 200000
all_ok = np.all(rng.random((n_mc, 4)) < np.array(steps), axis=1).mean()
check_close("PRM score = P(all steps correct) by simulation (4 standard errors)", prm_score(steps), all_ok,
            atol=4 * np.sqrt(0.55 * 0.45 / n_mc))
check_true("product, not minimum: one weak step (0.6) ranks below three 0.8 steps under the min",
           prm_score([0.99, 0.99, 0.6]) > prm_score([0.8, 0.8, 0.8]) and min(0.99, 0.99, 0.6) < 0.8)
check_close("row-wise PRM scores for a batch of solutions", prm_score([[0.5, 0.5], [0.9, 0.2]]),
            [0.25, 0.18], rtol=1e-12)

check_close("log-space PRM score = log of the product (scipy-free hand value)", prm_log_score(steps),
            np.log(0.95) + np.log(0.88) + np.log(0.72) + np.log(0.91), rtol=1e-12)
long_a, long_b = np.full(400, 0.1), np.concatenate([np.full(399, 0.1), [0.2]])
check_true("400 steps: the product underflows to a tie at 0.0, the log score still ranks b above a",
           prm_score(long_a) == prm_score(long_b) == 0.0 and prm_log_score(long_b) > prm_log_score(long_a))
check_close("row-wise log-space scores", prm_log_score([[0.5, 0.5], [0.9, 0.2]]), np.log([0.25, 0.18]),
            rtol=1e-12)

# Best-of-N by brute force on explicit candidate lists.
cands = rng.normal(size=(300, 7))
check_true("best_of_n equals the position of max() on 300 random candidate lists",
           all(best_of_n(row) == list(row).index(max(row)) for row in cands)
           and np.array_equal(best_of_n(cands), [list(r).index(max(r)) for r in cands]))

# Accuracy of best-of-N with a noisy verifier. Each sample is correct with probability q; the
# verifier scores correct samples ~ N(d, 1) and wrong ones ~ N(0, 1). Exact accuracy:
#   P(pick a correct one) = N q \int phi(s - d) F(s)^(N-1) ds,  F = q Phi(s - d) + (1 - q) Phi(s).
def exact_accuracy(q, d, N):
    def f(s):
        pdf = np.exp(-0.5 * (s - d) ** 2) / np.sqrt(2 * np.pi)
        return pdf * (q * ndtr(s - d) + (1 - q) * ndtr(s)) ** (N - 1)
    return N * q * quad(f, -12.0, 12.0 + d, limit=200)[0]


q, d = 0.3, 1.5
for N in (1, 4, 16):
    trials = 40000
    correct = rng.random((trials, N)) < q
    scores = rng.normal(size=(trials, N)) + d * correct
    picked = correct[np.arange(trials), best_of_n(scores)]
    exact = exact_accuracy(q, d, N)
    se = np.sqrt(exact * (1 - exact) / trials)
    check_close(f"best-of-{N} accuracy, simulation vs exact integral (4 standard errors)", picked.mean(),
                exact, atol=4 * se)
check_close("N = 1: best-of-1 is one sample, accuracy q", exact_accuracy(q, d, 1), q, rtol=1e-7)
check_close("perfect verifier (d = 8): accuracy reaches pass@N = 1 - (1 - q)^N at N = 8",
            exact_accuracy(q, 8.0, 8), 1 - (1 - q) ** 8, atol=1e-4)

# The seed's blended score: lam = 0 keeps the most likely candidate, large lam the verifier's pick.
logp = np.array([-3.0, -9.0, -5.0, -4.0])
ver = np.array([0.2, 0.9, 0.7, 0.1])
check_true("lam = 0: most likely candidate (0); lam = 100: verifier's pick (1); lam = 5: candidate 2",
           best_of_n(combined_score(logp, ver, 0.0)) == 0 and best_of_n(combined_score(logp, ver, 100.0)) == 1
           and best_of_n(combined_score(logp, ver, 5.0)) == 2)
check_close("blended scores at lam = 5 by hand", combined_score(logp, ver, 5.0), [-2.0, -4.5, -1.5, -3.5],
            rtol=1e-12)

fig, ax = figure("Best-of-N accuracy with a noisy verifier (q = 0.3)", "number of samples N",
                 "P(selected solution is correct)")
Ns = np.array([1, 2, 4, 8, 16, 32, 64, 128])
ax.plot(Ns, 1 - (1 - q) ** Ns, "k--", label="pass@N (oracle verifier)")
for sep in (0.5, 1.5, 3.0):
    ax.plot(Ns, [exact_accuracy(q, sep, int(N)) for N in Ns], marker=".",
            label=f"verifier separation d = {sep}")
ax.set_xscale("log", base=2)
ax.set_ylim(0, 1.02)
ax.legend()
