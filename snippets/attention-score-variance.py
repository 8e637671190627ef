"""Var(q.k) = d_k: Monte-Carlo (Gaussian, random signs) and the non-zero-mean formula."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def score_variance(d_k: int, mu_q: float = 0.0, mu_k: float = 0.0) -> float:
    """Var(q.k) for independent components with means mu_q, mu_k and unit variance."""
    return d_k * (1.0 + mu_q**2 + mu_k**2)
# --- end formula ---


rng = np.random.default_rng(0)
n = 60_000

# Gaussian components, several widths: the sample variance of q.k tracks d_k. A sample
# variance from 30k draws has a relative standard error under 0.9%, so rtol 4% is > 4 sigma.
for d_k in (16, 64, 256):
    q = rng.normal(size=(n // 2, d_k))
    k = rng.normal(size=(n // 2, d_k))
    s = np.einsum("nd,nd->n", q, k)
    check_close(f"Monte-Carlo Var(q.k), Gaussian, d_k={d_k}", s.var(), score_variance(d_k),
                rtol=0.04)
    check_close(f"scaled score has unit variance, d_k={d_k}", (s / np.sqrt(d_k)).var(), 1.0,
                rtol=0.04)

# Non-Gaussian: random signs (+1/-1) also have mean 0 and variance 1.
d_k = 64
q = 2.0 * rng.integers(0, 2, size=(n, d_k)) - 1.0
k = 2.0 * rng.integers(0, 2, size=(n, d_k)) - 1.0
check_close("Monte-Carlo Var(q.k), Rademacher components", np.einsum("nd,nd->n", q, k).var(),
            score_variance(d_k), rtol=0.03)

# Zero mean is part of the assumption: with means 0.5 the variance is d_k (1 + 0.25 + 0.25).
q = rng.normal(0.5, 1.0, size=(n, d_k))
k = rng.normal(0.5, 1.0, size=(n, d_k))
s = np.einsum("nd,nd->n", q, k)
check_close("non-zero means: Var(q.k) = d_k (1 + mu_q^2 + mu_k^2)", s.var(),
            score_variance(d_k, 0.5, 0.5), rtol=0.03)
check_true("with non-zero means the variance is NOT d_k", s.var() > 1.3 * d_k,
           f"{s.var():.1f} vs d_k = {d_k}")

# Exact, by enumeration: components mu + s with random signs s = +-1 (mean mu, variance 1), all
# 2^(2 d_k) equally likely sign patterns of q and k for d_k = 4, so no sampling error at all.
signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * 8, indexing="ij")).reshape(8, -1).T
for mq, mk in ((0.0, 0.0), (0.5, -1.5), (2.0, 0.25)):
    dots = ((mq + signs[:, :4]) * (mk + signs[:, 4:])).sum(axis=1)
    check_close(f"exact Var(q.k) by enumeration, d_k = 4, mu_q = {mq}, mu_k = {mk}",
                score_variance(4, mq, mk), dots.var(), rtol=1e-12)

# Figure: average largest softmax weight over 128 keys, with and without the 1/sqrt(d_k).
widths = np.array([4, 8, 16, 32, 64, 128, 256, 512, 1024])
n_keys, trials = 128, 100
raw_max, scaled_max = [], []
for d in widths:
    qq = rng.normal(size=(trials, 1, d))
    kk = rng.normal(size=(trials, n_keys, d))
    logits = (qq * kk).sum(-1)
    for scale, store in ((1.0, raw_max), (np.sqrt(d), scaled_max)):
        z = logits / scale
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        store.append(p.max(axis=1).mean())
check_true("unscaled softmax saturates at large d_k, scaled does not",
           raw_max[-1] > 0.8 and scaled_max[-1] < 0.2,
           f"mean max weight at d_k=1024: {raw_max[-1]:.2f} unscaled, {scaled_max[-1]:.2f} scaled")

# The page's calculator is checked against score_variance, with zero, positive and negative means.
import cardcalc  # noqa: E402

cardcalc.table(lambda d_k, mu_q, mu_k: {"var": score_variance(d_k, mu_q, mu_k),
                                        "sd": np.sqrt(score_variance(d_k, mu_q, mu_k)),
                                        "var_scaled": score_variance(d_k, mu_q, mu_k) / d_k},
               cardcalc.grid(d_k=(1, 4, 64, 128, 4096), mu_q=(0.0, 0.5, -2.0), mu_k=(0.0, 0.25, -1.5)))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# scaled_dot_product_attention divides by sqrt of the query/key width, here d_k = 64, whatever the
# values' width: with 5 one-hot values (the identity) it returns the weights themselves.
score_rng = np.random.default_rng(1)
q_s, k_s = score_rng.normal(size=(3, 64)), score_rng.normal(size=(5, 64))
scaled = q_s @ k_s.T / np.sqrt(64)
weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
# Width-64 dot products and a softmax over 5 keys, a few ulps each: 1e-12.
check_close("F.scaled_dot_product_attention's default scale is 1/sqrt(d_k) of the keys, not of the values",
            F.scaled_dot_product_attention(torch.tensor(q_s), torch.tensor(k_s),
                                           torch.eye(5, dtype=torch.float64)).numpy(),
            weights / weights.sum(axis=1, keepdims=True), rtol=1e-12, atol=1e-15)
# The enumeration above is the whole population of 256 sign patterns, so its variance divides by 256.
# torch.var divides by n - 1 unless told otherwise (numpy's np.var by n).
check_close("pitfall: torch.var(q.k over all 256 patterns) defaults to correction=1: Var x 256/255",
            torch.var(torch.tensor(dots)).item(), score_variance(4, 2.0, 0.25) * 256 / 255, rtol=1e-12)
check_close("fix: torch.var(..., correction=0) = Var(q.k) = d_k (1 + mu_q^2 + mu_k^2)",
            torch.var(torch.tensor(dots), correction=0).item(), score_variance(4, 2.0, 0.25), rtol=1e-12)
# --- end in code ---

fig, ax = figure("Softmax saturation over 128 random keys", "head width $d_k$",
                 "mean of the largest attention weight")
ax.semilogx(widths, raw_max, "o-", label=r"scores $q^\top k$ (no scaling)")
ax.semilogx(widths, scaled_max, "s-", label=r"scores $q^\top k/\sqrt{d_k}$")
ax.axhline(1 / n_keys, color="gray", ls=":", label="uniform (1/128)")
ax.set_ylim(0, 1.05)
ax.legend()
