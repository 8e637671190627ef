"""ORM: cross-entropy on final-answer correctness vs scikit-learn, extremes, proper-scoring (the best constant
prediction is the empirical solve rate), token-level labels, and best-of-N with the last-token score."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.metrics import log_loss


# --- formula ---
def orm_loss(logits, outcome):
    """Mean binary cross-entropy of correctness predictions against the final-answer label(s):
    -[y log p + (1 - y) log(1 - p)] with p = sigmoid(z), computed as log(1 + e^z) - y z."""
    z = np.asarray(logits, dtype=float)
    y = np.broadcast_to(np.asarray(outcome, dtype=float), z.shape)
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def orm_score(token_logits):
    """Solution score: the verifier's correctness probability at the final token."""
    return float(np.exp(-np.logaddexp(0.0, -token_logits[-1])))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. One prediction per solution, 400 solutions: against scikit-learn's mean log_loss.
z = rng.normal(0, 2, 400)
y = (rng.random(400) < expit(z)).astype(int)
check_close("mean ORM loss vs sklearn log_loss", orm_loss(z, y), log_loss(y, expit(z), labels=[0, 1]),
            rtol=1e-10)
check_close("y = 1, p = 3/4: loss = log(4/3)", orm_loss(np.log(3.0), 1), np.log(4 / 3), rtol=1e-12)
check_close("y = 0, p = 3/4: loss = log 4", orm_loss(np.log(3.0), 0), np.log(4.0), rtol=1e-12)

# 2. Extremes: z = +-800 finite.
check_close("z = -800 for a correct solution costs 800", orm_loss(-800.0, 1), 800.0, rtol=1e-12)
check_close("z = +800 for a correct solution costs ~0", orm_loss(800.0, 1), 0.0, atol=1e-300)

# 3. Proper scoring: for a problem the generator solves 37 times out of 100, the constant prediction
#    minimizing the ORM loss is p = 0.37 (scipy minimize_scalar over the logit).
labels = np.r_[np.ones(37), np.zeros(63)]
best = minimize_scalar(lambda t: orm_loss(np.full(100, t), labels), bounds=(-10, 10), method="bounded",
                       options={"xatol": 1e-10})
check_close("loss-minimizing constant probability equals the solve rate 0.37", expit(best.x), 0.37, rtol=1e-6)

# 4. Token-level verifier (Cobbe et al.): the same outcome label at every token position; with all
#    logits equal it reduces to the single-prediction loss.
check_close("token-level labels, equal logits: same as one prediction",
            orm_loss(np.full(25, 0.7), 1), orm_loss(0.7, 1), rtol=1e-12)
check_close("token-level loss is the average over positions",
            orm_loss([0.0, np.log(3.0)], 1), (np.log(2.0) + np.log(4 / 3)) / 2, rtol=1e-12)

# 5. Best-of-N: 8 candidates with token-level predictions; the score is the last-token probability.
cands = [rng.normal(0, 1, 6) for _ in range(8)]
picked = int(np.argmax([orm_score(c) for c in cands]))
check_true("best-of-8 picks the candidate with the largest final-token logit",
           picked == int(np.argmax([c[-1] for c in cands])))
check_close("score = sigmoid(final logit) (scipy expit)", [orm_score(c) for c in cands],
            expit([c[-1] for c in cands]), rtol=1e-12)
check_close("score stays finite for a final logit of -800: exp(-800)", orm_score(np.array([0.0, -800.0])),
            np.exp(-800.0), rtol=1e-12)

# The page's calculator is checked against orm_loss and orm_score on this grid (cardcalc; the build runs
# the card's JavaScript on the same rows): both labels, logits of both signs, zero and far into both tails.
import cardcalc  # noqa: E402

cardcalc.table(lambda z, y: {"L": orm_loss(z, y), "p": orm_score(np.array([z]))},
               cardcalc.grid(z=(-800.0, -3.0, 0.0, 0.7, 40.0, 800.0), y=(0, 1)))


fig, ax = figure("ORM loss for a correct and an incorrect solution", "verifier logit z", "loss")
zz = np.linspace(-6, 6, 200)
ax.plot(zz, [orm_loss(v, 1) for v in zz], label="final answer correct (y = 1)")
ax.plot(zz, [orm_loss(v, 0) for v in zz], label="final answer wrong (y = 0)")
ax.legend()
