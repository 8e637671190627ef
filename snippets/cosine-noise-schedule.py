"""Cosine schedule: exact values at special angles (s = 0.008), the clipped last step, SNR closed form."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def cosine_alpha_bar(T: int, s: float = 0.008) -> np.ndarray:
    """alpha_bar_t = f(t)/f(0), f(t) = cos^2(((t/T + s)/(1 + s)) * pi/2), for t = 0..T."""
    f = np.cos((np.arange(T + 1) / T + s) / (1 + s) * np.pi / 2) ** 2
    return f / f[0]


def cosine_betas(T: int, s: float = 0.008, max_beta: float = 0.999) -> np.ndarray:
    """beta_t = 1 - alpha_bar_t / alpha_bar_{t-1}, clipped at max_beta, for t = 1..T."""
    abar = cosine_alpha_bar(T, s)
    return np.minimum(1 - abar[1:] / abar[:-1], max_beta)
# --- end formula ---


T = 1000
abar = cosine_alpha_bar(T)
betas = cosine_betas(T)

# 1. Exact values with the paper's s = 0.008 and T = 1000. The angle (t/T + s)/(1 + s) * pi/2 is
#    pi/6, pi/4, pi/3 at t = 328, 496, 664 (because (1 + s)/3 - s = 0.328 and so on), where cos^2 is
#    3/4, 1/2, 1/4; and f(0) = cos^2(pi/252), since (s/(1 + s)) * pi/2 = pi/252. Any other s fails.
c0 = np.cos(np.pi / 252) ** 2
check_close("s = 0.008: alpha_bar at t = 0, 328, 496, 664 is 1, 3/(4c), 1/(2c), 1/(4c), "
            "with c = cos^2(pi/252)", abar[[0, 328, 496, 664]], [1.0, 0.75 / c0, 0.5 / c0, 0.25 / c0],
            rtol=1e-12)
check_close("f(T) = 0: no signal left at t = T", abar[T], 0.0, atol=1e-30)

# 2. Near the end, f(T - k) = sin^2(pi k / 2016) (cos(pi/2 - u) = sin u, with T (1 + s) = 1008), so
#    beta_{T-1} = 1 - sin^2(pi/2016) / sin^2(2 pi/2016) = 1 - 1/(4 cos^2(pi/2016)), about 3/4: unclipped.
#    At t = T the ratio is 0, beta_T would be 1, and the clip at 0.999 (the paper's value) takes over.
check_close("beta_{T-1} = 1 - 1/(4 cos^2(pi/2016)) (not clipped)", betas[T - 2],
            1 - 0.25 / np.cos(np.pi / 2016) ** 2, rtol=1e-12)
check_close("beta_T = 1 is clipped to exactly 0.999", betas[T - 1], 0.999, rtol=1e-15)
clipped = np.flatnonzero(betas >= 0.999) + 1
check_true("only the final step is clipped", clipped.tolist() == [T],
           f"clipped steps {clipped.tolist()}")
rebuilt = np.cumprod(1 - betas)
check_close("the betas telescope back: prod_{s<=t} (1 - beta_s) = 3/(4c), 1/(2c), 1/(4c) "
            "at t = 328, 496, 664",
            rebuilt[[327, 495, 663]], [0.75 / c0, 0.5 / c0, 0.25 / c0], rtol=1e-12)
check_true("after the clip, prod (1 - beta_s) leaves alpha_bar_T = 0.001 alpha_bar_{T-1} > 0",
           abs(rebuilt[-1] - 0.001 * rebuilt[-2]) < 1e-18 and rebuilt[-1] > 0,
           f"alpha_bar_T = {abar[-1]:.1e} -> {rebuilt[-1]:.2e} after the clip")

# 3. With s = 0 the schedule has a closed-form SNR: abar/(1 - abar) = cot^2(pi t / 2T).
ts = np.arange(1, T)
ab0 = cosine_alpha_bar(T, s=0.0)[1:-1]
check_close("s = 0: SNR(t) vs cot^2(pi t / 2T)", ab0 / (1 - ab0), 1 / np.tan(np.pi * ts / (2 * T)) ** 2,
            rtol=1e-9)

# 4. Nichol & Dhariwal chose s so that sqrt(beta) at the start is just below one pixel bin, 1/127.5.
check_true("sqrt(beta_1) is below the pixel bin size 2/255", np.sqrt(betas[0]) < 1 / 127.5,
           f"sqrt(beta_1) = {np.sqrt(betas[0]):.5f} < {1 / 127.5:.5f}")

# 5. Against the DDPM linear schedule, the cosine one keeps far more signal through the middle steps.
abar_lin = np.cumprod(1 - np.linspace(1e-4, 0.02, T))
check_true("alpha_bar at t = T/2: cosine well above linear", abar[T // 2] > 5 * abar_lin[T // 2 - 1],
           f"cosine {abar[T // 2]:.3f}, linear {abar_lin[T // 2 - 1]:.3f}")

# The page's calculator is checked against cosine_alpha_bar and cosine_betas on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows): the first step, the middle, the last unclipped step
# and t = T, where beta_T = 1 is capped at 0.999; for s = 0, the paper's 0.008 and a larger offset.
import cardcalc  # noqa: E402

steps = cardcalc.grid(t=(1, 2, 50, 250, 499, 500), T=(50, 500, 1000), s=(0.0, 0.008, 0.1))
cardcalc.table(lambda t, T, s: {"abar": cosine_alpha_bar(T, s)[t], "beta": cosine_betas(T, s)[t - 1]},
               [row for row in steps if row["t"] <= row["T"]])

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
