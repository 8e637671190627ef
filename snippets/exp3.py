"""EXP3 (Auer, Cesa-Bianchi, Freund and Schapire 2002, Sec. 3): the importance-weighted estimate
x/p is unbiased (exact expectation over the draw), the probabilities mix the exponential weights with
gamma/K (limit 1 - gamma + gamma/K for an arm that always pays), and the simulated regret stays under
the paper's fixed-gamma regret bound."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def exp3_probs(log_w, gamma):
    """p_i = (1 - gamma) w_i / sum_j w_j + gamma / K, from max-shifted log-weights."""
    K = log_w.shape[-1]
    w = np.exp(log_w - np.max(log_w, axis=-1, keepdims=True))
    return (1 - gamma) * w / np.sum(w, axis=-1, keepdims=True) + gamma / K


def exp3_estimate(p, arm, x):
    """x_hat_j = x_j / p_j for the arm played, 0 for the others (one row per run)."""
    rows = np.arange(p.shape[0])
    x_hat = np.zeros_like(p)
    x_hat[rows, arm] = x[rows, arm] / p[rows, arm]
    return x_hat


def exp3_update(log_w, x_hat, gamma):
    """w_j <- w_j exp(gamma x_hat_j / K), in log space."""
    return log_w + gamma * x_hat / log_w.shape[-1]


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Unbiasedness by exact expectation: sum over the K possible draws i of p_i * x_hat(i) = x, and the
#    second moment is x_j^2 / p_j.
K = 5
p = exp3_probs(rng.normal(size=(1, K)) * 3, 0.15)
x = rng.random((1, K))
draws = [exp3_estimate(p, np.array([i]), x)[0] for i in range(K)]
mean = sum(p[0, i] * draws[i] for i in range(K))
check_close("E[x_hat] = x, exact sum over the K possible draws", mean, x[0], rtol=1e-12)
check_close(
    "E[x_hat_j^2] = x_j^2 / p_j", sum(p[0, i] * draws[i] ** 2 for i in range(K)), x[0] ** 2 / p[0], rtol=1e-12
)
check_close("probabilities sum to 1", p.sum(), 1.0, rtol=1e-12)
check_true("every arm keeps at least gamma / K", p.min() >= 0.15 / K - 1e-15, f"min p = {p.min():.4f}")
check_close(
    "gamma = 1: uniform whatever the weights",
    exp3_probs(np.array([[0.0, 5.0, -3.0]]), 1.0),
    np.full((1, 3), 1 / 3),
    rtol=1e-12,
)
check_close(
    "gamma = 0: the normalised weights (weights 1, e, e^2)",
    exp3_probs(np.array([[0.0, 1.0, 2.0]]), 0.0),
    np.array([[1, np.e, np.e**2]]) / (1 + np.e + np.e**2),
    rtol=1e-12,
)

# One step of the algorithm by hand: K = 2, gamma = 0.2, w = (1, 1), arm 0 played and pays 1, so p_0 = 0.5,
# x_hat_0 = 2, w_0 becomes exp(0.2 * 2 / 2) = e^0.2 and the next p_0 = 0.8 e^0.2 / (e^0.2 + 1) + 0.1.
lw = np.zeros((1, 2))
p1 = exp3_probs(lw, 0.2)
lw = exp3_update(lw, exp3_estimate(p1, np.array([0]), np.array([[1.0, 0.0]])), 0.2)
check_close("one step by hand: w_0 = e^0.2", np.exp(lw), [[np.exp(0.2), 1.0]], rtol=1e-12)
check_close(
    "... next p_0 = 0.8 e^0.2 / (e^0.2 + 1) + 0.1",
    exp3_probs(lw, 0.2)[0, 0],
    0.8 * np.exp(0.2) / (np.exp(0.2) + 1) + 0.1,
    rtol=1e-12,
)

check_close(
    "the same step on 1-D arrays (a single run)",
    np.exp(exp3_update(np.zeros(2), np.array([2.0, 0.0]), 0.2)),
    [np.exp(0.2), 1.0],
    rtol=1e-12,
)
check_close(
    "1-D probabilities",
    exp3_probs(np.array([0.2, 0.0]), 0.2),
    exp3_probs(np.array([[0.2, 0.0]]), 0.2)[0],
    rtol=1e-12,
)

def run(rewards, gamma, runs):
    """EXP3 on a fixed (oblivious) reward table rewards[t, i] in [0, 1]; returns total rewards and final p."""
    T, K = rewards.shape
    log_w = np.zeros((runs, K))
    total = np.zeros(runs)
    for t in range(T):
        p = exp3_probs(log_w, gamma)
        arm = np.minimum((rng.random((runs, 1)) > np.cumsum(p, axis=1)).sum(axis=1), K - 1)
        x = np.tile(rewards[t], (runs, 1))
        total += x[np.arange(runs), arm]
        log_w = exp3_update(log_w, exp3_estimate(p, arm, x), gamma)
    return total, exp3_probs(log_w, gamma), log_w


# 2. An arm that always pays 1 (the others 0): its probability tends to 1 - gamma + gamma/K, and the
#    log-weights grow into the thousands, where unshifted exponentials would overflow.
table = np.zeros((3000, 4))
table[:, 2] = 1.0
_, p_end, log_w = run(table, 0.1, 20)
check_close(
    "limit probability of the always-paying arm = 1 - gamma + gamma/K = 0.925",
    p_end[:, 2],
    np.full(20, 0.925),
    rtol=1e-9,
)
table = np.zeros((4000, 4))
table[:, 2] = 1.0
_, p_end, log_w = run(table, 0.9, 20)
check_close(
    "gamma = 0.9: limit probability = 0.1 + 0.225 = 0.325",
    p_end[:, 2],
    np.full(20, 0.325),
    rtol=1e-9,
)
check_true(
    "gamma = 0.9: log-weights reach > 710 (exp overflows) and p stays finite",
    log_w.max() > 710 and np.all(np.isfinite(p_end)),
    f"max log w = {log_w.max():.0f}",
)

# 3. A switching adversary (oblivious): 3 arms, arm 2 is best for the first 3/4 of the rounds and worst
#    afterwards, so the best fixed arm (arm 2, mean 0.65) is well above uniform play (0.5) and the regret
#    is positive. The paper's tuning gamma = min(1, sqrt(K ln K / ((e - 1) g))) with g = T; the
#    fixed-gamma bound: G_max - E[G] <= (e - 1) gamma G_max + K ln K / gamma.
T, K = 4000, 3
table = (
    rng.random((T, K)) < np.where(np.arange(T)[:, None] < 3 * T // 4, [0.3, 0.5, 0.8], [0.8, 0.5, 0.2])
) * 1.0
g_max = table.sum(axis=0).max()
gamma = min(1.0, np.sqrt(K * np.log(K) / ((np.e - 1) * T)))
totals, _, _ = run(table, gamma, 200)
regret = g_max - totals.mean()
bound = (np.e - 1) * gamma * g_max + K * np.log(K) / gamma
check_true(
    "the adversary leaves a positive regret: the best fixed arm beats EXP3's mean total",
    regret > 0,
    f"regret {regret:.1f}",
)
check_true(
    "G_max - E[G_EXP3] <= (e - 1) gamma G_max + K ln K / gamma (200 runs)",
    regret <= bound,
    f"regret {regret:.1f} <= bound {bound:.1f} (gamma = {gamma:.4f})",
)
uniform = table.mean(axis=1).sum()
check_true(
    "EXP3 closes most of the gap between uniform play and the best fixed arm",
    totals.mean() > uniform + 0.6 * (g_max - uniform),
    f"{totals.mean():.0f} vs uniform {uniform:.0f}, best arm {g_max:.0f}",
)

# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows) against exp3_probs and exp3_estimate, with arm 0 holding the given share of the weight and the
# other K - 1 arms splitting the rest equally; gamma from small to 1 (uniform play), reward 0 and 1.
import cardcalc  # noqa: E402


def played_arm(gamma, K, share, x):
    others = np.full(int(K) - 1, (1 - share) / (K - 1))
    p = exp3_probs(np.log(np.r_[share, others])[None, :], gamma)
    rewards = np.zeros((1, int(K)))
    rewards[0, 0] = x
    return {"p": p[0, 0], "x_hat": exp3_estimate(p, np.array([0]), rewards)[0, 0]}


cardcalc.table(played_arm,
               cardcalc.grid(gamma=(0.05, 0.1, 0.5, 1.0), K=(2, 3, 10), share=(0.01, 0.25, 0.9), x=(0, 1)))

fig, ax = figure("EXP3: probability of the always-paying arm", "gamma", "limit p")
gs = np.linspace(0.02, 1, 50)
ax.plot(gs, [exp3_probs(np.array([[0.0, 800.0, 0.0, 0.0]]), gm)[0, 1] for gm in gs])
