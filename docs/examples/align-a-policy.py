# %% [markdown]
# # Align a policy
#
# This notebook walks through preference alignment on a problem small enough to solve exactly: one prompt,
# six candidate responses, a reward we hide from the learner, and a few thousand pairwise judgments drawn
# from it. We fit a reward model to the judgments, build the policy that best trades reward against
# drift from a reference model, and show that DPO reaches the same policy straight from the judgments.
# Change the reward, the reference policy, the number of judgments or $\beta$ and re-run to see how each
# step responds.

# %%
import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import approx_fprime, minimize
from scipy.special import expit, logsumexp
from scipy.stats import entropy

rng = np.random.default_rng(0)
K, N_PAIRS, BETA = 6, 3000, 0.5
R_TRUE = rng.normal(0.0, 1.0, K)               # the hidden reward of each response
PI_REF = np.exp(rng.normal(0.0, 1.0, K))
PI_REF /= PI_REF.sum()                         # the reference policy (the model before alignment)

print("response      " + "".join(f"{f'y{k}':>8}" for k in range(K)))
print("hidden reward " + "".join(f"{v:8.3f}" for v in R_TRUE))
print("pi_ref        " + "".join(f"{v:8.3f}" for v in PI_REF))
print(f"E_ref[r] = {PI_REF @ R_TRUE:.4f}, best possible = {R_TRUE.max():.4f}")

# %% [markdown]
# ## Draw preferences from a Bradley–Terry judge
#
# The judge compares two responses and prefers $y_1$ with the probability given by the
# [Bradley–Terry model](../../cards/bradley-terry/):
#
# $$P(y_1 \succ y_2) = \sigma\big(r(y_1) - r(y_2)\big) = \frac{\exp r(y_1)}{\exp r(y_1) + \exp r(y_2)}.$$
#
# Each of the 3000 judgments picks two different responses at random and samples the winner from this
# probability. We check the two forms of the formula against each other, and check that the simulated
# win rates agree with the model for every pair of responses (each within four standard errors).

# %%
def bt_prob(r1, r2):
    return 1.0 / (1.0 + np.exp(-(r1 - r2)))


first = rng.integers(0, K, N_PAIRS)
second = (first + rng.integers(1, K, N_PAIRS)) % K          # a different response, uniformly
first_wins = rng.random(N_PAIRS) < bt_prob(R_TRUE[first], R_TRUE[second])
WIN = np.where(first_wins, first, second)
LOSE = np.where(first_wins, second, first)

a, b = np.triu_indices(K, 1)
check_close("sigma(r1 - r2) vs exp r1 / (exp r1 + exp r2), all 15 pairs", bt_prob(R_TRUE[a], R_TRUE[b]),
            np.exp(R_TRUE[a]) / (np.exp(R_TRUE[a]) + np.exp(R_TRUE[b])))
z_scores = []
for i, j in zip(a, b):
    n_ij = np.sum((WIN == i) & (LOSE == j)) + np.sum((WIN == j) & (LOSE == i))
    p = bt_prob(R_TRUE[i], R_TRUE[j])
    z_scores.append((np.sum((WIN == i) & (LOSE == j)) / n_ij - p) / np.sqrt(p * (1 - p) / n_ij))
check_true("simulated win rate of every pair matches Bradley-Terry within 4 standard errors",
           np.max(np.abs(z_scores)) < 4, f"largest |z| = {np.max(np.abs(z_scores)):.2f} over 15 pairs")
print("wins per response:", np.bincount(WIN, minlength=K), " losses:", np.bincount(LOSE, minlength=K))

# %% [markdown]
# ## Fit a reward model by maximum likelihood
#
# The learner sees only the judgments. It gives each response a free score $\hat r(y)$ and minimises the
# [pairwise reward-model loss](../../cards/reward-model-loss/), the negative log-likelihood of the
# judgments under Bradley–Terry:
#
# $$\mathcal{L}_{\mathrm{RM}} = -\frac{1}{N} \sum_{n=1}^{N}
# \log \sigma\big(\hat r(y_w^{(n)}) - \hat r(y_l^{(n)})\big).$$
#
# Only differences of scores enter, so adding a constant to every score changes nothing: the reward is
# identified up to a shift, and we compare centred scores. Checks: the hand-derived gradient against
# scipy's finite differences, the shift invariance, the optimality condition of this likelihood (each
# response's observed wins equal the wins the fitted model expects), and recovery of the hidden reward.

