"""SimPO: length-normalized reward vs the geometric mean of token probabilities, the loss vs scikit-learn's
log loss of a Bradley-Terry model with margin gamma, finite-difference gradient, length invariance."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, log_expit
from scipy.stats import gmean
from sklearn.metrics import log_loss


# --- formula ---
def simpo_reward(token_logp, mask, beta):
    """r(x, y) = beta / |y| * sum_t log pi(y_t | x, y_<t), over the response tokens (mask = 1)."""
    return beta * np.sum(token_logp * mask, axis=-1) / np.sum(mask, axis=-1)


def simpo_loss(logp_w, mask_w, logp_l, mask_l, beta=2.0, gamma=1.0):
    """Per-pair -log sigmoid(r_w - r_l - gamma), computed as softplus(-(margin))."""
    margin = simpo_reward(logp_w, mask_w, beta) - simpo_reward(logp_l, mask_l, beta) - gamma
    return np.logaddexp(0.0, -margin)
# --- end formula ---


rng = np.random.default_rng(0)
B, T = 6, 9
probs_w = rng.uniform(0.2, 0.99, size=(B, T))
probs_l = rng.uniform(0.05, 0.9, size=(B, T))
len_w = rng.integers(3, T + 1, size=B)
len_l = rng.integers(2, T + 1, size=B)
mask_w = (np.arange(T) < len_w[:, None]).astype(float)
mask_l = (np.arange(T) < len_l[:, None]).astype(float)
beta, gamma = 2.0, 1.0

# 1. The reward is beta times the log of the geometric mean of the response's token probabilities.
gm = np.array([gmean(probs_w[i, :len_w[i]]) for i in range(B)])
check_close("r = beta/|y| log pi(y|x) = beta log(geometric mean token prob), ragged lengths",
            simpo_reward(np.log(probs_w), mask_w, beta), beta * np.log(gm), rtol=1e-12)

# 2. The loss is the log loss of a Bradley-Terry model whose win probability is
#    sigma(r_w - r_l - gamma), with every label "y_w wins" (scikit-learn's log_loss).
r_w = beta * np.log(gm)
r_l = beta * np.log([gmean(probs_l[i, :len_l[i]]) for i in range(B)])
p_win = expit(r_w - r_l - gamma)
loss = simpo_loss(np.log(probs_w), mask_w, np.log(probs_l), mask_l, beta, gamma)
check_close("mean SimPO loss vs sklearn log_loss(y = 1, p = sigma(r_w - r_l - gamma))", loss.mean(),
            log_loss(np.ones(B), p_win, labels=[0, 1]), rtol=1e-10)

# 3. Margin gamma, by hand: equal rewards give -log sigma(-gamma) = log(1 + e^gamma); a reward gap of
#    exactly gamma gives log 2. Default beta = 2, gamma = 1 on one-token responses with log-probs a, b.
one = np.ones((1, 1))
check_close("r_w = r_l: loss = log(1 + e^gamma)", simpo_loss(-one, one, -one, one)[0], np.log1p(np.e),
            rtol=1e-12)
check_close("r_w - r_l = gamma (log-probs -1 and -1.5 with beta = 2): loss = log 2",
            simpo_loss(-one, one, -1.5 * one, one)[0], np.log(2.0), rtol=1e-12)

# 4. Very confident pairs: margins of +-800 (softplus must not overflow), against scipy's log_expit.
big = np.array([[400.0]])
check_close("margins of +-800: loss vs -log_expit(margin)",
            [simpo_loss(big, one, -big, one, 1.0, 0.0)[0], simpo_loss(-big, one, big, one, 1.0, 0.0)[0]],
            [-log_expit(800.0), -log_expit(-800.0)], rtol=1e-12)

# 5. Gradient with respect to one token log-prob of y_w: -(beta/|y_w|) sigma(-margin) per token of the
#    response, zero on padding. Central finite differences on pair 0.
lw, ll = np.log(probs_w[:1]), np.log(probs_l[:1])
h = 1e-6
fd = np.array([(simpo_loss(lw + h * e, mask_w[:1], ll, mask_l[:1])[0]
                - simpo_loss(lw - h * e, mask_w[:1], ll, mask_l[:1])[0]) / (2 * h) for e in np.eye(T)])
expected = -(beta / len_w[0]) * expit(-(r_w[0] - r_l[0] - gamma)) * mask_w[0]
check_close("dL/d log pi(y_w,t) = -(beta/|y_w|) sigma(-margin) vs finite differences", fd, expected,
            rtol=1e-6, atol=1e-10)

# 6. Length normalization: repeating a response (same per-token log-probs, twice the length) leaves its
#    reward unchanged, whereas the summed log-probability used by DPO doubles.
rep = np.concatenate([np.log(probs_w[:1, :3])] * 2, axis=1)
check_close("reward of a response repeated twice = reward of the response",
            simpo_reward(rep, np.ones_like(rep), beta), simpo_reward(np.log(probs_w[:1, :3]), np.ones((1, 3)),
                                                                     beta), rtol=1e-12)
check_true("a summed log-probability would double instead",
           abs(rep.sum() - 2 * np.log(probs_w[0, :3]).sum()) < 1e-12 and abs(rep.sum()) > 0.1)

gap = np.linspace(-3, 5, 300)
fig, ax = figure("SimPO loss against the reward gap (β-scaled mean log-prob)", "r(y_w) − r(y_l)", "loss")
for g_ in (0.0, 1.0, 1.6):
    ax.plot(gap, np.logaddexp(0.0, -(gap - g_)), label=f"γ = {g_}")
ax.legend()

# The page's calculator is checked against simpo_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows). A response of n tokens whose first token carries the whole summed
# log-probability has the same sum and length; margins of both signs take both branches of the softplus.
import cardcalc  # noqa: E402


def one_response(logp, n):
    """Token log-probabilities summing to logp over n tokens, and the mask of all n."""
    return np.concatenate([[logp], np.zeros(int(n) - 1)]), np.ones(int(n))


cardcalc.table(lambda logp_w, n_w, logp_l, n_l, beta, gamma: float(
                   simpo_loss(*one_response(logp_w, n_w), *one_response(logp_l, n_l), beta, gamma)),
               cardcalc.grid(logp_w=(-200.0, -60.0, -5.0), n_w=(1, 100), logp_l=(-90.0, -2.0), n_l=(1, 120),
                             beta=(2.0, 10.0), gamma=(0.0, 1.0)))
# --- in code: trl ---
import torch  # noqa: E402
import trl_pairwise  # noqa: E402

# CPOTrainer's cpo_loss takes each response's log pi(y | x) as given; for SimPO the trainer feeds it
# per-token means, so the card's (1/|y|) log pi(y | x) goes in. Float64 throughout: a few ulps of O(1).
mean_w = np.sum(np.log(probs_w) * mask_w, axis=1) / len_w
mean_l = np.sum(np.log(probs_l) * mask_l, axis=1) / len_l
card_simpo = simpo_loss(np.log(probs_w), mask_w, np.log(probs_l), mask_l, beta, gamma)
simpo = trl_pairwise.cpo_trainer(loss_type="simpo", beta=beta, simpo_gamma=gamma)
check_close("CPOTrainer(loss_type='simpo', beta=2, simpo_gamma=1).cpo_loss(mean log-probs) = L_SimPO",
            simpo.cpo_loss(torch.tensor(mean_w), torch.tensor(mean_l))[0].numpy(), card_simpo, rtol=1e-12)
# Unlike DPOTrainer's sigmoid loss, this one reads label_smoothing, as cDPO does:
# 0.9 softplus(-m) + 0.1 softplus(m) = softplus(-m) + 0.1 m, m the card's margin r_w - r_l - gamma.
smoothed = trl_pairwise.cpo_trainer(loss_type="simpo", beta=beta, simpo_gamma=gamma, label_smoothing=0.1)
simpo_margin = beta * (mean_w - mean_l) - gamma
check_close("pitfall: label_smoothing=0.1 gives the conservative loss L_SimPO + 0.1 (r_w - r_l - gamma)",
            smoothed.cpo_loss(torch.tensor(mean_w), torch.tensor(mean_l))[0].numpy(),
            card_simpo + 0.1 * simpo_margin, rtol=1e-12, atol=1e-14)
defaults = trl_pairwise.cpo_trainer(loss_type="simpo")
check_close("pitfall: CPOConfig's defaults give L_SimPO at beta = 0.1, gamma = 0.5, not SimPO's 2 and 1",
            defaults.cpo_loss(torch.tensor(mean_w), torch.tensor(mean_l))[0].numpy(),
            simpo_loss(np.log(probs_w), mask_w, np.log(probs_l), mask_l, 0.1, 0.5), rtol=1e-12)
# --- end in code ---
