"""Multi-token prediction: the parallel-heads loss (Gloeckle et al.) and DeepSeek-V3's depth-averaged MTP
loss, checked against per-position loops of scipy log-softmax cross-entropies in the papers' own indexing, the
target shift by brute force, and the expected loss of exact heads on a Markov chain by Monte Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax


# --- formula ---
def log_probs(logits):
    """Row-wise log-softmax, shifted by the row maximum."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def parallel_heads_loss(head_logits, x):
    """Gloeckle et al. Eq. (2), factorized over n heads: L_n = -sum_t sum_{i=1}^n log P(x_{t+i} | x_{<=t}).
    head_logits is (n, T, V): head i (offset i) at position t; each head sums over the positions whose
    target x_{t+i} lies inside the sequence x of length T."""
    n, T, _ = head_logits.shape
    total = 0.0
    for i in range(1, n + 1):
        logp = log_probs(head_logits[i - 1, : T - i])
        total -= np.sum(logp[np.arange(len(logp)), x[i:]])
    return total


def deepseek_mtp_loss(depth_logits, tokens, lam):
    """DeepSeek-V3 Eqs. (24)-(25): L^k = -(1/T) sum_{i=2+k}^{T+1} log P^k_i[t_i], L_MTP = (lam/D) sum_k L^k.
    depth_logits is (D, T, V): module k at input position i (i <= T - k) predicts t_{i+k+1}; tokens holds
    t_1 .. t_{T+1}. Returns L_MTP and the per-depth losses."""
    D, T, _ = depth_logits.shape
    per_depth = []
    for k in range(1, D + 1):
        logp = log_probs(depth_logits[k - 1, : T - k])
        per_depth.append(-np.sum(logp[np.arange(len(logp)), tokens[k + 1:]]) / T)
    return lam / D * np.sum(per_depth), np.array(per_depth)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Parallel heads against a loop of scipy log-softmax cross-entropies, position by position and head by
#    head, in the paper's indexing (head i at position t scores x_{t+i}). Logits up to +-30 so the shift in
#    the log-softmax matters. A sum of ~60 log-probabilities of size ~30: rtol 1e-12 is many ulps.
n, T, V = 4, 17, 11
x = rng.integers(0, V, T)
head_logits = rng.normal(0, 8, (n, T, V))
brute = 0.0
for t in range(T):
    for i in range(1, n + 1):
        if t + i < T:
            brute -= log_softmax(head_logits[i - 1, t])[x[t + i]]
check_close("L_n = loop over (t, i) of scipy log-softmax cross-entropies",
            parallel_heads_loss(head_logits, x), brute, rtol=1e-12)
check_close("n = 1 is next-token cross-entropy", parallel_heads_loss(head_logits[:1], x),
            -sum(log_softmax(head_logits[0, t])[x[t + 1]] for t in range(T - 1)), rtol=1e-12)
check_close("logits of 1000: stable, equal to scipy", parallel_heads_loss(head_logits * 125, x),
            -sum(log_softmax(head_logits[i - 1, t] * 125)[x[t + i]]
                 for i in range(1, n + 1) for t in range(T - i)), rtol=1e-12)

# 2. The target shift by brute force: heads that put almost all mass (logit 40) on one candidate target.
#    Only the shift t -> t + i drives the loss to ~0; off by one in either direction, every target is missed.
for shift in (-1, 0, 1):
    oracle = np.zeros((n, T, V))
    for i in range(1, n + 1):
        for t in range(T):
            oracle[i - 1, t, x[min(max(t + i + shift, 0), T - 1)]] = 40.0
    loss = parallel_heads_loss(oracle, x)
    if shift == 0:
        check_true("heads aimed at x_{t+i}: loss ~ 0 (every target hit)", loss < 1e-12, f"{loss:.2e}")
    else:
        check_true(f"heads aimed at x_(t+i{shift:+d}): loss far above 0", loss > 30.0, f"{loss:.1f}")

# 3. DeepSeek-V3, in the paper's 1-based indexing: P^k_i comes from h^k_{i-k-1}, for i = 2+k .. T+1, and each
#    depth's sum is divided by T (not by its T - k terms).
D, lam = 3, 0.3
tokens = rng.integers(0, V, T + 1)                  # t_1 .. t_{T+1}
depth_logits = rng.normal(0, 8, (D, T, V))
per_depth_ref = []
for k in range(1, D + 1):
    s = 0.0
    for i in range(2 + k, T + 2):
        s += log_softmax(depth_logits[k - 1, i - k - 2])[tokens[i - 1]]
    per_depth_ref.append(-s / T)