# %%
def rm_loss(r):
    return np.mean(np.logaddexp(0.0, -(r[WIN] - r[LOSE])))   # -log sigma(m) = log(1 + exp(-m))


def rm_grad(r):
    s = expit(-(r[WIN] - r[LOSE]))                            # d/dm of log(1 + exp(-m)) is -s
    return (np.bincount(LOSE, s, K) - np.bincount(WIN, s, K)) / N_PAIRS


probe = rng.normal(size=K)
check_close("reward-model gradient vs scipy finite differences", rm_grad(probe),
            approx_fprime(probe, rm_loss, 1e-7), rtol=1e-5, atol=1e-8)
check_close("loss is unchanged by a shift of every score", rm_loss(probe + 3.0), rm_loss(probe))

fit = minimize(rm_loss, np.zeros(K), jac=rm_grad, method="BFGS", options={"gtol": 1e-12})
R_HAT = fit.x - fit.x.mean()
p_fit = expit(R_HAT[WIN] - R_HAT[LOSE])                       # fitted probability of each observed outcome
expected_wins = np.bincount(WIN, p_fit, K) + np.bincount(LOSE, 1 - p_fit, K)
check_close("at the fit, observed wins = expected wins for every response",
            np.bincount(WIN, minlength=K), expected_wins, rtol=1e-6)
error = R_HAT - (R_TRUE - R_TRUE.mean())
check_true("fitted reward recovers the hidden reward up to a shift (centred error < 0.15)",
           np.max(np.abs(error)) < 0.15, f"largest centred error {np.max(np.abs(error)):.3f}")
print("hidden reward, centred " + "".join(f"{v:8.3f}" for v in R_TRUE - R_TRUE.mean()))
print("fitted reward, centred " + "".join(f"{v:8.3f}" for v in R_HAT))

# %% [markdown]
# ## The KL-regularised optimal policy
#
# Alignment should raise the reward without drifting far from the reference model. The objective is
# $J(\pi) = \mathbb{E}_{y \sim \pi}[\hat r(y)] - \beta\, D_{\mathrm{KL}}(\pi \,\Vert\, \pi_{\text{ref}})$,
# where the [KL divergence](../../cards/kl-divergence/) is
# $D_{\mathrm{KL}}(\pi \,\Vert\, \pi_{\text{ref}}) = \sum_y \pi(y) \log \frac{\pi(y)}{\pi_{\text{ref}}(y)}$.
# Its maximiser has a [closed form](../../cards/kl-regularized-optimal-policy/): tilt the reference by
# the exponentiated reward and renormalise,
#
# $$\pi^*(y) = \frac{1}{Z}\, \pi_{\text{ref}}(y) \exp\!\Big(\frac{\hat r(y)}{\beta}\Big), \qquad
# Z = \sum_{y} \pi_{\text{ref}}(y) \exp\!\Big(\frac{\hat r(y)}{\beta}\Big).$$
#
# We check the KL against scipy, then maximise $J$ directly over the probability simplex with scipy's
# SLSQP (equality constraint $\sum_y \pi(y) = 1$, bounds $0 \le \pi(y) \le 1$), and confirm the optimum value
# $J(\pi^*) = \beta \log Z$. Here $\beta = 0.5$.

# %%
def kl(p, q):
    return float(np.sum(p * np.log(p / q)))


def optimal_policy(reward, beta, ref=PI_REF):
    w = ref * np.exp((reward - reward.max()) / beta)          # shifting r first avoids overflow
    return w / w.sum()


def objective(pi, reward, beta):
    return pi @ reward - beta * kl(pi, PI_REF)


