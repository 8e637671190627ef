"""LM head: logits vs a scalar loop, the cross-entropy gradient vs finite differences, and the
bias as a unigram log-prior (fitted with scipy.optimize)."""

import math

import numpy as np
from cardcheck import check_close, check_true
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax


# --- formula ---
def lm_head(h, W_U, b_U=0):
    """z_t = h_t W_U + b_U: one logit per vocabulary entry for every position."""
    return h @ W_U + b_U


def head_parameters(d, V, bias=False):
    """W_U holds d V weights; the optional bias b_U adds V more."""
    return d * V + (V if bias else 0)
# --- end formula ---


rng = np.random.default_rng(0)
T, d, V = 5, 7, 11
h = rng.normal(size=(T, d))
W_U = rng.normal(scale=d**-0.5, size=(d, V))
b_U = rng.normal(size=V)

# 1. Scalar reference with exactly rounded sums.
ref = np.array([[math.fsum(h[t, i] * W_U[i, v] for i in range(d)) + b_U[v] for v in range(V)]
                for t in range(T)])
check_close("z = h W_U + b_U vs scalar loop", lm_head(h, W_U, b_U), ref, rtol=1e-13, atol=1e-14)
ref0 = np.array([[math.fsum(h[t, i] * W_U[i, v] for i in range(d)) for v in range(V)]
                 for t in range(T)])
check_close("no bias (GPT-2 / LLaMA style) vs scalar loop", lm_head(h, W_U), ref0, rtol=1e-13,
            atol=1e-14)

# 2. Next-token cross-entropy: dL/dh_t = (softmax(z_t) - onehot(y_t)) W_U^T, against central
#    finite differences through lm_head.
y = rng.integers(0, V, size=T)


def ce(h_):
    z = lm_head(h_, W_U, b_U)
    return -float(np.sum(log_softmax(z, axis=-1)[np.arange(T), y]))


p = softmax(lm_head(h, W_U, b_U), axis=-1)
analytic = (p - np.eye(V)[y]) @ W_U.T
fd = np.zeros_like(h)
for t in range(T):
    for i in range(d):
        hp, hm = h.copy(), h.copy()
        hp[t, i] += 1e-6
        hm[t, i] -= 1e-6
        fd[t, i] = (ce(hp) - ce(hm)) / 2e-6
check_close("dCE/dh = (p - y) W_U^T vs finite differences", fd, analytic, rtol=1e-6, atol=1e-8)

# 3. With an uninformative hidden state (h = 0) only the bias is left, and the bias that
#    minimizes the cross-entropy makes softmax(b_U) the unigram frequencies of the targets.
corpus = rng.choice(V, size=400, p=softmax(rng.normal(size=V)))
counts = np.bincount(corpus, minlength=V)


def unigram_ce(b):
    z = lm_head(np.zeros((1, d)), W_U, b)[0]
    return -float(np.sum(counts * log_softmax(z))) / corpus.size


fit = minimize(unigram_ce, np.zeros(V), method="BFGS", options={"gtol": 1e-11})
check_close("optimal bias: softmax(b_U) = unigram frequencies", softmax(fit.x), counts / corpus.size,
            rtol=1e-5, atol=1e-7)

# 4. Generation needs only the last position's logits.
check_close("head on the last row == last row of the full head", lm_head(h[-1], W_U, b_U),
            lm_head(h, W_U, b_U)[-1], rtol=1e-14, atol=1e-15)
check_true("softmax over V sums to 1 at every position", np.allclose(p.sum(-1), 1, atol=1e-14))

# 5. Parameters: the head's arrays above, with the bias and without it (GPT-2, LLaMA).
check_close("head parameters with the bias = W_U and b_U", head_parameters(d, V, bias=True),
            W_U.size + b_U.size, rtol=0)
check_close("without the bias: d V", head_parameters(d, V), W_U.size, rtol=0)

# The page's calculator is checked against head_parameters and against the logits lm_head returns (their
# count, T V), on widths and vocabularies small enough to run the product.
import cardcalc  # noqa: E402

cardcalc.table(lambda T, d, V: {"P": head_parameters(d, V), "P_b": head_parameters(d, V, bias=True),
                                "n_z": lm_head(np.zeros((T, d)), np.zeros((d, V))).size},
               cardcalc.grid(T=(1, 3, 64), d=(1, 7, 64), V=(1, 11, 1000)))
