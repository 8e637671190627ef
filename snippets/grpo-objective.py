"""GRPO objective: the per-token KL estimator is unbiased and non-negative (exact enumeration), the gradient
of the objective per token matches the paper's coefficient, the clip and the per-response token average."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import entropy


# --- formula ---
def kl_k3(logp, ref_logp):
    """Per-token KL estimate pi_ref/pi_theta - log(pi_ref/pi_theta) - 1 (DeepSeekMath Eq. 4)."""
    log_ratio = ref_logp - logp
    return np.exp(log_ratio) - log_ratio - 1


def grpo_objective(logp, old_logp, ref_logp, adv, mask, eps=0.2, beta=0.04):
    """(1/G) sum_i (1/|o_i|) sum_t [min(rho A, clip(rho, 1-eps, 1+eps) A) - beta KL_t]; arrays are
    (G, T) with mask = 1 on the tokens of each output, adv is (G,): one advantage per output."""
    rho = np.exp(logp - old_logp)
    a = adv[:, None]
    surrogate = np.minimum(rho * a, np.clip(rho, 1 - eps, 1 + eps) * a)
    per_token = surrogate - beta * kl_k3(logp, ref_logp)
    per_output = np.sum(per_token * mask, axis=1) / np.sum(mask, axis=1)
    return np.mean(per_output)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The KL estimator: sampling tokens from pi_theta, its expectation is exactly KL(pi_theta || pi_ref)
#    (enumerate a 7-token vocabulary; scipy.stats.entropy gives the KL), and every sample is >= 0,
#    unlike the plain log-ratio, which has the same mean but negative samples.
p_theta = rng.dirichlet(np.ones(7))
p_ref = rng.dirichlet(np.ones(7))
check_close("E_{y ~ pi_theta}[k3] = KL(pi_theta || pi_ref) by enumeration",
            np.sum(p_theta * kl_k3(np.log(p_theta), np.log(p_ref))), entropy(p_theta, p_ref), rtol=1e-12)
check_true("k3 >= 0 for every token, ratios from 1e-6 to 1e6",
           bool(np.all(kl_k3(np.zeros(13), np.linspace(-13.8, 13.8, 13)) >= 0)))
check_true("the plain log-ratio log(pi_theta/pi_ref) goes negative on some tokens",
           bool(np.any(np.log(p_theta / p_ref) < 0)))
check_close("k3 by hand: pi_ref/pi_theta = e -> e - 2; = 1 -> 0", kl_k3(np.array([0.0, -0.3]),
            np.array([1.0, -0.3])), [np.e - 2, 0.0], atol=1e-15, rtol=1e-12)

# 2. A group of G = 4 outputs of different lengths, policy = old policy (first inner step).
G, T = 4, 6
lengths = np.array([6, 3, 5, 2])
mask = (np.arange(T) < lengths[:, None]).astype(float)
logp = np.log(rng.uniform(0.05, 0.95, size=(G, T)))
ref_logp = np.log(rng.uniform(0.05, 0.95, size=(G, T)))
r = np.array([1.0, 0.0, 0.0, 1.0])
adv = (r - r.mean()) / r.std()

# Gradient of J in one token's log-prob at pi_theta = pi_old: (A_i + beta (pi_ref/pi_theta - 1)) / (G |o_i|)
# (the gradient coefficient in DeepSeekMath's App. A.1.6). Finite differences on every token, padding 0.
h = 1e-6
fd = np.zeros((G, T))
for i in range(G):
    for t in range(T):
        e = np.zeros((G, T))
        e[i, t] = h
        fd[i, t] = (grpo_objective(logp + e, logp, ref_logp, adv, mask)
                    - grpo_objective(logp - e, logp, ref_logp, adv, mask)) / (2 * h)
coef = (adv[:, None] + 0.04 * (np.exp(ref_logp - logp) - 1)) / (G * lengths[:, None]) * mask
check_close("dJ/dlog pi(o_it) = (A_i + beta (pi_ref/pi_theta - 1)) / (G |o_i|), padding 0", fd, coef,
            rtol=1e-6, atol=1e-11)

# 3. At pi_theta = pi_old = pi_ref the objective is the mean advantage, 0 for normalized advantages;
#    shifting every advantage by c shifts J by c whatever the lengths (per-output token average).
check_close("pi_theta = pi_old = pi_ref: J = mean advantage = 0", grpo_objective(logp, logp, logp, adv, mask),
            0.0, atol=1e-15)
check_close("advantages + 0.7: J = 0.7", grpo_objective(logp, logp, logp, adv + 0.7, mask), 0.7, rtol=1e-12)

# 4. Clip: once a positive-advantage token's ratio exceeds 1 + eps, its surrogate stops growing; a
#    negative-advantage token's below 1 - eps likewise. Ratios 1.5 and 0.5, one-token outputs, beta = 0:
#    the objective is ((1 + 0.2) * 1 + (1 - 0.2) * (-1)) / 2 = 0.2.
one = np.ones((2, 1))
old = np.zeros((2, 1))
lp = np.log(np.array([[1.5], [0.5]]))
check_close("clipped both ways: J = (1.2 - 0.8) / 2", grpo_objective(lp, old, lp, np.array([1.0, -1.0]), one,
            beta=0.0), 0.2, rtol=1e-12)
check_close("inside the clip range the ratio counts in full: ratios 1.1, 0.9 -> (1.1 - 0.9) / 2",
            grpo_objective(np.log([[1.1], [0.9]]), old, np.log([[1.1], [0.9]]), np.array([1.0, -1.0]), one),
            0.1, rtol=1e-12)
check_close("default beta = 0.04: one token with pi_ref/pi_theta = e, A = 0 -> -0.04 (e - 2)",
            grpo_objective(np.zeros((1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1), np.ones((1, 1))),
            -0.04 * (np.e - 2), rtol=1e-12)

# --- in code: trl ---
import torch  # noqa: E402
import trl_fixture  # noqa: E402

# The same group shape (G = 4 outputs of 6, 3, 5 and 2 tokens: `mask`), now sampled text scored by a random
# tiny language model as pi_theta; pi_old is pi_theta moved by up to 0.4 nats per token, so that some
# ratios leave [1 - eps, 1 + eps]; pi_ref and the advantages are the snippet's own.
group = trl_fixture.completion_group()
policy_logp, _ = trl_fixture.group_token_logps(trl_fixture.causal_lm(0), group)
old_logp = policy_logp + rng.uniform(-0.4, 0.4, size=(G, T)) * mask
inputs = dict(group, advantages=torch.tensor(adv), old_per_token_logps=torch.tensor(old_logp),
              ref_per_token_logps=torch.tensor(ref_logp * mask), num_items_in_batch=torch.tensor(mask.sum()))
rho, ref_over_pi = np.exp(policy_logp - old_logp), np.exp(ref_logp - policy_logp)
# TRL scores pi_theta's tokens in float32 (off by delta per token). A token's term moves by at most delta
# times its slope in log pi_theta: |A| rho for the surrogate, beta (1 + pi_ref/pi) for k3, and
# beta rho (k3 + 1 + pi_ref/pi) once the KL is weighted by rho; every loss below averages these terms.
delta = 8 * np.finfo(np.float32).eps * (1 + np.abs(policy_logp))
slope = np.abs(adv)[:, None] * rho + 0.04 * (1 + rho) * (kl_k3(policy_logp, ref_logp) + 1 + ref_over_pi)
trl_atol = np.max(np.sum(delta * slope * mask, axis=1) / lengths)
card_j = grpo_objective(policy_logp, old_logp, ref_logp, adv, mask)
card_settings = {"loss_type": "grpo", "beta": 0.04, "use_bias_correction_kl": False}
check_close("GRPOTrainer(loss_type='grpo', beta=0.04, use_bias_correction_kl=False) loss = -J_GRPO",
            trl_fixture.grpo_trainer_loss(dict(inputs), **card_settings), -card_j, atol=trl_atol)
# By default the KL term of each token is weighted by its ratio rho (use_bias_correction_kl=True).
rho_kl_gap = 0.04 * np.mean(np.sum((rho - 1) * kl_k3(policy_logp, ref_logp) * mask, axis=1) / lengths)
check_close("pitfall: by default each token's KL is multiplied by rho: loss = -J + beta mean((rho - 1) k3)",
            trl_fixture.grpo_trainer_loss(dict(inputs), loss_type="grpo", beta=0.04), -card_j + rho_kl_gap,
            atol=trl_atol)
# The defaults loss_type='dapo', beta=0: one token average over the whole batch and no KL, that is the
# outputs' own averages J_i (beta = 0) weighted by their lengths.
j_rows = np.array([grpo_objective(policy_logp[i:i + 1], old_logp[i:i + 1], ref_logp[i:i + 1], adv[i:i + 1],
                                  mask[i:i + 1], beta=0.0) for i in range(G)])
check_close("pitfall: the defaults (loss_type='dapo', beta=0) give -sum_i |o_i| J_i / sum_i |o_i|, no KL",
            trl_fixture.grpo_trainer_loss(dict(inputs)), -np.sum(lengths * j_rows) / np.sum(lengths),
            atol=trl_atol)
# --- end in code ---

x = np.linspace(-3, 3, 300)
fig, ax = figure("Per-token KL estimators against log(π_θ/π_ref)", "log(π_θ/π_ref) of the sampled token",
                 "estimate")
ax.plot(x, kl_k3(x, 0.0), label="k3 = π_ref/π_θ − log(π_ref/π_θ) − 1")
ax.plot(x, x, "--", label="k1 = log(π_θ/π_ref)")
ax.legend()
