"""Critical batch size: noise-scale law by Monte-Carlo; S = S_min(1 + B_crit/B) vs simulated SGD."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from matplotlib.ticker import NullFormatter
from scipy.optimize import curve_fit


# --- formula ---
def steps_needed(B, S_min, B_crit):
    """Steps to reach a fixed loss with batch B: S = S_min (1 + B_crit / B)."""
    return S_min * (1 + B_crit / B)


def examples_needed(B, E_min, B_crit):
    """Examples processed to reach the same loss: E = B S = E_min (1 + B / B_crit)."""
    return E_min * (1 + B / B_crit)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. One SGD step on a quadratic with gradient noise of covariance Sigma/B. With the best
#    learning rate the expected improvement is dL_max / (1 + B_noise / B),
#    B_noise = tr(H Sigma) / (G^T H G)  (McCandlish et al., Sec. 2).
d = 20
Q = rng.normal(size=(d, d))
H = Q @ Q.T / d + 0.05 * np.eye(d)
C = rng.normal(size=(d, d))
Sigma = C @ C.T / d
theta = rng.normal(size=d)
G = H @ theta
B_noise = np.trace(H @ Sigma) / (G @ H @ G)
dL_max = (G @ G) ** 2 / (2 * G @ H @ G)
chol = np.linalg.cholesky(Sigma)
for B, name in ((0.1 * B_noise, "B_noise/10"), (B_noise, "B_noise"), (10 * B_noise, "10 B_noise")):
    eps = (G @ G) / (G @ H @ G + np.trace(H @ Sigma) / B)          # optimal step size
    g_hat = G + rng.normal(size=(200_000, d)) @ chol.T / np.sqrt(B)  # minibatch gradients
    gain = eps * g_hat @ G - 0.5 * eps**2 * np.sum((g_hat @ H) * g_hat, axis=1)
    check_close(f"Monte-Carlo improvement at B = {name} vs dL_max/(1 + B_noise/B)",
                gain.mean(), dL_max / (1 + B_noise / B), rtol=0.02)

# 2. Hyperbola: with E = B S, (S/S_min - 1)(E/E_min - 1) = 1 and B_crit = E_min / S_min.
Bs = 2.0 ** np.arange(0, 13)
S, E = steps_needed(Bs, 100.0, 37.0), examples_needed(Bs, 3700.0, 37.0)
check_close("E = B S and (S/S_min - 1)(E/E_min - 1) = 1", np.hstack([E, (S / 100 - 1) * (E / 3700 - 1)]),
            np.hstack([Bs * S, np.ones_like(Bs)]), rtol=1e-12)

# 3. Simulated training: SGD with the per-step optimal learning rate on an ill-conditioned noisy
#    quadratic, counting steps until the loss drops 100x. Fit S_min and B_crit to the counts.
h = np.logspace(-1.5, 0, 40)                      # Hessian eigenvalues; noise covariance = H


def simulate(B, reps=8):
    th = np.ones((reps, h.size))
    target = 0.01 * 0.5 * np.sum(h)
    steps, done, t = np.zeros(reps), np.zeros(reps, bool), 0
    while not done.all():
        t += 1
        g_true = h * th
        eps = np.sum(g_true**2, 1) / (np.sum(h * g_true**2, 1) + np.sum(h * h) / B)
        g = g_true + np.sqrt(h / B) * rng.normal(size=th.shape)
        th = np.where(done[:, None], th, th - eps[:, None] * g)
        newly = ~done & (0.5 * np.sum(h * th**2, 1) < target)
        steps[newly], done = t, done | newly
    return steps.mean()


S_sim = np.array([simulate(B) for B in Bs])
(ls, lc), _ = curve_fit(lambda b, ls, lc: np.log(steps_needed(b, np.exp(ls), np.exp(lc))), Bs,
                        np.log(S_sim), p0=(2, 4))
S_min, B_crit = np.exp(ls), np.exp(lc)
rel = np.max(np.abs(steps_needed(Bs, S_min, B_crit) / S_sim - 1))
check_true("1 + B_crit/B fits simulated step counts within 20%", rel < 0.2,
           f"S_min = {S_min:.1f}, B_crit = {B_crit:.0f}, worst relative misfit {rel:.2f}")
def sqrt_law(b, ls, lc):
    return ls + np.log1p(np.exp(lc) / np.sqrt(b))


(ls2, lc2), _ = curve_fit(sqrt_law, Bs, np.log(S_sim), p0=(2, 2))
rel2 = np.max(np.abs(np.exp(sqrt_law(Bs, ls2, lc2)) / S_sim - 1))
check_true("a 1/sqrt(B) law fits clearly worse", rel2 > 2 * rel, f"worst misfit {rel2:.2f}")

fig, ax = figure("Steps vs. examples to reach the same loss", "examples processed E", "optimizer steps S")
E_sim = Bs * S_sim
ax.loglog(E_sim, S_sim, "o", label="simulated SGD, B = 1 ... 4096")
b_grid = np.logspace(0, 3.7, 200)
ax.loglog(b_grid * steps_needed(b_grid, S_min, B_crit), steps_needed(b_grid, S_min, B_crit),
          label=rf"fit: $B_{{crit}}$ = {B_crit:.0f}")
ax.axhline(S_min, ls=":", color="gray", label=r"$S_{\min}$")
ax.axvline(S_min * B_crit, ls="--", color="gray", label=r"$E_{\min}$")
ax.xaxis.set_minor_formatter(NullFormatter())
ax.legend()
