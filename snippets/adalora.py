"""AdaLoRA: the SVD-form update P diag(lambda) Q vs numpy's SVD, pruning to a budget vs Eckart-Young, the
orthogonality penalty, sensitivity vs the loss change from zeroing a weight, the smoothed importance vs
scipy.signal.lfilter, triplet scores, the cubic budget schedule."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.signal import lfilter


# --- formula ---
def svd_update(P, lam, Q):
    """Delta = P diag(lambda) Q = sum_i lambda_i P[:, i] Q[i, :]."""
    return (P * lam) @ Q


def orth_penalty(P, Q):
    """R(P, Q) = ||P^T P - I||_F^2 + ||Q Q^T - I||_F^2."""
    r = P.shape[1]
    return np.sum((P.T @ P - np.eye(r)) ** 2) + np.sum((Q @ Q.T - np.eye(r)) ** 2)


def sensitivity(w, grad):
    """I(w) = |w dL/dw|: first-order change of the loss if w were set to zero."""
    return np.abs(w * grad)


def smooth(i_bar, u_bar, i_now, beta1=0.85, beta2=0.85):
    """EMA of the sensitivity and of its deviation from that EMA (uncertainty)."""
    i_bar = beta1 * i_bar + (1 - beta1) * i_now
    u_bar = beta2 * u_bar + (1 - beta2) * np.abs(i_now - i_bar)
    return i_bar, u_bar


def triplet_scores(s_P, s_lam, s_Q):
    """S_i = s(lambda_i) + mean_j s(P_ji) + mean_j s(Q_ij), with s = I_bar * U_bar per entry."""
    return s_lam + np.mean(s_P, axis=0) + np.mean(s_Q, axis=1)


def prune(lam, scores, budget):
    """Keep the lambda_i whose score is among the `budget` largest (over all matrices), zero the rest."""
    threshold = np.sort(scores)[-budget]
    return np.where(scores >= threshold, lam, 0.0)


def budget_schedule(t, b0, bT, t_init, t_final, total):
    """b(t): b0 during warm-up, a cubic decrease to bT, then bT for the last t_final steps."""
    if t < t_init:
        return b0
    if t < total - t_final:
        return bT + (b0 - bT) * (1 - (t - t_init) / (total - t_init - t_final)) ** 3
    return bT
# --- end formula ---


rng = np.random.default_rng(0)
d1, d2, r = 20, 14, 6

# 1. With orthonormal P (columns) and Q (rows), the update is an SVD: its singular values are |lambda|.
P = np.linalg.qr(rng.normal(size=(d1, r)))[0]
Q = np.linalg.qr(rng.normal(size=(d2, r)))[0].T
lam = np.array([0.9, -2.0, 0.1, 1.4, -0.5, 0.03])
delta = svd_update(P, lam, Q)
check_close("singular values of P diag(lambda) Q = sorted |lambda| (numpy SVD)",
            np.linalg.svd(delta, compute_uv=False)[:r], np.sort(np.abs(lam))[::-1], rtol=1e-12)
check_true("... and the rest vanish (rank r)", bool(np.linalg.svd(delta, compute_uv=False)[r:].max() < 1e-12))
check_close("= sum of rank-one terms lambda_i p_i q_i^T", delta,
            sum(lam[i] * np.outer(P[:, i], Q[i]) for i in range(r)), rtol=1e-12, atol=1e-15)
check_close("orthogonality penalty is 0 for orthonormal P, Q", orth_penalty(P, Q), 0.0, atol=1e-24)
Pn, Qn = rng.normal(size=(d1, r)), rng.normal(size=(r, d2))
check_close("penalty for random P, Q vs numpy Frobenius norms", orth_penalty(Pn, Qn),
            np.linalg.norm(Pn.T @ Pn - np.eye(r)) ** 2 + np.linalg.norm(Qn @ Qn.T - np.eye(r)) ** 2,
            rtol=1e-12)

# 2. Pruning by |lambda| to a budget of 3 keeps the best rank-3 approximation (Eckart-Young): the
#    error equals the SVD truncation error sqrt(sum of the dropped singular values squared).
kept = prune(lam, np.abs(lam), 3)
check_true("budget 3 keeps the 3 largest |lambda|", np.array_equal(kept != 0, np.abs(lam) >= 0.9))
U, S, Vt = np.linalg.svd(delta)
best3 = (U[:, :3] * S[:3]) @ Vt[:3]
check_close("pruned update = numpy's best rank-3 approximation", svd_update(P, kept, Q), best3, rtol=1e-10,
            atol=1e-14)

# 3. Sensitivity |w dL/dw| is the first-order loss change from zeroing the weight:
#    L(lambda) = ||X (W0 + P diag(lambda) Q) - Y||^2 / 2. For small weights (|lambda_i| = 1e-4, either sign)
#    it matches |L(lambda) - L(lambda_i = 0)| to within about 1 percent.
X = rng.normal(size=(30, d1))
W0 = rng.normal(size=(d1, d2))
Y = X @ W0 + rng.normal(size=(30, d2))


def loss(lmb):
    return 0.5 * np.sum((X @ (W0 + svd_update(P, lmb, Q)) - Y) ** 2)


h = 1e-7
for i, w in ((2, 1e-4), (4, -1e-4)):
    lam_i = lam.copy()
    lam_i[i] = w
    e = np.eye(r)[i]
    g = (loss(lam_i + h * e) - loss(lam_i - h * e)) / (2 * h)
    drop = lam_i.copy()
    drop[i] = 0.0
    check_close(f"sensitivity of lambda_{i} = {w:+g} vs |L(lambda) - L(lambda_{i} = 0)|", sensitivity(w, g),
                abs(loss(lam_i) - loss(drop)), rtol=0.01)

check_close("sensitivity by hand: w = (-2, 3), grad = (1, -1) -> (2, 3)",
            sensitivity(np.array([-2.0, 3.0]), np.array([1.0, -1.0])), [2.0, 3.0], rtol=1e-12)

# 4. The smoothed importance and uncertainty over 50 steps vs linear filters (scipy.signal.lfilter):
#    I_bar = lfilter([1 - b1], [1, -b1], I), U_bar = lfilter([1 - b2], [1, -b2], |I - I_bar|).
I_seq = rng.exponential(size=50)
ib, ub = 0.0, 0.0
ib_hist, ub_hist = [], []
for x in I_seq:
    ib, ub = smooth(ib, ub, x)
    ib_hist.append(ib)
    ub_hist.append(ub)
ref_ib = lfilter([0.15], [1.0, -0.85], I_seq)
check_close("I_bar (beta1 = 0.85) vs lfilter", ib_hist, ref_ib, rtol=1e-12)
check_close("U_bar (beta2 = 0.85) vs lfilter of |I - I_bar|", ub_hist,
            lfilter([0.15], [1.0, -0.85], np.abs(I_seq - ref_ib)), rtol=1e-12)
check_close("beta2 separately: smooth(0, 0, 1, beta1=0.5, beta2=0.9) -> (0.5, 0.05)",
            smooth(0.0, 0.0, 1.0, 0.5, 0.9), [0.5, 0.05], rtol=1e-12)

# 5. Triplet score by hand: s(lambda) = (1, 2), P scores (3 x 2) with column means (2, 5),
#    Q scores (2 x 4) with row means (1, 0): S = (4, 7).
s_P = np.array([[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
s_Q = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
check_close("triplet scores by hand", triplet_scores(s_P, np.array([1.0, 2.0]), s_Q), [4.0, 7.0], rtol=1e-12)

# 6. Global allocation: two layers' triplets compete for one budget of 4; scores (9, 8, 1) for layer 1
#    and (7, 2, 0.5) for layer 2 leave each layer rank 2; scores (9, 8, 3) and (7, 2, 0.5) give 3 and 1.
scores = np.array([9.0, 8.0, 1.0, 7.0, 2.0, 0.5])
kept_mask = prune(np.ones(6), scores, 4) != 0
check_true("budget 4: layer 1 keeps 2 triplets (9, 8), layer 2 keeps 2 (7, 2)",
           np.array_equal(kept_mask, [True, True, False, True, True, False]))
kept_mask = prune(np.ones(6), np.array([9.0, 8.0, 3.0, 7.0, 2.0, 0.5]), 4) != 0
check_true("... with (9, 8, 3) and (7, 2, 0.5): ranks 3 and 1",
           np.array_equal(kept_mask.reshape(2, 3).sum(1), [3, 1]))

# 7. Budget schedule: b0 = 144 (12 per matrix over 12 matrices) to bT = 96, warm-up 100, final 200,
#    total 1000. Hand values: halfway through the decrease (t = 450) the factor is (1/2)^3 = 1/8.
sched = [budget_schedule(t, 144, 96, 100, 200, 1000) for t in (0, 99, 100, 450, 799, 800, 999)]
check_close("schedule at t = 0, 99, 100, 450, 799, 800, 999", sched,
            [144, 144, 144, 96 + 48 / 8, 96 + 48 * (1 / 700) ** 3, 96, 96], rtol=1e-12)

# --- in code: peft ---
from types import SimpleNamespace  # noqa: E402

import torch  # noqa: E402
from peft import AdaLoraConfig  # noqa: E402
from peft_fixture import TARGET, OneLinear, adapt, run, weight  # noqa: E402


class LinearWithLoss(OneLinear):
    """OneLinear whose output carries a loss of 0, to which AdaLoraModel.forward adds its penalty."""

    def forward(self, x):
        return SimpleNamespace(logits=self.proj(x), loss=torch.zeros((), dtype=torch.float64))


def peft_adalora(P_, Q_, lam_, base=OneLinear, **options):
    """PEFT's AdaLoRA on X @ W0 (nn.Linear holds W0^T, so lora_A is P^T, r x d1, lora_B is Q^T and
    lora_E is lambda), with the card's schedule of check 7 scaled to one matrix: b0 = r, bT = 3."""
    config = AdaLoraConfig(init_r=r, target_r=3, total_step=1000, tinit=100, tfinal=200,
                           target_modules=[TARGET], **options)
    model, layer = adapt(W0.T, config, base=base)
    with torch.no_grad():
        for name, value in (("lora_A", P_.T), ("lora_B", Q_.T), ("lora_E", lam_[:, None])):
            getattr(layer, name)["default"].copy_(torch.from_numpy(value))
    return model, layer


