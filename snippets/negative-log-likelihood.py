"""Token NLL: vs scipy categorical log-pmf, gradient vs finite differences, uniform = log V."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import multinomial

rng = np.random.default_rng(0)
T, V = 16, 10


# --- formula ---
def nll(logits: np.ndarray, targets: np.ndarray) -> float:
    """-sum_t log p(x_t | x_<t) from logits, via a max-shifted log-softmax."""
    m = logits.max(axis=1, keepdims=True)
    log_probs = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(len(targets)), targets].sum())
# --- end formula ---


logits = rng.normal(scale=2.0, size=(T, V))
targets = rng.integers(0, V, size=T)

# 1. Against scipy: each token is a one-trial multinomial (a categorical) draw from softmax(z_t).
probs = softmax(logits, axis=1)
onehot = np.eye(V)[targets]
scipy_nll = -sum(multinomial.logpmf(onehot[t], n=1, p=probs[t]) for t in range(T))
check_close("NLL vs scipy multinomial(n=1).logpmf, summed over 16 tokens",
            nll(logits, targets), scipy_nll)

# Logits spread over [-1000, 1000] per row: the max shift keeps exp finite (a min shift would overflow);
# compare with scipy.special.log_softmax, which shifts internally.
wide = rng.uniform(-1000.0, 1000.0, size=(T, V))
check_close("logits spanning 2000 nats: NLL vs -sum scipy log_softmax(z)[t, x_t]", nll(wide, targets),
            -log_softmax(wide, axis=1)[np.arange(T), targets].sum(), rtol=1e-13)

# 2. Gradient with respect to the logits is softmax(z_t) - onehot(x_t); compare with central
# finite differences of our own loss.
eps = 1e-6
numeric = np.zeros_like(logits)
for t in range(T):
    for j in range(V):
        bumped = logits.copy()
        bumped[t, j] += eps
        up = nll(bumped, targets)
        bumped[t, j] -= 2 * eps
        numeric[t, j] = (up - nll(bumped, targets)) / (2 * eps)
check_close("dNLL/dz = softmax(z) - onehot vs finite differences", probs - onehot, numeric,
            atol=1e-7)

# 3. Known value: a model with equal logits pays log V nats per token, whatever the targets.
check_close("uniform model: NLL = T log V", nll(np.zeros((T, V)), targets), T * np.log(V))

# Per-token loss as a function of the probability given to the correct token.
p = np.logspace(-6, 0, 400)
fig, ax = figure("Per-token loss against probability of the correct token",
                 "probability assigned to the correct token", "loss  (nats)")
ax.semilogx(p, -np.log(p), color="black", label=r"$-\log p$")
for vocab, style in ((32_000, "--"), (128_000, ":")):
    ax.axvline(1 / vocab, linestyle=style, color="tab:blue",
               label=f"uniform guess, V = {vocab:,}: loss {np.log(vocab):.2f}")
ax.legend()
