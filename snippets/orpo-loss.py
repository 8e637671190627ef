"""ORPO: log-odds vs scipy.special.logit, the odds-ratio term vs scikit-learn's log loss, gradient vs finite
differences, numerics for probabilities near 1, the SFT term and lambda by hand."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, logit
from sklearn.metrics import log_loss


# --- formula ---
def mean_logp(token_logp, mask):
    """log P(y|x) = (1/m) sum_t log P(y_t | x, y_<t) over the m response tokens (mask = 1)."""
    return np.sum(token_logp * mask, axis=-1) / np.sum(mask, axis=-1)


def log_odds(logp):
    """log [P / (1 - P)] from log P, with 1 - P = -expm1(log P) (accurate when P is near 1)."""
    return logp - np.log(-np.expm1(logp))


def orpo_loss(tok_w, mask_w, tok_l, mask_l, lam=0.1):
    """Per-pair L_SFT + lam * L_OR; L_SFT is the NLL of the chosen response (token average)."""
    lp_w = mean_logp(tok_w, mask_w)
    lp_l = mean_logp(tok_l, mask_l)
    l_or = np.logaddexp(0.0, -(log_odds(lp_w) - log_odds(lp_l)))
    return -lp_w + lam * l_or
# --- end formula ---


rng = np.random.default_rng(0)
B, T = 8, 7
p_tok_w = rng.uniform(0.3, 0.99, size=(B, T))
p_tok_l = rng.uniform(0.1, 0.95, size=(B, T))
mask_w = (np.arange(T) < rng.integers(2, T + 1, size=B)[:, None]).astype(float)
mask_l = (np.arange(T) < rng.integers(2, T + 1, size=B)[:, None]).astype(float)
lw, ll = np.log(p_tok_w), np.log(p_tok_l)

# 1. P(y|x) is the geometric mean of the token probabilities; its log-odds is scipy's logit.
P_w = np.exp(mean_logp(lw, mask_w))
P_l = np.exp(mean_logp(ll, mask_l))
gm_w = np.array([np.prod(p_tok_w[i, mask_w[i] > 0]) ** (1 / mask_w[i].sum()) for i in range(B)])
check_close("P(y|x) = geometric mean of token probabilities", P_w, gm_w, rtol=1e-12)
check_close("log-odds vs scipy.special.logit", log_odds(np.log(P_w)), logit(P_w), rtol=1e-10)

# 2. The odds-ratio term is the log loss of a logistic model on the log odds ratio, every label 1.
lam = 0.1
l_or = (orpo_loss(lw, mask_w, ll, mask_l, lam) + np.log(P_w)) / lam
check_close("mean L_OR vs sklearn log_loss(y = 1, p = sigma(logit P_w - logit P_l))", l_or.mean(),
            log_loss(np.ones(B), expit(logit(P_w) - logit(P_l)), labels=[0, 1]), rtol=1e-9)

# 3. By hand: P_w = P_l = 1/2 (every token probability 1/2) gives L_SFT = log 2 and L_OR = log 2,
#    so the default lam = 0.1 gives 1.1 log 2. With P_w = 0.8, P_l = 0.2 the odds are 4 and 1/4,
#    L_OR = log(1 + 1/16), and L_SFT = -log 0.8.
half = np.log(np.full((1, 3), 0.5))
ones3 = np.ones((1, 3))
check_close("P_w = P_l = 1/2: loss = (1 + 0.1) log 2", orpo_loss(half, ones3, half, ones3)[0],
            1.1 * np.log(2.0), rtol=1e-12)
one = np.ones((1, 1))
check_close("P_w = 0.8, P_l = 0.2, lam = 0.5: -log 0.8 + 0.5 log(17/16)",
            orpo_loss(np.log(0.8) * one, one, np.log(0.2) * one, one, lam=0.5)[0],
            -np.log(0.8) + 0.5 * np.log(17 / 16), rtol=1e-12)

# 4. Probabilities within 1e-10 of 1: 1 - P must come from expm1. Series: log(1 - e^a) = log(-a) + a/2
#    + O(a^2), so the log-odds of a = -1e-10 is a - log(1e-10) - a/2 to about 1e-21.
a = -1e-10
check_close("P = exp(-1e-10): log-odds vs its series", log_odds(a), a - np.log(1e-10) - a / 2, rtol=1e-14)

# 5. Gradient in the chosen response's mean log-prob: d/dlogP_w [ -logP_w + lam L_OR ]
#    = -1 - lam sigma(-d) / (1 - P_w), d the log odds ratio (the paper's delta(d) h(d) term).
i = 0
d = logit(P_w[i]) - logit(P_l[i])
h = 1e-6
m_i = mask_w[i].sum()


mw_i, ml_i, lw_i, ll_i = mask_w[i:i + 1], mask_l[i:i + 1], lw[i:i + 1], ll[i:i + 1]


def loss_at(shift):
    # shifting every response token log-prob by `shift` shifts the mean log-prob by the same amount
    return orpo_loss(lw_i + shift, mw_i, ll_i, ml_i, lam)[0]


fd = (loss_at(h * mw_i) - loss_at(-h * mw_i)) / (2 * h)
check_close("dL/dlog P_w = -1 - lam sigma(-d)/(1 - P_w) vs finite differences", fd,
            -1 - lam * expit(-d) / (1 - P_w[i]), rtol=1e-6)
fd_tok = (loss_at(h * np.eye(T)[:1]) - loss_at(-h * np.eye(T)[:1])) / (2 * h)
check_close("one token's share of that gradient is 1/m", fd_tok, fd / m_i, rtol=1e-5)

lp = np.linspace(-4, -0.01, 300)
# --- in code: trl ---
import torch  # noqa: E402
import trl_pairwise  # noqa: E402

# ORPOTrainer's odds_ratio_loss takes each response's log P(y|x) (the trainer passes per-token means,
# as the card does) and returns lam log sigma(log odds ratio) per pair, that is -lam L_OR.
mean_w, mean_l = mean_logp(lw, mask_w), mean_logp(ll, mask_l)
l_or_card = (orpo_loss(lw, mask_w, ll, mask_l, lam) + mean_w) / lam
or_terms = trl_pairwise.orpo_trainer(beta=lam).odds_ratio_loss(torch.tensor(mean_w), torch.tensor(mean_l))[0]
# It computes in float32: each input is rounded (half an ulp of |x|, magnified by log(1 - e^x)'s slope
# 1 / (e^-x - 1)) and each term of the log odds carries a few ulps; log sigma is 1-Lipschitz.
f32 = np.finfo(np.float32).eps
odds_error = sum(8 * f32 * (1 + np.abs(x) * (1 - 1 / np.expm1(x)) + np.abs(np.log(-np.expm1(x))))
                 for x in (mean_w, mean_l))
check_close("ORPOTrainer(beta=lam).odds_ratio_loss(mean log-probs) = -lam L_OR per pair",
            or_terms.numpy(), -lam * l_or_card, atol=lam * np.max(odds_error))
check_true("pitfall: it returns float32 for float64 inputs", or_terms.dtype == torch.float32)
# --- end in code ---

fig, ax = figure("Log-odds vs log-probability of a response", "mean token log-probability  log P(y|x)",
                 "value")
ax.plot(lp, log_odds(lp), label="log odds  log P − log(1 − P)")
ax.plot(lp, lp, "--", label="log P")
ax.legend()

# The page's calculator is checked against orpo_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows), one-token responses carrying the mean log-probability: chosen more and
# less likely than rejected (both branches of the softplus), probabilities near 0 and near 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda lp_w, lp_l, lam: float(orpo_loss(np.array([lp_w]), np.ones(1), np.array([lp_l]),
                                                         np.ones(1), lam)),
               cardcalc.grid(lp_w=(-20.0, -1.0, -0.5, -1e-3), lp_l=(-20.0, -1.2, -0.01), lam=(0.0, 0.1, 1.0)))
