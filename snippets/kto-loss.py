"""KTO: per-example loss vs scipy's expit, the reference point z0 as an estimate of KL(pi_theta || pi_ref)
(exact enumeration and Monte Carlo), its clamp at 0, finite-difference gradients, the value's shape."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit
from scipy.stats import entropy


# --- formula ---
def sigmoid(t):
    return 1 / (1 + np.exp(-t))


def kto_reference_point(logp_mismatched, ref_logp_mismatched):
    """z0: the batch mean of log pi_theta(y'|x) / pi_ref(y'|x) over mismatched pairs, clamped at 0."""
    return max(np.mean(logp_mismatched - ref_logp_mismatched), 0.0)


def kto_loss(logp, ref_logp, desirable, z0, beta=0.1, lam_d=1.0, lam_u=1.0):
    """Per-example lambda_y - v(x, y), with r = log pi_theta(y|x) / pi_ref(y|x) and
    v = lam_d sigmoid(beta (r - z0)) for desirable y, lam_u sigmoid(beta (z0 - r)) for undesirable y."""
    r = logp - ref_logp
    v_d = lam_d * sigmoid(beta * (r - z0))
    v_u = lam_u * sigmoid(beta * (z0 - r))
    return np.where(desirable, lam_d - v_d, lam_u - v_u)
# --- end formula ---


rng = np.random.default_rng(0)
n = 10
logp = rng.normal(-40, 8, size=n)
ref_logp = logp + rng.normal(0, 6, size=n)
good = rng.random(n) < 0.5
r = logp - ref_logp
beta, z0, lam_d, lam_u = 0.3, 1.7, 1.0, 1.33

# 1. Per example: desirable pays lam_d (1 - sigma(beta (r - z0))) = lam_d sigma(-beta (r - z0)),
#    undesirable pays lam_u sigma(-beta (z0 - r)); sigma from scipy.special.expit.
ref_loss = np.where(good, lam_d * expit(-beta * (r - z0)), lam_u * expit(-beta * (z0 - r)))
check_close("KTO loss vs lambda sigma(-margin) with scipy expit, both labels",
            kto_loss(logp, ref_logp, good, z0, beta, lam_d, lam_u), ref_loss, rtol=1e-12)
check_true("batch has both labels", bool(good.any() and (~good).any()))

# 2. Defaults beta = 0.1, lam_D = lam_U = 1, by hand: r = 10, z0 = 0 gives sigma(-1) for a desirable
#    example and sigma(1) for an undesirable one; at r = z0 every example pays lambda / 2.
check_close("defaults: r = 10, z0 = 0 -> (sigma(-1), sigma(1))",
            kto_loss(np.array([10.0, 10.0]), 0.0, np.array([True, False]), 0.0),
            [0.2689414213699951, 0.7310585786300049], rtol=1e-12)
check_close("r = z0: loss = lambda / 2", kto_loss(np.array([2.0, 2.0]), 0.5, np.array([True, False]), 1.5,
            beta, lam_d, lam_u), [lam_d / 2, lam_u / 2], rtol=1e-12)

# 3. z0 estimates KL(pi_theta || pi_ref). Over a 6-outcome vocabulary, the exact KL (scipy entropy)
#    and the estimator fed with samples y' ~ pi_theta (Monte Carlo, 4 standard errors).
p_theta = np.array([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
p_ref = np.array([0.1, 0.2, 0.2, 0.2, 0.2, 0.1])
kl = entropy(p_theta, p_ref)
check_close("z0 fed every outcome in proportion to pi_theta = exact KL", kto_reference_point(
            np.log(np.repeat(p_theta, (p_theta * 20).astype(int))),
            np.log(np.repeat(p_ref, (p_theta * 20).astype(int)))), kl, rtol=1e-12)
ys = rng.choice(6, p=p_theta, size=20000)
lr = np.log(p_theta[ys] / p_ref[ys])
est = kto_reference_point(np.log(p_theta[ys]), np.log(p_ref[ys]))
check_true("z0 from 20000 samples within 4 standard errors of KL",
           abs(est - kl) < 4 * lr.std() / np.sqrt(20000), f"estimate {est:.4f}, KL {kl:.4f}")
check_close("z0 is clamped at 0 when the batch estimate is negative (mean log-ratio -0.5)",
            kto_reference_point(np.array([-1.0, 0.0]), np.array([0.0, 0.0])), 0.0, atol=1e-15)
check_close("positive batch estimate is kept (mean log-ratio 0.25)",
            kto_reference_point(np.array([-1.0, 0.0]), np.array([-1.0, -0.5])), 0.25, rtol=1e-12)

# 4. Gradient in r (finite differences): -lam_d beta s (1 - s) for desirable, s = sigma(beta (r - z0));
#    +lam_u beta s (1 - s) for undesirable, s = sigma(beta (z0 - r)).
h = 1e-6
fd = (kto_loss(logp + h, ref_logp, good, z0, beta, lam_d, lam_u)
      - kto_loss(logp - h, ref_logp, good, z0, beta, lam_d, lam_u)) / (2 * h)
s_d, s_u = expit(beta * (r - z0)), expit(beta * (z0 - r))
check_close("dL/dr vs finite differences, both labels", fd,
            np.where(good, -lam_d * beta * s_d * (1 - s_d), lam_u * beta * s_u * (1 - s_u)), rtol=1e-6)

# 5. Prospect-theory shape of the desirable value lam_d - loss: concave for gains (r > z0), convex for
#    losses (r < z0); second differences on either side of the reference point.
grid = np.linspace(z0 - 20, z0 + 20, 401)
v = lam_d - kto_loss(grid, 0.0, np.ones_like(grid, bool), z0, beta, lam_d, lam_u)
d2 = np.diff(v, 2)
check_true("value concave above z0 and convex below", bool(np.all(d2[grid[1:-1] > z0 + 0.2] < 0)
           and np.all(d2[grid[1:-1] < z0 - 0.2] > 0)))

# --- in code: trl ---
import trl_kto  # noqa: E402

# Three desirable and three undesirable completions in one batch, a random tiny language model as the
# policy and another as the reference; KTOTrainer's loader pairs each prompt with another example's
# completion for z0. The card's beta and lam_U above map to beta and undesirable_weight.
trainer = trl_kto.kto_trainer(beta=beta, desirable_weight=lam_d, undesirable_weight=lam_u)
batch, k = trl_kto.card_inputs(trainer)
batch_z0 = kto_reference_point(k.kl_logp, k.kl_ref_logp)
card_kto = np.mean(kto_loss(k.logp, k.ref_logp, k.desirable, batch_z0, beta, lam_d, lam_u))
# TRL scores tokens in float32: r and z0 are off by at most the bounds in k, and each loss term's slope
# in r and in z0 is at most lam beta / 4.
kto_atol = max(lam_d, lam_u) * beta / 4 * (np.max(k.r_error) + k.z0_error)
trl_kto_loss = trainer.compute_loss(trainer.model, batch).item()
check_close("KTOTrainer(beta, desirable_weight, undesirable_weight).compute_loss = mean L_KTO",
            trl_kto_loss, card_kto, atol=kto_atol)
no_z0 = np.mean(kto_loss(k.logp, k.ref_logp, k.desirable, 0.0, beta, lam_d, lam_u))
check_true("pitfall: z0 is no setting; the trainer estimates it from the batch, and it moves the loss",
           abs(trl_kto_loss - no_z0) > 10 * kto_atol, f"z0 = {batch_z0:.4f}: TRL {trl_kto_loss:.5f}, "
           f"with z0 = 0 {no_z0:.5f}")
# --- end in code ---

fig, ax = figure("KTO value of an example (β = 0.3, z₀ = 1.7, λ_U = 1.33)",
                 "implied reward r = log π_θ/π_ref", "value v(x, y)")
ax.plot(grid, v, label="desirable: λ_D σ(β(r − z₀))")
ax.plot(grid, -(kto_loss(grid, 0.0, np.zeros_like(grid, bool), z0, beta, lam_d, lam_u)), "--",
        label="undesirable, as a loss: −λ_U σ(β(r − z₀))")
ax.axvline(z0, color="gray", ls=":")
ax.legend()

# The page's calculator is checked against kto_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): one output per label, rewards below, at and above the reference point.
import cardcalc  # noqa: E402

cardcalc.table(lambda r, z0, beta, lam_d, lam_u: {
                   "L_D": float(kto_loss(r, 0.0, True, z0, beta, lam_d, lam_u)),
                   "L_U": float(kto_loss(r, 0.0, False, z0, beta, lam_d, lam_u))},
               cardcalc.grid(r=(-20.0, 0.0, 0.5, 20.0), z0=(0.0, 2.0), beta=(0.1, 1.0), lam_d=(1.0, 1.33),
                             lam_u=(1.0, 1.5)))
