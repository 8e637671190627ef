"""Toolformer's API-call sampling and filtering criterion, checked against the paper's published
weights as exact fractions, a hand example, scipy log-softmax scores and brute-force position selection."""

from fractions import Fraction
from itertools import combinations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax


# --- formula ---
def position_weights(n):
    """w_t = w~_t / sum_s w~_s with w~_t = max(0, 1 - 0.2 t), for offsets t = 0 .. n-1."""
    nonzero = 5  # equivalent: offsets from 5 on weigh exactly 0, so a longer support only adds zeros
    size = max(n, nonzero)
    offsets = np.arange(size)  # equivalent: a longer support only adds offsets of weight exactly 0
    support = np.maximum(0.0, 1.0 - 0.2 * offsets)
    return support[:n] / np.sum(support)


def weighted_loss(token_logprobs):
    """L_i(z) = -sum_{j=i}^{n} w_{j-i} log p_M(x_j | z, x_{1:j-1}), given those log-probabilities."""
    lp = np.asarray(token_logprobs, dtype=float)
    return -np.sum(position_weights(len(lp)) * lp)


def keep_call(lp_with_result, lp_no_call, lp_call_without_result, tau_f):
    """Keep the call if L_i^- - L_i^+ >= tau_f, with L_i^- the better of the two baselines."""
    loss_plus = weighted_loss(lp_with_result)
    loss_minus = min(weighted_loss(lp_no_call), weighted_loss(lp_call_without_result))
    return loss_minus - loss_plus >= tau_f


def candidate_positions(p_api, tau_s, k):
    """Positions i where p_M(<API> | P(x), x_{1:i-1}) > tau_s, the k most probable of them."""
    p_api = np.asarray(p_api, dtype=float)
    above = np.flatnonzero(p_api > tau_s)
    return above[np.argsort(-p_api[above], kind="stable")][:k]
# --- end formula ---


rng = np.random.default_rng(0)

# The published weighting: w~ = 1, 0.8, 0.6, 0.4, 0.2, then 0; their sum is 3.
published = [Fraction(1, 3), Fraction(4, 15), Fraction(1, 5), Fraction(2, 15), Fraction(1, 15)]
check_close("weights for offsets 0..7 equal 1/3, 4/15, 1/5, 2/15, 1/15, 0, 0, 0",
            position_weights(8), [float(f) for f in published] + [0.0] * 3, rtol=1e-12, atol=1e-15)
check_close("a 3-token continuation keeps the global normalizer (weights 1/3, 4/15, 1/5)",
            position_weights(3), [float(f) for f in published[:3]], rtol=1e-12)

# A toy scorer: 8 continuation tokens scored under three prefixes z (scipy log-softmax of logits).
V, n = 50, 8
target = rng.integers(0, V, size=n)
base_logits = rng.normal(size=(n, V))
helped = base_logits.copy()
helped[np.arange(n), target] += np.array([3.0, 2.0, 1.0, 0.5, 0.2, 4.0, 4.0, 4.0])
lp_none = log_softmax(base_logits, axis=1)[np.arange(n), target]
lp_result = log_softmax(helped, axis=1)[np.arange(n), target]
ref = -sum(float(w) * lp for w, lp in zip(published, lp_none[:5], strict=True))
check_close("weighted loss of the no-call prefix vs the published weights applied by hand",
            weighted_loss(lp_none), ref, rtol=1e-12)
check_true("tokens 6 to 8 carry no weight: boosting only them leaves the loss unchanged",
           np.isclose(weighted_loss(lp_result[:5]), weighted_loss(lp_result)))

# Hand example (nats): the result makes the next tokens far more likely.
lp_plus = [-0.2, -0.5, -1.0, -1.0, -2.0]
lp_eps = [-3.2, -2.0, -1.0, -1.5, -2.0]   # no call:      L = (3.2 + 1.6 + 0.6 + 0.6 + 0.4) / 3
lp_call = [-2.9, -2.0, -1.0, -1.5, -2.0]  # call, no result: 0.1 nats better than no call
l_plus = (0.2 + 0.8 * 0.5 + 0.6 * 1.0 + 0.4 * 1.0 + 0.2 * 2.0) / 3.0
l_eps = (3.2 + 0.8 * 2.0 + 0.6 * 1.0 + 0.4 * 1.5 + 0.2 * 2.0) / 3.0
check_close("hand value L_i^+ = (0.2 + 0.4 + 0.6 + 0.4 + 0.4) / 3", weighted_loss(lp_plus), l_plus,
            rtol=1e-12)
gap = l_eps - 0.3 / 3.0 - l_plus   # L^- is the call-without-result baseline, 0.3/3 below L(eps)
check_true("kept with tau_f = 1.0 (gap 1.4): the result lowers the loss by more than tau_f",
           keep_call(lp_plus, lp_eps, lp_call, 1.0) and gap > 1.0, f"gap {gap:.4f}")
check_true("the better baseline counts: tau_f between the two gaps rejects the call",
           not keep_call(lp_plus, lp_eps, lp_call, gap + 0.01)
           and not keep_call(lp_plus, lp_call, lp_eps, gap + 0.01)
           and keep_call(lp_plus, lp_eps, lp_call, gap - 0.01))
check_true("criterion is >=: a result that changes nothing passes tau_f = 0, fails tau_f = 1e-12",
           keep_call(lp_eps, lp_eps, lp_eps, 0.0) and not keep_call(lp_eps, lp_eps, lp_eps, 1e-12))
check_true("a result that makes the continuation less likely is rejected at tau_f = 0",
           not keep_call(lp_eps, lp_plus, lp_plus, 0.0))

# Position sampling: brute force over all subsets of size <= k of the positions above tau_s.
ok = True
for _ in range(100):
    p_api = rng.uniform(0.0, 0.2, size=9)
    tau_s, k = 0.05, int(rng.integers(1, 6))
    eligible = [i for i in range(9) if p_api[i] > tau_s]
    size = min(k, len(eligible))
    best = max(combinations(eligible, size), key=lambda s: sum(p_api[list(s)]))
    got = candidate_positions(p_api, tau_s, k)
    ok &= sorted(best) == sorted(got.tolist()) and list(got) == sorted(got, key=lambda i: -p_api[i])
check_true("positions = highest-mass subset of size min(k, #above tau_s), most probable first", ok)
check_true("tau_s is strict and k caps the count",
           candidate_positions([0.05, 0.3, 0.06, 0.2], 0.05, 5).tolist() == [1, 3, 2]
           and candidate_positions([0.05, 0.3, 0.06, 0.2], 0.05, 1).tolist() == [1])

# The page's calculator is checked against position_weights on these offsets (cardcalc; the build runs
# the card's JavaScript on the same rows): the five weighted tokens and offsets past them, weight 0.
import cardcalc  # noqa: E402

cardcalc.table(lambda t: {"w": float(position_weights(int(t) + 1)[-1])},
               cardcalc.grid(t=(0, 1, 2, 3, 4, 5, 6, 50)))

fig, ax = figure("Toolformer's loss weights over the tokens after the call",
                 "offset j - i of the scored token", "weight w at that offset")
ax.bar(np.arange(8), position_weights(8))
