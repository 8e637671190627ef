"""Mirostat: the Zipf-exponent estimate against least squares, the k formula against a numerical
inversion, and the surprise controller converging to its target on Zipf distributions."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.stats import chisquare, zipfian


# --- formula ---
def estimate_zipf_s(p_sorted, m=100):
    """s_hat = sum t_i b_i / sum t_i^2 over i = 1..m-1, with t_i = log((i+1)/i), b_i = log(p_i/p_(i+1))."""
    i = np.arange(1, m)
    t = np.log((i + 1) / i)
    b = np.log(p_sorted[: m - 1] / p_sorted[1:m])
    return np.sum(t * b) / np.sum(t * t)


def mirostat_k(s_hat, mu, N):
    """k = (eps 2^mu / (1 - N^-eps))^(1/s_hat), eps = s_hat - 1: the rank whose surprise is mu bits
    under a Zipf law with exponent s_hat over N tokens."""
    eps = s_hat - 1
    return (eps * 2**mu / (1 - N ** (-eps))) ** (1 / s_hat)


def mirostat_step(p_sorted, cum_sorted, mu, tau, eta, rng):
    """One token: estimate s, set k from mu, sample from the top k, update mu <- mu - eta (S - tau).
    The surprise S = -log2 p(x) is measured in the untruncated distribution."""
    N = p_sorted.size
    k = min(max(round(mirostat_k(estimate_zipf_s(p_sorted), mu, N)), 1), N)
    x = int(np.searchsorted(cum_sorted, rng.random() * cum_sorted[k - 1], side="right"))
    surprise = -np.log2(p_sorted[x])
    return x, surprise, mu - eta * (surprise - tau)
# --- end formula ---


rng = np.random.default_rng(0)
N = 50_000                                     # about GPT-2's vocabulary, as in the paper
ranks = np.arange(1, N + 1)

# 1. The exponent estimate. On an exact Zipf law (scipy.stats.zipfian) it recovers s; on a noisy
#    distribution it equals the least-squares slope through the origin of b on t (numpy lstsq).
for s in (1.05, 1.2, 1.6):
    check_close(f"s_hat on scipy.stats.zipfian(a = {s}, n = {N})", estimate_zipf_s(zipfian.pmf(ranks, s, N)),
                s, rtol=1e-10)
noisy = np.sort(zipfian.pmf(ranks, 1.15, N) * rng.lognormal(0.0, 0.3, N))[::-1]
i = np.arange(1, 100)
slope = np.linalg.lstsq(np.log((i + 1) / i)[:, None], np.log(noisy[:99] / noisy[1:100]), rcond=None)[0][0]
check_close("noisy Zipf-like distribution: s_hat = least-squares slope (np.linalg.lstsq)",
            estimate_zipf_s(noisy), slope, rtol=1e-12)

# 2. The k formula inverts "surprise of rank k = mu" for p(k) = k^-s / integral_1^N x^-s dx.
#    Reference: the integral by scipy quad and the inversion by brentq.
for s, mu in ((1.1, 4.0), (1.1, 8.0), (1.3, 6.0), (1.8, 5.0)):
    Z = quad(lambda x, s=s: x ** (-s), 1, N, limit=200)[0]
    k_ref = brentq(lambda k, s=s, Z=Z, mu=mu: -np.log2(k ** (-s) / Z) - mu, 1e-6, 1e9, xtol=1e-12)
    check_close(f"s = {s}, mu = {mu} bits: closed-form k = brentq root of -log2(k^-s / Z) = mu",
                mirostat_k(s, mu, N), k_ref, rtol=1e-9)
p11 = zipfian.pmf(ranks, 1.1, N)
k8 = round(mirostat_k(1.1, 8.0, N))
check_true("on the exact Zipf law (s = 1.1) the token at rank k(mu = 8) has surprise within 0.3 bits of 8",
           abs(-np.log2(p11[k8 - 1]) - 8.0) < 0.3, f"k = {k8}, surprise {-np.log2(p11[k8 - 1]):.3f} bits")

# 3. One step at a fixed mu samples from the top k tokens renormalized, k = round(k formula) >= 1,
#    and reports the surprise in bits. Reference k from the brentq inversion with the estimated s;
#    reference distribution the top k of the scipy pmf renormalized.
p12 = zipfian.pmf(ranks, 1.2, N)
c12 = np.cumsum(p12)
for mu, label in ((6.0, "mu = 6"), (0.0, "mu = 0 (formula gives k < 1, clamped to 1)")):
    Z = quad(lambda x: x ** (-1.2), 1, N, limit=200)[0]
    k_ref = max(1, round(brentq(lambda k, mu=mu, Z=Z: -np.log2(k ** (-1.2) / Z) - mu, 1e-9, 1e9, xtol=1e-12)))
    draws, bits = [], []
    for _ in range(20_000):
        x, surprise, _mu = mirostat_step(p12, c12, mu, 3.0, 0.1, rng)
        draws.append(x)
        bits.append(surprise)
    draws = np.array(draws)
    counts = np.bincount(draws, minlength=k_ref + 1)
    expected = p12[:k_ref] / p12[:k_ref].sum() * len(draws)
    pvalue = chisquare(counts[:k_ref], expected).pvalue if k_ref > 1 else 1.0
    check_true(f"{label}: draws stay in the top k = {k_ref}, fit top-k renormalized (chi-square p > 0.001)",
               draws.max() == k_ref - 1 and counts[k_ref:].sum() == 0 and pvalue > 1e-3,
               f"largest rank drawn {draws.max() + 1}, chi-square p = {pvalue:.3f}")
    check_close(f"{label}: reported surprise = -ln p(x) / ln 2 (bits)", bits,
                -np.log(p12[draws]) / np.log(2.0), rtol=1e-12)

# 4. The controller. Each step sees a Zipf distribution with a random exponent in [1.05, 1.4]; mu stays
#    bounded and the observed surprise averages to the target tau, as Basu et al. report. mu is a
#    surprise budget that starts at 2 tau, so a working controller keeps it inside (0, 4 tau); the run
#    stops as soon as mu leaves that band, so a controller that pushes mu the wrong way fails the
#    boundedness check instead of overflowing 2^mu a few thousand steps later.
exponents = np.linspace(1.05, 1.4, 8)
tables = [(pz, np.cumsum(pz)) for pz in (zipfian.pmf(ranks, a, N) for a in exponents)]
eta, steps = 0.1, 4000
runs = {}
for tau in (3.0, 5.0):
    mu, mus, surprises = 2 * tau, [], []
    for _ in range(steps):
        pz, cz = tables[rng.integers(len(tables))]
        x, surprise, mu = mirostat_step(pz, cz, mu, tau, eta, rng)
        mus.append(mu)
        surprises.append(surprise)
        if not 0.0 < mu < 4 * tau:
            break
    S, M = np.array(surprises), np.array(mus)
    runs[tau] = (S, M)
    check_true(f"tau = {tau}: mu stays inside (0, 4 tau) for all {steps} tokens",
               len(M) == steps and 0.0 < M.min() and M.max() < 4 * tau,
               f"{len(M)} tokens, mu in [{M.min():.2f}, {M.max():.2f}]")
    # Summing the update gives mu_T - mu_0 = -eta sum_t (S_t - tau) exactly.
    check_close(f"tau = {tau}: mean(S - tau) = (mu_0 - mu_T) / (eta T) (sum of the updates)",
                np.mean(S - tau), (2 * tau - M[-1]) / (eta * steps), rtol=1e-9, atol=1e-12)
    late = S[steps // 2:].mean()
    check_true(f"tau = {tau} bits: mean surprise over the last {steps // 2} tokens within 0.1 bits",
               abs(late - tau) < 0.1 and np.ptp(M[steps // 2:]) < 3 * tau,
               f"mean {late:.3f} bits (perplexity {2 ** late:.2f} vs {2 ** tau:.2f}); "
               f"mu in [{M[steps // 2:].min():.2f}, {M[steps // 2:].max():.2f}]")

# The page's calculator is checked against mirostat_k, for fitted exponents just above 1 to 2, mu from
# 0 to 20 bits and vocabularies from 2 tokens to Llama 3's.
import cardcalc  # noqa: E402

cardcalc.table(lambda s_hat, mu, N: mirostat_k(s_hat, mu, N),
               cardcalc.grid(s_hat=(1.001, 1.1, 2.0), mu=(0.0, 3.0, 10.0, 20.0), N=(2, 100, 32000, 128256)))

# --- in code: transformers ---
from hf_table_lm import processed_probs  # noqa: E402
from transformers import TopKLogitsWarper  # noqa: E402

# No library call runs the controller; the truncation it sets is top-k, which TopKLogitsWarper does
# once k is known. On the Zipf table (s = 1.2) at mu = 6 bits, float64 softmax over the kept logits:
# p_i / (top-k mass) to a few ulps, hence rtol 1e-12.
k6 = min(max(round(mirostat_k(estimate_zipf_s(p12), 6.0, N)), 1), N)
check_close(f"softmax(TopKLogitsWarper(k)(log p)) = the top k = {k6} renormalized, as a Mirostat step",
            processed_probs(TopKLogitsWarper(top_k=k6), np.log(p12)),
            np.where(ranks <= k6, p12, 0.0) / c12[k6 - 1], rtol=1e-12)
try:
    TopKLogitsWarper(top_k=mirostat_k(estimate_zipf_s(p12), 6.0, N))
    refused = False
except ValueError:
    refused = True
check_true("pitfall: the formula's k is a real number, and TopKLogitsWarper refuses it (ValueError)", refused)
# Ties: the warper drops only tokens strictly below the k-th largest logit, so tokens tied with it stay.
tied = processed_probs(TopKLogitsWarper(top_k=2), np.log([0.4, 0.2, 0.2, 0.2]))
check_true("pitfall: top_k=2 on (0.4, 0.2, 0.2, 0.2) keeps all 4 tokens, tied at the 2nd value",
           np.count_nonzero(tied) == 4, f"{np.count_nonzero(tied)} kept")
# --- end in code ---

fig, ax = figure("Mirostat holds the average surprise at its target", "generated token",
                 "bits")
for tau, color in ((3.0, "tab:blue"), (5.0, "tab:red")):
    S, M = runs[tau]
    ax.plot(np.cumsum(S) / np.arange(1, steps + 1), color=color,
            label=rf"running mean surprise, $\tau$ = {tau}")
    ax.plot(M, color=color, alpha=0.35, lw=0.8, label=rf"$\mu_t$, $\tau$ = {tau}")
    ax.axhline(tau, color=color, ls="--", lw=1)
ax.set_ylim(0, 14)
ax.legend(fontsize=8, ncols=2)
