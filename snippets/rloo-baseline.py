"""RLOO: leave-one-out advantages vs brute force, unbiased policy gradient by exact enumeration over all
k-sample draws from a small softmax policy (a self-inclusive mean is biased), variance vs REINFORCE."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def rloo_advantages(rewards):
    """A_i = r_i - (1/(k-1)) sum_{j != i} r_j over the last axis (k samples for one prompt)."""
    k = rewards.shape[-1]
    others = rewards.sum(axis=-1, keepdims=True) - rewards
    return rewards - others / (k - 1)


def rloo_gradient(rewards, scores):
    """(1/k) sum_i A_i grad log pi(y_i | x); scores[i] = grad log pi(y_i | x)."""
    return np.mean(rloo_advantages(rewards)[:, None] * scores, axis=0)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Against a brute-force leave-one-out mean, for several group sizes, and the scaled-mean identity.
for k in (2, 3, 8):
    r = rng.normal(size=k)
    brute = np.array([r[i] - np.delete(r, i).mean() for i in range(k)])
    check_close(f"k = {k}: vs brute-force leave-one-out mean", rloo_advantages(r), brute, rtol=1e-12)
r8 = rng.normal(size=(5, 8))
check_close("A_i = k/(k-1) (r_i - mean r), batched over prompts", rloo_advantages(r8),
            8 / 7 * (r8 - r8.mean(axis=1, keepdims=True)), rtol=1e-12, atol=1e-15)

# 2. Unbiasedness, exactly. A softmax policy over 4 responses with logits theta and rewards R; draw
#    k = 3 responses i.i.d.; enumerate all 4^3 draws with their probabilities. The expected RLOO
#    gradient equals the true gradient of E[R], here by central finite differences of pi(theta) . R.
theta = rng.normal(size=4)
R = np.array([1.0, 3.0, -2.0, 0.5]) + 5.0  # an offset, so that a missing baseline shows
pi = softmax(theta)
k = 3


def expected(estimator):
    total = np.zeros(4)
    for draw in itertools.product(range(4), repeat=k):
        prob = np.prod(pi[list(draw)])
        scores = np.eye(4)[list(draw)] - pi  # grad of log softmax at the drawn response
        total += prob * estimator(R[list(draw)], scores)
    return total


h = 1e-6
true_grad = np.array([(softmax(theta + h * e) @ R - softmax(theta - h * e) @ R) / (2 * h) for e in np.eye(4)])
check_close("E[RLOO gradient] = grad E[R] (exact enumeration, k = 3)", expected(rloo_gradient), true_grad,
            rtol=1e-8)


def mean_baseline(rew, scores):
    return np.mean((rew - rew.mean())[:, None] * scores, axis=0)


check_close("a baseline that includes the sample itself is biased by (k-1)/k",
            expected(mean_baseline), (k - 1) / k * true_grad, rtol=1e-8)


# 3. Variance: the total variance (trace of the covariance) of the RLOO estimator is below plain
#    REINFORCE's (no baseline) for these offset rewards; both computed exactly by enumeration.
def total_variance(estimator, rew_vec):
    m1, m2 = np.zeros(4), 0.0
    for draw in itertools.product(range(4), repeat=k):
        prob = np.prod(pi[list(draw)])
        g = estimator(rew_vec[list(draw)], np.eye(4)[list(draw)] - pi)
        m1 += prob * g
        m2 += prob * g @ g
    return m2 - m1 @ m1


def reinforce(rew, scores):
    return np.mean(rew[:, None] * scores, axis=0)


v_rloo, v_plain = total_variance(rloo_gradient, R), total_variance(reinforce, R)
check_true("RLOO variance below plain REINFORCE (rewards offset by +5)", v_rloo < 0.2 * v_plain,
           f"{v_rloo:.3f} vs {v_plain:.3f}")
check_true("RLOO variance does not depend on a constant reward offset",
           abs(total_variance(rloo_gradient, R + 100.0) - v_rloo) < 1e-9)

offsets = np.linspace(-6, 6, 25)
fig, ax = figure("Variance of the policy-gradient estimate (k = 3, exact)", "constant added to every reward",
                 "total variance")
ax.plot(offsets, [total_variance(reinforce, R - 5.0 + c) for c in offsets], label="REINFORCE, no baseline")
ax.plot(offsets, [total_variance(rloo_gradient, R - 5.0 + c) for c in offsets], label="RLOO")
ax.legend()
