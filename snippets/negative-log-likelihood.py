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

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# F.nll_loss takes log-probabilities (T, V) and target indices; float64 sums of 16 terms, each a
# few ulps of |log p| (< 10) apart from the card's shifted log-softmax: 1e-12 of the NLL (> 10).
log_probs, target_ids = torch.log_softmax(torch.tensor(logits), dim=1), torch.tensor(targets)
check_close("F.nll_loss(log_softmax(z), x, reduction='sum') = NLL",
            F.nll_loss(log_probs, target_ids, reduction="sum").item(), nll(logits, targets), rtol=1e-12)
check_close("pitfall: the default reduction='mean' divides by the 16 tokens",
            F.nll_loss(log_probs, target_ids).item() * T, nll(logits, targets), rtol=1e-12)
check_close("pitfall: raw logits into nll_loss give -sum z[t, x_t], not normalized by log-sum-exp",
            F.nll_loss(torch.tensor(logits), target_ids, reduction="sum").item(),
            -logits[np.arange(T), targets].sum(), rtol=1e-12)
# ignore_index=-100 drops a padded position from the sum and from the mean's count.
padded = target_ids.clone()
padded[-1] = -100
check_close("pitfall: a target of -100 (ignore_index) leaves the mean over the other 15 tokens",
            F.nll_loss(log_probs, padded).item(), nll(logits[:-1], targets[:-1]) / (T - 1), rtol=1e-12)
# --- end in code ---

# Per-token loss as a function of the probability given to the correct token.
p = np.logspace(-6, 0, 400)
fig, ax = figure("Per-token loss against probability of the correct token",
                 "probability assigned to the correct token", "loss  (nats)")
ax.semilogx(p, -np.log(p), color="black", label=r"$-\log p$")
for vocab, style in ((32_000, "--"), (128_000, ":")):
    ax.axvline(1 / vocab, linestyle=style, color="tab:blue",
               label=f"uniform guess, V = {vocab:,}: loss {np.log(vocab):.2f}")
ax.legend()
