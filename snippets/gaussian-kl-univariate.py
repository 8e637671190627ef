"""Gaussian KL (1-D and diagonal): checked against scipy quad integration and the full-covariance formula."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.stats import norm


# --- formula ---
def kl_diag(mu1, s1, mu2, s2) -> float:
    """D_KL(N(mu1, diag s1^2) || N(mu2, diag s2^2)) in nats: the 1-D formula summed over dimensions."""
    mu1, s1, mu2, s2 = map(np.atleast_1d, (mu1, s1, mu2, s2))
    return float(np.sum(np.log(s2 / s1) + (s1**2 + (mu1 - mu2) ** 2) / (2 * s2**2) - 0.5))
# --- end formula ---


def kl_by_quadrature(mu1, s1, mu2, s2) -> float:
    """Integrate p log(p/q) over the real line numerically."""
    p, q = norm(mu1, s1), norm(mu2, s2)
    value, _ = quad(lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), -np.inf, np.inf)
    return value


cases = [(0.0, 1.0, 0.0, 1.0), (0.3, 0.5, -1.0, 2.0), (2.0, 3.0, 0.0, 1.0), (-1.0, 0.2, 0.5, 0.7)]
for mu1, s1, mu2, s2 in cases:
    check_close(f"1-D KL(N({mu1},{s1}²) || N({mu2},{s2}²)) vs scipy quad",
                kl_diag(mu1, s1, mu2, s2), kl_by_quadrature(mu1, s1, mu2, s2), rtol=1e-7, atol=1e-12)

# Diagonal d-dim: the per-dimension sum must equal the full-covariance formula.
rng = np.random.default_rng(0)
d = 5
m1, m2 = rng.normal(size=d), rng.normal(size=d)
v1, v2 = rng.uniform(0.2, 3, size=d), rng.uniform(0.2, 3, size=d)
full = 0.5 * (np.sum(v1 / v2) + np.sum((m2 - m1) ** 2 / v2) - d + np.log(np.prod(v2) / np.prod(v1)))
check_close("diagonal sum vs full-covariance formula", kl_diag(m1, np.sqrt(v1), m2, np.sqrt(v2)),
            full, rtol=1e-12)
forward, backward = kl_diag(0.3, 0.5, -1.0, 2.0), kl_diag(-1.0, 2.0, 0.3, 0.5)
check_true("asymmetric in its arguments", abs(forward - backward) > 0.1,
           f"KL(p||q) = {forward:.4f}, KL(q||p) = {backward:.4f} nats")

# The page's calculator is checked against kl_diag on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): equal and unequal means, P narrower and wider than Q, and P = Q (0 nats).
import cardcalc  # noqa: E402

cardcalc.table(lambda mu1, sigma1, mu2, sigma2: kl_diag(mu1, sigma1, mu2, sigma2),
               cardcalc.grid(mu1=(-1.0, 0.0, 2.5), sigma1=(0.01, 1.0, 3.0), mu2=(0.0, 1.0),
                             sigma2=(0.5, 1.0, 40.0)))

# --- in code: torch ---
import torch  # noqa: E402
from torch.distributions import Independent, Normal, kl_divergence  # noqa: E402

sd1, sd2 = np.sqrt(v1), np.sqrt(v2)
P = Normal(torch.tensor(m1), torch.tensor(sd1))
Q = Normal(torch.tensor(m2), torch.tensor(sd2))
# The same closed form per coordinate, summed over 5: a few ulps apart, so 1e-12.
check_close("kl_divergence(Independent(Normal(mu1, s1), 1), Independent(Normal(mu2, s2), 1)) = the card",
            kl_divergence(Independent(P, 1), Independent(Q, 1)).item(), kl_diag(m1, sd1, m2, sd2), rtol=1e-12)
check_close("pitfall: on Normal itself it returns one KL per coordinate (sum them for the diagonal case)",
            kl_divergence(P, Q).numpy(), [kl_diag(*c) for c in zip(m1, sd1, m2, sd2, strict=True)],
            rtol=1e-12)
as_variances = kl_divergence(Normal(torch.tensor(m1), torch.tensor(v1)),
                             Normal(torch.tensor(m2), torch.tensor(v2)))
check_close("pitfall: Normal(loc, scale) takes the standard deviation: variances passed in give the KL "
            "between N(mu1, v1^2) and N(mu2, v2^2)", as_variances.sum().item(), kl_diag(m1, v1, m2, v2),
            rtol=1e-12)
# --- end in code ---

# Same means, different widths: a too-narrow model q costs far more than a too-wide one.
ratio = np.geomspace(0.2, 5, 300)
fig, ax = figure("KL between two zero-mean Gaussians", "width ratio  σ_q / σ_p", "nats")
ax.plot(ratio, [kl_diag(0, 1, 0, r) for r in ratio], label="$D_{KL}(p \\Vert q)$")
ax.plot(ratio, [kl_diag(0, r, 0, 1) for r in ratio], "--", label="$D_{KL}(q \\Vert p)$")
ax.set_xscale("log")
ax.set_xticks([0.2, 0.5, 1, 2, 5], labels=["0.2", "0.5", "1", "2", "5"])
ax.minorticks_off()
ax.set_ylim(0, 4)
ax.legend()
