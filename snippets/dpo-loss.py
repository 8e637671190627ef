"""DPO loss: paper gradient vs finite differences, log 2 at pi_ref, minimizer vs pi_ref exp(r/beta)/Z."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import expit, log_softmax, softmax


# --- formula ---
def dpo_loss(logp_w, logp_l, ref_logp_w, ref_logp_l, beta: float) -> float:
    """Mean of -log sigma(beta * [(log pi_w - log ref_w) - (log pi_l - log ref_l)])."""
    margin = beta * ((logp_w - ref_logp_w) - (logp_l - ref_logp_l))
    return float(np.mean(np.logaddexp(0.0, -margin)))
# --- end formula ---


rng = np.random.default_rng(0)
n_resp, beta = 6, 0.5
ref_logp = log_softmax(rng.normal(size=n_resp))
# A tabular policy over n_resp whole responses to one prompt: pi_theta = softmax(theta).
w = rng.integers(0, n_resp, 500)
l_ = (w + rng.integers(1, n_resp, 500)) % n_resp


def loss_theta(theta: np.ndarray) -> float:
    lp = log_softmax(theta)
    return dpo_loss(lp[w], lp[l_], ref_logp[w], ref_logp[l_], beta)


# 1. At pi_theta = pi_ref every margin is 0, so the loss is log 2.
check_close("loss at the reference policy = log 2", loss_theta(ref_logp.copy()), np.log(2))

# 2. Gradient from the paper: -beta E[ sigma(r_l - r_w) (grad log pi(y_w) - grad log pi(y_l)) ],
#    with implicit rewards r = beta log(pi / pi_ref) and grad_theta log pi(y) = onehot(y) - pi.
theta = rng.normal(size=n_resp)
lp, pi = log_softmax(theta), softmax(theta)
r_hat = beta * (lp - ref_logp)
eye = np.eye(n_resp)
grad = -beta * np.mean(expit(r_hat[l_] - r_hat[w])[:, None] * ((eye[w] - pi) - (eye[l_] - pi)),
                       axis=0)
h = 1e-6
fd = np.array([(loss_theta(theta + h * e) - loss_theta(theta - h * e)) / (2 * h) for e in eye])
check_close("paper's gradient vs central finite differences", grad, fd, rtol=1e-5, atol=1e-9)

# 3. With every pair labelled in proportion to Bradley–Terry under a true reward r, the minimizer
#    of the expected DPO loss is the KL-regularized optimum pi_ref exp(r / beta) / Z.
r_true = rng.normal(size=n_resp)
i, j = np.triu_indices(n_resp, 1)
p_ij = expit(r_true[i] - r_true[j])  # probability that i is preferred to j


def expected_loss(theta: np.ndarray) -> float:
    lp = log_softmax(theta)
    return p_ij @ np.array([dpo_loss(lp[a], lp[b], ref_logp[a], ref_logp[b], beta)
                            for a, b in zip(i, j, strict=True)]) + (1 - p_ij) @ np.array(
        [dpo_loss(lp[b], lp[a], ref_logp[b], ref_logp[a], beta) for a, b in zip(i, j, strict=True)])


fit = minimize(expected_loss, np.zeros(n_resp), method="BFGS", options={"gtol": 1e-10}).x
check_close("DPO minimizer vs closed-form optimal policy", softmax(fit),
            softmax(ref_logp + r_true / beta), atol=1e-5)

# --- in code: trl ---
import trl_fixture  # noqa: E402

# Three pairs through two random tiny language models, the policy and the reference; log pi(y | x)
# is the sum of the completion's token log-probabilities (s below).
pairs = trl_fixture.preference_batch()
s = trl_fixture.pair_logps(pairs)
card_dpo = dpo_loss(*s.sums(), beta)
# TRL scores tokens in float32; -log sigma is 1-Lipschitz, so the loss moves by at most beta times the
# mean bound on the margins.
trl_atol = beta * np.mean(s.margin_error)
check_close("DPOTrainer(beta=0.5).compute_loss = L_DPO on summed token log-probs",
            trl_fixture.dpo_trainer_loss(pairs, beta=beta), card_dpo, atol=trl_atol)
check_close("pitfall: label_smoothing=0.1 leaves loss_type='sigmoid' unchanged (it is not cDPO)",
            trl_fixture.dpo_trainer_loss(pairs, beta=beta, label_smoothing=0.1), card_dpo, atol=trl_atol)
# cDPO would mix in the flipped label, (1 - eps) L(h) + eps L(-h): visibly another number.
margin_h = (s.policy_w - s.ref_w) - (s.policy_l - s.ref_l)
cdpo = np.mean(0.9 * np.logaddexp(0.0, -beta * margin_h) + 0.1 * np.logaddexp(0.0, beta * margin_h))
check_true("pitfall: ... while cDPO at eps = 0.1 would differ", abs(cdpo - card_dpo) > 1e-3)
# loss_type='robust' reads label_smoothing, but as rDPO: [(1 - eps) L(h) - eps L(-h)] / (1 - 2 eps);
# each of its two terms moves by at most beta times the margin's error, over 1 - 2 eps.
rdpo = np.mean(0.9 * np.logaddexp(0.0, -beta * margin_h) - 0.1 * np.logaddexp(0.0, beta * margin_h)) / 0.8
check_close("pitfall: loss_type='robust' with label_smoothing=0.1 is rDPO, not cDPO",
            trl_fixture.dpo_trainer_loss(pairs, beta=beta, loss_type="robust", label_smoothing=0.1), rdpo,
            atol=trl_atol / 0.8)
check_close("pitfall: loss_type='sigmoid_norm' averages log-ratios over each completion's tokens",
            trl_fixture.dpo_trainer_loss(pairs, beta=beta, loss_type="sigmoid_norm"),
            dpo_loss(*s.means(), beta),
            atol=trl_atol)
# --- end in code ---

m = np.linspace(-5, 5, 300)
fig, ax = figure("DPO loss and gradient weight", "implicit reward margin  r̂(y_w) - r̂(y_l)",
                 "value")
ax.plot(m, np.logaddexp(0.0, -m), label=r"loss $-\log\sigma(m)$")
ax.plot(m, expit(-m), label=r"gradient weight $\sigma(-m)$")
ax.legend()

# The page's calculator is checked against dpo_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): margins of both signs, small and large, so both branches of the stable
# softplus are taken.
import cardcalc  # noqa: E402

cardcalc.table(lambda logp_w, logp_l, ref_w, ref_l, beta: dpo_loss(logp_w, logp_l, ref_w, ref_l, beta),
               cardcalc.grid(logp_w=(-60.0, -40.0, -20.0), logp_l=(-45.0, -10.0), ref_w=(-42.0, -30.0),
                             ref_l=(-43.0, -50.0), beta=(0.1, 1.0)))
