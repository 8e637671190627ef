"""DeepSeekMoE: shared experts always on plus top-(mK - K_s) routed experts with softmax gates, against a
token-by-token loop with scipy's softmax and a sort; fine-grained segmentation as an exact split of an
FFN's hidden units; the routing-combination counts the paper prints, and brute-force enumeration."""

import itertools
import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as sp_softmax


def ffn(u, w1, w2):
    """One expert: W2 SiLU(W1 u) for rows u (no biases), w1 is (hidden, d), w2 is (d, hidden)."""
    a = u @ w1.T
    return (a / (1 + np.exp(-a))) @ w2.T


# --- formula ---
def deepseekmoe(u, shared, routed, centroids, n_active):
    """h_t = u_t + sum over shared experts FFN(u_t) + sum over routed experts g_it FFN_i(u_t), where g_it is
    the softmax affinity s_it over the routed experts if it is among the token's n_active = mK - K_s
    largest, else 0."""
    logits = u @ centroids.T
    s = np.exp(logits - logits.max(axis=1, keepdims=True))
    s = s / s.sum(axis=1, keepdims=True)
    kth = np.sort(s, axis=1)[:, -n_active][:, None]
    g = np.where(s >= kth, s, 0.0)
    h = u.copy()
    for w1, w2 in shared:
        h += ffn(u, w1, w2)
    for i, (w1, w2) in enumerate(routed):
        h += g[:, i:i + 1] * ffn(u, w1, w2)
    return h, g


def routing_combinations(n_routed, n_active):
    return math.comb(n_routed, n_active)
# --- end formula ---


rng = np.random.default_rng(0)
T, d, hidden = 10, 12, 8
n_shared, n_routed, n_active = 2, 12, 3          # K_s = 2, mN - K_s = 12, mK - K_s = 3


def expert():
    return rng.normal(size=(hidden, d)) / np.sqrt(d), rng.normal(size=(d, hidden)) / np.sqrt(hidden)


shared = [expert() for _ in range(n_shared)]
routed = [expert() for _ in range(n_routed)]
centroids = rng.normal(size=(n_routed, d))
u = rng.normal(size=(T, d))


def loop_reference(u, shared, routed, centroids, k):
    """One token at a time: scipy's softmax over the routed experts, the k best by a full sort."""
    out = np.zeros_like(u)
    for t in range(len(u)):
        s = sp_softmax(centroids @ u[t])
        best = sorted(range(len(s)), key=lambda i: -s[i])[:k]
        out[t] = u[t] + sum(ffn(u[t:t + 1], *e)[0] for e in shared)
        out[t] += sum(s[i] * ffn(u[t:t + 1], *routed[i])[0] for i in best)
    return out


h, g = deepseekmoe(u, shared, routed, centroids, n_active)
# Sums of a dozen O(1) terms in another order: a few ulps, so 1e-12 is ample.
check_close("DeepSeekMoE layer = token loop (scipy softmax, sorted top-k)", h,
            loop_reference(u, shared, routed, centroids, n_active), rtol=1e-12, atol=1e-14)
check_true("every token uses exactly mK - K_s = 3 routed experts",
           bool(np.all((g > 0).sum(axis=1) == n_active)))
gate_sum = g.sum(axis=1)
check_true("gates are the unrenormalized softmax: each token's gates sum to less than 1",
           bool(np.all((gate_sum > 0) & (gate_sum < 1))), f"{gate_sum.min():.3f} .. {gate_sum.max():.3f}")
check_close("each token's gates = the top 3 of its softmax over the 12 routed experts",
            np.sort(g, axis=1)[:, -3:], np.sort(sp_softmax(u @ centroids.T, axis=1), axis=1)[:, -3:],
            rtol=1e-13)
# Centroids scaled 400 times: affinities span thousands, and the softmax must stay finite.
check_close("centroids x 400 (logits in the thousands): still the loop", deepseekmoe(u, shared, routed,
            400 * centroids, n_active)[0], loop_reference(u, shared, routed, 400 * centroids, n_active),
            rtol=1e-10, atol=1e-12)

