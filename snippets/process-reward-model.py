"""PRM: per-step cross-entropy vs scikit-learn log_loss, extreme logits, the product solution score (exact
fractions, identity with the loss, Monte-Carlo), and best-of-N selection."""

from fractions import Fraction

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit
from sklearn.metrics import log_loss


# --- formula ---
def prm_loss(step_logits, step_labels):
    """Sum over labelled steps of binary cross-entropy; p_t = sigmoid(z_t), stable softplus form:
    -[y log p + (1 - y) log(1 - p)] = log(1 + e^z) - y z."""
    z = np.asarray(step_logits, dtype=float)
    y = np.asarray(step_labels, dtype=float)
    return float(np.sum(np.logaddexp(0.0, z) - y * z))


def prm_score(step_logits):
    """Solution score: probability that every step is correct, the product of the step probabilities."""
    z = np.asarray(step_logits, dtype=float)
    return float(np.exp(-np.sum(np.logaddexp(0.0, -z))))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Loss against scikit-learn's log_loss (summed, not averaged) on a 12-step solution.
z = rng.normal(0, 2, 12)
y = np.array([1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0])
check_close("per-step loss vs sklearn log_loss(normalize=False)", prm_loss(z, y),
            log_loss(y, expit(z), normalize=False, labels=[0, 1]), rtol=1e-10)
check_close("one step, y = 0, p = 1/4: loss = log(4/3)", prm_loss([np.log(1 / 3)], [0]), np.log(4 / 3),
            rtol=1e-12)
check_close("one step, y = 1, p = 3/4: loss = log(4/3)", prm_loss([np.log(3.0)], [1]), np.log(4 / 3),
            rtol=1e-12)

# 2. Extreme logits stay finite: confident and right costs ~0, confident and wrong costs |z|.
check_close("z = +800 on a correct step and -800 on a wrong one: loss ~ 0",
            prm_loss([800.0, -800.0], [1, 0]), 0.0, atol=1e-300)
check_close("z = -800 on a correct step: loss = 800", prm_loss([-800.0], [1]), 800.0, rtol=1e-12)

# 3. Solution score: three steps with p = 3/4 each give 27/64 exactly; the score is exp(-loss) of the
#    all-correct labelling (probability that every step is right).
three = [np.log(3.0)] * 3
check_close("three steps with p = 3/4: score = 27/64", prm_score(three), float(Fraction(27, 64)), rtol=1e-12)
check_close("score = exp(-loss with every label 1) on the 12-step solution", prm_score(z),
            np.exp(-prm_loss(z, np.ones_like(z))), rtol=1e-12)
check_close("one very unsure step (z = -800) sends the score to 0", prm_score([5.0, -800.0, 5.0]), 0.0,
            atol=1e-300)

# 4. Monte-Carlo reading: if step t is correct independently with probability p_t, the fraction of
#    simulated solutions with no wrong step matches the score (4 standard errors, 200,000 draws).
p = expit(z[:5])
ok = np.all(rng.random((200_000, 5)) < p, axis=1).mean()
s = prm_score(z[:5])
check_true("simulated all-steps-correct frequency matches the product score",
           abs(ok - s) <= 4 * np.sqrt(s * (1 - s) / 200_000), f"{ok:.5f} vs {s:.5f}")

# 5. Best-of-N with a PRM: among 16 candidate solutions, the one with the highest score is chosen; the
#    product never exceeds the weakest step, and it penalizes length (a 10-step chain of p = 0.95 scores
#    below a 2-step chain of p = 0.9).
cands = [rng.normal(2.0, 1.5, rng.integers(3, 9)) for _ in range(16)]
scores = [prm_score(c) for c in cands]
check_true("score <= min step probability for all 16 candidates",
           all(sc <= expit(c).min() + 1e-15 for sc, c in zip(scores, cands, strict=True)))
check_true("length bias: 10 steps at 0.95 score below 2 steps at 0.9",
           prm_score([np.log(19.0)] * 10) < prm_score([np.log(9.0)] * 2))

# The page's calculator is checked against prm_loss and prm_score of a one-step solution on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): both labels, logits of both signs and
# far into both tails.
import cardcalc  # noqa: E402

cardcalc.table(lambda z_t, y_t: {"L_t": prm_loss([z_t], [y_t]), "p_t": prm_score([z_t])},
               cardcalc.grid(z_t=(-800.0, -3.0, 0.0, 0.7, 40.0, 800.0), y_t=(0, 1)))


fig, ax = figure("PRM solution score vs number of steps", "number of steps T", "score = product of p_t")
T = np.arange(1, 31)
for pt in (0.8, 0.9, 0.95, 0.99):
    ax.plot(T, [prm_score([np.log(pt / (1 - pt))] * t) for t in T], label=f"p_t = {pt}")
ax.legend()
