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


def noise_scale(G, Sigma, H):
    """Gradient noise scale B_noise = tr(H Sigma) / (G^T H G); H = I gives B_simple = tr(Sigma) / |G|^2."""
    return np.trace(H @ Sigma) / (G @ H @ G)
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
B_noise = noise_scale(G, Sigma, H)
dL_max = (G @ G) ** 2 / (2 * G @ H @ G)
chol = np.linalg.cholesky(Sigma)
for B, name in ((0.1 * B_noise, "B_noise/10"), (B_noise, "B_noise"), (10 * B_noise, "10 B_noise")):
    eps = (G @ G) / (G @ H @ G + np.trace(H @ Sigma) / B)          # optimal step size
    g_hat = G + rng.normal(size=(200_000, d)) @ chol.T / np.sqrt(B)  # minibatch gradients
    gain = eps * g_hat @ G - 0.5 * eps**2 * np.sum((g_hat @ H) * g_hat, axis=1)
    check_close(f"Monte-Carlo improvement at B = {name} vs dL_max/(1 + B_noise/B)",
                gain.mean(), dL_max / (1 + B_noise / B), rtol=0.02)

# tr(H Sigma) = tr(L^T H L) for Sigma = L L^T: a sum of d^2 products, a few ulps.
check_close("B_noise = tr(L^T H L) / (G^T H G) with Sigma = L L^T", B_noise,
            np.sum((H @ chol) * chol) / np.einsum("i,ij,j", G, H, G), rtol=1e-12)
check_close("H = c I: B_noise is B_simple = tr(Sigma) / |G|^2 whatever c",
            noise_scale(G, Sigma, 3 * np.eye(d)),
            np.sum(np.diag(Sigma)) / np.sum(G**2), rtol=1e-12)

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

# The page's calculator is checked against steps_needed and examples_needed on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows): batches far below, at and far above B_crit.
import cardcalc  # noqa: E402

cardcalc.table(lambda B, B_crit, S_min: {"S": steps_needed(B, S_min, B_crit),
                                         "E": examples_needed(B, B_crit * S_min, B_crit)},
               cardcalc.grid(B=(1, 1000, 1.0e6, 1.5e8), B_crit=(1000, 1.0e6), S_min=(1, 20000)))

# --- in code: torch ---
import torch  # noqa: E402
from torch.func import grad, vmap  # noqa: E402

# Logistic regression on N = 512 examples; the set stands for the data distribution, so its
# per-example gradients have mean G and covariance Sigma (over the set, ddof 0), and a batch
# drawn with replacement is b independent draws.
data = np.random.default_rng(1)
N, p = 512, 5
X, w = data.normal(size=(N, p)), 0.5 * data.normal(size=p)
labels = (data.random(N) < 0.5).astype(float)


def example_loss(w, x, label):
    """One example's log-loss; vmap(grad(...)) maps it over the examples."""
    return torch.nn.functional.binary_cross_entropy_with_logits(x @ w, label)


per_example = vmap(grad(example_loss), in_dims=(None, 0, 0))(
    torch.tensor(w), torch.tensor(X), torch.tensor(labels))
# A few ulps per entry; atol covers entries where sigmoid(z) - y cancels to near zero.
check_close("vmap(grad(loss)) = per-example gradients (sigmoid(x.w) - y) x", per_example.numpy(),
            (1 / (1 + np.exp(-X @ w)) - labels)[:, None] * X, rtol=1e-12, atol=1e-15)
G_pop = per_example.numpy().mean(axis=0)
Sigma_pop = np.cov(per_example.numpy().T, ddof=0)
B_simple = noise_scale(G_pop, Sigma_pop, np.eye(p))

# R batches of b_big = 16; the first b_small = 4 of each play one device's share in data parallel.
R, b_big, b_small = 4000, 16, 4
g = per_example[torch.as_tensor(data.integers(0, N, size=(R, b_big)))]   # (R, b_big, p)
norm2_big, norm2_small = g.mean(1).square().sum(-1), g[:, :b_small].mean(1).square().sum(-1)
tr_unbiased = g.var(dim=1).sum(-1)                   # torch.var: correction=1 by default
G2_unbiased = norm2_big - tr_unbiased / b_big


def agrees_in_mean(what, samples, expected):
    """Monte Carlo: the sample mean within 4 standard errors (computed from the samples)."""
    samples = samples.numpy()
    check_close(what, samples.mean(), expected, rtol=0, atol=4 * samples.std(ddof=1) / np.sqrt(R))


G2, trS = G_pop @ G_pop, np.trace(Sigma_pop)
agrees_in_mean("per-example: E[|g_bar|^2 - tr(var(g, dim=0)) / b] = |G|^2", G2_unbiased, G2)
agrees_in_mean("per-example: E[tr(torch.var(g, dim=0))] = tr(Sigma)", tr_unbiased, trS)
agrees_in_mean("two batch sizes: E[(B|G_B|^2 - b|G_b|^2) / (B - b)] = |G|^2",
               (b_big * norm2_big - b_small * norm2_small) / (b_big - b_small), G2)
agrees_in_mean("two batch sizes: E[(|G_b|^2 - |G_B|^2) / (1/b - 1/B)] = tr(Sigma)",
               (norm2_small - norm2_big) / (1 / b_small - 1 / b_big), trS)
# The ratio of the two averages estimates B_simple; its relative error is at most the sum of the
# two relative errors, each within 4 standard errors.
rel_se = (G2_unbiased.std().item() / G2 + tr_unbiased.std().item() / trS) / np.sqrt(R)
check_close("ratio of the averaged estimates = B_simple = tr(Sigma) / |G|^2",
            tr_unbiased.mean().item() / G2_unbiased.mean().item(), B_simple, rtol=4 * rel_se)
agrees_in_mean("pitfall: the batch gradient's squared norm overstates |G|^2 by tr(Sigma)/b",
               norm2_big, G2 + trS / b_big)
agrees_in_mean("pitfall: on b = 4, correction=0 (np.var's default ddof=0) gives (b-1)/b tr(Sigma)",
               g[:, :b_small].var(dim=1, correction=0).sum(-1), (b_small - 1) / b_small * trS)
check_true("pitfall: tr(Sigma) / |g_bar|^2 understates B_simple",
           trS / norm2_big.mean().item() < B_simple / (1 + 8 * rel_se),
           f"{trS / norm2_big.mean().item():.1f} vs B_simple = {B_simple:.1f}")
# --- end in code ---

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
