"""Conditional factorization: response-only log-probs vs brute-force log p(x,y) - log p(x)."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import logsumexp

rng = np.random.default_rng(0)
V, TX, TY = 3, 2, 3  # vocabulary, prompt length, response length

# A decoder-only model over the concatenation [x; y]: one softmax per prefix of the joint string.
logits = {prefix: rng.normal(size=V) * 1.5
          for t in range(TX + TY) for prefix in itertools.product(range(V), repeat=t)}


def log_next(prefix: tuple[int, ...]) -> np.ndarray:
    z = logits[prefix]
    return z - logsumexp(z)


# --- formula ---
def log_p_y_given_x(x: tuple[int, ...], y: tuple[int, ...]) -> float:
    """sum_t log p(y_t | x, y_<t): the conditional factorization, response positions only."""
    return sum(log_next(x + y[:t])[y[t]] for t in range(len(y)))
# --- end formula ---


def log_p_full(seq: tuple[int, ...]) -> float:
    """log p of the whole concatenated string, every position scored."""
    return sum(log_next(seq[:t])[seq[t]] for t in range(len(seq)))


prompts = list(itertools.product(range(V), repeat=TX))
responses = list(itertools.product(range(V), repeat=TY))

# Independent route: brute-force Bayes. p(x) is the marginal over every possible continuation.
ours, bayes = [], []
for x in prompts:
    log_joint = np.array([log_p_full(x + y) for y in responses])
    log_px = logsumexp(log_joint)
    for y, lj in zip(responses, log_joint, strict=True):
        ours.append(log_p_y_given_x(x, y))
        bayes.append(lj - log_px)
check_close("response-only sum = log p(x,y) - log p(x) by marginalization", ours, bayes)

# For every prompt, p(. | x) is a distribution over responses.
totals = [np.exp(logsumexp([log_p_y_given_x(x, y) for y in responses])) for x in prompts]
check_close("sum over all V^TY responses of p(y|x) = 1, for each of the 9 prompts",
            totals, np.ones(len(prompts)))

# Scoring the prompt tokens too adds exactly log p(x): a constant per prompt, but it changes
# comparisons across prompts and is the quantity SFT loss masking removes.
x, y = prompts[4], responses[7]
extra = log_p_full(x + y) - log_p_y_given_x(x, y)
check_close("including prompt positions adds log p(x), the brute-force marginal", extra,
            logsumexp([log_p_full(x + r) for r in responses]))
check_true("... which is not zero", extra < -0.1, f"log p(x) = {extra:.3f} nats")
