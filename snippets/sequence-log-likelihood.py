"""Sequence log-likelihood: vs log of the product, and vs a 60-digit Decimal past float64 underflow."""

from decimal import Decimal, getcontext

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, softmax

rng = np.random.default_rng(0)
V, T = 50, 400


# --- formula ---
def sequence_log_likelihood(logits: np.ndarray, tokens: np.ndarray) -> float:
    """sum_t (z_{t, x_t} - log sum_j exp z_{t, j}), with the max subtracted for stability."""
    m = logits.max(axis=1, keepdims=True)
    log_norm = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return float(np.sum(logits[np.arange(len(tokens)), tokens] - log_norm))
# --- end formula ---


# Logits for each step and a sequence sampled from the model itself (a typical continuation).
logits = rng.normal(scale=2.0, size=(T, V))
probs = softmax(logits, axis=1)
tokens = np.array([rng.choice(V, p=p) for p in probs])
token_probs = probs[np.arange(T), tokens]

# 1. Short prefix: the naive product of probabilities is still representable, so its log agrees.
short = 20
check_close("sum of log-probs = log of product (first 20 tokens)",
            sequence_log_likelihood(logits[:short], tokens[:short]),
            np.log(np.prod(token_probs[:short])))

# 2. Full sequence: the float64 product underflows to exactly 0, the sum of logs does not.
naive = np.prod(token_probs)
ll = sequence_log_likelihood(logits, tokens)
check_true("naive float64 product underflows to 0", naive == 0.0,
           f"product = {naive}, log-likelihood = {ll:.2f} nats")
getcontext().prec = 60
exact = Decimal(1)
for p in token_probs:
    exact *= Decimal(float(p))  # exact binary value of each float64 probability
check_close("log-likelihood vs ln of a 60-digit Decimal product", ll, float(exact.ln()), rtol=1e-12)

# 3. Logits spread over [-1000, 1000]: only the max shift keeps every exp finite. Against scipy's
#    log_softmax, which does its own shifting.
wide = rng.uniform(-1000.0, 1000.0, size=(T, V))
check_close("logits spanning 2000 nats vs summed scipy.special.log_softmax",
            sequence_log_likelihood(wide, tokens), log_softmax(wide, axis=1)[np.arange(T), tokens].sum(),
            rtol=1e-13)

# Where the naive product would hit zero: the running log-likelihood crosses log(smallest subnormal).
running = np.cumsum(np.log(token_probs))
t_axis = np.arange(1, T + 1)
fig, ax = figure("Running log-likelihood of one sampled sequence", "tokens scored  $t$",
                 r"$\log p(x_{1:t})$  (nats)")
ax.plot(t_axis, running, color="black", label="sum of log-probabilities")
for dtype, style in ((np.float32, "--"), (np.float64, ":")):
    floor = np.log(float(np.finfo(dtype).smallest_subnormal))
    first = int(np.argmax(running < floor)) + 1
    ax.axhline(floor, linestyle=style, color="tab:red",
               label=f"{np.dtype(dtype).name} product underflows (t = {first})")
ax.legend(loc="lower left")
