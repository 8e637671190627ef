"""Entropy: checked against scipy (nats, bits), known values, the log V maximum, and Monte-Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import entropy as scipy_entropy


# --- formula ---
def entropy(p: np.ndarray, base: float = np.e) -> float:
    """H(P) = -sum_x P(x) log P(x); terms with P(x) = 0 count as 0 (the limit of t log t)."""
    s = p > 0
    return float(-np.sum(p[s] * np.log(p[s])) / np.log(base))
# --- end formula ---


rng = np.random.default_rng(0)
V = 16
p = rng.dirichlet(np.ones(V))

check_close("H(P) in nats vs scipy.stats.entropy", entropy(p), scipy_entropy(p), rtol=1e-12)
check_close("H(P) in bits vs scipy.stats.entropy(base=2)", entropy(p, base=2),
            scipy_entropy(p, base=2), rtol=1e-12)
check_close("fair coin = 1 bit, fair die = log2 6 bits, [1/2, 1/4, 1/8, 1/8] = 1.75 bits",
            [entropy(np.full(2, 0.5), 2), entropy(np.full(6, 1 / 6), 2),
             entropy(np.array([0.5, 0.25, 0.125, 0.125]), 2)],
            [1.0, np.log2(6), 1.75], rtol=1e-12)
check_close("zero-probability outcomes add nothing: H([1/2, 1/2, 0, 0]) = 1 bit",
            entropy(np.array([0.5, 0.5, 0.0, 0.0]), 2), 1.0, rtol=1e-12)

# Maximum at the uniform distribution: H = log V, and no other distribution reaches it.
many = rng.dirichlet(np.full(V, 0.5), size=2000)
h_many = np.array([entropy(q) for q in many])
check_close("uniform over V outcomes gives log V", entropy(np.full(V, 1 / V)), np.log(V),
            rtol=1e-12)
check_true("2000 random distributions all have 0 <= H < log V",
           bool(np.all((h_many >= 0) & (h_many < np.log(V)))),
           f"largest {h_many.max():.4f} < log V = {np.log(V):.4f} nats")

samples = rng.choice(V, size=400_000, p=p)
check_close("H(P) vs Monte-Carlo mean surprisal -log P(x), x ~ P (400k draws)", entropy(p),
            np.mean(-np.log(p[samples])), rtol=0.01)

# --- in code: scipy ---
# scipy.stats.entropy(P) is H(P) in nats; sums of 16 float64 terms: 1e-12.
check_close("scipy.stats.entropy(P, base=2) = H(P) in bits", scipy_entropy(p, base=2), entropy(p, 2),
            rtol=1e-12)
counts = rng.multinomial(1000, p)
check_close("pitfall: entropy(counts) first divides by their sum, giving H(counts / n)",
            scipy_entropy(counts), entropy(counts / counts.sum()), rtol=1e-12)
# Logits are normalized the same way, by their sum, not by softmax: the number is not H(softmax(z)).
logits = np.array([1.0, 2.0, 3.0])
softmax_logits = np.exp(logits) / np.exp(logits).sum()
check_close("pitfall: entropy(z) of positive logits is H(z / sum z), not H(softmax(z))",
            scipy_entropy(logits), entropy(logits / logits.sum()), rtol=1e-12)
check_true("pitfall: ... which differs from H(softmax(z))",
           abs(scipy_entropy(logits) - entropy(softmax_logits)) > 0.1,
           f"{scipy_entropy(logits):.4f} vs {entropy(softmax_logits):.4f} nats")
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402
from torch.distributions import Categorical  # noqa: E402

# Categorical(...).entropy() in float64: sums of at most 16 terms, 1e-12.
check_close("Categorical(probs=P).entropy() = H(P) in nats",
            Categorical(probs=torch.tensor(p)).entropy().item(), entropy(p), rtol=1e-12)
check_close("Categorical(logits=z).entropy() = H(softmax(z))",
            Categorical(logits=torch.tensor(logits)).entropy().item(), entropy(softmax_logits),
            rtol=1e-12)
check_close("pitfall: Categorical(z) takes its first argument as probabilities: H(z / sum z)",
            Categorical(torch.tensor(logits)).entropy().item(), entropy(logits / logits.sum()),
            rtol=1e-12)
# --- end in code ---

# Binary entropy: 1 bit at a fair coin, 0 at a certain outcome.
a = np.linspace(0, 1, 401)
fig, ax = figure("Binary entropy function", "probability of heads  a", "H (bits)")
ax.plot(a, [entropy(np.array([t, 1 - t]), 2) for t in a])
ax.axhline(1.0, color="gray", lw=0.8, ls="--")
ax.set_xlim(0, 1)
ax.set_ylim(0, 1.05)
