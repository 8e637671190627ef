"""Skip-gram with negative sampling: gradients by finite differences, the 3/4-power noise by hand,
the expectation by Monte Carlo, and the optimum against shifted PMI (Levy & Goldberg 2014)."""

from collections import Counter

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import log_expit
from text_fixture import EMBED_CORPUS, words


# --- formula ---
def noise_distribution(counts: np.ndarray, power: float = 0.75) -> np.ndarray:
    """P_n(w) = U(w)^(3/4) / Z, the unigram distribution raised to the 3/4 power."""
    q = counts**power
    return q / q.sum()


def softplus(x):
    """-log sigma(-x) = log(1 + e^x), without overflow."""
    return np.logaddexp(0.0, x)


def sgns_loss(v_w: np.ndarray, u_c: np.ndarray, u_neg: np.ndarray) -> float:
    """-log sigma(u_c . v_w) - sum_i log sigma(-u_{n_i} . v_w) for k sampled negatives (rows of u_neg)."""
    return float(softplus(-(u_c @ v_w)) + np.sum(softplus(u_neg @ v_w)))


def sgns_grads(v_w, u_c, u_neg):
    """Gradients of sgns_loss with respect to v_w, u_c and each negative's u."""
    g_pos = -1.0 / (1.0 + np.exp(u_c @ v_w))         # d/ds of -log sigma(s) = -(1 - sigma(s))
    g_neg = 1.0 / (1.0 + np.exp(-(u_neg @ v_w)))     # d/ds of -log sigma(-s) = sigma(s)
    return g_pos * u_c + g_neg @ u_neg, g_pos * v_w, np.outer(g_neg, v_w)


def sgns_expected_loss(v_w, u_c, u_all, p_noise, k: int) -> float:
    """The objective with the expectation over negatives taken exactly:
    -log sigma(u_c . v_w) - k sum_w P_n(w) log sigma(-u_w . v_w)."""
    return float(softplus(-(u_c @ v_w)) + k * np.sum(p_noise * softplus(u_all @ v_w)))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Noise distribution: counts 1, 16, 81, 256 have 3/4 powers 1, 8, 27, 64 (sum 100).
check_close("P_n for counts (1, 16, 81, 256) = (1, 8, 27, 64) / 100",
            noise_distribution(np.array([1.0, 16.0, 81.0, 256.0])), [0.01, 0.08, 0.27, 0.64], rtol=1e-12)
check_close("power 1 gives the plain unigram distribution", noise_distribution(np.array([1.0, 3.0]), 1.0),
            [0.25, 0.75], rtol=1e-12)

# 2. Loss against scipy's log_expit, including dot products of +-800 where exp overflows.
d, k = 8, 5
v_w, u_c, u_neg = rng.normal(size=d), rng.normal(size=d), rng.normal(size=(k, d))
ref = -log_expit(u_c @ v_w) - np.sum(log_expit(-(u_neg @ v_w)))
check_close("loss vs -log_expit(u_c.v) - sum log_expit(-u_n.v)", sgns_loss(v_w, u_c, u_neg), ref, rtol=1e-12)
big_v = 100.0 * v_w / np.abs(u_c @ v_w) * 8.0            # u_c . v = +-800
check_close("no overflow at |u . v| = 800", sgns_loss(big_v, u_c, u_neg),
            -log_expit(u_c @ big_v) - np.sum(log_expit(-(u_neg @ big_v))), rtol=1e-12)

# 3. Gradients by central finite differences.
def fd(f, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (f(x + e) - f(x - e)) / (2 * h)
    return g


gv, gc, gn = sgns_grads(v_w, u_c, u_neg)
check_close("d loss / d v_w vs finite differences", gv, fd(lambda x: sgns_loss(x, u_c, u_neg), v_w),
            rtol=1e-7)
check_close("d loss / d u_c vs finite differences", gc, fd(lambda x: sgns_loss(v_w, x, u_neg), u_c),
            rtol=1e-7)
check_close("d loss / d u_neg vs finite differences", gn, fd(lambda x: sgns_loss(v_w, u_c, x), u_neg),
            rtol=1e-7)

# 4. The expectation over negatives: the mean of the sampled loss over many draws of k negatives
#    from P_n equals the exact expectation, within 4 standard errors.
tokens = [w for s in EMBED_CORPUS for w in words(s)]
vocab = sorted(set(tokens))
counts = np.array([Counter(tokens)[w] for w in vocab], dtype=float)
pn = noise_distribution(counts)
u_all = rng.normal(size=(len(vocab), d))
draws = rng.choice(len(vocab), size=(40_000, k), p=pn)
sampled = np.array([sgns_loss(v_w, u_c, u_all[row]) for row in draws])
exact = sgns_expected_loss(v_w, u_c, u_all, pn, k)
se = sampled.std() / np.sqrt(len(sampled))
check_true("Monte Carlo mean of the sampled loss vs exact expectation (|diff| < 4 s.e.)",
           abs(sampled.mean() - exact) < 4 * se, f"{sampled.mean():.4f} vs {exact:.4f}, s.e. {se:.4f}")
check_close("empirical frequency of negatives vs P_n", np.bincount(draws.ravel(), minlength=len(vocab))
            / draws.size, pn, rtol=0.05)

# 5. Optimum (Levy & Goldberg 2014): with free dot products x_wc = u_c . v_w, the total objective over
#    the corpus's (word, context) pairs is minimized at x_wc = log(n_wc / (n_w P_n(c))) - log k.
#    Free dot products: U = identity, so u_c . v_w = v_w[c]. Minimize each word's row with L-BFGS.
idx = {w: i for i, w in enumerate(vocab)}
pairs = Counter()
for s in EMBED_CORPUS:
    toks = words(s)
    for t, w in enumerate(toks):
        for c in range(max(0, t - 2), min(len(toks), t + 3)):
            if c != t:
                pairs[idx[w], idx[toks[c]]] += 1
eye = np.eye(len(vocab))
worst = 0.0
for w in range(len(vocab)):
    ctx = [(c, n) for (ww, c), n in pairs.items() if ww == w]
    n_w = sum(n for _, n in ctx)

    def total(x, ctx=ctx):
        return sum(n * sgns_expected_loss(x, eye[c], eye, pn, k) for c, n in ctx)

    def grad(x, ctx=ctx):
        # expected-loss gradient in x: -(1 - sigma(x_c)) e_c + k P_n sigma(x), per pair
        sig = 1.0 / (1.0 + np.exp(-x))
        return sum(n * (-(1 - sig[c]) * eye[c] + k * pn * sig) for c, n in ctx)

    res = minimize(total, np.zeros(len(vocab)), jac=grad, method="L-BFGS-B",
                   bounds=[(-30, 30)] * len(vocab), options={"ftol": 1e-15, "gtol": 1e-12})
    for c, n in ctx:
        worst = max(worst, abs(res.x[c] - (np.log(n / (n_w * pn[c])) - np.log(k))))
check_true("optimal dot products == shifted PMI log(n_wc / (n_w P_n(c))) - log k, all observed pairs",
           worst < 1e-5, f"max deviation {worst:.1e}")

fig, ax = figure("Negative-sampling noise distribution on the toy corpus", "word (by frequency)",
                 "probability")
order = np.argsort(-counts)
ax.plot(range(len(vocab)), (counts / counts.sum())[order], "o-", label="unigram U(w)")
ax.plot(range(len(vocab)), pn[order], "s-", label=r"$U(w)^{3/4}/Z$ (word2vec)")
ax.set_xticks(range(len(vocab)), [vocab[i] for i in order], rotation=60, fontsize=7)
ax.legend()
