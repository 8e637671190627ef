"""Inverted dropout: expectation and variance by exact enumeration of all 2^d masks, the
Monte-Carlo keep rate, eval mode, and equivalence with the paper's test-time weight scaling."""

import itertools

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def dropout(x, p, rng=None, mask=None, training=True):
    """Training: zero each entry with probability p and divide the survivors by 1 - p.
    Evaluation: the identity."""
    if not training:
        return x
    if mask is None:
        mask = rng.random(x.shape) >= p          # keep with probability 1 - p
    return x * mask / (1 - p)
# --- end formula ---


rng = np.random.default_rng(0)
d, p = 10, 0.3
x = rng.normal(loc=1.0, scale=2.0, size=d)

# Exact expectation over the Bernoulli masks: enumerate all 2^d masks with their probabilities.
masks = np.array(list(itertools.product([0, 1], repeat=d)), dtype=bool)
probs = np.prod(np.where(masks, 1 - p, p), axis=1)
check_close("mask probabilities sum to 1", probs.sum(), 1.0, rtol=1e-13)
outs = np.array([dropout(x, p, mask=m) for m in masks])
mean = probs @ outs
var = probs @ (outs - mean) ** 2

# 1. Inverted dropout preserves the expectation exactly: E[Dropout(x)] = x.
check_close("E over all 2^10 masks: E[Dropout(x)] = x", mean, x, rtol=1e-12)
# 2. It adds multiplicative noise: Var[Dropout(x)_i] = x_i^2 p / (1 - p).
check_close("Var over all masks = x^2 p / (1 - p)", var, x**2 * p / (1 - p), rtol=1e-11)

# 3. Sampled masks keep a fraction 1 - p of the entries; with n = 10^6 Bernoulli draws the
#    standard error is sqrt(p (1-p) / n) = 4.6e-4, and we allow 5 standard errors.
n = 1_000_000
y = dropout(np.ones(n), p, rng)
keep = np.mean(y != 0)
check_close("Monte Carlo keep rate = 1 - p (5 s.e.)", keep, 1 - p, atol=5 * np.sqrt(p * (1 - p) / n))
check_true("survivors are scaled by exactly 1 / (1 - p)", np.allclose(y[y != 0], 1 / (1 - p), rtol=1e-15))

# 4. Evaluation mode is the identity (no mask, no scaling).
check_close("eval mode: Dropout(x) = x", dropout(x, p, rng, training=False), x, rtol=0, atol=0)

# 5. Srivastava et al. keep unscaled masks in training and multiply the outgoing weights by the
#    retention probability q = 1 - p at test time. For a linear layer both conventions give the
#    same expected pre-activation as their deterministic test-time network.
W = rng.normal(size=(d, 4))
paper_train = np.array([(m * x) @ W for m in masks])            # no rescaling during training
check_close("paper: E[(m * x) W] = x (q W) (test-time weight scaling)", probs @ paper_train,
            x @ ((1 - p) * W), rtol=1e-12)
check_close("inverted: E[Dropout(x) W] = x W (eval = identity)", probs @ (outs @ W),
            dropout(x, p, training=False) @ W, rtol=1e-12)

# The page's calculator is checked against dropout on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): one entry under its two masks, kept and dropped, whose mean and variance
# over the masks are taken as in check 2; no dropout (p = 0) up to p = 0.99, entries of both signs and 0.
import cardcalc  # noqa: E402


def calculator_row(x, p):
    kept, dropped = (dropout(np.array([x]), p, mask=np.array([m]))[0] for m in (True, False))
    entry_mean = (1 - p) * kept + p * dropped
    return {"kept": kept, "variance": (1 - p) * (kept - entry_mean) ** 2 + p * (dropped - entry_mean) ** 2}


cardcalc.table(calculator_row, cardcalc.grid(x=(-3.0, 0.0, 1.0, 250.0), p=(0.0, 0.1, 0.5, 0.99)))

# --- in code: torch ---
import torch  # noqa: E402

torch.manual_seed(0)
# torch draws its own mask; reading it back from the output (the nonzero entries) makes the card's
# formula give the same numbers: one multiplication by 1 / (1 - p) each, so 1e-15 relative.
wide = torch.tensor(rng.normal(loc=1.0, scale=2.0, size=100_000))
layer = torch.nn.Dropout(p)
dropped = layer(wide).numpy()
check_close("nn.Dropout(p) in training mode = m * x / (1 - p), with its own mask m",
            dropped, dropout(wide.numpy(), p, mask=dropped != 0), rtol=1e-15)
check_close("its keep rate is 1 - p (5 s.e.)", np.mean(dropped != 0), 1 - p,
            atol=5 * np.sqrt(p * (1 - p) / dropped.size))
layer.eval()
check_close("after .eval(), nn.Dropout is the identity", layer(wide).numpy(), wide.numpy(), rtol=0)
# The functional form has no mode to switch: its training argument defaults to True.
functional = torch.nn.functional.dropout(wide, p).numpy()
check_true("pitfall: F.dropout(x, p) drops even in an eval-mode model (training=True by default)",
           np.mean(functional == 0) > p / 2 and np.array_equal(
               torch.nn.functional.dropout(wide, p, training=False).numpy(), wide.numpy()),
           f"{np.mean(functional == 0):.3f} of entries zeroed")
# --- end in code ---