PI_STAR = optimal_policy(R_HAT, BETA)
check_close("KL(pi* || pi_ref) vs scipy.stats.entropy", kl(PI_STAR, PI_REF), entropy(PI_STAR, PI_REF))

numeric = minimize(lambda p: -objective(np.clip(p, 1e-300, None), R_HAT, BETA), np.full(K, 1 / K),
                   method="SLSQP", bounds=[(0.0, 1.0)] * K,
                   constraints={"type": "eq", "fun": lambda p: p.sum() - 1}, options={"ftol": 1e-14})
check_close("closed-form pi* vs SLSQP maximiser over the simplex", PI_STAR, numeric.x, atol=1e-5)
check_close("J(pi*) = beta log Z", objective(PI_STAR, R_HAT, BETA),
            BETA * logsumexp(R_HAT / BETA, b=PI_REF))
print("pi*           " + "".join(f"{v:8.3f}" for v in PI_STAR))
print(f"E_pi*[r_true] = {PI_STAR @ R_TRUE:.4f} (reference {PI_REF @ R_TRUE:.4f}), "
      f"KL(pi* || pi_ref) = {kl(PI_STAR, PI_REF):.4f} nats")

# %% [markdown]
# ## Read the reward back from the policy
#
# Taking logs of the closed form and solving for the reward gives the
# [DPO implied reward](../../cards/dpo-implied-reward/):
#
# $$\hat r(y) = \beta \log \frac{\pi^*(y)}{\pi_{\text{ref}}(y)} + \beta \log Z.$$
#
# The log-ratio alone therefore equals the reward up to the constant $\beta \log Z$, which is the same for
# every response and cancels in any comparison of two responses. We check the constant against scipy's
# `logsumexp`, and check that Bradley–Terry probabilities computed from the implied reward match those
# from the fitted reward for all 15 pairs.

# %%
implied = BETA * np.log(PI_STAR / PI_REF)
check_close("implied reward = fitted reward - beta log Z", implied,
            R_HAT - BETA * logsumexp(R_HAT / BETA, b=PI_REF), atol=1e-12)
check_close("Bradley-Terry probabilities from the implied reward vs the fitted reward",
            bt_prob(implied[a], implied[b]), bt_prob(R_HAT[a], R_HAT[b]), atol=1e-12)
print("implied - fitted reward:", np.round(implied - R_HAT, 6))

# %% [markdown]
# ## DPO: fit the policy to the preferences directly
#
# Putting the implied reward of a trainable policy $\pi_\theta = \operatorname{softmax}(\theta)$ into the
# reward-model loss gives the [DPO loss](../../cards/dpo-loss/):
#
# $$\mathcal{L}_{\mathrm{DPO}}(\theta) = -\frac{1}{N} \sum_{n} \log \sigma\Big(\beta \log
# \frac{\pi_\theta(y_w^{(n)})}{\pi_{\text{ref}}(y_w^{(n)})} - \beta \log
# \frac{\pi_\theta(y_l^{(n)})}{\pi_{\text{ref}}(y_l^{(n)})}\Big).$$
#
# No reward model is trained. Because the implied reward of $\pi_\theta$ can be any score vector, the
# minimiser of this loss is the policy whose implied reward is the maximum-likelihood reward, which is
# exactly the $\pi^*$ built above. Checks: the loss equals $\log 2$ at $\pi_\theta = \pi_{\text{ref}}$ (every
# margin is zero), scipy's minimiser of the loss is $\pi^*$, and nudging $\pi^*$ in random directions on
# the simplex never lowers the loss.

# %%
LOG_REF = np.log(PI_REF)


def dpo_loss(log_pi, beta=BETA):
    margin = beta * ((log_pi[WIN] - LOG_REF[WIN]) - (log_pi[LOSE] - LOG_REF[LOSE]))
    return np.mean(np.logaddexp(0.0, -margin))


def log_softmax(theta):
    return theta - logsumexp(theta)


