"""CBOW: log-probabilities vs scipy's log_softmax, windows by hand, gradients by finite differences."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax
from text_fixture import EMBED_CORPUS, words


# --- formula ---
def context_positions(n: int, t: int, m: int) -> list[int]:
    """Positions within m of t (both sides), t itself excluded, clipped to the sentence."""
    return [j for j in range(t - m, t + m + 1) if j != t and 0 <= j < n]


def cbow_log_probs(v_in: np.ndarray, u_out: np.ndarray, ctx: list[int]) -> np.ndarray:
    """log softmax(U h) with h the average of the context words' input vectors."""
    h = v_in[ctx].mean(axis=0)
    s = u_out @ h
    s_max = np.max(s)
    return s - s_max - np.log(np.sum(np.exp(s - s_max)))


def cbow_loss(v_in, u_out, ctx, target: int) -> float:
    return float(-cbow_log_probs(v_in, u_out, ctx)[target])


def cbow_grads(v_in, u_out, ctx, target):
    """Gradients of -log p(target | ctx): (p - e_target) h^T for U; U^T (p - e_target) / |ctx| for
    each context word's input vector (accumulated when a word occurs twice in the window)."""
    h = v_in[ctx].mean(axis=0)
    err = np.exp(cbow_log_probs(v_in, u_out, ctx))
    err[target] -= 1.0
    g_out = np.outer(err, h)
    g_in = np.zeros_like(v_in)
    np.add.at(g_in, ctx, u_out.T @ err / len(ctx))
    return g_in, g_out
# --- end formula ---


rng = np.random.default_rng(0)
sents = [words(s) for s in EMBED_CORPUS]
vocab = sorted({w for s in sents for w in s})
idx = {w: i for i, w in enumerate(vocab)}
V, d, m = len(vocab), 6, 2

# 1. Windows by hand: 6-word sentence, m = 2.
check_true("context of positions 0, 3, 5 in a 6-word sentence (m = 2): [1, 2], [1, 2, 4, 5], [3, 4]",
           [context_positions(6, t, 2) for t in (0, 3, 5)] == [[1, 2], [1, 2, 4, 5], [3, 4]])
check_true("m = 1 at position 2 of 3 words: [1]; m = 3 at position 1 of 8 words: [0, 2, 3, 4]",
           context_positions(3, 2, 1) == [1] and context_positions(8, 1, 3) == [0, 2, 3, 4])

# 2. Probabilities vs scipy's log_softmax of U h with h computed by an explicit loop.
v_in, u_out = rng.normal(size=(V, d)), rng.normal(size=(V, d))
s = sents[0]                                   # "the cat sat on the mat"
ids = [idx[w] for w in s]
ctx = [ids[j] for j in context_positions(len(ids), 2, m)]   # the, cat, on, the (target "sat")
h_loop = np.zeros(d)
for c in ctx:
    h_loop += v_in[c]
h_loop /= 4
check_close("log p(. | context) vs scipy log_softmax(U h), h averaged by hand",
            cbow_log_probs(v_in, u_out, ctx), log_softmax(u_out @ h_loop), rtol=1e-12)
check_close("probabilities sum to 1", np.exp(cbow_log_probs(v_in, u_out, ctx)).sum(), 1.0, rtol=1e-12)
check_close("bag of words: the order of the context does not matter", cbow_log_probs(v_in, u_out, ctx[::-1]),
            cbow_log_probs(v_in, u_out, ctx), rtol=1e-12)
check_close("logits scaled to ~1000 (exp overflows): still equal to log_softmax",
            cbow_log_probs(300 * v_in, u_out, ctx), log_softmax(u_out @ (300 * h_loop)), rtol=1e-10)

# 3. Gradients by central finite differences; the context holds "the" twice, so its gradient adds up.
# The tolerance comes from the difference quotient itself, not from one machine: each loss is computed
# with a rounding error of a few dozen ulps of its size (a dot product, a log-sum-exp; how many depends
# on the BLAS kernel's summation order), and (f(x+h) - f(x-h)) / 2h divides that error by h. With 64 ulps
# of |loss| that is fd_rounding below; the truncation error, h^2 |f'''| / 6 ~ 1e-12, is far smaller.
H_FD = 1e-6


def fd(f, x, h=H_FD):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def fd_rounding(loss: float, h: float = H_FD) -> float:
    return 64 * np.finfo(float).eps * abs(loss) / h


target = ids[2]
g_in, g_out = cbow_grads(v_in, u_out, ctx, target)
tol = fd_rounding(cbow_loss(v_in, u_out, ctx, target))
check_close("d loss / d V_in vs finite differences (repeated context word)", g_in,
            fd(lambda x: cbow_loss(x, u_out, ctx, target), v_in), rtol=1e-6, atol=tol)
check_close("d loss / d U_out vs finite differences", g_out,
            fd(lambda x: cbow_loss(v_in, x, ctx, target), u_out), rtol=1e-6, atol=tol)
short = [ids[1]]                                # an edge window with a single context word
g_in, g_out = cbow_grads(v_in, u_out, short, ids[0])
check_close("single-word context: gradients vs finite differences", np.concatenate([g_in, g_out]),
            np.concatenate([fd(lambda x: cbow_loss(x, u_out, short, ids[0]), v_in),
                            fd(lambda x: cbow_loss(v_in, x, short, ids[0]), u_out)]), rtol=1e-6,
            atol=fd_rounding(cbow_loss(v_in, u_out, short, ids[0])))

# 4. Full-batch gradient descent on the toy corpus lowers the average loss steadily.
examples = [([idx[s[j]] for j in context_positions(len(s), t, m)], idx[s[t]]) for s in sents
            for t in range(len(s))]
v_in, u_out = 0.1 * rng.normal(size=(V, d)), 0.1 * rng.normal(size=(V, d))
history = []
for _ in range(150):
    gi, go = np.zeros_like(v_in), np.zeros_like(u_out)
    for c, tgt in examples:
        a, b = cbow_grads(v_in, u_out, c, tgt)
        gi += a
        go += b
    history.append(np.mean([cbow_loss(v_in, u_out, c, tgt) for c, tgt in examples]))
    v_in -= 0.5 * gi / len(examples)
    u_out -= 0.5 * go / len(examples)
check_true("gradient descent: the average loss falls at every step, to below 0.7 log V",
           history[-1] < 0.7 * np.log(V) and bool(np.all(np.diff(history) < 0)),
           f"{history[0]:.3f} -> {history[-1]:.3f} (log V = {np.log(V):.3f})")

fig, ax = figure("CBOW trained on the toy corpus (full softmax)", "gradient step",
                 "mean -log p(word | context)")
ax.plot(history)
ax.axhline(np.log(V), color="gray", ls=":", label="uniform guess, log V")
ax.legend()
