"""Dr. GRPO: the per-token gradient weight (finite differences) no longer depends on the response's length,
the advantage equals the leave-one-out baseline up to (G - 1)/G (so the group estimate is unbiased), the
mass of advantage per question for 0/1 rewards, and the clip, by hand."""

import numpy as np
import response_group_fixture as rg
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def dr_grpo_advantage(rewards):
    """A_i = R_i - mean(R) over the group (last axis): no division by the standard deviation."""
    return rewards - rewards.mean(axis=-1, keepdims=True)


def dr_grpo_objective(logp, old_logp, rewards, mask, eps=0.2):
    """(1/G) sum_i sum_t min(rho A_i, clip(rho, 1 - eps, 1 + eps) A_i): no 1/|o_i| per response."""
    rho = np.exp(logp - old_logp)
    a = dr_grpo_advantage(rewards)[:, None]
    surrogate = np.minimum(rho * a, np.clip(rho, 1 - eps, 1 + eps) * a)
    return np.sum(surrogate * mask) / len(rewards)
# --- end formula ---


rng = np.random.default_rng(0)
old = rg.random_policy(rng)
G = 8
group = rg.sample_group(rng, old, G)
old_logp, mask = rg.token_logprobs(old, group)
lengths = mask.sum(axis=1)
rewards = np.array([rg.correct(o) for o in group])

# 1. Per-token weight at pi_theta = pi_old, by central differences in each token's log-probability:
#    (R_i - mean R) / G for every token of response i, whatever its length (GRPO's is A_i / (G |o_i|)).
h = 1e-6
fd = rg.token_gradient(lambda logp: dr_grpo_objective(logp, old_logp, rewards, mask), old_logp, h)
atol = 64 * np.finfo(float).eps * 1 / h   # |J| <= 1: central-difference rounding bound
centered = rewards - np.mean(rewards)
check_close("dJ/dlog pi(o_it) = (R_i - mean R) / G on every token, padding 0",
            fd, centered[:, None] / G * mask, rtol=0, atol=atol)
check_true("the group has wrong answers of different lengths",
           len(set(lengths[rewards == 0])) > 1, f"lengths {lengths.astype(int)}, rewards {rewards}")
wrong = rewards == 0
per_token = fd[wrong].sum(axis=1) / lengths[wrong]
check_close("every wrong answer's tokens get the same push whatever its length", per_token,
            np.full(wrong.sum(), per_token[0]), rtol=1e-6)

# 2. Unbiased: R_i - mean(R) = (G - 1)/G * (R_i - mean of the other G - 1 rewards), a baseline that does
#    not depend on o_i, so E[A_i grad log pi(o_i)] = (G - 1)/G * grad E[R]. Leave-one-out by a loop.
batch = rng.normal(size=(20, 6))
loo = np.array([[row[i] - np.mean(np.delete(row, i)) for i in range(6)] for row in batch])
check_close("A_i = (G - 1)/G * (R_i - leave-one-out mean), 20 groups of 6",
            dr_grpo_advantage(batch), 5 / 6 * loo, rtol=1e-12, atol=1e-14)
# Exactly, over every pair of responses of the toy model (G = 2), along a random direction u in parameter
# space: E[(1/G) sum_i A_i d/du log pi(o_i)] = (G - 1)/G * d/du E[R]. Directional derivatives by central
# differences of the log-probabilities and of E[R] (h = 1e-5: error ~h^2 plus eps / h, ~1e-10).
every = rg.all_responses()
R = np.array([rg.correct(o) for o in every])
u = rng.normal(size=old.shape)
hh = 1e-5
p = np.array([rg.response_prob(old, o) for o in every])
p_up = np.array([rg.response_prob(old + hh * u, o) for o in every])
p_down = np.array([rg.response_prob(old - hh * u, o) for o in every])
score = (np.log(p_up) - np.log(p_down)) / (2 * hh)
dER = (p_up @ R - p_down @ R) / (2 * hh)
pairs = np.stack(np.broadcast_arrays(R[:, None], R[None, :]), axis=-1)      # (a, b) -> rewards (R_a, R_b)
A = dr_grpo_advantage(pairs)
pair_prob = p[:, None] * p[None, :]
expected = np.sum(pair_prob * (A[..., 0] * score[:, None] + A[..., 1] * score[None, :])) / 2
check_close("E over all 364^2 pairs of the Dr. GRPO gradient = (G - 1)/G * grad E[R], along u",
            expected, dER / 2, rtol=1e-6)
n_tok = np.array([len(o) for o in every], dtype=float)
grpo_like = np.sum(pair_prob * (A[..., 0] * score[:, None] / n_tok[:, None]
                                + A[..., 1] * score[None, :] / n_tok[None, :])) / 2