# float64 sums of <= 20 products by another route: a few ulps of the largest terms, so rtol 1e-12
# with an atol of 1e-12 times the output's size.
def near(reference):
    return {"rtol": 1e-12, "atol": 1e-12 * np.abs(reference).max()}


def card_forward(scale):
    return X @ (W0 + scale * svd_update(P, lam, Q))


model, layer = peft_adalora(P, Q, lam, lora_alpha=r)
got = run(model, X)
check_close("AdaLoRA's forward, lora_alpha = r: X (W0 + r / (r + 1e-5) P diag(lambda) Q)", got,
            card_forward(r / (r + 1e-5)), **near(got))
check_true("pitfall: ... the 1e-5 guard leaves it 1.7e-6 relative short of the card's update",
           np.abs(got - card_forward(1.0)).max() > 1e3 * 1e-12 * np.abs(got).max())
default_model, _ = peft_adalora(P, Q, lam)
check_close("pitfall: lora_alpha defaults to 8, so the update is scaled by 8 / (r + 1e-5)",
            run(default_model, X), card_forward(8 / (r + 1e-5)), **near(got))

# The penalty AdaLoraModel.forward (model.base_model) adds to the loss: orth_reg_weight (0.5) times
# the Frobenius norms, not their squares, averaged over lora_A and lora_B. With orthonormal Q,
# orth_penalty(Pn, Q) is ||Pn^T Pn - I||_F^2 alone, and likewise for Qn. A PeftModel without a
# task_type calls the wrapped model directly and adds nothing.
penalty_model, _ = peft_adalora(Pn, Qn, lam, base=LinearWithLoss)
check_true("pitfall: get_peft_model without task_type adds no orthogonality penalty to the loss",
           penalty_model(torch.from_numpy(X)).loss.item() == 0.0)
