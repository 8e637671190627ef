"""HNSW level draw l = floor(-ln U * m_L): the tail P(l >= L) = exp(-L / m_L) = M^-L checked exactly at
the thresholds of U, against scipy's geometric law (chi-square goodness of fit on 200,000 draws), its
mean 1/(M - 1), and the expected number of layers for n nodes."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import chisquare, geom


# --- formula ---
def level_multiplier(M: int) -> float:
    """The paper's recommended normalization m_L = 1 / ln M."""
    return 1.0 / np.log(M)


def draw_level(u, m_L: float):
    """Level of a new node from a uniform draw u in (0, 1]."""
    return np.floor(-np.log(u) * m_L).astype(int)


def level_tail(L, m_L: float):
    """P(level >= L) = exp(-L / m_L)."""
    return np.exp(-np.asarray(L, dtype=float) / m_L)
# --- end formula ---


M = 16
mL = level_multiplier(M)

# 1. The recommended m_L makes the tail a power of M: P(l >= L) = M^-L (so 1/16 of nodes reach layer 1).
L = np.arange(0, 6)
check_close("m_L = 1/ln 16: P(level >= L) = 16^-L for L = 0..5", level_tail(L, mL), float(M) ** -L,
            rtol=1e-12)

# 2. Exactly at the thresholds: l >= L  <=>  u <= exp(-L / m_L). A draw just below the threshold
#    lands on level L, just above it on level L - 1 (both for m_L = 1/ln 16 and for m_L = 0.7).
for m in (mL, 0.7):
    t = level_tail(L[1:], m)
    check_true(f"m_L = {m:.3f}: u = threshold x (1 - 1e-9) gives level L, x (1 + 1e-9) gives L - 1",
               np.array_equal(draw_level(t * (1 - 1e-9), m), L[1:])
               and np.array_equal(draw_level(t * (1 + 1e-9), m), L[1:] - 1))
check_true("u = 1 gives level 0", int(draw_level(np.array([1.0]), mL)[0]) == 0)

# 3. Simulation: 200,000 nodes. level + 1 follows scipy's geometric law with p = 1 - 1/M.
rng = np.random.default_rng(0)
n = 200_000
levels = draw_level(1.0 - rng.random(n), mL)          # uniform on (0, 1]
counts = np.bincount(levels, minlength=4)
expected = n * geom.pmf(np.arange(1, 4), 1 - 1 / M)
observed = np.r_[counts[:3], counts[3:].sum()]
expected = np.r_[expected, n - expected.sum()]
stat, p_value = chisquare(observed, expected)
check_true("chi-square test of the level histogram against the geometric law: p > 0.001",
           p_value > 1e-3, f"counts {observed.tolist()}, chi2 = {stat:.2f}, p = {p_value:.3f}")
tail_mc = np.array([np.mean(levels >= k) for k in range(1, 4)])
se = np.sqrt(level_tail(np.arange(1, 4), mL) * (1 - level_tail(np.arange(1, 4), mL)) / n)
check_true("empirical P(level >= L), L = 1, 2, 3, within 4 standard errors of exp(-L/m_L)",
           bool(np.all(np.abs(tail_mc - level_tail(np.arange(1, 4), mL)) < 4 * se)))

# 4. Mean level: sum over L >= 1 of P(level >= L) = 1 / (e^{1/m_L} - 1) = 1 / (M - 1) here.
mean_exact = np.sum(level_tail(np.arange(1, 60), mL))
check_close("E[level] = sum of the tail = 1/(M - 1) = mean of scipy geom(1 - 1/M) minus 1",
            [mean_exact, mean_exact], [1 / (M - 1), geom.mean(1 - 1 / M) - 1], rtol=1e-12)
check_close("simulated mean level vs 1/(M - 1)", levels.mean(), 1 / (M - 1), rtol=0,
            atol=4 * levels.std() / np.sqrt(n))

# 5. Expected number of nodes on layer >= L is n M^-L; the top layer sits near log_M n.
check_close("nodes on layers >= 1, 2, 3 vs n M^-L (Poisson tolerance)",
            [np.sum(levels >= k) for k in (1, 2, 3)],
            n * level_tail([1, 2, 3], mL), rtol=0, atol=4 * np.sqrt(n * level_tail(1, mL)))
check_true("highest level of 200,000 nodes is within 2 of log_16(200,000) = 4.4",
           abs(levels.max() - np.log(n) / np.log(M)) <= 2, f"max level {levels.max()}")

# The page's calculator is checked against level_multiplier and level_tail on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows), the mean level as the sum of the tail over layers 1..1999
# (the smallest M, 2, leaves a remainder of 2^-1999, far below rounding).
import cardcalc  # noqa: E402

cardcalc.table(lambda M, L: {"m_L": level_multiplier(M), "P": float(level_tail(L, level_multiplier(M))),
                             "El": float(np.sum(level_tail(np.arange(1, 2000), level_multiplier(M))))},
               cardcalc.grid(M=(2, 16, 32, 100), L=(0, 1, 3, 10)))

fig, ax = figure("HNSW layer sizes, 200,000 insertions, M = 16, m_L = 1/ln M", "level l",
                 "number of nodes with level = l")
ks = np.arange(levels.max() + 1)
ax.bar(ks, np.bincount(levels), label="simulated")
ax.plot(ks, n * (level_tail(ks, mL) - level_tail(ks + 1, mL)), "o--", color="tab:red",
        label="n (1 − 1/M) M^−l")
ax.set_yscale("log")
ax.legend()
