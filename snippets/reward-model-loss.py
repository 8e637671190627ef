"""Reward-model loss: stable form, gradient vs finite differences, K-way batching, linear-reward recovery."""

from itertools import combinations

import numpy as np
from cardcheck import check_close, check_true
from scipy.optimize import minimize
from scipy.special import expit


# --- formula ---
def rm_loss(r_w: np.ndarray, r_l: np.ndarray) -> float:
    """Mean of -log sigma(r_w - r_l) over comparisons, computed as softplus(-(r_w - r_l))."""
    return float(np.mean(np.logaddexp(0.0, -(r_w - r_l))))
# --- end formula ---


rng = np.random.default_rng(0)
d = 5
phi_true = rng.normal(size=d)

# Linear reward model r_phi(x, y) = phi . features(y); comparisons labelled by Bradley–Terry.
n = 20_000
feat_a, feat_b = rng.normal(size=(n, d)), rng.normal(size=(n, d))
a_wins = rng.random(n) < expit(feat_a @ phi_true - feat_b @ phi_true)
f_w = np.where(a_wins[:, None], feat_a, feat_b)
f_l = np.where(a_wins[:, None], feat_b, feat_a)


def loss_of(phi: np.ndarray) -> float:
    return rm_loss(f_w @ phi, f_l @ phi)


# 1. the stable form equals the textbook -log(sigmoid(.)) where the latter does not underflow.
margins = rng.normal(size=1000) * 5
check_close("softplus form vs -log(expit(margin))", rm_loss(margins, 0.0),
            float(np.mean(-np.log(expit(margins)))))

# 2. analytic gradient: d/dphi = -mean(sigma(-(r_w - r_l)) * (f_w - f_l)), vs central differences.
phi0 = rng.normal(size=d)
m = (f_w - f_l) @ phi0
grad = -np.mean(expit(-m)[:, None] * (f_w - f_l), axis=0)
h = 1e-5
fd = np.array([(loss_of(phi0 + h * e) - loss_of(phi0 - h * e)) / (2 * h) for e in np.eye(d)])
check_close("gradient vs central finite differences", grad, fd, rtol=1e-6, atol=1e-9)

# 3. InstructGPT batches all C(K,2) pairs from one ranking of K responses and divides by C(K,2).
K = 7
rewards = rng.normal(size=K)  # reward of each response; ranking: index 0 best ... K-1 worst
pair_loop = [np.logaddexp(0.0, -(rewards[a] - rewards[b])) for a, b in combinations(range(K), 2)]
upper = np.triu_indices(K, 1)
diff = rewards[:, None] - rewards[None, :]
check_close("K-way ranking: vectorized mean over C(K,2) pairs vs explicit loop",
            rm_loss(diff[upper], 0.0), float(np.sum(pair_loop)) / (K * (K - 1) / 2))

# 4. minimizing the loss is maximum likelihood under Bradley–Terry: it recovers phi_true.
fit = minimize(loss_of, np.zeros(d), jac=lambda p: -np.mean(
    expit(-((f_w - f_l) @ p))[:, None] * (f_w - f_l), axis=0), method="BFGS").x
check_close("fitted reward weights vs the weights that generated the labels", fit, phi_true,
            atol=0.1)
check_true("loss at the fit is below the loss of a zero reward (log 2)",
           loss_of(fit) < np.log(2), f"{loss_of(fit):.4f} < {np.log(2):.4f}")

# The page's calculator is checked against rm_loss on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): reward gaps of both signs, zero and large, both branches of the softplus.
import cardcalc  # noqa: E402

cardcalc.table(lambda r_w, r_l: rm_loss(np.array([r_w]), np.array([r_l])),
               cardcalc.grid(r_w=(-40.0, -2.0, 0.0, 1.5, 40.0), r_l=(-3.0, 0.0, 0.5, 10.0)))
# --- in code: trl ---
import trl_fixture  # noqa: E402

# Three pairs scored by a random tiny reward model (a language model with a scalar head, in float64).
# RewardTrainer reads the same scalar logits, so the means of three float64 terms agree to ulps.
rm_pairs = trl_fixture.reward_batch()
r_chosen, r_rejected = trl_fixture.rewards(trl_fixture.reward_model(0), rm_pairs)
check_close("RewardTrainer.compute_loss = L_RM on the model's scalar rewards",
            trl_fixture.reward_trainer_loss(rm_pairs), rm_loss(r_chosen, r_rejected), rtol=1e-12)
check_close("pitfall: center_rewards_coefficient=0.01 adds 0.01 mean((r_w + r_l)^2) to L_RM",
            trl_fixture.reward_trainer_loss(rm_pairs, center_rewards_coefficient=0.01),
            rm_loss(r_chosen, r_rejected) + 0.01 * np.mean((r_chosen + r_rejected) ** 2), rtol=1e-12)
# --- end in code ---
