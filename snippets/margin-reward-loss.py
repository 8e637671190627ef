"""Llama 2 margin reward loss: m = 0 is Bradley-Terry, exact values, Table 27 margins, gradient by finite
differences, stability, and the hinge limit that the seed wrote."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit, log_expit

# --- formula ---
# Llama 2, Table 27: m(r) for the four preference ratings (two variants were compared).
MARGIN_SMALL = {"significantly better": 1.0, "better": 2.0 / 3.0, "slightly better": 1.0 / 3.0,
                "negligibly better / unsure": 0.0}
MARGIN_LARGE = {"significantly better": 3.0, "better": 2.0, "slightly better": 1.0,
                "negligibly better / unsure": 0.0}


def margin_rm_loss(r_chosen, r_rejected, margin):
    """Mean over pairs of -log sigma(r_c - r_r - m(r)), computed as softplus(m - (r_c - r_r))."""
    z = np.asarray(r_chosen) - np.asarray(r_rejected) - np.asarray(margin)
    return float(np.mean(np.logaddexp(0.0, -z)))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Margin 0 gives the Bradley-Terry reward-model loss, -mean log sigmoid(r_c - r_r) (scipy log_expit).
r_c, r_r = rng.normal(0, 3, 500), rng.normal(0, 3, 500)
check_close("m = 0: equals -mean log_expit(r_c - r_r)", margin_rm_loss(r_c, r_r, 0.0),
            -np.mean(log_expit(r_c - r_r)), rtol=1e-12)

# 2. Exact values: a gap equal to the margin costs log 2; a gap of m + log 3 costs log(4/3).
check_close("gap = margin = 3 costs log 2", margin_rm_loss(5.0, 2.0, 3.0), np.log(2.0), rtol=1e-12)
check_close("gap = 1/3 + log 3 costs log(4/3)", margin_rm_loss(1 / 3 + np.log(3.0), 0.0, 1 / 3),
            np.log(4 / 3), rtol=1e-12)
check_close("batch of two pairs is their average: (log 2 + log(4/3)) / 2",
            margin_rm_loss([5.0, 1 / 3 + np.log(3.0)], [2.0, 0.0], [3.0, 1 / 3]),
            (np.log(2.0) + np.log(4 / 3)) / 2, rtol=1e-12)

# 3. The paper's margins (Table 27): rating -> m(r), small and large variants.
ratings = ["significantly better", "better", "slightly better", "negligibly better / unsure"]
check_close("Margin Small = (1, 2/3, 1/3, 0)", [MARGIN_SMALL[k] for k in ratings], [1, 2 / 3, 1 / 3, 0])
check_close("Margin Large = (3, 2, 1, 0)", [MARGIN_LARGE[k] for k in ratings], [3, 2, 1, 0])
same_gap = [margin_rm_loss(1.5, 0.0, MARGIN_LARGE[k]) for k in ratings]
check_true("at a fixed reward gap, clearer preferences are charged more", bool(np.all(np.diff(same_gap) < 0)))

# 4. Gradient with respect to r_c is -sigma(m - gap): central finite differences against scipy expit.
h = 1e-6
for gap, m in [(-2.0, 1.0), (0.5, 2.0), (4.0, 1 / 3)]:
    fd = (margin_rm_loss(gap + h, 0.0, m) - margin_rm_loss(gap - h, 0.0, m)) / (2 * h)
    check_close(f"gap {gap}, m {m:.3f}: dL/dr_c by finite differences = -sigma(m - gap)", fd, -expit(m - gap),
                rtol=1e-6)

# 5. Numerics: gaps of -800 and +800 stay finite (loss ~ m + 800 and ~ 0).
check_close("gap -800, m = 3: loss = 803", margin_rm_loss(-800.0, 0.0, 3.0), 803.0, rtol=1e-12)
check_close("gap +800, m = 3: loss ~ 0", margin_rm_loss(800.0, 0.0, 3.0), 0.0, atol=1e-300)

# 6. Hinge limit (the seed's formula): (1/beta) L(beta r_c, beta r_r, beta m) -> max(0, m - gap).
beta = 1e4
gaps = np.linspace(-3, 5, 17)
scaled = [margin_rm_loss(beta * g, 0.0, beta * 2.0) / beta for g in gaps]
check_close("beta -> inf: rescaled loss tends to the hinge max(0, m - gap)", scaled,
            np.maximum(0, 2.0 - gaps), atol=1e-4)

# --- in code: trl ---
import trl_fixture  # noqa: E402

# Three pairs rated as below (Margin Small), scored by a random tiny reward model (a language model with
# a scalar head, in float64); RewardTrainer subtracts the batch's "margin" column when it has one.
rated_margins = [MARGIN_SMALL[k] for k in ("significantly better", "slightly better", "better")]
rm_pairs = trl_fixture.reward_batch(rated_margins)
r_chosen, r_rejected = trl_fixture.rewards(trl_fixture.reward_model(0), rm_pairs)
# The collator stores the margins in float32 (1/3 and 2/3 off by half a float32 ulp); softplus is
# 1-Lipschitz, so the mean loss moves by less than eps32.
check_close("RewardTrainer.compute_loss with a margin column = L_ranking",
            trl_fixture.reward_trainer_loss(rm_pairs), margin_rm_loss(r_chosen, r_rejected, rated_margins),
            atol=np.finfo(np.float32).eps)
check_close("pitfall: without a margin column the margin is 0 (the plain Bradley-Terry loss)",
            trl_fixture.reward_trainer_loss(trl_fixture.reward_batch()),
            margin_rm_loss(r_chosen, r_rejected, 0.0), rtol=1e-12)
# --- end in code ---

fig, ax = figure("Llama 2 margin loss vs reward gap (Margin Large)", "reward gap r_c - r_r", "loss")
g = np.linspace(-4, 8, 200)
for k in ratings:
    ax.plot(g, [margin_rm_loss(x, 0.0, MARGIN_LARGE[k]) for x in g], label=f"{k} (m = {MARGIN_LARGE[k]:g})")
ax.legend()

# The page's calculator is checked against margin_rm_loss on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): gaps below, at and above each margin, both branches of the softplus.
import cardcalc  # noqa: E402

cardcalc.table(lambda r_c, r_r, m: margin_rm_loss(r_c, r_r, m),
               cardcalc.grid(r_c=(-30.0, 0.0, 1.0, 2.5, 40.0), r_r=(-1.0, 0.5), m=(0.0, 1.0 / 3.0, 1.0, 3.0)))
