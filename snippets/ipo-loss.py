"""IPO loss: vs probabilities computed directly, finite-difference gradient, the 1/(2 tau) target, and the
population minimizer against the closed-form IPO optimum pi_ref exp(p(y > mu) / tau) / Z."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax


# --- formula ---
def ipo_loss(logp_w, logp_l, ref_w, ref_l, tau):
    """Per-pair (h - 1/(2 tau))^2 with h = log [pi(y_w) pi_ref(y_l) / (pi(y_l) pi_ref(y_w))]."""
    h = (logp_w - ref_w) - (logp_l - ref_l)
    return (h - 1 / (2 * tau)) ** 2
# --- end formula ---


rng = np.random.default_rng(0)
tau = 0.1

# 1. Against probabilities: four pairs of responses with explicit sequence probabilities (products of
#    token probabilities), the log of the four-way ratio taken directly.
tok = rng.uniform(0.05, 0.95, size=(4, 4, 6))  # (pair, [pi_w, pi_l, ref_w, ref_l], tokens)
p = tok.prod(axis=2)
direct = (np.log(p[:, 0] * p[:, 3] / (p[:, 1] * p[:, 2])) - 5.0) ** 2
lp = np.log(tok).sum(axis=2)
check_close("IPO loss from log-probs vs the ratio of probabilities", ipo_loss(lp[:, 0], lp[:, 1], lp[:, 2],
            lp[:, 3], tau), direct, rtol=1e-10)

# 2. The target margin: the loss is zero exactly when h = 1/(2 tau) (= 5 for tau = 0.1) and
#    (h - 5)^2 around it, by hand: h = 0 (policy = reference) gives 25; h = 7 gives 4.
check_close("hand values: h = 0, 5, 7 with tau = 0.1 -> 25, 0, 4",
            ipo_loss(np.array([0.0, 5.0, 7.0]), 0.0, 0.0, 0.0, tau), [25.0, 0.0, 4.0], rtol=1e-12)
check_close("tau = 0.5: target margin 1, loss at h = 0 is 1", ipo_loss(0.0, 0.0, 0.0, 0.0, 0.5), 1.0,
            rtol=1e-12)

# 3. Gradient in the policy log-probs: +2(h - c) for the chosen, -2(h - c) for the rejected response;
#    the reference log-probs carry the opposite signs. Central finite differences.
x0 = np.array([-3.1, -4.7, -3.5, -4.0])
h_eps = 1e-6
fd = np.array([(ipo_loss(*(x0 + h_eps * e), tau) - ipo_loss(*(x0 - h_eps * e), tau)) / (2 * h_eps)
               for e in np.eye(4)])
g = 2 * ((x0[0] - x0[2]) - (x0[1] - x0[3]) - 5.0)
check_close("gradient (+2(h-c), -2(h-c), -2(h-c), +2(h-c)) vs finite differences", fd, [g, -g, -g, g],
            rtol=1e-6)

# 4. Population minimizer. Four responses, reference pi_ref, behaviour policy mu (not uniform), and a
#    preference matrix P[i, j] = P(y_i > y_j) that is not Bradley-Terry. Pairs (y, y') are drawn
#    from mu x mu and the winner from P; minimize the expected IPO loss over free logits.
#    Azar et al. (Sec. 5) give the optimum: pi* proportional to pi_ref exp(p(y > mu) / tau), where
#    p(y > mu) = sum_y' mu(y') P(y > y').
n = 4
ref = log_softmax(rng.normal(size=n))
mu = np.array([0.1, 0.2, 0.3, 0.4])
A = rng.uniform(size=(n, n))
P = np.triu(A, 1) + np.tril(1 - A.T, -1) + 0.5 * np.eye(n)
ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
wpair = np.outer(mu, mu)


def expected_loss(theta):
    lp_ = log_softmax(theta)
    win_i = ipo_loss(lp_[ii], lp_[jj], ref[ii], ref[jj], tau)
    win_j = ipo_loss(lp_[jj], lp_[ii], ref[jj], ref[ii], tau)
    return float(np.sum(wpair * (P * win_i + (1 - P) * win_j)))


fit = minimize(expected_loss, np.zeros(n), method="BFGS", options={"gtol": 1e-11}).x
closed = softmax(ref + (P @ mu) / tau)
check_close("IPO minimizer = pi_ref exp(p(y > mu) / tau) / Z (Azar et al.)", softmax(fit), closed,
            atol=1e-6)
check_true("the optimum keeps every response (no collapse to the best one)", bool(softmax(fit).min() > 1e-3),
           f"smallest probability {softmax(fit).min():.3f}")

# --- in code: trl ---
import trl_fixture  # noqa: E402

# Three pairs through two random tiny language models, the policy and the reference (s: each
# completion's summed token log-probabilities and its token count).
pairs = trl_fixture.preference_batch()
s = trl_fixture.pair_logps(pairs)
# TRL divides each log-ratio by its completion's token count before taking the margin.
card_on_means = ipo_loss(*s.means(), tau)
margin_on_means = (s.policy_w - s.ref_w) / s.len_w - (s.policy_l - s.ref_l) / s.len_l
# TRL scores tokens in float32: a margin off by d moves (h - c)^2 by at most 2 |h - c| d + d^2, and the
# per-token means are off by less than the sums' bound.
d = s.margin_error
trl_ipo = trl_fixture.dpo_trainer_loss(pairs, loss_type="ipo", beta=tau)
check_close("DPOTrainer(loss_type='ipo', beta=tau) = L_IPO on per-token mean log-ratios", trl_ipo,
            np.mean(card_on_means), atol=np.mean(2 * np.abs(margin_on_means - 1 / (2 * tau)) * d + d**2))
card_on_sums = np.mean(ipo_loss(*s.sums(), tau))
check_true("pitfall: the card's summed log-ratios give another loss", abs(trl_ipo - card_on_sums) > 0.1,
           f"TRL {trl_ipo:.4f}, on sums {card_on_sums:.4f}")
# --- end in code ---

m = np.linspace(-4, 12, 400)
fig, ax = figure("IPO vs DPO loss on one pair (τ = β = 0.1)", "log-ratio margin h", "loss")
ax.plot(m, ipo_loss(m, 0.0, 0.0, 0.0, tau), label="IPO  (h − 1/(2τ))²")
ax.plot(m, np.logaddexp(0.0, -0.1 * m), label="DPO  −log σ(βh)")
ax.axvline(5.0, color="gray", ls=":", label="IPO target 1/(2τ) = 5")
ax.set_ylim(0, 10)
ax.legend()

# The page's calculator is checked against ipo_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): margins below, at and above the target 1/(2 tau).
import cardcalc  # noqa: E402

cardcalc.table(lambda logp_w, logp_l, ref_w, ref_l, tau: float(ipo_loss(logp_w, logp_l, ref_w, ref_l, tau)),
               cardcalc.grid(logp_w=(-60.0, -39.0, -20.0), logp_l=(-45.0, -10.0), ref_w=(-42.0, -30.0),
                             ref_l=(-43.0, -50.0), tau=(0.1, 0.5, 10.0)))
