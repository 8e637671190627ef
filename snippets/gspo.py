"""GSPO: the length-normalized sequence ratio against response probabilities computed as products and
against the geometric mean of token ratios, its relation to the exact importance weight, the per-token
gradient by finite differences (one weight per response, zero once clipped) and the asymmetric clip."""

import numpy as np
import response_group_fixture as rg
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import gmean


# --- formula ---
def sequence_ratio(logp, old_logp, mask):
    """s_i = exp((1/|o_i|) sum_t log(pi_theta / pi_old)) over the tokens of each response (rows)."""
    return np.exp(np.sum((logp - old_logp) * mask, axis=1) / np.sum(mask, axis=1))


def gspo_objective(logp, old_logp, adv, mask, eps_low=3e-4, eps_high=4e-4):
    """(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i); defaults from the paper's runs."""
    s = sequence_ratio(logp, old_logp, mask)
    return np.mean(np.minimum(s * adv, np.clip(s, 1 - eps_low, 1 + eps_high) * adv))
# --- end formula ---


rng = np.random.default_rng(0)
old = rg.random_policy(rng)
new = old + 0.3 * rng.normal(size=old.shape)
G = 8
group = rg.sample_group(rng, old, G)
old_logp, mask = rg.token_logprobs(old, group)
logp, _ = rg.token_logprobs(new, group)
lengths = mask.sum(axis=1)

# 1. s_i from the responses' probabilities, each a product of token probabilities (no logs): the ratio
#    of the two, to the power 1/|o_i|. A product of <= 5 factors and one power: ~1e-15 relative error.
by_product = np.array([(rg.response_prob(new, o) / rg.response_prob(old, o)) ** (1 / len(o)) for o in group])
check_close("s_i = (pi_theta(o_i) / pi_old(o_i))^(1/|o_i|), probabilities as products",
            sequence_ratio(logp, old_logp, mask), by_product, rtol=1e-12)
ratios = np.exp(logp - old_logp)
check_close("s_i = geometric mean of the token ratios (scipy.stats.gmean)",
            sequence_ratio(logp, old_logp, mask), [gmean(ratios[i, : int(lengths[i])]) for i in range(G)],
            rtol=1e-12)
check_true("the group has responses of several lengths", len(set(lengths)) > 1,
           f"lengths {lengths.astype(int)}")

# 2. Length: a response whose every token has log-ratio d has s = e^d whatever its length, while its
#    sequence ratio is e^(L d).
d = 0.01
L_mask = (np.arange(rg.MAX_LEN) < np.arange(1, rg.MAX_LEN + 1)[:, None]).astype(float)
check_close("same per-token log-ratio 0.01 at lengths 1..5: s = e^0.01 for all",
            sequence_ratio(np.full(L_mask.shape, d), np.zeros(L_mask.shape), L_mask),
            np.full(rg.MAX_LEN, np.exp(d)), rtol=1e-14)

# 3. Over every response (exact enumeration), s^|o| is the exact importance weight: its pi_old-average is 1
#    and it turns pi_old-averages into pi_theta-averages (of the 0/1 reward here). The length-normalized s
#    is a geometric mean of token ratios, which Jensen puts below the arithmetic mean: its pi_old-average
#    is not 1.
every = rg.all_responses()
p_old = np.array([rg.response_prob(old, o) for o in every])
p_new = np.array([rg.response_prob(new, o) for o in every])
reward = np.array([rg.correct(o) for o in every])
lo, m = rg.token_logprobs(old, every)
ln, _ = rg.token_logprobs(new, every)
s_all = sequence_ratio(ln, lo, m)
weight = s_all ** m.sum(axis=1)
check_close("sum_o pi_old(o) s(o)^|o| = 1 over all 364 responses", p_old @ weight, 1.0, rtol=1e-12)
check_close("sum_o pi_old(o) s(o)^|o| r(o) = E_theta[r]", p_old @ (weight * reward), p_new @ reward,
            rtol=1e-12)
check_true("but E_old[s] != 1: s is a length-normalized ratio, not an importance weight",
           abs(p_old @ s_all - 1) > 1e-3, f"E_old[s] = {p_old @ s_all:.4f}")

# 4. Gradient in each token's log-probability (central differences): inside the clip range every token of
#    response i gets the same weight s_i A_i / (G |o_i|); once clipped (A > 0 and s > 1 + eps_high, or
#    A < 0 and s < 1 - eps_low), the whole response gets 0. Mean log-ratios set so that the group has both.
base = old_logp + 0.0
shift = np.array([1e-4, 1e-3, -1e-4, -1e-3, 2e-4, -2e-4, 5e-4, -5e-4])   # mean log-ratio of each response
adv = np.array([1.0, 1.0, -1.0, -1.0, -0.5, 0.5, -2.0, 2.0])
cur = base + shift[:, None] * mask
s = sequence_ratio(cur, base, mask)
h = 1e-7
fd = rg.token_gradient(lambda logp: gspo_objective(logp, base, adv, mask), cur, h)
clipped = ((adv > 0) & (s > 1 + 4e-4)) | ((adv < 0) & (s < 1 - 3e-4))
expected = np.where(clipped, 0.0, s * adv / (G * lengths))[:, None] * mask
# |J| ~ 1, h = 1e-7: rounding 64 eps / h ~ 1.4e-7 bounds the error; the weights are ~0.03 to 0.5.
check_close("dJ/dlog pi(o_it) = s_i A_i / (G |o_i|) inside the clip range, 0 when clipped, padding 0", fd,
            expected, rtol=0, atol=64 * np.finfo(float).eps / h)
check_true("the test group has clipped and unclipped responses", 0 < clipped.sum() < G,
           f"{clipped.sum()} of {G} clipped")

# 5. The clip by hand, with the paper's ranges (3e-4 below, 4e-4 above): s = e^0.001 with A = 1 counts
#    as 1.0004; s = e^-0.001 with A = -1 as -(1 - 0.0003); inside the range s counts in full.
one = np.ones((1, 1))
zero = np.zeros((1, 1))
check_close("s above 1 + eps_high, A > 0: clipped to 1.0004",
            gspo_objective(1e-3 * one, zero, np.ones(1), one), 1.0004, rtol=1e-14)
check_close("s below 1 - eps_low, A < 0: clipped to -0.9997",
            gspo_objective(-1e-3 * one, zero, -np.ones(1), one), -0.9997, rtol=1e-14)
check_close("s above the range, A < 0: not clipped (pessimistic min), -e^0.001",
            gspo_objective(1e-3 * one, zero, -np.ones(1), one), -np.exp(1e-3), rtol=1e-14)
check_close("mean over the group: responses (s = e^0.001, A = 1) and (s = e^-0.0001, A = 2)",
            gspo_objective(np.array([[1e-3], [-1e-4]]), np.zeros((2, 1)), np.array([1.0, 2.0]),
                           np.ones((2, 1))),
            (1.0004 + 2 * np.exp(-1e-4)) / 2, rtol=1e-14)

lengths_all = m.sum(axis=1)
fig, ax = figure("Sequence ratio before and after length normalization", "response length |o| (tokens)",
                 "log ratio")
jitter = 0.08 * rng.standard_normal(len(every))
ax.scatter(lengths_all + jitter, np.log(weight), s=6, label="log π_θ(o)/π_old(o)")
ax.scatter(lengths_all + jitter, np.log(s_all), s=6, marker="x", label="log s = its mean per token")
ax.legend()
