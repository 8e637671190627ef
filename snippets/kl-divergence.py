"""KL divergence: checked against scipy, against H(P,Q) - H(P), and by Monte-Carlo sampling."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import rel_entr
from scipy.stats import entropy


# --- formula ---
def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """D_KL(P || Q) in nats; terms with P(x) = 0 contribute 0."""
    support = p > 0
    return float(np.sum(p[support] * np.log(p[support] / q[support])))
# --- end formula ---


rng = np.random.default_rng(0)
p = rng.dirichlet(np.ones(8))
q = rng.dirichlet(np.ones(8))
p_sparse = np.array([0.5, 0.5, 0.0, 0.0])
q_sparse = np.array([0.1, 0.2, 0.3, 0.4])

check_close("KL(P||Q) vs scipy.special.rel_entr", kl_divergence(p, q), rel_entr(p, q).sum())
check_close("zero-probability terms vs scipy", kl_divergence(p_sparse, q_sparse),
            rel_entr(p_sparse, q_sparse).sum())
cross_entropy = -np.sum(p * np.log(q))
check_close("KL = H(P,Q) - H(P)", kl_divergence(p, q), cross_entropy - entropy(p))
samples = rng.choice(len(p), size=400_000, p=p)
monte_carlo = np.mean(np.log(p[samples] / q[samples]))
check_close("KL vs Monte-Carlo mean of log P/Q under P", kl_divergence(p, q), monte_carlo,
            rtol=0.02)
check_true("KL >= 0 and KL(P||P) = 0", kl_divergence(p, q) > 0 and kl_divergence(p, p) == 0)
check_true("asymmetry: KL(P||Q) != KL(Q||P)",
           abs(kl_divergence(p, q) - kl_divergence(q, p)) > 1e-3,
           f"{kl_divergence(p, q):.4f} vs {kl_divergence(q, p):.4f} nats")

# --- in code: scipy ---
# scipy.stats.entropy(pk, qk) is KL(pk || qk) in nats, but it first divides each argument by its sum.
kl_scipy = entropy(p, q)
check_close("scipy.stats.entropy(P, Q) = KL(P || Q)", kl_scipy, kl_divergence(p, q))
check_close("pitfall: entropy(3P, Q) normalizes 3P back to P, so it still gives KL(P || Q)",
            entropy(3 * p, q), kl_divergence(p, q))
check_close("pitfall: base=2 gives bits, KL / ln 2", entropy(p, q, base=2), kl_divergence(p, q) / np.log(2))
# --- end in code ---

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

log_q, target = torch.tensor(np.log(q))[None, :], torch.tensor(p)[None, :]  # a batch of one row
# float64 sums of 8 terms: torch forms P (log P - log Q) where the card forms P log(P/Q), a few ulps
# of |log P| (< 5) per term apart, so 1e-12 of KL (> 0.1 here) holds with room.
check_close("F.kl_div(log Q, P, reduction='batchmean') = KL(P || Q)",
            F.kl_div(log_q, target, reduction="batchmean").item(), kl_divergence(p, q), rtol=1e-12)
check_close("pitfall: the default reduction='mean' also divides by the 8 outcomes",
            F.kl_div(log_q, target).item() * len(p), kl_divergence(p, q), rtol=1e-12)
check_close("pitfall: (log P, Q) in the card's order gives the reverse divergence KL(Q || P)",
            F.kl_div(torch.log(target), torch.exp(log_q), reduction="batchmean").item(),
            kl_divergence(q, p), rtol=1e-12)
# --- end in code ---

# Bernoulli(a) against Bernoulli(b): the divergence is zero only at a = b and blows up at the edges.
b = np.linspace(0.005, 0.995, 400)
fig, ax = figure("KL between two coins", "model probability of heads  b", "nats")
for a in (0.2, 0.5, 0.8):
    kl = a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b))
    ax.plot(b, kl, label=f"$D_{{KL}}$(Bern({a}) $\\Vert$ Bern(b))")
ax.set_ylim(0, 2.5)
ax.legend()