peft_penalty = penalty_model.base_model(torch.from_numpy(X)).loss.item()
# A few products and two square roots of sums of 36 squares: rtol 1e-12.
check_close("pitfall: AdaLoraModel's penalty is 0.5 (||P^T P - I||_F + ||Q Q^T - I||_F) / 2, not R(P, Q)",
            peft_penalty, 0.5 * (np.sqrt(orth_penalty(Pn, Q)) + np.sqrt(orth_penalty(P, Qn))) / 2, rtol=1e-12)
check_true("... far from the card's R(P, Q)", abs(peft_penalty - orth_penalty(Pn, Qn)) > 1,
           f"PEFT {peft_penalty:.3f}, R(P, Q) = {orth_penalty(Pn, Qn):.3f}")

# The rank allocator: five steps of gradients into its sensitivity EMAs, then a budget of 3. The
# card's smooth, triplet_scores and prune on the same gradients must keep the same triplets.
allocator, adapted = model.base_model.rankallocator, model.base_model.model
params = {"lora_A": P.T, "lora_B": Q.T, "lora_E": lam[:, None]}
ema = {name: (np.zeros_like(value), np.zeros_like(value)) for name, value in params.items()}
for _ in range(5):
    for name, value in params.items():
        g = rng.normal(size=value.shape)
        getattr(layer, name)["default"].grad = torch.from_numpy(g)
        ema[name] = smooth(*ema[name], sensitivity(value, g))
    allocator.update_ipt(adapted)
s_of = {name: i_bar * u_bar for name, (i_bar, u_bar) in ema.items()}
card_kept = prune(lam, triplet_scores(s_of["lora_A"].T, s_of["lora_E"][:, 0], s_of["lora_B"].T), 3)
allocator.mask_to_budget(adapted, 3)
check_close("mask_to_budget(budget=3) zeroes the lambda_i the card prunes",
            weight(layer.lora_E["default"])[:, 0], card_kept, rtol=0, atol=0)

# Its schedule is the card's b(t) rounded down to an integer, at every step.
steps = range(1000)
peft_budgets = [allocator.budget_schedule(t)[0] for t in steps]
card_budgets = [budget_schedule(t, r, 3, 100, 200, 1000) for t in steps]
check_true("budget_schedule(t) = floor(b(t)) for t = 0 .. 999",
           peft_budgets == [int(b) for b in card_budgets])
fractional = sum(b != int(b) for b in card_budgets)
check_true("pitfall: ... which is below the card's real-valued b(t) on most of the decrease",
           fractional > 500, f"{fractional} of 1000 steps")
# --- end in code ---

ts = np.arange(1000)
fig, ax = figure("AdaLoRA budget schedule (b₀ = 144, b_T = 96)", "training step",
                 "total rank budget b(t)")
ax.plot(ts, [budget_schedule(t, 144, 96, 100, 200, 1000) for t in ts])
