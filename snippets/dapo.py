"""DAPO: the token-level average over a group (per-token gradient by finite differences), the decoupled
clip range with the paper's 0.2 and 0.28, dynamic sampling against the exact chance that a group is kept,
and the overlong length penalty on both branches and at its boundaries against linear interpolation."""

import numpy as np
import response_group_fixture as rg
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def dapo_objective(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.28):
    """(1 / sum_i |o_i|) sum_i sum_t min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A) over a group."""
    rho = np.exp(logp - old_logp)
    a = adv[:, None]
    surrogate = np.minimum(rho * a, np.clip(rho, 1 - eps_low, 1 + eps_high) * a)
    return np.sum(surrogate * mask) / np.sum(mask)


def keep_group(is_correct):
    """Dynamic sampling: keep a group only if 0 < #{correct outputs} < G."""
    n_correct = np.sum(is_correct)
    return bool(0 < n_correct < len(is_correct))


def overlong_penalty(length, l_max=20480, l_cache=4096):
    """R_length: 0 up to L_max - L_cache, then linear down to -1 at L_max, and -1 beyond."""
    if length <= l_max - l_cache:
        return 0.0
    if length <= l_max:
        return ((l_max - l_cache) - length) / l_cache
    return -1.0
# --- end formula ---


rng = np.random.default_rng(0)
old = rg.random_policy(rng)
G = 8
group = rg.sample_group(rng, old, G)
old_logp, mask = rg.token_logprobs(old, group)
lengths = mask.sum(axis=1)
r = np.array([rg.correct(o) for o in group]) * 2 - 1          # the paper's rule reward: +1 right, -1 wrong
adv = (r - r.mean()) / r.std()

# 1. Token-level averaging: at pi_theta = pi_old every token of the group gets the same weight
#    A_i / sum_j |o_j| (central differences in each token's log-probability), so a response's total
#    weight grows with its length; GRPO's per-response average would give each token A_i / (G |o_i|).
h = 1e-6
fd = rg.token_gradient(lambda logp: dapo_objective(logp, old_logp, adv, mask), old_logp, h)
# |J| <= max|A| ~ 2: rounding 64 eps * 2 / h ~ 3e-8 bounds the error; the weights are ~0.05.
atol = 64 * np.finfo(float).eps * 2 / h
check_close("dJ/dlog pi(o_it) = A_i / sum_j |o_j| for every token, padding 0", fd,
            adv[:, None] / lengths.sum() * mask, rtol=0, atol=atol)
check_true("the group mixes lengths and outcomes", len(set(lengths)) > 1 and 0 < (r > 0).sum() < G,
           f"lengths {lengths.astype(int)}, rewards {r}")
check_close("a response's total weight is proportional to its length: sum_t dJ/dlog pi = A_i |o_i| / sum |o|",
            fd.sum(axis=1), adv * lengths / lengths.sum(), rtol=0, atol=rg.MAX_LEN * atol)

# 2. Clip-higher by hand, one-token responses: eps_low = 0.2, eps_high = 0.28 (the paper's values).
one, zero = np.ones((1, 1)), np.zeros((1, 1))


def single(ratio, a):
    return dapo_objective(np.log(ratio) * one, zero, np.array([a]), one)


check_close("ratio 1.25, A = 1: inside the raised ceiling, counts in full",
            single(1.25, 1.0), 1.25, rtol=1e-14)
check_close("ratio 1.5, A = 1: clipped at 1 + 0.28", single(1.5, 1.0), 1.28, rtol=1e-14)
check_close("ratio 0.5, A = -1: clipped at 1 - 0.2", single(0.5, -1.0), -0.8, rtol=1e-14)
check_close("ratio 1.5, A = -1: not clipped (pessimistic min)", single(1.5, -1.0), -1.5, rtol=1e-14)
# Two outputs in one group, of 1 and 3 tokens: (1.5 clipped to 1.28, A = 1) and three tokens of ratio 1.1
# with A = -1. The token average is (1.28 - 3 * 1.1) / 4; a per-output average would give (1.28 - 1.1) / 2.
lp = np.log(np.array([[1.5, 1.0, 1.0], [1.1, 1.1, 1.1]]))
check_close("token average over the group: (1.28 - 3 * 1.1) / 4",
            dapo_objective(lp, np.zeros((2, 3)), np.array([1.0, -1.0]), np.array([[1.0, 0, 0], [1, 1, 1]])),
            (1.28 - 3 * 1.1) / 4, rtol=1e-14)

# 3. Dynamic sampling: a group is kept exactly when its rewards are not all equal (numpy's peak-to-peak),
#    and the kept fraction matches 1 - p^G - (1 - p)^G with p the exact success rate of the policy.
every = rg.all_responses()
p = sum(rg.response_prob(old, o) * rg.correct(o) for o in every)
n_groups = 500
kept, agree = 0, True
for _ in range(n_groups):
    c = np.array([rg.correct(o) for o in rg.sample_group(rng, old, G)])
    k = keep_group(c)
    kept += k
    agree &= k == (np.ptp(c) > 0)
check_true("keep_group == rewards not all equal, on 500 sampled groups", agree)
expected = 1 - p**G - (1 - p) ** G
se = np.sqrt(expected * (1 - expected) / n_groups)
check_close(f"kept fraction = 1 - p^G - (1 - p)^G with p = {p:.3f} (within 5 SE)", kept / n_groups, expected,
            rtol=0, atol=5 * se)
check_true("G = 1: a lone output is never kept; G = 2 with (1, 0) is",
           not keep_group(np.array([1.0])) and not keep_group(np.array([0.0]))
           and keep_group(np.array([1.0, 0.0])))

# 4. Overlong penalty against linear interpolation between (L_max - L_cache, 0) and (L_max, -1), flat
#    outside (np.interp holds the end values), on every length 0..25000 with the paper's 16384 + 4096.
lengths_grid = np.arange(0, 25001)
ours = np.array([overlong_penalty(int(n)) for n in lengths_grid])
# Both routes divide an integer offset by 4096 (exact in binary) or interpolate it: 1e-12 is ample.
check_close("R_length = interp(|y|; [16384, 20480] -> [0, -1]) for |y| = 0..25000", ours,
            np.interp(lengths_grid, [16384, 20480], [0.0, -1.0]), rtol=1e-12, atol=1e-15)
check_close("boundaries: 16384 -> 0, 16385 -> -1/4096, 18432 -> -1/2, 20480 -> -1, 20481 -> -1",
            [overlong_penalty(n) for n in (16384, 16385, 18432, 20480, 20481)],
            [0.0, -1 / 4096, -0.5, -1.0, -1.0], rtol=1e-15)
check_close("other settings: L_max = 100, L_cache = 20: 80 -> 0, 90 -> -1/2, 101 -> -1",
            [overlong_penalty(n, 100, 20) for n in (80, 90, 101)], [0.0, -0.5, -1.0], rtol=1e-15)

fig, ax = figure("DAPO's overlong penalty (L_max = 20480, L_cache = 4096)", "response length |y| (tokens)",
                 "R_length(y)")
ax.plot(lengths_grid, ours)
ax.axvline(16384, ls=":", c="gray")
ax.axvline(20480, ls=":", c="gray")
