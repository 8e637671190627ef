"""Exponential memory decay exp(-lambda dt) = gamma^dt: ODE, half-life root, Monte-Carlo, 0.995 per hour."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import solve_ivp
from scipy.optimize import brentq


# --- formula ---
def decay_rate(gamma_per_hour: float) -> float:
    """lambda = -log(gamma): the rate whose decay over one hour is the factor gamma."""
    return -np.log(gamma_per_hour)


def memory_decay(t, t_last, lam):
    """decay = exp(-lambda (t - t_last)); t_last = time of last access (or of creation)."""
    return np.exp(-lam * (np.asarray(t, dtype=float) - t_last))


def half_life(lam: float) -> float:
    """Time for the weight to halve: log(2) / lambda."""
    return np.log(2.0) / lam
# --- end formula ---


lam = decay_rate(0.995)  # Park et al. (2023): recency factor 0.995 per game hour
hours = np.linspace(0, 1000, 201)

# 1. The published factor: one hour multiplies the weight by 0.995; h hours by 0.995^h.
check_close("lambda for 0.995 per hour is 0.00501254...", lam, 0.005012541823544286, rtol=1e-12)
check_close("exp(-lambda h) = 0.995^h on a grid of hours", memory_decay(hours, 0.0, lam), 0.995 ** hours,
            rtol=1e-12)
check_close("shifting the reference time: t = 30, t_last = 20 -> 0.995^10", memory_decay(30.0, 20.0, lam),
            0.995**10, rtol=1e-12)

# 2. It solves dR/dt = -lambda R with R(0) = 1 (scipy.integrate.solve_ivp).
sol = solve_ivp(lambda t, r: -lam * r, (0, 1000), [1.0], t_eval=hours, rtol=1e-11, atol=1e-13)
check_close("decay vs numerical solution of dR/dt = -lambda R", memory_decay(hours, 0.0, lam), sol.y[0],
            rtol=1e-8)

# 3. Half-life: root of 0.995^h = 1/2 found by scipy.optimize.brentq; about 138.3 hours (5.8 game days).
root = brentq(lambda h: 0.995**h - 0.5, 1, 1000, xtol=1e-13)
check_close("half-life log 2 / lambda vs brentq root of 0.995^h = 1/2", half_life(lam), root, rtol=1e-10)
print(f"lambda = {lam:.6f} per hour, half-life = {half_life(lam):.1f} hours")

# 4. Monte-Carlo: memories with exponential lifetimes of rate lambda; the surviving fraction at time
#    t is the decay weight (memoryless forgetting).
rng = np.random.default_rng(0)
life = rng.exponential(1.0 / 0.005012541823544286, 200_000)
probe = np.array([50.0, 138.0, 400.0])
frac = (life[:, None] > probe).mean(axis=0)
pred = memory_decay(probe, 0.0, lam)
se = np.sqrt(pred * (1 - pred) / len(life))
check_true("surviving fraction of exponential lifetimes within 4.5 standard errors",
           bool(np.all(np.abs(frac - pred) < 4.5 * se)))

# 5. Memoryless: the weight after s + t equals the product of the weights after s and after t.
check_close("decay(s + t) = decay(s) * decay(t)", memory_decay(70.0 + 45.0, 0.0, lam),
            memory_decay(70.0, 0.0, lam) * memory_decay(45.0, 0.0, lam), rtol=1e-12)
check_true("future access (t < t_last) is not a decay: weight > 1", bool(memory_decay(0.0, 10.0, lam) > 1))

# The page's calculator is checked against decay_rate, memory_decay and half_life on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows): fast and very slow decay, ages from 0 to 1000 hours.
import cardcalc  # noqa: E402


def calculator_row(gamma, t, t_i):
    lam = decay_rate(gamma)
    return {"w": float(memory_decay(t, t_i, lam)), "lambda": lam, "t_half": half_life(lam)}


cardcalc.table(calculator_row,
               cardcalc.grid(gamma=(0.5, 0.9, 0.995, 0.999999), t=(0, 24, 138, 1000), t_i=(0, 20)))

# Access resets the clock: a memory retrieved at hours 100 and 300 vs one never retrieved again.
t = np.linspace(0, 500, 501)
last = np.where(t >= 300, 300.0, np.where(t >= 100, 100.0, 0.0))
fig, ax = figure("Recency weight, decay 0.995 per game hour", "game hours since creation", "recency weight")
ax.plot(t, memory_decay(t, 0.0, lam), label="decay since creation")
ax.plot(t, memory_decay(t, last, lam), label="decay since last retrieval (t = 100, 300)")
ax.axhline(0.5, color="grey", ls=":")
ax.legend()