check_close("DPO loss at pi_ref = log 2", dpo_loss(LOG_REF), np.log(2))
dpo = minimize(lambda t: dpo_loss(log_softmax(t)), LOG_REF.copy(), method="BFGS", options={"gtol": 1e-10})
PI_DPO = np.exp(log_softmax(dpo.x))
check_close("DPO minimiser vs pi* from the fitted reward", PI_DPO, PI_STAR, atol=1e-5)
nudges = [PI_STAR * np.exp(0.05 * rng.normal(size=K)) for _ in range(200)]
check_true("random nudges of pi* never lower the DPO loss",
           all(dpo_loss(np.log(p / p.sum())) >= dpo_loss(np.log(PI_STAR)) for p in nudges))
print(f"DPO loss: {dpo_loss(LOG_REF):.4f} at pi_ref, {dpo_loss(np.log(PI_STAR)):.4f} at pi*")
print("pi_DPO        " + "".join(f"{v:8.3f}" for v in PI_DPO))

# %% [markdown]
# ## The reward-versus-KL frontier
#
# Sweeping $\beta$ traces the trade-off: a large $\beta$ keeps the policy near $\pi_{\text{ref}}$ (KL near
# 0), a small one piles the probability onto the response with the highest reward. Along the exact
# frontier the slope $d\,\mathbb{E}[r] / d\,\mathrm{KL}$ equals $\beta$ (the Lagrange multiplier of the KL
# budget), which we check by central differences in $\beta$ at five values. We draw two curves, both
# scored with the hidden reward: the oracle that tilts by the hidden reward itself, and the policy a
# practitioner gets by tilting with the fitted reward. No policy can beat the oracle's
# $\mathbb{E}[r] - \beta\, \mathrm{KL}$ at the same $\beta$, and the last check confirms the fitted
# policies do not.

# %%
betas = np.geomspace(0.03, 30, 80)
oracle = [optimal_policy(R_TRUE, beta) for beta in betas]
learned = [optimal_policy(R_HAT, beta) for beta in betas]
kl_oracle = np.array([kl(p, PI_REF) for p in oracle])
reward_oracle = np.array([p @ R_TRUE for p in oracle])

check_true("as beta falls, KL and expected reward both rise",
           np.all(np.diff(kl_oracle) < 0) and np.all(np.diff(reward_oracle) < 0))
probe_betas = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
slope = []
for beta in probe_betas:
    hi, lo = optimal_policy(R_TRUE, beta * (1 + 1e-4)), optimal_policy(R_TRUE, beta * (1 - 1e-4))
    slope.append((hi @ R_TRUE - lo @ R_TRUE) / (kl(hi, PI_REF) - kl(lo, PI_REF)))
check_close("frontier slope dE[r]/dKL = beta (central differences)", slope, probe_betas, rtol=1e-5)
check_true("fitted-reward policies never beat the oracle's E[r] - beta KL",
           all(objective(q, R_TRUE, beta) <= objective(p, R_TRUE, beta) + 1e-12
               for p, q, beta in zip(oracle, learned, betas)))

fig, ax = figure("Reward vs KL as beta varies",
                 r"$D_{\mathrm{KL}}(\pi^* \,\Vert\, \pi_{\mathrm{ref}})$ (nats)", "expected hidden reward")
ax.plot(kl_oracle, reward_oracle, "-", label="tilt by the hidden reward (oracle)")
ax.plot([kl(q, PI_REF) for q in learned], [q @ R_TRUE for q in learned], "--",
        label="tilt by the fitted reward")
ax.plot(kl(PI_STAR, PI_REF), PI_STAR @ R_TRUE, "o", color="C3", label=rf"$\beta$ = {BETA} (used above)")
ax.axhline(R_TRUE.max(), color="gray", lw=0.8, ls=":", label="best single response")
ax.legend(fontsize=8)
print(f"beta = {betas[-1]:.0f}: KL = {kl_oracle[-1]:.2e}; beta = {betas[0]:.2f}: KL = {kl_oracle[0]:.3f}, "
      f"E[r] = {reward_oracle[0]:.3f} of {R_TRUE.max():.3f}")
