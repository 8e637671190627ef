"""GloVe: weighting function at printed values, co-occurrence counts by hand, loss vs a double loop,
gradients by finite differences, and an exact fit when the dimension allows one."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from text_fixture import EMBED_CORPUS, words


# --- formula ---
def glove_weight(x: np.ndarray, x_max: float = 100.0, alpha: float = 0.75) -> np.ndarray:
    """f(x) = (x / x_max)^alpha below x_max, 1 above (Pennington et al. 2014, Eq. 9)."""
    x = np.asarray(x, dtype=float)
    return np.where(x < x_max, (x / x_max) ** alpha, 1.0)


def cooccurrence(sentences: list[list[int]], vocab_size: int, window: int) -> np.ndarray:
    """Symmetric counts X_ij; a pair d words apart adds 1/d (GloVe, Sec. 4.2)."""
    x = np.zeros((vocab_size, vocab_size))
    for s in sentences:
        for i, wi in enumerate(s):
            for d in range(1, window + 1):
                if i + d < len(s):
                    x[wi, s[i + d]] += 1.0 / d
                    x[s[i + d], wi] += 1.0 / d
    return x


def glove_loss(w, wt, b, bt, x, x_max=100.0, alpha=0.75) -> float:
    """J = sum over X_ij > 0 of f(X_ij) (w_i . w~_j + b_i + b~_j - log X_ij)^2  (Eq. 8)."""
    nz = x > 0
    logx = np.zeros_like(x)
    logx[nz] = np.log(x[nz])
    resid = w @ wt.T + b[:, None] + bt[None, :] - logx
    return float(np.sum(np.where(nz, glove_weight(x, x_max, alpha) * resid**2, 0.0)))


def glove_grads(w, wt, b, bt, x, x_max=100.0, alpha=0.75):
    nz = x > 0
    logx = np.zeros_like(x)
    logx[nz] = np.log(x[nz])
    resid = w @ wt.T + b[:, None] + bt[None, :] - logx
    g = np.where(nz, 2.0 * glove_weight(x, x_max, alpha) * resid, 0.0)
    return g @ wt, g.T @ w, g.sum(axis=1), g.sum(axis=0)
# --- end formula ---


# 1. The weighting function at values worked by hand (x_max = 100, alpha = 3/4):
#    f(1) = 0.01^0.75 = 10^-1.5, f(10) = 10^-0.75, f(50) = 2^-0.75, f(81) = 0.81^0.75, f(100) = f(1000) = 1.
xs = np.array([1.0, 10.0, 50.0, 81.0, 99.999, 100.0, 1000.0])
check_close("f at 1, 10, 50, 81, 99.999, 100, 1000 vs hand values", glove_weight(xs),
            [10**-1.5, 10**-0.75, 2**-0.75, 0.81**0.75, 0.99999**0.75, 1.0, 1.0], rtol=1e-12)
check_close("f(0) = 0, so absent pairs carry no weight", glove_weight(0.0), 0.0)
check_close("other x_max, alpha: f(5; x_max = 20, alpha = 1/2) = 1/2", glove_weight(5.0, 20.0, 0.5), 0.5,
            rtol=1e-12)

# 2. Co-occurrence counts by hand for "the cat sat on the mat", window 2 (pairs 1 apart add 1,
#    2 apart add 1/2): the-cat 1; the-sat 1/2 + 1/2; the-on 1; the-mat 1; cat-sat 1; cat-on 1/2;
#    sat-on 1; on-mat 1/2; the-the 0 (4 apart); sat-mat 0 (3 apart).
sents = [words(s) for s in EMBED_CORPUS]
vocab = sorted({w for s in sents for w in s})
idx = {w: i for i, w in enumerate(vocab)}
ids = [[idx[w] for w in s] for s in sents]
x1 = cooccurrence([ids[0]], len(vocab), 2)
pairs = [("the", "cat"), ("the", "sat"), ("the", "on"), ("the", "mat"), ("cat", "sat"), ("cat", "on"),
         ("sat", "on"), ("on", "mat"), ("the", "the"), ("sat", "mat"), ("mat", "cat")]
check_close("X for 'the cat sat on the mat', window 2, vs hand counts",
            [x1[idx[a], idx[b]] for a, b in pairs], [1, 1, 1, 1, 1, 0.5, 1, 0.5, 0, 0, 0], rtol=1e-12)
check_close("X is symmetric and its total is 2 x (5 + 4/2)", [np.abs(x1 - x1.T).max(), x1.sum()],
            [0.0, 14.0], rtol=1e-12)

# 3. Loss vs an explicit double loop over the non-zero counts, on the whole toy corpus (window 3):
#    the 1/d weighting leaves counts below 1 (1/3, 1/2), and the larger counts are scaled so that
#    some exceed x_max.
rng = np.random.default_rng(0)
X = cooccurrence(ids, len(vocab), 3)
X[X >= 2] *= 60.0
V, d = len(vocab), 5
w, wt, b, bt = rng.normal(size=(V, d)), rng.normal(size=(V, d)), rng.normal(size=V), rng.normal(size=V)
loop = 0.0
for i in range(V):
    for j in range(V):
        if X[i, j] > 0:
            f = min(1.0, (X[i, j] / 100.0) ** 0.75)
            loop += f * (w[i] @ wt[j] + b[i] + bt[j] - np.log(X[i, j])) ** 2
check_true("some counts exceed x_max, some are below 1, some are 0",
           (X > 100).any() and ((X > 0) & (X < 1)).any() and (X == 0).any())
check_close("J vs double loop over non-zero X_ij", glove_loss(w, wt, b, bt, X), loop, rtol=1e-12)


# 4. Gradients by central finite differences, for all four parameter blocks.
def fd(f, p, h=1e-6):
    g = np.zeros_like(p)
    for i in np.ndindex(p.shape):
        e = np.zeros_like(p)
        e[i] = h
        g[i] = (f(p + e) - f(p - e)) / (2 * h)
    return g


gw, gwt, gb, gbt = glove_grads(w, wt, b, bt, X)
check_close("dJ/dw vs finite differences", gw, fd(lambda p: glove_loss(p, wt, b, bt, X), w),
            rtol=1e-6, atol=1e-6)
check_close("dJ/dw~ vs finite differences", gwt, fd(lambda p: glove_loss(w, p, b, bt, X), wt),
            rtol=1e-6, atol=1e-6)
check_close("dJ/db vs finite differences", gb, fd(lambda p: glove_loss(w, wt, p, bt, X), b),
            rtol=1e-6, atol=1e-6)
check_close("dJ/db~ vs finite differences", gbt, fd(lambda p: glove_loss(w, wt, b, p, X), bt),
            rtol=1e-6, atol=1e-6)

# 5. Exact fit: with d = V, w = log X (on a fully positive X), w~ = I and zero biases give J = 0;
#    the fit is only to log X, so rescaling every count by c is absorbed by a bias of log c.
Xp = X + 0.5
check_close("w = log X, w~ = I, b = 0 gives J = 0",
            glove_loss(np.log(Xp), np.eye(V), np.zeros(V), np.zeros(V), Xp), 0.0, atol=1e-20)
check_close("scaling X by 7 is absorbed by b = log 7",
            glove_loss(np.log(Xp), np.eye(V), np.full(V, np.log(7.0)), np.zeros(V), 7 * Xp), 0.0, atol=1e-20)
check_true("J > 0 for random vectors", glove_loss(w, wt, b, bt, X) > 1.0)

xx = np.linspace(0, 250, 501)
fig, ax = figure("GloVe weighting function", "co-occurrence count $X_{ij}$", "weight $f(X_{ij})$")
ax.plot(xx, glove_weight(xx), label=r"$x_{\max} = 100,\ \alpha = 3/4$")
ax.plot(xx, glove_weight(xx, alpha=1.0), "--", label=r"$\alpha = 1$ (linear)")
ax.legend()
