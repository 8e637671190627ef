"""Retrieval-augmented policy: top-k marginal vs enumeration, retrieve-then-act sampling and limits."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def retrieval_weights(scores: np.ndarray, k: int):
    """p_eta(m | s) over the k best-scoring memories: a softmax of their scores, renormalised on the top k."""
    top = np.argsort(-scores, kind="stable")[:k]
    z = scores[top] - np.max(scores[top])
    w = np.exp(z) / np.sum(np.exp(z))
    return top, w


def rag_policy(scores: np.ndarray, action_probs: np.ndarray, k: int) -> np.ndarray:
    """pi(a | s, M) = sum over top-k m of p_eta(m | s) pi_theta(a | s, m).

    action_probs[m] holds pi_theta(. | s, m) for memory m."""
    top, w = retrieval_weights(scores, k)
    return w @ action_probs[top]
# --- end formula ---


rng = np.random.default_rng(0)
n_mem, n_act = 30, 5
scores = rng.normal(0, 2, n_mem)  # retriever scores f(s, m), e.g. query-key dot products
action_probs = softmax(rng.normal(0, 1.5, (n_mem, n_act)), axis=1)  # pi_theta(a | s, m) for each memory

# 1. Enumeration over the whole memory (k = |M|) with scipy's softmax.
full = rag_policy(scores, action_probs, n_mem)
check_close("k = |M|: marginal vs enumeration with scipy softmax weights", full,
            sum(softmax(scores)[m] * action_probs[m] for m in range(n_mem)), rtol=1e-12)
check_close("the marginal is a distribution over actions", full.sum(), 1.0, rtol=1e-12)

# 2. Top-k: enumerate the k best memories by a Python sort, softmax only over them.
for k in (1, 3, 8):
    best = sorted(range(n_mem), key=lambda m: -scores[m])[:k]
    ref = sum(softmax(scores[best])[i] * action_probs[m] for i, m in enumerate(best))
    check_close(f"top-{k} marginal vs enumeration of the {k} best memories",
                rag_policy(scores, action_probs, k), ref,
                rtol=1e-12)
check_close("k = 1 is the plug-in policy pi(a | s, argmax memory) of the seed",
            rag_policy(scores, action_probs, 1), action_probs[np.argmax(scores)], rtol=1e-12)

# 3. Exact case: scores [0, log 3] -> weights [1/4, 3/4]; pi(.|m1) = [1, 0], pi(.|m2) = [1/2, 1/2].
check_close("hand value [5/8, 3/8]",
            rag_policy(np.array([0.0, np.log(3.0)]), np.array([[1.0, 0.0], [0.5, 0.5]]), 2),
            [0.625, 0.375], rtol=1e-12)

# 4. Retrieve-then-act sampling: draw a memory from p_eta over the top 8, then an action from its policy.
top, w = retrieval_weights(scores, 8)
n = 200_000
mem = top[rng.choice(8, n, p=softmax(scores[top]))]
u = rng.random(n)[:, None]
act = np.minimum((u > np.cumsum(action_probs[mem], axis=1)).sum(axis=1), n_act - 1)
freq = np.bincount(act, minlength=n_act) / n
pk = rag_policy(scores, action_probs, 8)
check_true("sampled action frequencies within 4.5 standard errors of the top-8 marginal",
           bool(np.all(np.abs(freq - pk) < 4.5 * np.sqrt(pk * (1 - pk) / n))))

# 5. Scores spanning > 700 stay finite; the marginal collapses onto the best memory's policy.
wide = scores * 400
check_true("scores span > 700", bool(np.ptp(wide) > 700))
check_close("very sharp retriever: marginal = policy of the top memory", rag_policy(wide, action_probs, 8),
            action_probs[np.argmax(scores)], rtol=1e-9, atol=1e-12)

ks = np.arange(1, n_mem + 1)
fig, ax = figure("Retrieval-augmented policy vs number of retrieved memories", "k (memories retrieved)",
                 "probability of each action")
ax.plot(ks, [rag_policy(scores, action_probs, k) for k in ks])
