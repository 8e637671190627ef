"""Reverse KL: checked against scipy rel_entr(Q, P), and its mode-seeking fit to a bimodal target."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import rel_entr


# --- formula ---
def reverse_kl(q: np.ndarray, p: np.ndarray) -> float:
    """D_KL(Q || P) in nats: the expectation is under the model Q; terms with Q(x) = 0 contribute 0."""
    support = q > 0
    return float(np.sum(q[support] * np.log(q[support] / p[support])))
# --- end formula ---


rng = np.random.default_rng(0)
p = rng.dirichlet(np.ones(8))
q = rng.dirichlet(np.ones(8))
check_close("KL(Q||P) vs scipy rel_entr(Q, P)", reverse_kl(q, p), rel_entr(q, p).sum())
q_sparse = np.array([0.0, 0.5, 0.0, 0.3, 0.2, 0.0, 0.0, 0.0])  # the model ignores part of P's support
check_close("a model with zeros: the Q(x) = 0 terms count 0 (vs scipy rel_entr)", reverse_kl(q_sparse, p),
            rel_entr(q_sparse, p).sum(), rtol=1e-12)
forward = rel_entr(p, q).sum()
check_true("reverse differs from forward KL(P||Q)", abs(reverse_kl(q, p) - forward) > 1e-3,
           f"reverse {reverse_kl(q, p):.4f} vs forward {forward:.4f} nats")

# Target P: an equal mixture of N(-3, 1) and N(3, 1), discretized on a grid.
# Model family Q: a single discretized Gaussian N(mu, sigma^2); fit both directions by grid search.
x = np.linspace(-10, 10, 801)


def gaussian(mu, sigma):
    w = np.exp(-0.5 * ((x - mu) / sigma) ** 2)
    return w / w.sum()


target = 0.5 * gaussian(-3.0, 1.0) + 0.5 * gaussian(3.0, 1.0)
mus = np.linspace(-5, 5, 201)
sigmas = np.linspace(0.4, 5.0, 93)
rev = np.empty((mus.size, sigmas.size))
fwd = np.empty_like(rev)
for i, mu in enumerate(mus):
    for j, s in enumerate(sigmas):
        model = gaussian(mu, s)
        rev[i, j] = reverse_kl(model, target)
        fwd[i, j] = rel_entr(target, model).sum()
i_r, j_r = np.unravel_index(rev.argmin(), rev.shape)
i_f, j_f = np.unravel_index(fwd.argmin(), fwd.shape)
mu_r, s_r, mu_f, s_f = mus[i_r], sigmas[j_r], mus[i_f], sigmas[j_f]

check_true("reverse-KL optimum sits on one mode (|mu| = 3, sigma = 1)",
           abs(abs(mu_r) - 3.0) <= 0.1 and abs(s_r - 1.0) <= 0.1,
           f"mu = {mu_r:+.2f}, sigma = {s_r:.2f}")
# Forward KL over a Gaussian family matches moments: mean 0, variance 1 + 3^2 = 10.
mean = np.sum(x * target)
std = np.sqrt(np.sum((x - mean) ** 2 * target))
check_close("forward-KL optimum matches the target's mean and std (grid step 0.05)",
            [mu_f, s_f], [mean, std], atol=0.05)

fig, ax = figure("Fitting one Gaussian to two modes", "x", "probability mass per grid cell")
ax.plot(x, target, color="black", label="target P (mixture)")
ax.plot(x, gaussian(mu_f, s_f), "--", label=f"argmin KL(P||Q): mean {mu_f:.1f}, sd {s_f:.2f}")
ax.plot(x, gaussian(mu_r, s_r), ":", label=f"argmin KL(Q||P): mean {mu_r:.1f}, sd {s_r:.2f}")
ax.legend(fontsize=8)