got, per_depth = deepseek_mtp_loss(depth_logits, tokens, lam)
check_close("L^k_MTP = -(1/T) sum_{i=2+k}^{T+1} log P^k_i[t_i], per depth", per_depth, per_depth_ref,
            rtol=1e-12)
check_close("L_MTP = (lambda / D) sum_k L^k_MTP", got, lam * np.mean(per_depth_ref), rtol=1e-12)
mean_over_terms = [p * T / (T - k) for k, p in enumerate(per_depth_ref, start=1)]
check_true("dividing by T != averaging over the T - k terms (deeper depths weigh less)",
           abs(lam * np.mean(mean_over_terms) - got) > 1e-3 * abs(got),
           f"{got:.4f} vs {lam * np.mean(mean_over_terms):.4f}")
# The same offsets as parallel heads: depth k predicts offset k + 1, so on the same tokens and logits
# T * D / lambda * L_MTP = the heads-2..D+1 part of L_n.
stacked = np.concatenate([rng.normal(0, 8, (1, T + 1, V)), np.pad(depth_logits, ((0, 0), (0, 1), (0, 0)))])
check_close("depth k of DeepSeek = head k+1 of the parallel heads (same shift)", got * T * D / lam,
            parallel_heads_loss(stacked, tokens) - parallel_heads_loss(stacked[:1], tokens), rtol=1e-12)

# 4. Monte Carlo: on a Markov chain the best head i is the i-step transition matrix P^i, and the expected loss
#    of head i per position is H(X_{t+i} | X_t) (enumeration). A stationary sequence of length n + 1 gives
#    head i n + 1 - i positions, so E[L_n] = sum_i (n + 1 - i) H(X_{t+i} | X_t). 4000 independent sequences;
#    tolerance 4 standard errors of the sample mean.
S = 5
P = rng.dirichlet(np.full(S, 0.5), size=S)
w, vecs = np.linalg.eig(P.T)
pi = np.real(vecs[:, np.argmin(np.abs(w - 1))])
pi /= pi.sum()
powers = [np.linalg.matrix_power(P, i) for i in range(1, n + 1)]
cond_entropy = [float(-np.sum(pi[:, None] * Pi * np.log(Pi))) for Pi in powers]
M = 4000
seqs = np.empty((M, n + 1), dtype=int)
seqs[:, 0] = rng.choice(S, M, p=pi)
for j in range(1, n + 1):
    u = rng.random(M)
    seqs[:, j] = np.minimum((u[:, None] > np.cumsum(P[seqs[:, j - 1]], axis=1)).sum(1), S - 1)
samples = np.empty(M)
for m in range(M):
    logits = np.log(np.stack([Pi[seqs[m]] for Pi in powers]))
    samples[m] = parallel_heads_loss(logits, seqs[m])
se = samples.std(ddof=1) / np.sqrt(M)
check_close("exact heads on a Markov chain: E[L_n] = sum_i (n + 1 - i) H(X_{t+i} | X_t)", samples.mean(),
            sum((n + 1 - i) * h for i, h in enumerate(cond_entropy, start=1)), atol=4 * se)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def torch_heads(logits, targets, offset, reduction):
    """F.cross_entropy of head or depth k's first T - k positions against the targets from k + offset on."""
    return [F.cross_entropy(torch.tensor(logits[k - 1, : logits.shape[1] - k]),
                            torch.tensor(targets[k + offset:]), reduction=reduction).item()
            for k in range(1, len(logits) + 1)]


# Sums of ~60 log-softmax terms of logits up to ~30, in float64 on both sides: rtol 1e-12, as in check 1.
check_close("sum over heads i of F.cross_entropy(head_logits[i-1, :T-i], x[i:], reduction='sum') = L_n",
            sum(torch_heads(head_logits, x, 0, "sum")), parallel_heads_loss(head_logits, x), rtol=1e-12)
check_close("DeepSeek: lambda / D sum_k F.cross_entropy(depth k, t[k+1:], reduction='sum') / T = L_MTP",
            lam / D * sum(torch_heads(depth_logits, tokens, 1, "sum")) / T, got, rtol=1e-12)
check_close("pitfall: the default reduction='mean' divides depth k by its T - k terms, not by T",
            lam * np.mean(torch_heads(depth_logits, tokens, 1, "mean")), lam * np.mean(mean_over_terms),
            rtol=1e-12)
# --- end in code ---

fig, ax = figure("Best achievable loss of each head on a Markov chain", "offset i of the head",
                 "H(X_{t+i} | X_t) (nats)")
ax.plot(range(1, n + 1), cond_entropy, "o-", label="exact head P^i")
ax.axhline(float(-np.sum(pi * np.log(pi))), ls="--", color="gray", label="H(X) (no context)")
ax.legend()
