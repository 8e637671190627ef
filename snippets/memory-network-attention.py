"""Memory read o = sum_i softmax(u^T m)_i c_i: scipy, exact case, Monte-Carlo, NTM and hard-max limits."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import cdist
from scipy.special import softmax


# --- formula ---
def memory_read(u: np.ndarray, m: np.ndarray, c: np.ndarray):
    """p_i = softmax_i(u^T m_i) (Eq. 1), o = sum_i p_i c_i (Eq. 2); rows of m are keys, rows of c values."""
    s = m @ u
    e = np.exp(s - np.max(s))
    p = e / np.sum(e)
    return p @ c, p
# --- end formula ---


rng = np.random.default_rng(0)
n_mem, d = 50, 16
m = rng.normal(size=(n_mem, d))   # input (key) memory vectors m_i = A x_i
c = rng.normal(size=(n_mem, d))   # output (value) memory vectors c_i = C x_i
u = rng.normal(size=d)            # controller / query state u = B q

o, p = memory_read(u, m, c)
p_ref = softmax(m @ u)
check_close("attention weights vs scipy.special.softmax", p, p_ref, rtol=1e-12)
check_close("read vector vs weighted sum with scipy weights", o, p_ref @ c, rtol=1e-12)

# Exact case: scores [0, log 3] give p = [1/4, 3/4].
o2, p2 = memory_read(np.array([np.log(3.0)]), np.array([[0.0], [1.0]]), np.array([[4.0, 0.0], [0.0, 8.0]]))
check_close("scores [0, log 3]: p = [1/4, 3/4], o = [1, 6]", np.concatenate([p2, o2]), [0.25, 0.75, 1.0, 6.0],
            rtol=1e-12)

# Scores spanning more than 700 (no overflow); the largest score takes all the mass: hard addressing
# of the original Memory Networks (Weston et al. 2015), o = c_argmax.
big = 60.0 * u
o_big, p_big = memory_read(big, m, c)
check_true("scores span > 700 and stay finite", bool(np.ptp(m @ big) > 700 and np.all(np.isfinite(p_big))))
check_close("wide scores vs scipy softmax", p_big, softmax(m @ big), rtol=1e-9, atol=1e-300)
check_close("sharp limit: read = value of the best-matching key", o_big, c[np.argmax(m @ u)],
            rtol=1e-9, atol=1e-9)
o_neg, _ = memory_read(-big, m, c)
check_close("negated query: read = value of the worst-matching key", o_neg, c[np.argmin(m @ u)],
            rtol=1e-9, atol=1e-9)

# Monte-Carlo: o is the expected value of c_I with I drawn from p (a stochastic single-slot read).
draws = rng.choice(n_mem, size=200_000, p=p_ref)
mc = c[draws].mean(axis=0)
se = c[draws].std(axis=0) / np.sqrt(len(draws))
check_true("Monte-Carlo mean of sampled values within 4.5 standard errors",
           bool(np.all(np.abs(mc - o) < 4.5 * se)))

# NTM content addressing (Graves et al. 2014, Eqs. 5-6): w_i = softmax(beta * cos(k, M_i)) is this read with
# unit-norm keys and query u = beta * k / |k|; cosine from scipy.spatial.distance.cdist.
beta = 7.0
k = rng.normal(size=d)
m_unit = m / np.linalg.norm(m, axis=1, keepdims=True)
_, w_ntm = memory_read(beta * k / np.linalg.norm(k), m_unit, c)
check_close("NTM content weights vs softmax(beta * cosine from scipy cdist)", w_ntm,
            softmax(beta * (1 - cdist(k[None, :], m, metric="cosine")[0])), rtol=1e-10)

scales = np.linspace(0, 3, 61)
fig, ax = figure("Sharpening the memory read", "scale of the query u", "largest attention weight")
ax.plot(scales, [memory_read(s * u, m, c)[1].max() for s in scales])
