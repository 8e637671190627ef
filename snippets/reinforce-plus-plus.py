"""REINFORCE++: the KL-penalized token rewards and their returns-to-go against a loop, the summed per-token
penalty as an unbiased estimate of the sequence KL (exact enumeration), and the global batch normalization
against scipy's z-score over the batch's tokens."""

import numpy as np
import response_group_fixture as rg
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import zscore


# --- formula ---
def token_rewards(reward, old_logp, ref_logp, mask, beta):
    """r_t = 1[t is the last token] r(x, y) - beta KL(t), KL(t) = log pi_old(o_t) - log pi_SFT(o_t)."""
    r = -beta * (old_logp - ref_logp) * mask
    last = np.sum(mask, axis=1).astype(int) - 1
    r[np.arange(len(reward)), last] += reward
    return r


def advantages(reward, old_logp, ref_logp, mask, beta):
    """A_t = r(x, y) - beta sum_{i >= t} KL(i): the undiscounted return from token t on."""
    r = token_rewards(reward, old_logp, ref_logp, mask, beta)
    return np.flip(np.cumsum(np.flip(r, axis=1), axis=1), axis=1) * mask


def global_normalize(adv, mask):
    """(A - mean) / std over every token of the whole batch (not per prompt); padding stays 0."""
    values = adv[mask > 0]
    return (adv - values.mean()) / values.std() * mask
# --- end formula ---


rng = np.random.default_rng(0)
old = rg.random_policy(rng)
ref = old + 0.5 * rng.normal(size=old.shape)     # the SFT reference the policy has drifted from
B = 12                                           # one response for each of B prompts
batch = rg.sample_group(rng, old, B)
old_logp, mask = rg.token_logprobs(old, batch)
ref_logp, _ = rg.token_logprobs(ref, batch)
reward = rng.normal(size=B)
beta = 0.05

# 1. Advantages by an explicit double loop over each response's tokens: reward minus beta times the
#    log-ratios from t to the end.
loop = np.zeros_like(mask)
for i, o in enumerate(batch):
    for t in range(len(o)):
        loop[i, t] = reward[i] - beta * sum(old_logp[i, k] - ref_logp[i, k] for k in range(t, len(o)))
check_close("A_t = r - beta sum_{i>=t} KL(i), against a loop (padding 0)",
            advantages(reward, old_logp, ref_logp, mask, beta), loop, rtol=1e-12, atol=1e-14)
check_close("the token rewards of a response sum to r - beta log(pi_old(o) / pi_SFT(o)), "
            "probabilities as products",
            token_rewards(reward, old_logp, ref_logp, mask, beta).sum(axis=1),
            [reward[i] - beta * np.log(rg.response_prob(old, o) / rg.response_prob(ref, o))
             for i, o in enumerate(batch)],
            rtol=1e-12)
check_true("the batch has responses of several lengths", len(set(mask.sum(axis=1))) > 1)

# 2. The summed per-token penalty is an unbiased estimate of the sequence-level KL: over every response,
#    sum_o pi_old(o) sum_t KL(t) = KL(pi_old || pi_SFT) over whole responses (each probability a product).
every = rg.all_responses()
lo, m = rg.token_logprobs(old, every)
lr, _ = rg.token_logprobs(ref, every)
p_old = np.array([rg.response_prob(old, o) for o in every])
p_ref = np.array([rg.response_prob(ref, o) for o in every])
penalty = -advantages(np.zeros(len(every)), lo, lr, m, 1.0)[:, 0]   # sum_t KL(t) for each response
check_close("E_old[sum_t KL(t)] = KL(pi_old || pi_SFT) over the 364 responses", p_old @ penalty,
            np.sum(p_old * np.log(p_old / p_ref)), rtol=1e-12)

# 3. Global normalization: over all the batch's tokens, mean 0 and (population) std 1, as scipy's z-score
#    of the flattened token values; one constant shift and scale for every prompt.
adv = advantages(reward, old_logp, ref_logp, mask, beta)
normed = global_normalize(adv, mask)
check_close("normalized tokens = scipy.stats.zscore of the batch's token advantages", normed[mask > 0],
            zscore(adv[mask > 0]), rtol=1e-12, atol=1e-14)
check_true("padding stays 0", bool(np.all(normed[mask == 0] == 0)))
check_close("by hand: token advantages (1, 2, 3) -> (-sqrt(3/2), 0, sqrt(3/2))",
            global_normalize(np.array([[1.0, 2.0, 3.0]]), np.ones((1, 3))),
            [[-np.sqrt(1.5), 0.0, np.sqrt(1.5)]], rtol=1e-12, atol=1e-15)

fig, ax = figure("REINFORCE++ advantages along one response", "token position t", "A_t before normalization")
for i in range(4):
    n = int(mask[i].sum())
    ax.plot(np.arange(1, n + 1), adv[i, :n], marker="o", label=f"response {i + 1}, r = {reward[i]:.2f}")
ax.legend(fontsize=8)
