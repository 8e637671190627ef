"""Epsilon-greedy action selection: the sampled action frequencies match the exact probabilities
epsilon/K + (1 - epsilon)[a = greedy] (rl_worlds.epsilon_greedy_policy, chi-square test), ties at the max
are split evenly, and with a fixed epsilon the long-run regret per step is epsilon times the mean gap."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import GAUSSIAN_BANDIT, epsilon_greedy_policy
from scipy import stats


# --- formula ---
def epsilon_greedy(q, epsilon, rng):
    """One action per row of q (shape (m, K)): uniformly random with probability epsilon, else a greedy
    action (argmax of the row, ties broken uniformly at random)."""
    m, K = q.shape
    explore = rng.random(m) < epsilon
    random_action = rng.integers(K, size=m)
    is_greedy = q == np.max(q, axis=1, keepdims=True)
    greedy_action = np.argmax(rng.random((m, K)) * is_greedy, axis=1)
    return np.where(explore, random_action, greedy_action)


# --- end formula ---


rng = np.random.default_rng(0)

# 1. Frequencies over 100,000 draws vs the exact action probabilities (one-hot greedy, no ties).
q = np.array([0.2, 1.3, -0.5, 0.9, 0.0])
n = 100_000
for eps in (0.1, 0.7):
    counts = np.bincount(epsilon_greedy(np.tile(q, (n, 1)), eps, rng), minlength=5)
    exact = epsilon_greedy_policy(q[None], eps)[0]
    check_close(
        f"epsilon = {eps}: action frequencies vs eps/K + (1-eps)[greedy] (MC, 4 sigma)",
        counts / n,
        exact,
        rtol=0,
        atol=4 * np.sqrt(0.25 / n),
    )
    p_value = stats.chisquare(counts, exact * n).pvalue
    check_true(
        f"epsilon = {eps}: chi-square goodness of fit (scipy) does not reject",
        p_value > 1e-3,
        f"p = {p_value:.3f}",
    )
check_true("epsilon = 0 is greedy", np.all(epsilon_greedy(np.tile(q, (1000, 1)), 0.0, rng) == 1))
check_close(
    "epsilon = 1 is uniform (MC)",
    np.bincount(epsilon_greedy(np.tile(q, (n, 1)), 1.0, rng), minlength=5) / n,
    np.full(5, 0.2),
    rtol=0,
    atol=4 * np.sqrt(0.25 / n),
)

# 2. Ties: two actions share the max; each gets (1 - eps)/2 + eps/K.
q_tie = np.array([1.0, 0.3, 1.0, -2.0])
f = np.bincount(epsilon_greedy(np.tile(q_tie, (n, 1)), 0.2, rng), minlength=4) / n
check_close(
    "tied greedy actions split the greedy mass: (0.8/2 + 0.05, 0.05, 0.45, 0.05)",
    f,
    [0.45, 0.05, 0.45, 0.05],
    rtol=0,
    atol=4 * np.sqrt(0.25 / n),
)

# 3. Sample-average epsilon-greedy on the 6-arm Gaussian bandit, 400 runs x 2000 steps, eps = 0.1.
#    Once the greedy arm is the best, each step costs eps * mean(gaps) in expectation.
bandit = GAUSSIAN_BANDIT
runs, T, eps = 400, 2000, 0.1
Qs = np.zeros((runs, 6))
Ns = np.zeros((runs, 6))
regret_step = np.zeros(T)
greedy_gap = np.zeros(T)
for t in range(T):
    arms = epsilon_greedy(Qs, eps, rng)
    r = bandit.pull(arms, rng)
    Ns[np.arange(runs), arms] += 1
    Qs[np.arange(runs), arms] += (r - Qs[np.arange(runs), arms]) / Ns[np.arange(runs), arms]
    regret_step[t] = bandit.gaps[arms].mean()
    greedy_gap[t] = bandit.gaps[np.argmax(Qs, axis=1)].mean()
late = regret_step[1200:].mean()
floor = eps * bandit.gaps.mean()
check_true(
    "late per-step regret is at least the exploration floor eps * mean gap, minus MC noise",
    late > floor - 0.01,
    f"{late:.4f} vs floor {floor:.4f}",
)
check_close(
    "late regret = eps * mean gap + (1 - eps) * gap of the current greedy arm (MC, 5%)",
    late,
    floor + (1 - eps) * greedy_gap[1200:].mean(),
    rtol=0.05,
)

fig, ax = figure("Epsilon-greedy (eps = 0.1), 6-arm Gaussian bandit", "step", "mean regret per step")
ax.plot(np.convolve(regret_step, np.ones(50) / 50, mode="valid"))
ax.axhline(floor, color="k", lw=0.6, ls="--")

# The page's calculator is checked on this grid against rl_worlds.epsilon_greedy_policy, the exact
# probabilities the sampled frequencies above were tested against (cardcalc; the build runs the card's
# JavaScript on the same rows): a Q row with a single maximiser, epsilon from greedy (0) to uniform (1).
import cardcalc  # noqa: E402


def greedy_and_other(epsilon, A):
    """pi(greedy) and pi(any other action) for A actions whose first one is the unique argmax."""
    probs = epsilon_greedy_policy(np.eye(int(A))[:1], epsilon)[0]
    return {"p_greedy": probs[0], "p_other": probs[1]}


cardcalc.table(greedy_and_other, cardcalc.grid(epsilon=(0.0, 0.01, 0.1, 0.5, 1.0), A=(2, 4, 18)))
