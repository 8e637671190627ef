"""Tied embeddings: the shared table's gradient is the sum of the input-side and output-side
gradients of the untied model; both checked by central finite differences."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax, softmax


# --- formula ---
# few mutants: z = h E^T, dL/dE = (h^T dz)^T plus a scatter-add, and the saving V d: three products, an index
def tied_logits(ids, E, body):
    """Embed with E, run the network body, unembed with W_U = E^T."""
    return body(E[ids]) @ E.T


def tied_grad(ids, E, dX, h, dz):
    """dL/dE of the shared table = (dL/dW_U)^T + scatter-add of dL/dX into the rows of ids,
    with dL/dW_U = h^T dz for logits z = h W_U."""
    g = dz.T @ h
    np.add.at(g, ids, dX)
    return g


def tying_saving(V, d):
    """Parameters saved by tying: the untied model's separate d x V unembedding W_U."""
    return V * d
# --- end formula ---


rng = np.random.default_rng(0)
V, d, T = 9, 5, 6
E = rng.normal(scale=0.5, size=(V, d))
A = rng.normal(scale=d**-0.5, size=(d, d))
ids = np.array([2, 7, 2, 0, 5, 7])                 # tokens 1, 3, 4, 6, 8 never appear as input
targets = rng.integers(0, V, size=T)


def body(X):
    return np.tanh(X @ A)


def loss_untied(E_in, W_U):
    z = body(E_in[ids]) @ W_U
    return -float(np.sum(log_softmax(z, axis=-1)[np.arange(T), targets]))


def loss_tied(E_):
    z = tied_logits(ids, E_, body)
    return -float(np.sum(log_softmax(z, axis=-1)[np.arange(T), targets]))


def central_diff(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        g[idx] = (f(xp) - f(xm)) / (2 * eps)
    return g


# Hand backprop of the untied network, evaluated at E_in = E and W_U = E^T.
X = E[ids]
h = body(X)
dz = softmax(h @ E.T, axis=-1) - np.eye(V)[targets]     # dL/dz for the summed cross-entropy
dh = dz @ E                                             # z = h E^T  =>  dL/dh = dz E
dX = (dh * (1 - h**2)) @ A.T                            # back through tanh(X A)
g = tied_grad(ids, E, dX, h, dz)

# 1. The formula's gradient against finite differences of the tied loss.
check_close("tied gradient vs central differences of L(E)", g, central_diff(loss_tied, E),
            rtol=1e-6, atol=1e-8)

# 2. Chain rule for shared weights: dL/dE = dL/dE_in + (dL/dW_U)^T, each side measured on the
#    untied model by finite differences.
g_in = central_diff(lambda M: loss_untied(M, E.T), E)
g_out = central_diff(lambda M: loss_untied(E, M), E.T.copy())
check_close("tied gradient = input-side + (output-side)^T", g, g_in + g_out.T, rtol=1e-6, atol=1e-8)
check_close("the tied logits are the untied logits with W_U = E^T",
            tied_logits(ids, E, body), body(E[ids]) @ E.T.copy(), rtol=1e-15, atol=1e-15)

# 3. Press & Wolf's observation: in the untied model only rows of tokens present in the input
#    receive input-side gradient, while every row of the output embedding is updated each step.
absent = np.setdiff1d(np.arange(V), ids)
check_true("input side: rows of absent tokens get no gradient", np.all(np.abs(g_in[absent]) < 1e-8),
           f"absent ids {absent.tolist()}")
check_true("output side: every one of the V rows gets gradient",
           np.all(np.abs(g_out.T).sum(axis=1) > 1e-4))

# 4. Parameters saved: the untied model's W_U, a second V x d table. GPT-2 small (V = 50257, d = 768)
#    ties and has 124,439,808 parameters; untied it would need 38.6M more.
check_close("saved by tying = size of the untied model's W_U", tying_saving(V, d), np.empty((d, V)).size,
            rtol=0)
check_close("GPT-2 small: tying saves 38.6M (to the card's three digits)", tying_saving(50257, 768), 38.6e6,
            rtol=5e-4)

# The page's calculator is checked against tying_saving, from a one-token vocabulary to Llama 3's, over the
# untied model's size N (the share saved, and what is left once tied).
import cardcalc  # noqa: E402

cardcalc.table(lambda V, d, N: {"S": tying_saving(V, d), "f": tying_saving(V, d) / N,
                                "N_tied": N - tying_saving(V, d)},
               cardcalc.grid(V=(1, 50257, 128256), d=(1, 768, 8192), N=(163037184, 6738415616, 70553706496)))
