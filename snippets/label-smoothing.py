"""Label smoothing: cross-entropy against the smoothed target, its (1-eps) CE + eps uniform-CE split,
the optimum it pulls the logits to, and the fairseq convention that spreads eps over the wrong classes."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import entropy


# --- formula ---
def smoothed_targets(labels: np.ndarray, num_classes: int, eps: float) -> np.ndarray:
    """q'_k = (1 - eps) [k = y] + eps / V  (Szegedy et al., uniform u(k) = 1/V includes the label)."""
    one_hot = np.eye(num_classes)[labels]
    return (1.0 - eps) * one_hot + eps / num_classes


def label_smoothing_loss(logits: np.ndarray, labels: np.ndarray, eps: float = 0.1) -> np.ndarray:
    """Per-row cross-entropy H(q', softmax(z)), with a max-shifted log-softmax."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.sum(smoothed_targets(labels, logits.shape[-1], eps) * log_p, axis=-1)
# --- end formula ---


rng = np.random.default_rng(0)
B, V = 6, 11
z = rng.normal(scale=3.0, size=(B, V))
y = rng.integers(0, V, size=B)
eps = 0.1

# 1. The smoothed target is a distribution with (1 - eps + eps/V) on the label and eps/V elsewhere.
q = smoothed_targets(y, V, eps)
check_close("target rows sum to 1", q.sum(axis=1), np.ones(B), rtol=1e-13)
check_close("label entry = 1 - eps + eps/V, others = eps/V",
            [q[0, y[0]], q[0, (y[0] + 1) % V]], [0.9 + 0.1 / 11, 0.1 / 11], rtol=1e-13)

# 2. Loss = cross-entropy of q' against softmax(z): scipy.stats.entropy gives H(q') + KL(q' || p).
ref = [entropy(q[i]) + entropy(q[i], softmax(z[i])) for i in range(B)]
check_close("loss = H(q') + KL(q' || softmax z) (scipy)", label_smoothing_loss(z, y, eps), ref, rtol=1e-12)

# 3. Decomposition: (1 - eps) CE(one-hot) + eps * CE(uniform), by explicit loops over classes.
lp = log_softmax(z, axis=1)
nll = np.array([-lp[i, y[i]] for i in range(B)])
uniform_ce = np.array([-sum(lp[i, k] for k in range(V)) / V for i in range(B)])
check_close("loss = (1 - eps) NLL + eps * mean_k(-log p_k)  (torch label_smoothing convention)",
            label_smoothing_loss(z, y, eps), (1 - eps) * nll + eps * uniform_ce, rtol=1e-12)
check_close("eps = 0 is plain cross-entropy", label_smoothing_loss(z, y, 0.0), nll, rtol=1e-12)
check_close("eps = 1 ignores the label: mean_k(-log p_k)", label_smoothing_loss(z, y, 1.0), uniform_ce,
            rtol=1e-12)
check_close("default eps is the paper's 0.1", label_smoothing_loss(z, y), 0.9 * nll + 0.1 * uniform_ce,
            rtol=1e-12)

# 4. fairseq puts eps on the V - 1 wrong classes (label gets exactly 1 - eps). That is the
#    card's rule with eps' = eps V / (V - 1), not the same number.
fair_q = np.full((B, V), eps / (V - 1))
fair_q[np.arange(B), y] = 1 - eps
fair = -np.sum(fair_q * lp, axis=1)
check_close("fairseq(eps) = card(eps V/(V-1))", label_smoothing_loss(z, y, eps * V / (V - 1)), fair,
            rtol=1e-12)
check_true("...and differs from card(eps)", np.abs(fair - label_smoothing_loss(z, y, eps)).min() > 1e-4,
           f"min gap {np.abs(fair - label_smoothing_loss(z, y, eps)).min():.2e}")

# 5. The loss is minimized at softmax(z) = q': finite-difference gradient = softmax(z) - q',
#    zero at z = log q', where the loss equals the entropy H(q') (not 0).
h = 1e-6
grad = np.zeros((B, V))
for k in range(V):
    dz = np.zeros(V)
    dz[k] = h
    grad[:, k] = (label_smoothing_loss(z + dz, y, eps) - label_smoothing_loss(z - dz, y, eps)) / (2 * h)
check_close("gradient (finite differences) = softmax(z) - q'", grad, softmax(z, axis=1) - q, rtol=1e-6,
            atol=1e-9)
z_opt = np.log(q)
check_close("minimum at z = log q' equals H(q')", label_smoothing_loss(z_opt, y, eps),
            [entropy(r) for r in q], rtol=1e-12)
gap = np.log((1 - eps + eps / V) / (eps / V))
check_close("optimal logit gap label-vs-other is finite: log((1-eps+eps/V)/(eps/V))",
            z_opt[0, y[0]] - z_opt[0, (y[0] + 1) % V], gap, rtol=1e-12)

# 6. Logits spanning thousands: the max shift keeps the loss finite and exact.
big = z * 400.0
check_close("logits spanning ~1e4 (max-shift)", label_smoothing_loss(big, y, eps),
            -np.sum(q * log_softmax(big, axis=1), axis=1), rtol=1e-12)

# 7. Batched over (sequence, position, class): the class axis is the last one.
z3 = rng.normal(scale=2.0, size=(3, 4, 7))
y3 = rng.integers(0, 7, size=(3, 4))
ref3 = [[entropy(smoothed_targets(y3[a, b], 7, eps)) + entropy(smoothed_targets(y3[a, b], 7, eps),
                                                                  softmax(z3[a, b])) for b in range(4)]
        for a in range(3)]
check_close("3-D logits (batch, position, class)", label_smoothing_loss(z3, y3, eps), ref3, rtol=1e-12)

# The page's calculator is checked against smoothed_targets and label_smoothing_loss on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): the target row of label 0, and the
# loss at the optimum z = log q', for light to full smoothing (eps = 1 ignores the label: H = log V).
import cardcalc  # noqa: E402


def calculator_row(eps, V):
    target = smoothed_targets(np.array([0]), V, eps)
    optimum = np.log(target)
    return {"q_y": target[0, 0], "q_k": target[0, 1], "gap": optimum[0, 0] - optimum[0, 1],
            "H": label_smoothing_loss(optimum, np.array([0]), eps)[0]}


cardcalc.table(calculator_row, cardcalc.grid(eps=(1e-4, 0.1, 0.5, 1.0), V=(2, 10, 1000)))

# --- in code: torch ---
import torch  # noqa: E402

logits_t, labels_t = torch.tensor(z), torch.tensor(y)
per_row = torch.nn.CrossEntropyLoss(label_smoothing=eps, reduction="none")(logits_t, labels_t).numpy()
check_close("CrossEntropyLoss(label_smoothing=eps, reduction='none') = L_LS per row",
            per_row, label_smoothing_loss(z, y, eps), rtol=1e-12)
check_close("its default reduction='mean' is the batch mean of L_LS",
            torch.nn.CrossEntropyLoss(label_smoothing=eps)(logits_t, labels_t).item(),
            label_smoothing_loss(z, y, eps).mean(), rtol=1e-12)
check_true("pitfall: eps is spread over all V classes, the label's included: not fairseq's 1 - eps",
           np.abs(per_row - fair).min() > 1e-4)
probabilities = torch.softmax(logits_t, dim=-1)
check_true("pitfall: it takes logits; softmax outputs passed in are treated as logits",
           np.abs(torch.nn.CrossEntropyLoss(label_smoothing=eps, reduction="none")(probabilities, labels_t)
                  .numpy() - per_row).min() > 1e-2)
# --- end in code ---

fig, ax = figure("Label smoothing keeps the optimal logit gap finite", "logit gap (label minus others)",
                 "loss (nats)")
gaps = np.linspace(-2, 14, 300)
for e in [0.0, 0.05, 0.1, 0.2]:
    zz = np.zeros((len(gaps), 10))
    zz[:, 0] = gaps
    ax.plot(gaps, label_smoothing_loss(zz, np.zeros(len(gaps), dtype=int), e), label=f"$\\epsilon$ = {e}")
ax.set_ylim(0, 3)
ax.legend()
