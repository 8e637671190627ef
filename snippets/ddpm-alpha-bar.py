"""Cumulative signal ᾱ_t: checked against the telescoped noise sum, a simulated chain and Ho et al.'s L_T."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: alpha = 1 - beta and its running product: a minus, a constant and a cumprod
def alphas_and_alpha_bar(betas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """alpha_t = 1 - beta_t and alpha_bar_t = prod_{s<=t} alpha_s, for t = 1..T."""
    alphas = 1.0 - betas
    return alphas, np.cumprod(alphas)
# --- end formula ---


T = 1000
betas = np.linspace(1e-4, 0.02, T)  # the DDPM linear schedule (Ho et al. 2020, Sec. 4)
alphas, abar = alphas_and_alpha_bar(betas)

# 1. Noise bookkeeping: the variance injected at step s is beta_s, later shrunk by alpha_{s+1}...alpha_t.
#    Summing it up must give the total noise variance 1 - alpha_bar_t.
tail = np.array([np.prod(alphas[s + 1:]) for s in range(T)])  # prod_{r>s} alpha_r up to T
injected = np.array([np.sum(betas[:t] * tail[:t] / tail[t - 1]) for t in range(1, T + 1)])
check_close("1 - alpha_bar_t = sum_s beta_s prod_{s<r<=t} alpha_r", 1 - abar, injected, rtol=1e-10)

# 2. Simulate the chain from x_0 ~ N(0,1): Cov(x_t, x_0) must equal sqrt(alpha_bar_t). The chain is run
#    only as far as the last probe: the steps after it cannot change what is measured. The tolerance,
#    0.01, is over 2 standard errors of the mean of x_t x_0 at every probe: Var(x_t x_0) = 1 + alpha_bar_t,
#    so the standard error is at most sqrt(2 / 100000) = 0.0045.
rng = np.random.default_rng(0)
x0 = rng.standard_normal(100_000)
x = x0.copy()
noise = np.empty_like(x)
probe = {10: None, 100: None, 300: None, 600: None}
for t in range(1, max(probe) + 1):
    rng.standard_normal(out=noise)  # the same draws as rng.standard_normal(x.shape), into one buffer
    x *= np.sqrt(alphas[t - 1])
    x += np.sqrt(betas[t - 1]) * noise
    if t in probe:
        probe[t] = np.mean(x * x0)
ts = np.array(list(probe))
check_close("Cov(x_t, x_0) from the simulated chain vs sqrt(alpha_bar_t)",
            np.array(list(probe.values())), np.sqrt(abar[ts - 1]), atol=0.01)

# 3. Ho et al. (Sec. 4) report L_T = KL(q(x_T|x_0) || N(0,I)) of about 1e-5 bits per dimension for
#    data scaled to [-1, 1]; alpha_bar_T sets that number. Average the Gaussian KL over x_0 ~ U[-1, 1].
x0_grid = np.linspace(-1, 1, 2001)
m, v = np.sqrt(abar[-1]) * x0_grid, 1 - abar[-1]
kl_bits = np.mean(0.5 * (v + m**2 - 1 - np.log(v))) / np.log(2)
check_true("L_T is about 1e-5 bits/dim, as reported for the linear schedule", 5e-6 < kl_bits < 2e-5,
           f"alpha_bar_T = {abar[-1]:.3e}, L_T = {kl_bits:.2e} bits/dim")
check_true("alpha_bar_t decreases strictly from alpha_1 = 1 - beta_1",
           abar[0] == 1 - 1e-4 and bool(np.all(np.diff(abar) < 0)))

# Linear vs cosine schedule (Nichol & Dhariwal 2021, s = 0.008).
s = 0.008
f = np.cos((np.arange(T + 1) / T + s) / (1 + s) * np.pi / 2) ** 2
abar_cos = f[1:] / f[0]
fig, ax = figure("Cumulative signal fraction", "step t", r"$\bar\alpha_t$")
ax.plot(np.arange(1, T + 1), abar, label=r"linear $\beta_t$: $10^{-4} \to 0.02$")
ax.plot(np.arange(1, T + 1), abar_cos, label="cosine, s = 0.008")
ax.legend()