check_true("dividing each response by its length (GRPO's 1/|o_i|) no longer gives (G - 1)/G * grad E[R]",
           abs(grpo_like / (dER / 2) - 1) > 0.05, f"{grpo_like:.4f} vs {dER / 2:.4f}")

# 3. Binary rewards, k of G right: Dr. GRPO's advantages are 1 - k/G and -k/G, so a question's total
#    |advantage| is 2 k (G - k) / G, smallest for nearly-always or nearly-never solved questions; dividing
#    by the std (GRPO) makes it 2 sqrt(k (G - k)), which weighs those questions up relative to the rest.
ks = np.arange(1, G)
mass = np.array([np.abs(dr_grpo_advantage(np.r_[np.ones(k), np.zeros(G - k)])).sum() for k in ks])
check_close("sum_i |A_i| = 2 k (G - k) / G for k = 1..7 of 8 right", mass, 2 * ks * (G - ks) / G, rtol=1e-12)

# 4. The clip (eps = 0.2, PPO's) by hand with one-token responses; the objective sums, not averages, tokens.
one = np.ones((2, 1))
r2 = np.array([1.0, 0.0])          # advantages +1/2 and -1/2
check_close("ratios 1.5 and 0.5 with A = +-1/2: (1.2 * 0.5 - 0.8 * 0.5) / 2",
            dr_grpo_objective(np.log([[1.5], [0.5]]), 0 * one, r2, one), (1.2 * 0.5 - 0.8 * 0.5) / 2,
            rtol=1e-12)
check_close("ratios 0.5 and 1.5 with A = +-1/2: unclipped (0.5 * 0.5 - 1.5 * 0.5) / 2",
            dr_grpo_objective(np.log([[0.5], [1.5]]), 0 * one, r2, one), (0.25 - 0.75) / 2, rtol=1e-12)
check_close("tokens summed: 3 tokens at ratio 1.1 with A = 1/2, 1 at 1 with A = -1/2 -> (1.65 - 0.5) / 2",
            dr_grpo_objective(np.log([[1.1, 1.1, 1.1], [1.0, 1.0, 1.0]]), np.zeros((2, 3)), r2,
                              np.array([[1.0, 1, 1], [1, 0, 0]])), (3 * 1.1 * 0.5 - 0.5) / 2, rtol=1e-12)

# --- in code: trl ---
import torch  # noqa: E402
import trl_fixture  # noqa: E402

# G = 4 sampled answers of 6, 3, 5 and 2 tokens scored by a random tiny language model as pi_theta, two of
# them right; pi_old is pi_theta moved by up to 0.4 nats per token, so that some ratios are clipped. TRL
# takes the advantages as given: the card's R_i - mean(R).
trl_group = trl_fixture.completion_group()
trl_logp, trl_mask = trl_fixture.group_token_logps(trl_fixture.causal_lm(0), trl_group)
trl_old = trl_logp + rng.uniform(-0.4, 0.4, size=trl_logp.shape) * trl_mask
trl_rewards = np.array([1.0, 0.0, 0.0, 1.0])
inputs = dict(trl_group, advantages=torch.tensor(dr_grpo_advantage(trl_rewards)),
              old_per_token_logps=torch.tensor(trl_old))
card_j = dr_grpo_objective(trl_logp, trl_old, trl_rewards, trl_mask)
# TRL scores pi_theta's tokens in float32 (off by delta per token); a token's clipped term moves by at most
# delta |A| rho, and the card's J sums these over the tokens and divides by G.
delta = 8 * np.finfo(np.float32).eps * (1 + np.abs(trl_logp))
rho = np.exp(trl_logp - trl_old)
j_atol = np.sum(delta * np.abs(dr_grpo_advantage(trl_rewards))[:, None] * rho * trl_mask) / len(trl_rewards)
max_len = 16
check_close("GRPOTrainer(loss_type='dr_grpo', max_completion_length=16) loss * 16 = -J_Dr.GRPO",
            trl_fixture.grpo_trainer_loss(dict(inputs), loss_type="dr_grpo", max_completion_length=max_len)
            * max_len, -card_j, atol=j_atol)
check_close("pitfall: the loss is divided by max_completion_length, by default 512",
            trl_fixture.grpo_trainer_loss(dict(inputs), loss_type="dr_grpo") * 512, -card_j, atol=j_atol)
# --- end in code ---

L = np.arange(1, 201)
fig, ax = figure("Per-token push on a wrong answer (A = -1, G = 8)", "answer length |o| (tokens)",
                 "gradient weight per token")
ax.plot(L, -1 / (8 * L), label="GRPO: −1 / (G |o|)")
ax.plot(L, np.full(L.shape, -1 / 8), "--", label="Dr. GRPO: −1 / G")
ax.legend()
