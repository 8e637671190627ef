"""Position-wise feed-forward network: checked against scalar loops (ReLU and exact GELU),
row-by-row application, and the positive homogeneity of the bias-free ReLU network."""

import math

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def relu(u):
    return np.maximum(u, 0)


def ffn(x, W1, b1, W2, b2, phi=relu):
    """phi(x W1 + b1) W2 + b2, applied to every position (row of x) independently."""
    return phi(x @ W1 + b1) @ W2 + b2


def ffn_parameters(d, d_ff, biases=True):
    """W1 (d x d_ff) and W2 (d_ff x d), plus b1 and b2 (d_ff + d) when the model keeps them."""
    return 2 * d * d_ff + (d_ff + d if biases else 0)
# --- end formula ---


rng = np.random.default_rng(0)
T, d = 6, 8
d_ff = 4 * d                                   # the usual 4x expansion (2048 = 4 x 512 in the paper)
x = rng.normal(size=(T, d))
W1, b1 = rng.normal(scale=d**-0.5, size=(d, d_ff)), rng.normal(scale=0.5, size=d_ff)
W2, b2 = rng.normal(scale=d_ff**-0.5, size=(d_ff, d)), rng.normal(scale=0.5, size=d)


def loop_ffn(x, act):
    out = np.zeros((x.shape[0], d))
    for t in range(x.shape[0]):
        hidden = [act(math.fsum(x[t, i] * W1[i, j] for i in range(d)) + b1[j]) for j in range(d_ff)]
        for k in range(d):
            out[t, k] = math.fsum(hidden[j] * W2[j, k] for j in range(d_ff)) + b2[k]
    return out


# 1. Vaswani et al. Eq. (2): FFN(x) = max(0, x W1 + b1) W2 + b2.
check_close("ReLU FFN vs scalar loop", ffn(x, W1, b1, W2, b2), loop_ffn(x, lambda u: max(0.0, u)),
            rtol=1e-12, atol=1e-13)
check_true("some hidden units are switched off (both ReLU branches exercised)",
           0 < np.mean(x @ W1 + b1 > 0) < 1)

# 2. BERT/GPT use GELU: phi(u) = u Phi(u) with the exact normal CDF.
def gelu(u):
    return u * 0.5 * (1.0 + np.vectorize(math.erf)(u / math.sqrt(2.0)))


check_close("GELU FFN vs scalar loop", ffn(x, W1, b1, W2, b2, gelu),
            loop_ffn(x, lambda u: u * 0.5 * (1 + math.erf(u / math.sqrt(2)))), rtol=1e-12, atol=1e-13)

# 3. Position-wise: each row is transformed on its own, so the batch call equals the row-by-row
#    calls, and permuting positions permutes the outputs.
rows = np.stack([ffn(x[t:t + 1], W1, b1, W2, b2)[0] for t in range(T)])
check_close("whole sequence == one position at a time", ffn(x, W1, b1, W2, b2), rows, rtol=1e-13,
            atol=1e-14)
perm = rng.permutation(T)
check_close("permutation equivariant", ffn(x[perm], W1, b1, W2, b2), ffn(x, W1, b1, W2, b2)[perm],
            rtol=1e-13, atol=1e-14)

# 4. Without biases the ReLU network is positively homogeneous, FFN(a x) = a FFN(x) for a > 0,
#    but not odd: FFN(-x) != -FFN(x).
zb1, zb2 = np.zeros(d_ff), np.zeros(d)
check_close("bias-free ReLU FFN: FFN(2.5 x) = 2.5 FFN(x)", ffn(2.5 * x, W1, zb1, W2, zb2),
            2.5 * ffn(x, W1, zb1, W2, zb2), rtol=1e-12, atol=1e-13)
check_true("but FFN(-x) != -FFN(x)",
           not np.allclose(ffn(-x, W1, zb1, W2, zb2), -ffn(x, W1, zb1, W2, zb2), atol=1e-3))

# 5. Parameters: the four arrays above, with and without biases; Vaswani et al.'s d = 512, d_ff = 2048
#    has 8 d^2 weights.
check_close("parameters of W1, b1, W2, b2 = 2 d d_ff + d_ff + d", ffn_parameters(d, d_ff),
            W1.size + b1.size + W2.size + b2.size, rtol=0)
check_close("without biases: W1 and W2 only", ffn_parameters(d, d_ff, biases=False), W1.size + W2.size,
            rtol=0)
check_close("d = 512, d_ff = 2048: 8 d^2 weights", ffn_parameters(512, 2048, biases=False), 8 * 512**2,
            rtol=0)

# The page's calculator is checked against ffn_parameters, from tiny widths to GPT-3's d_ff = 4d.
import cardcalc  # noqa: E402

cardcalc.table(lambda d, d_ff: {"W": ffn_parameters(d, d_ff, biases=False), "P": ffn_parameters(d, d_ff)},
               cardcalc.grid(d=(1, 512, 12288), d_ff=(1, 2048, 49152)))
