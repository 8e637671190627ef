"""Cosine schedule: ᾱ_t vs the product of its clipped β_t, s = 0 SNR closed form, design numbers."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


def cosine_alpha_bar(T: int, s: float = 0.008) -> np.ndarray:
    """alpha_bar_t = f(t)/f(0), f(t) = cos^2(((t/T + s)/(1 + s)) * pi/2), for t = 0..T."""
    f = np.cos((np.arange(T + 1) / T + s) / (1 + s) * np.pi / 2) ** 2
    return f / f[0]


def cosine_betas(T: int, s: float = 0.008, max_beta: float = 0.999) -> np.ndarray:
    """beta_t = 1 - alpha_bar_t / alpha_bar_{t-1}, clipped at max_beta, for t = 1..T."""
    abar = cosine_alpha_bar(T, s)
    return np.minimum(1 - abar[1:] / abar[:-1], max_beta)


T = 1000
abar = cosine_alpha_bar(T)
betas = cosine_betas(T)

# 1. Rebuilding alpha_bar as a running product of the clipped alphas reproduces f(t)/f(0) everywhere
#    except at t = T, where f(T) = 0 and the clip leaves a sliver of signal.
rebuilt = np.cumprod(1 - betas)
check_close("prod_s (1 - beta_s) vs f(t)/f(0) for t < T", rebuilt[:-1], abar[1:-1], rtol=1e-10)
clipped = np.flatnonzero(betas >= 0.999) + 1
check_true("only the final step is clipped", clipped.tolist() == [T],
           f"clipped steps {clipped.tolist()}, "
           f"alpha_bar_T = {abar[-1]:.1e} -> {rebuilt[-1]:.2e} after the clip")

# 2. With s = 0 the schedule has a closed-form SNR: abar/(1 - abar) = cot^2(pi t / 2T).
ts = np.arange(1, T)
ab0 = cosine_alpha_bar(T, s=0.0)[1:-1]
check_close("s = 0: SNR(t) vs cot^2(pi t / 2T)", ab0 / (1 - ab0), 1 / np.tan(np.pi * ts / (2 * T)) ** 2,
            rtol=1e-9)

# 3. Nichol & Dhariwal chose s so that sqrt(beta) at the start is just below one pixel bin, 1/127.5.
check_true("sqrt(beta_1) is below the pixel bin size 2/255", np.sqrt(betas[0]) < 1 / 127.5,
           f"sqrt(beta_1) = {np.sqrt(betas[0]):.5f} < {1 / 127.5:.5f}")

# 4. Against the DDPM linear schedule, the cosine one keeps far more signal through the middle steps.
abar_lin = np.cumprod(1 - np.linspace(1e-4, 0.02, T))
check_true("alpha_bar at t = T/2: cosine well above linear", abar[T // 2] > 5 * abar_lin[T // 2 - 1],
           f"cosine {abar[T // 2]:.3f}, linear {abar_lin[T // 2 - 1]:.3f}")

fig, ax = figure("Signal-to-noise ratio by schedule", "t / T",
                 r"$\log \mathrm{SNR} = \log \bar\alpha_t/(1-\bar\alpha_t)$")
x = np.arange(1, T) / T
ax.plot(x, np.log(abar_lin[:-1] / (1 - abar_lin[:-1])), label="linear (DDPM)")
ax.plot(x, np.log(abar[1:-1] / (1 - abar[1:-1])), label="cosine, s = 0.008")
ax.legend()

fig, ax = figure("Per-step noise variance", "t / T", r"$\beta_t$")
ax.semilogy(np.arange(1, T + 1) / T, np.linspace(1e-4, 0.02, T), label="linear (DDPM)")
ax.semilogy(np.arange(1, T + 1) / T, betas, label="cosine (clipped at 0.999)")
ax.legend()
