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

# Bernoulli(a) against Bernoulli(b): the divergence is zero only at a = b and blows up at the edges.
b = np.linspace(0.005, 0.995, 400)
fig, ax = figure("KL between two coins", "model probability of heads  b", "nats")
for a in (0.2, 0.5, 0.8):
    kl = a * np.log(a / b) + (1 - a) * np.log((1 - a) / (1 - b))
    ax.plot(b, kl, label=f"$D_{{KL}}$(Bern({a}) $\\Vert$ Bern(b))")
ax.set_ylim(0, 2.5)
ax.legend()
