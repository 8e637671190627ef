"""PPO clipped surrogate: min form vs case-wise form, the pessimistic bound, where the gradient vanishes."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def ppo_clip(ratio: np.ndarray, adv: np.ndarray, eps: float = 0.2) -> np.ndarray:
    """Per-sample min(rho * A, clip(rho, 1 - eps, 1 + eps) * A); the objective is its mean."""
    return np.minimum(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv)
# --- end formula ---


rng = np.random.default_rng(0)
eps = 0.2
ratio = np.exp(rng.normal(scale=0.4, size=5000))  # pi_theta / pi_old, log-normal around 1
adv = rng.normal(size=5000)

# 1. case-wise form: for A > 0 the ratio is capped at 1 + eps, for A < 0 floored at 1 - eps.
casewise = np.where(adv >= 0, np.minimum(ratio, 1 + eps) * adv, np.maximum(ratio, 1 - eps) * adv)
check_close("min(rho A, clip(rho) A) vs case-wise form", ppo_clip(ratio, adv, eps), casewise)

# 2. the clipped objective is a lower bound on the unclipped surrogate rho * A,
#    with equality inside the trust region [1 - eps, 1 + eps].
check_true("L_CLIP <= rho * A for every sample", bool(np.all(ppo_clip(ratio, adv) <= ratio * adv)))
inside = (ratio > 1 - eps) & (ratio < 1 + eps)
check_close("L_CLIP = rho * A inside the clip range", ppo_clip(ratio[inside], adv[inside]),
            ratio[inside] * adv[inside])

# 3. gradient with respect to log rho (what autograd sees, since rho = exp(logp - logp_old)):
#    zero once the ratio has moved past the clip boundary in the direction A favours.
log_r = np.log(ratio)
h = 1e-6
grad = (ppo_clip(np.exp(log_r + h), adv) - ppo_clip(np.exp(log_r - h), adv)) / (2 * h)
saturated = ((adv > 0) & (ratio > 1 + eps + 1e-4)) | ((adv < 0) & (ratio < 1 - eps - 1e-4))
check_close("gradient is zero where clipping is active", grad[saturated],
            np.zeros(saturated.sum()), atol=1e-8)
near_edge = np.isclose(ratio, 1 + eps, atol=1e-4) | np.isclose(ratio, 1 - eps, atol=1e-4)
free = ~saturated & ~near_edge
check_close("gradient equals rho * A where clipping is inactive", grad[free], (ratio * adv)[free],
            rtol=1e-5)

rho = np.linspace(0.0, 2.0, 401)
fig, ax = figure("PPO clipped objective (ε = 0.2)", "probability ratio  ρ = π_θ / π_old",
                 "per-sample objective")
for a, style in ((1.0, "-"), (-1.0, "--")):
    ax.plot(rho, ppo_clip(rho, np.full_like(rho, a), eps), style, label=f"A = {a:+.0f}")
    ax.plot(rho, rho * a, ":", color="gray")
ax.axvline(1 - eps, color="gray", lw=0.8)
ax.axvline(1 + eps, color="gray", lw=0.8)
ax.legend()

# The page's calculator is checked against ppo_clip on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): ratios below, inside and above [1 - eps, 1 + eps], on both edges, and
# advantages of both signs, so each side of every min and max is taken.
import cardcalc  # noqa: E402

cardcalc.table(lambda rho, A, eps: float(ppo_clip(rho, A, eps)),
               cardcalc.grid(rho=(0.0, 0.5, 0.8, 1.0, 1.1, 1.2, 1.5, 3.0), A=(-2.0, -0.5, 0.5, 2.0),
                             eps=(0.1, 0.2, 0.3)))
