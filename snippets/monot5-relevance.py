"""monoT5 score: the softmax restricted to the "true" and "false" tokens against scipy's log_softmax of
the two logits and log_expit of their difference, its invariance to every other token's logit, how the
full-vocabulary probability ranks differently, and stability at logits of +-1000."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_expit, log_softmax
from scipy.stats import kendalltau


# --- formula ---
# few mutants: t - logaddexp(t, f), two logits picked by id: a minus, a log-sum-exp, two ids
def monot5_log_score(logits, true_id: int, false_id: int):
    """log P(true | q, d) with the softmax taken over the 'true' and 'false' logits only."""
    t = logits[..., true_id]
    f = logits[..., false_id]
    return t - np.logaddexp(t, f)
# --- end formula ---


rng = np.random.default_rng(0)
V, TRUE, FALSE = 200, 17, 42        # a 200-token toy vocabulary; ids of "true" and "false"
n = 32

# Decoder logits at the first output step for the 32 toy documents and query q2: the true-vs-false
# margin follows the dense similarity; every other token gets unrelated noise of varying spread.
margin = 10 * (tc.doc_embeddings() @ tc.query_embedding("q2"))
logits = rng.normal(0, 1, (n, V)) * rng.uniform(0.5, 3, (n, 1))
logits[:, FALSE] = rng.normal(0, 1, n)
logits[:, TRUE] = logits[:, FALSE] + margin

score = monot5_log_score(logits, TRUE, FALSE)
check_close("32 documents: score vs scipy log_softmax over the two logits (true, false)", score,
            log_softmax(logits[:, [TRUE, FALSE]], axis=1)[:, 0], rtol=1e-12)
check_close("score = log sigmoid(z_true - z_false) (scipy log_expit)", score,
            log_expit(logits[:, TRUE] - logits[:, FALSE]), rtol=1e-12)

# Only the two logits matter: shifting all logits, or changing any other token's, changes nothing.
other = logits.copy()
other[:, [t for t in range(V) if t not in (TRUE, FALSE)]] *= 5
check_close("invariant to a common shift of all logits and to every other token's logit",
            [monot5_log_score(logits + 17.0, TRUE, FALSE), monot5_log_score(other, TRUE, FALSE)],
            [score, score], rtol=1e-12)

# The full-vocabulary probability of "true" is a different score: it also depends on how much mass
# the other 198 tokens take, so it ranks the documents differently.
full = log_softmax(logits, axis=1)[:, TRUE]
tau_restricted = kendalltau(score, margin).statistic
tau_full = kendalltau(full, margin).statistic
check_true("restricted softmax ranks exactly by the true-false margin; full-vocabulary log p(true) does not",
           np.isclose(tau_restricted, 1.0) and tau_full < 0.9,
           f"Kendall tau with the margin: restricted {tau_restricted:.3f}, full vocabulary {tau_full:.3f}")

# Extreme logits (exp overflows): the log-probability must be 0 or the negative margin.
ext = np.zeros((3, V))
ext[0, [TRUE, FALSE]] = [1000.0, -1000.0]
ext[1, [TRUE, FALSE]] = [-1000.0, 1000.0]
ext[2, [TRUE, FALSE]] = [3.0, 3.0]
check_close("logits (1000, -1000), (-1000, 1000), (3, 3): log P(true) = 0, -2000, log 1/2",
            monot5_log_score(ext, TRUE, FALSE), [0.0, -2000.0, np.log(0.5)], rtol=1e-12, atol=1e-300)

# The page's calculator is checked against monot5_log_score on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): margins of both signs, a tie and logits of ±1000.
import cardcalc  # noqa: E402


def score_of(z_true, z_false):
    s = float(monot5_log_score(np.array([z_true, z_false]), 0, 1))
    return {"s": s, "P": float(np.exp(s))}


cardcalc.table(score_of, cardcalc.grid(z_true=(-1000.0, -3.0, 0.0, 2.5, 1000.0), z_false=(-1000.0, 0.5, 3.0)))


fig, ax = figure("monoT5 score vs full-vocabulary probability (toy query q2)",
                 "margin  z_true − z_false", "log P(true)")
ax.plot(margin, score, "o", ms=4, label="softmax over {true, false} (monoT5)")
ax.plot(margin, full, "s", ms=4, label="softmax over the whole vocabulary")
ax.legend()
