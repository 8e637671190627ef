"""ELBO identity log p(x) = ELBO + KL(q || posterior): exact enumeration on a discrete latent model."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp, rel_entr

rng = np.random.default_rng(0)
K, M = 5, 7                                    # latent states, observed values
prior = rng.dirichlet(np.ones(K))              # p(z)
lik = rng.dirichlet(np.ones(M), size=K)        # lik[z, x] = p(x | z)
q = rng.dirichlet(np.ones(K), size=M)          # q[x, z] = q(z | x), an arbitrary encoder


# --- formula ---
def elbo(x: int, qx: np.ndarray) -> float:
    """E_q[log p(x, z) - log q(z | x)] by enumeration over z."""
    support = qx > 0
    log_joint = np.log(prior[support]) + np.log(lik[support, x])
    return float(np.sum(qx[support] * (log_joint - np.log(qx[support]))))
# --- end formula ---


log_px = logsumexp(np.log(prior)[:, None] + np.log(lik), axis=0)   # log p(x) for every x
posterior = prior[:, None] * lik / np.exp(log_px)                  # posterior[z, x] = p(z | x)

elbos = np.array([elbo(x, q[x]) for x in range(M)])
gaps = np.array([rel_entr(q[x], posterior[:, x]).sum() for x in range(M)])
check_close("log p(x) = ELBO + KL(q || p(z|x)) for every x", elbos + gaps, log_px, rtol=1e-12)

q_sparse = np.array([0.0, 0.7, 0.0, 0.3, 0.0])  # an encoder that rules out three latent states
check_close("an encoder with zeros (0 log 0 = 0): ELBO + KL(q || p(z|x)) = log p(x), KL from scipy",
            elbo(2, q_sparse) + rel_entr(q_sparse, posterior[:, 2]).sum(), log_px[2], rtol=1e-12)

recon_minus_kl = np.array([q[x] @ np.log(lik[:, x]) - rel_entr(q[x], prior).sum()
                           for x in range(M)])
check_close("ELBO = E_q[log p(x|z)] - KL(q || p(z))", elbos, recon_minus_kl, rtol=1e-12)
check_true("ELBO <= log p(x), with equality at q = posterior",
           bool(np.all(elbos < log_px)) and abs(elbo(0, posterior[:, 0]) - log_px[0]) < 1e-12,
           f"smallest gap {gaps.min():.4f} nats")

# Two latent states: slide q(z=1|x) from 0 to 1; the ELBO touches log p(x) at the posterior.
prior2, lik2 = np.array([0.6, 0.4]), np.array([0.2, 0.7])        # p(z), p(x_obs | z)
px2 = prior2 @ lik2
r = np.linspace(0.001, 0.999, 400)
qs = np.stack([1 - r, r], axis=1)
elbo2 = np.sum(qs * (np.log(prior2 * lik2) - np.log(qs)), axis=1)
fig, ax = figure("ELBO and KL gap on a two-state latent", "q(z = 1 | x)", "nats")
ax.axhline(np.log(px2), color="k", lw=1, label="log p(x)")
ax.plot(r, elbo2, label="ELBO")
ax.axvline(prior2[1] * lik2[1] / px2, ls="--", color="gray", label="true posterior p(z = 1 | x)")
ax.set_ylim(np.log(px2) - 1.5, np.log(px2) + 0.2)
ax.legend()
