"""BERT masked-LM objective: the 15% selection and 80/10/10 corruption checked by exact enumeration of
the random draws (and by simulation), and the loss taken over exactly the selected positions."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax


# --- formula ---
def mlm_corrupt(tokens, u_select, u_action, random_tokens, mask_id,
                p_select=0.15, p_mask=0.8, p_random=0.1):
    """Select each position with prob. p_select; a selected position becomes [MASK] with prob. p_mask,
    a uniformly drawn token with prob. p_random, and stays itself otherwise. u_* are uniform(0, 1)
    draws, random_tokens uniform over the vocabulary; returns (corrupted input, selected positions)."""
    selected = u_select < p_select
    to_mask = selected & (u_action < p_mask)
    to_random = selected & (u_action >= p_mask) & (u_action < p_mask + p_random)
    corrupted = np.where(to_mask, mask_id, np.where(to_random, random_tokens, tokens))
    return corrupted, selected


def mlm_loss(logits, tokens, selected):
    """Mean over selected positions of -log p(x_i | corrupted input); logits (..., L, V)."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    nll = -np.take_along_axis(log_p, tokens[..., None], axis=-1).squeeze(axis=-1)
    return np.sum(nll * selected) / np.sum(selected)
# --- end formula ---


rng = np.random.default_rng(0)
V, MASK = 7, 7          # toy vocabulary 0..6, [MASK] has id 7

# 1. Exact probabilities: a midpoint grid of 100000 uniform draws realizes each threshold exactly.
grid = (np.arange(100_000) + 0.5) / 100_000
tok = np.zeros(grid.size, dtype=int)
_, sel = mlm_corrupt(tok, grid, grid, tok, MASK)
check_close("P(selected) = 0.15", sel.mean(), 0.15, rtol=1e-9)
out, _ = mlm_corrupt(tok + 3, np.zeros(grid.size), grid, tok + 5, MASK)        # all selected
check_close("given selected: P([MASK]), P(random), P(unchanged) = 0.8, 0.1, 0.1",
            [np.mean(out == MASK), np.mean(out == 5), np.mean(out == 3)], [0.8, 0.1, 0.1], rtol=1e-9)

# 2. Joint enumeration over (selection draw, action draw, random token): a coarse midpoint grid whose
#    cells align with 0.15, 0.8, 0.9, times every vocabulary entry, gives exact probabilities.
us, ua, rt, x0 = np.meshgrid((np.arange(20) + 0.5) / 20, (np.arange(10) + 0.5) / 10, np.arange(V),
                             np.arange(V), indexing="ij")
out, sel = mlm_corrupt(x0.ravel(), us.ravel(), ua.ravel(), rt.ravel(), MASK)
check_close("P(input token = original) = 0.85 + 0.15 (0.1 + 0.1/V)", np.mean(out == x0.ravel()),
            0.85 + 0.15 * (0.1 + 0.1 / V), rtol=1e-12)
check_close("P(position is predicted but shows the original token) = 0.15 (0.1 + 0.1/V)",
            np.mean(sel & (out == x0.ravel())), 0.15 * (0.1 + 0.1 / V), rtol=1e-12)
check_close("P([MASK] visible) = 0.12", np.mean(out == MASK), 0.12, rtol=1e-12)

# 3. Simulation with real draws (512-token sequences, WordPiece-sized vocabulary): 4-sigma agreement.
B, L, VB = 400, 512, 30522
x = rng.integers(0, VB, size=(B, L))
xt, s = mlm_corrupt(x, rng.random((B, L)), rng.random((B, L)), rng.integers(0, VB, size=(B, L)), VB)
n = x.size
for what, got, prob in [("selected", s.mean(), 0.15), ("[MASK]", np.mean(xt == VB), 0.12),
                        ("selected and unchanged", np.mean(s & (xt == x)), 0.015 + 0.015 / VB)]:
    se = np.sqrt(prob * (1 - prob) / n)
    check_true(f"simulation: P({what}) = {prob:.4f} within 4 sigma", abs(got - prob) < 4 * se,
               f"{got:.5f} (sigma {se:.1e})")

# 4. Loss over selected positions only, against a loop in the PyTorch convention (labels = -100
#    where not selected), for a batch of 3 sequences of length 9 and 5-class logits spanning ~1e3.
V5 = 5
x = rng.integers(0, V5, size=(3, 9))
xt, s = mlm_corrupt(x, rng.random((3, 9)), rng.random((3, 9)), rng.integers(0, V5, size=(3, 9)), V5,
                    p_select=0.4)
logits = rng.normal(scale=100.0, size=(3, 9, V5))
labels = np.where(s, x, -100)
terms = [-log_softmax(logits[b, t])[labels[b, t]] for b in range(3) for t in range(9) if labels[b, t] != -100]
check_true("some positions selected, some not, some selected but unchanged",
           0 < s.sum() < s.size and np.any(s & (xt == x)), f"{s.sum()} of {s.size} selected")
check_close("loss = mean over selected of -log p (loop, ignore_index convention)", mlm_loss(logits, x, s),
            np.mean(terms), rtol=1e-12)
noisy = logits + 1e3 * rng.normal(size=logits.shape) * ~s[..., None]
check_close("unselected positions do not affect the loss", mlm_loss(noisy, x, s), mlm_loss(logits, x, s),
            rtol=1e-15)
check_close("logits spanning ~1e5 stay finite", mlm_loss(100 * logits, x, s),
            np.mean([-log_softmax(100 * logits[b, t])[x[b, t]]
                     for b in range(3) for t in range(9) if s[b, t]]),
            rtol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Section 4's batch: logits (3, 9, 5) spanning ~1e3, labels -100 where a position was not selected. One
# log-softmax and a mean of 3 x 9 terms in float64 on either side: rtol 1e-12.
t_logits, t_labels = torch.tensor(logits), torch.tensor(labels)
check_close("F.cross_entropy(logits.transpose(1, 2), labels) with -100 at unselected positions = L_MLM",
            F.cross_entropy(t_logits.transpose(1, 2), t_labels).item(), mlm_loss(logits, x, s), rtol=1e-12)
check_close("pitfall: the original tokens as labels everywhere average over all 27 positions",
            F.cross_entropy(t_logits.transpose(1, 2), torch.tensor(x)).item(),
            mlm_loss(logits, x, np.ones_like(s)), rtol=1e-12)
try:
    F.cross_entropy(t_logits, t_labels)
    wrong_axis_fails = False
except (RuntimeError, ValueError):
    wrong_axis_fails = True
check_true("pitfall: the classes are dimension 1: (batch, length, vocabulary) logits are refused",
           wrong_axis_fails)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
per_position = np.asarray(optax.softmax_cross_entropy_with_integer_labels(jax.numpy.asarray(logits),
                                                                          jax.numpy.asarray(x)))
check_close("softmax_cross_entropy_with_integer_labels(logits, x), summed over M and divided by |M| = L_MLM",
            np.sum(per_position * s) / np.sum(s), mlm_loss(logits, x, s), rtol=1e-12)
check_true("pitfall: no ignore_index: a label of -100 gives NaN",
           bool(np.isnan(np.asarray(optax.softmax_cross_entropy_with_integer_labels(
               jax.numpy.asarray(logits), jax.numpy.asarray(labels)))[~s]).all()))
# --- end in code ---

fig, ax = figure("What the encoder sees at a predicted position (BERT)", "input shown",
                 "probability given the position is predicted")
ax.bar(["[MASK]", "random token", "original token"], [0.8, 0.1, 0.1])
ax.set_ylim(0, 1)