# Shared experts bypass the router: with every routed expert zeroed, the layer is u + sum of shared FFNs;
# with every shared expert zeroed, the routed part alone.
zero = (np.zeros((hidden, d)), np.zeros((d, hidden)))
h_shared, _ = deepseekmoe(u, shared, [zero] * n_routed, centroids, n_active)
check_close("routed experts zeroed: u + FFN_1(u) + FFN_2(u)", h_shared,
            u + ffn(u, *shared[0]) + ffn(u, *shared[1]), rtol=1e-13, atol=1e-15)
h_routed, _ = deepseekmoe(u, [zero] * n_shared, routed, centroids, n_active)
check_close("shared experts zeroed: only the routed sum remains", h - h_routed,
            ffn(u, *shared[0]) + ffn(u, *shared[1]), rtol=1e-12, atol=1e-14)

# Fine-grained segmentation: an FFN with hidden width N_h is exactly the sum of m FFNs each holding N_h / m
# of its hidden units, so splitting every expert into m and activating m times as many keeps parameters
# and compute; only the router gains choices.
m = 4
big_w1, big_w2 = rng.normal(size=(16, d)), rng.normal(size=(d, 16))
segments = [(big_w1[j::m], big_w2[:, j::m]) for j in range(m)]
check_close("one FFN of width 16 = sum of its 4 segments of width 4", ffn(u, big_w1, big_w2),
            sum(ffn(u, *s) for s in segments), rtol=1e-12, atol=1e-14)
# The same through the layer: four segments as shared experts reproduce the whole FFN.
h_seg, _ = deepseekmoe(u, segments, [zero] * n_routed, centroids, n_active)
check_close("the 4 segments as shared experts = u + the whole FFN", h_seg, u + ffn(u, big_w1, big_w2),
            rtol=1e-12, atol=1e-14)

# Routing flexibility, the paper's example (Sec. 3.1): 16 experts, top-2, gives 120 combinations; split
# each in 4 (64 experts, top-8) and there are 4,426,165,368.
check_true("16 experts, top 2: 120 combinations", routing_combinations(16, 2) == 120)
check_true("64 experts, top 8: 4,426,165,368 combinations", routing_combinations(64, 8) == 4_426_165_368)
check_true("brute force: 12 routed experts, top 3 -> every 3-subset counted once",
           routing_combinations(12, 3) == sum(1 for _ in itertools.combinations(range(12), 3)))
# DeepSeekMoE 16B: 2 shared + 64 routed experts (mN = 66), 8 active in all (mK = 8): top-6 of 64.
check_true("DeepSeekMoE 16B: top-(mK - K_s) = top-6 of mN - K_s = 64 routed",
           routing_combinations(66 - 2, 8 - 2)
           == math.factorial(64) // (math.factorial(6) * math.factorial(58)))

# The page's calculator is checked against routing_combinations on this grid (cardcalc; the build runs
# the card's JavaScript, with its floating-point comb, on the same rows): the paper's 16 experts top-2
# cut in 1, 4 and 8, with and without a shared expert, up to 64 x 8 = 512 routed experts.
import cardcalc  # noqa: E402

cardcalc.table(lambda N, K, m, K_s: {"routed": m * N - K_s, "chosen": m * K - K_s,
                                     "combos": routing_combinations(m * N - K_s, m * K - K_s)},
               cardcalc.grid(N=(8, 16, 64), K=(1, 2, 8), m=(1, 4, 8), K_s=(0, 1)))

fig, ax = figure("Routing choices as experts are split more finely", "segments per expert m",
                 "combinations (log)")
ms = np.arange(1, 9)
ax.semilogy(ms, [routing_combinations(16 * k, 2 * k) for k in ms], "o-", label="16m experts, top-2m")
ax.semilogy(ms, [routing_combinations(16 * k - 1, 2 * k - 1) for k in ms], "s--",
            label="one of them shared: top-(2m − 1) of 16m − 1")
ax.legend(fontsize=8)
