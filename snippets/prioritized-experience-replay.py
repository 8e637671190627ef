"""Prioritized experience replay: P(i) = p_i^alpha / sum_k p_k^alpha and w_i = (N P(i))^-beta / max_j w_j.
Checked through their log-log slopes (alpha, -beta exactly), the alpha = 0 / 1 limits, rank-based
priorities vs scipy.stats.rankdata, the beta = 1 correction by exact enumeration, and a sum tree whose
lookups match numpy.searchsorted on the cumulative sums and whose stratified samples follow P(i)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import rankdata


# --- formula ---
def proportional_priorities(td_errors, eps):
    """p_i = |delta_i| + eps (eps > 0 keeps every transition sampleable)."""
    return np.abs(td_errors) + eps


def rank_priorities(td_errors):
    """p_i = 1 / rank(i), rank 1 for the largest |delta_i|."""
    order = np.argsort(-np.abs(td_errors), kind="stable")
    ranks = np.empty(len(td_errors))
    ranks[order] = np.arange(1, len(td_errors) + 1)
    return 1.0 / ranks


def sampling_probabilities(priorities, alpha=0.6):
    """P(i) = p_i^alpha / sum_k p_k^alpha (alpha = 0.6 in the proportional variant of Schaul et al.)."""
    scaled = priorities**alpha
    return scaled / np.sum(scaled)


def importance_weights(probs, beta=0.4):
    """w_i = (N P(i))^(-beta), divided by the largest weight so that w <= 1 (beta_0 = 0.4, annealed to 1)."""
    w = (len(probs) * probs) ** (-beta)
    return w / np.max(w)


def build_sum_tree(leaves):
    """Array-backed binary sum tree over len(leaves) = n (a power of two) leaves: tree[n + i] = leaf i,
    tree[j] = tree[2j] + tree[2j + 1], root tree[1] = total."""
    n = len(leaves)
    tree = np.concatenate([np.zeros(n), leaves])
    for j in range(n - 1, 0, -1):
        tree[j] = tree[2 * j] + tree[2 * j + 1]
    return tree


def update_leaf(tree, i, value):
    """Set leaf i and repair the sums on its path to the root (O(log n))."""
    n = len(tree) // 2
    j = i + n
    tree[j] = value
    while j > 1:
        j //= 2
        tree[j] = tree[2 * j] + tree[2 * j + 1]


def find_leaf(tree, u):
    """The leaf i whose cumulative interval [sum_{k<i}, sum_{k<=i}) contains u, 0 <= u < total."""
    n = len(tree) // 2
    j = 1
    while j < n:
        left = tree[2 * j]
        if u < left:
            j = 2 * j
        else:
            u = u - left
            j = 2 * j + 1
    return j - n


def stratified_sample(tree, k, rng):
    """Schaul et al., Appendix B.2.1: split [0, total) into k equal segments, draw one point in each."""
    u = (np.arange(k) + rng.random(k)) * (tree[1] / k)
    return np.array([find_leaf(tree, x) for x in u])
# --- end formula ---


rng = np.random.default_rng(0)
N = 13  # stored transitions (the tree pads to 16 leaves)
delta = rng.normal(size=N) * np.exp(rng.normal(size=N))  # TD errors spanning two orders of magnitude
p = proportional_priorities(delta, 1e-6)
check_close("proportional priorities p = |delta| + eps", p - 1e-6, np.abs(delta), rtol=1e-9)

# 1. The exponents, read off as slopes of log-log fits (numpy.polyfit): log P(i) is linear in log p_i
#    with slope alpha, and log w_i is linear in log P(i) with slope -beta. Defaults 0.6 and 0.4 are the
#    proportional variant's values (Schaul et al., Appendix B.2 / Table 3).
P = sampling_probabilities(p)
check_close("default alpha: slope of log P vs log p = 0.6", np.polyfit(np.log(p), np.log(P), 1)[0], 0.6,
            rtol=1e-9)
check_close("P sums to one", P.sum(), 1.0, rtol=1e-12)
w = importance_weights(P)
check_close("default beta: slope of log w vs log P = -0.4", np.polyfit(np.log(P), np.log(w), 1)[0], -0.4,
            rtol=1e-9)
check_close("normalized by the largest weight: max w = 1, reached at the least likely transition",
            [w.max(), w[np.argmin(P)]], [1.0, 1.0], rtol=1e-12)
check_close("alpha = 0: uniform sampling", sampling_probabilities(p, 0.0), np.full(N, 1 / N), rtol=1e-12)
check_close("alpha = 1: proportional to p", sampling_probabilities(p, 1.0), p / p.sum(), rtol=1e-12)
check_close("uniform P: all weights 1 for any beta", importance_weights(np.full(N, 1 / N), 0.7), np.ones(N),
            rtol=1e-12)

# 2. beta = 1 corrects the sampling fully: with unnormalized weights 1 / (N P(i)) the weighted mean of any
#    f under P is the uniform mean; the max-normalization rescales it by N min_j P(j). Exact enumeration.
f = rng.normal(size=N) + 2.0
w1 = importance_weights(P, 1.0)
check_close("beta = 1: sum_i P(i) w_i f_i / (N min P) = (1/N) sum_i f_i", np.sum(P * w1 * f) / (N * P.min()),
            f.mean(), rtol=1e-12)
bias_half = np.sum(P * importance_weights(P, 0.5) * f) / np.sum(P * importance_weights(P, 0.5)) - f.mean()
check_true("beta = 0.5 leaves a bias (self-normalized estimate differs from the uniform mean)",
           abs(bias_half) > 1e-3, f"bias {bias_half:+.4f}")

# 3. Rank-based priorities: 1 / rank with rank from scipy.stats.rankdata of -|delta|.
check_close("rank priorities vs 1 / scipy.stats.rankdata(-|delta|)", rank_priorities(delta),
            1.0 / rankdata(-np.abs(delta), method="ordinal"), rtol=1e-12)

# 4. Sum tree: the root is the total, every lookup on a fine grid of u agrees with numpy.searchsorted on
#    the cumulative sums, and an update repairs the path.
scaled = np.concatenate([p**0.6, np.zeros(16 - N)])
tree = build_sum_tree(scaled)
check_close("root of the sum tree = sum of p^alpha", tree[1], scaled.sum(), rtol=1e-12)
full = rng.uniform(0.1, 2.0, 16)
full_tree = build_sum_tree(full)
levels = [full_tree[2**k: 2 ** (k + 1)] for k in range(4)]  # nodes at depth k cover 16 / 2^k leaves each
check_true("full tree: every node at depth k is the sum of its block of 16 / 2^k leaves (numpy reshape)",
           all(np.allclose(lv, full.reshape(2**k, -1).sum(axis=1), rtol=1e-12, atol=0)
               for k, lv in enumerate(levels)))
grid_u = np.linspace(0, tree[1], 4001)[:-1]
found = np.array([find_leaf(tree, u) for u in grid_u])
check_true("find_leaf(u) = searchsorted(cumsum, u, 'right') on 4000 points",
           bool(np.array_equal(found, np.searchsorted(np.cumsum(scaled), grid_u, side="right"))))
update_leaf(tree, 4, 3.7)
scaled[4] = 3.7
check_close("after updating leaf 4, every internal sum is right (rebuilt tree)", tree, build_sum_tree(scaled),
            rtol=1e-12)
check_close("... and the root equals a fresh numpy sum", tree[1], np.sum(scaled), rtol=1e-12)

# 5. Stratified sampling of 32 per batch, 4000 batches: frequencies match P(i) = scaled / total within
#    4 standard errors (stratification only lowers the variance); zero-priority padding is never drawn.
draws = np.concatenate([stratified_sample(tree, 32, rng) for _ in range(4000)])
freq = np.bincount(draws, minlength=16) / len(draws)
target = scaled / scaled.sum()
check_close("sample frequencies vs P(i)", freq, target, rtol=0, atol=4 * np.sqrt(target.max() / len(draws)))
check_true("padding leaves never sampled", bool(np.all(freq[N:] == 0)))

# Figure: sampling probability against |TD error| for three alphas.
order = np.argsort(np.abs(delta))
fig, ax = figure("Prioritized replay: sampling probability vs |TD error| (13 transitions)", "|TD error|",
                 "P(i)")
for a in (0.0, 0.6, 1.0):
    ax.plot(np.abs(delta)[order], sampling_probabilities(p, a)[order], marker="o", label=f"α = {a}")
ax.set_xscale("log")
ax.legend()
