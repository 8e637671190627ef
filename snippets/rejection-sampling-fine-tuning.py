"""Rejection sampling fine-tuning: the data it selects. Best-of-n selection vs the closed form
F(r)^n - F(r^-)^n (exact enumeration, simulation, KS test on continuous rewards), threshold filtering vs the
renormalized policy, the KL of best-of-n, and the fine-tuning step's minimizer."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from scipy.stats import entropy, kstest, norm


# --- formula ---
def select_best_of_n(rewards):
    """Index of the highest-reward response among the n sampled for each prompt (last axis)."""
    return np.argmax(rewards, axis=-1)


def select_above_threshold(rewards, tau):
    """Keep every sampled response whose reward reaches the threshold tau."""
    return rewards >= tau


def best_of_n_policy(p, r, n):
    """Distribution of the kept response when n i.i.d. draws from p (distinct rewards r) are reduced to
    their best: F(r(y))^n - F(r(y)^-)^n, with F the reward CDF under p."""
    order = np.argsort(r)
    cdf = np.cumsum(p[order])
    below = cdf - p[order]
    out = np.empty_like(p)
    out[order] = cdf**n - below**n
    return out


def filtered_policy(p, r, tau):
    """Distribution of the kept responses under a threshold: p restricted to r >= tau, renormalized."""
    kept = p * (r >= tau)
    return kept / np.sum(kept)
# --- end formula ---


rng = np.random.default_rng(0)
p = np.array([0.05, 0.3, 0.1, 0.25, 0.2, 0.1])  # the sampling policy over 6 responses
r = np.array([0.4, -1.0, 2.0, 0.1, 1.1, -0.3])  # distinct rewards, not sorted

# 1. Exact: enumerate all 6^3 triples of draws, keep the best of each, add up probabilities.
n = 3
exact = np.zeros(6)
for draw in itertools.product(range(6), repeat=n):
    exact[draw[select_best_of_n(r[list(draw)])]] += np.prod(p[list(draw)])
check_close("best-of-3 distribution: closed form vs enumeration of all 216 draws", best_of_n_policy(p, r, n),
            exact, rtol=1e-12)
check_close("best-of-1 is the policy itself", best_of_n_policy(p, r, 1), p, rtol=1e-12)

# 2. Simulation of the procedure: 20000 prompts, n = 4 samples each, keep the best.
N, n4 = 20000, 4
draws = rng.choice(6, p=p, size=(N, n4))
kept = draws[np.arange(N), select_best_of_n(r[draws])]
freq = np.bincount(kept, minlength=6) / N
q4 = best_of_n_policy(p, r, n4)
check_true("best-of-4 frequencies within 4 standard errors of F^4 - F_-^4",
           bool(np.all(np.abs(freq - q4) < 4 * np.sqrt(q4 * (1 - q4) / N) + 1e-12)),
           f"max |z| = {np.max(np.abs(freq - q4) / np.sqrt(q4 * (1 - q4) / N + 1e-30)):.2f}")

# 3. Continuous rewards: the kept reward is the maximum of n standard normals, CDF Phi(t)^n (KS test);
#    for n = 2 its mean is 1/sqrt(pi).
z = rng.normal(size=(5000, 8))
best = z[np.arange(5000), select_best_of_n(z)]
ks = kstest(best, lambda t: norm.cdf(t) ** 8)
check_true("max of 8 normals: KS test against Phi^8 (p > 0.01)", ks.pvalue > 0.01, f"p = {ks.pvalue:.3f}")
z2 = rng.normal(size=(40000, 2))
m2 = z2[np.arange(40000), select_best_of_n(z2)]
check_true("best of 2 normals has mean 1/sqrt(pi) (4 s.e.)", abs(m2.mean() - 1 / np.sqrt(np.pi))
           < 4 * m2.std() / np.sqrt(40000), f"{m2.mean():.4f} vs {1 / np.sqrt(np.pi):.4f}")

# 4. Threshold filtering (tau = 0.1 keeps rewards 0.4, 2.0, 0.1, 1.1): acceptance rate and the kept
#    distribution against simulation, and by hand: kept mass 0.05 + 0.1 + 0.25 + 0.2 = 0.6.
tau = 0.1
check_close("filtered policy by hand: p on {r >= 0.1} / 0.6", filtered_policy(p, r, tau),
            [0.05 / 0.6, 0, 0.1 / 0.6, 0.25 / 0.6, 0.2 / 0.6, 0], rtol=1e-12, atol=1e-15)
single = rng.choice(6, p=p, size=N)
acc = select_above_threshold(r[single], tau)
check_true("acceptance rate 0.6 within 4 s.e.", abs(acc.mean() - 0.6) < 4 * np.sqrt(0.24 / N),
           f"{acc.mean():.4f}")
fq = np.bincount(single[acc], minlength=6) / acc.sum()
fp = filtered_policy(p, r, tau)
check_true("accepted responses follow the filtered policy (4 s.e.)",
           bool(np.all(np.abs(fq - fp) < 4 * np.sqrt(fp * (1 - fp) / acc.sum()) + 1e-12)))

# 5. How far best-of-n moves from the policy: with many equally likely outputs (continuous limit) the
#    KL divergence is log n - (n - 1)/n (Beirami et al. 2024).
M = 200000
flat = np.full(M, 1 / M)
for n_ in (2, 4, 16):
    q = best_of_n_policy(flat, rng.permutation(M).astype(float), n_)
    check_close(f"KL(best-of-{n_} || policy) -> log n - (n-1)/n", entropy(q, flat),
                np.log(n_) - (n_ - 1) / n_, rtol=1e-4)

# 6. The fine-tuning step: minimizing the expected NLL of the kept data over a free policy returns the
#    kept data's distribution (maximum likelihood), here the best-of-4 policy.
fit = minimize(lambda th: -q4 @ log_softmax(th), np.zeros(6), method="BFGS", options={"gtol": 1e-10}).x
check_close("NLL minimizer on best-of-4 data = best-of-4 policy", softmax(fit), q4, atol=1e-6)

ns = np.arange(1, 65)
fig, ax = figure("Best-of-n: expected kept reward and KL from the policy (standard normal rewards)",
                 "n (samples per prompt)", "value")
grid = np.linspace(-6, 6, 4001)
ax.plot(ns, [np.trapezoid(grid * np.gradient(norm.cdf(grid) ** k_, grid), grid) for k_ in ns],
        label="E[max reward]")
ax.plot(ns, np.log(ns) - (ns - 1) / ns, "--", label="KL = log n − (n−1)/n  (nats)")
ax.legend()
