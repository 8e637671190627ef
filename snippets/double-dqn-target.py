"""Double Q-learning / Double DQN target: on a bandit-like next state with known action values, the
max target overestimates by the expected maximum of the noise while the decoupled target's mean is
sum_a Pr(online picks a) mu_a (both by numerical integration, scipy); tabular Double Q-learning removes
the maximization bias of Sutton and Barto's Example 6.7."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad, quad_vec
from scipy.special import ndtr


# --- formula ---
def double_q_target(r, q_online_next, q_target_next, done, gamma):
    """Y = r + gamma Q_target(s', argmax_a Q_online(s', a)); Y = r when s' is terminal.
    Leading axes are the batch; actions are on the last axis."""
    greedy = np.argmax(q_online_next, axis=-1)
    evaluated = np.take_along_axis(q_target_next, greedy[..., None], axis=-1)[..., 0]
    return r + gamma * np.where(done, 0.0, evaluated)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Hand-checkable batch: the online network picks the action, the target network scores it.
q_on = np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 0.2], [2.0, 2.5, 9.0]])
q_tg = np.array([[5.0, 0.0, 7.0], [4.0, 8.0, -3.0], [1.0, 6.0, -2.0]])
r = np.array([1.0, -0.5, 0.25])
done = np.array([False, False, True])
check_close("batch of 3: picks (1, 0, -) by the online net, scores (0.0, 4.0) with the target net",
            double_q_target(r, q_on, q_tg, done, 0.9), [1.0 + 0.9 * 0.0, -0.5 + 0.9 * 4.0, 0.25], rtol=1e-12)
same = rng.normal(size=(6, 5))
check_close("with one network for both roles it is the DQN target r + gamma max_a Q(s', a)",
            double_q_target(np.zeros(6), same, same, np.zeros(6, dtype=bool), 0.97), 0.97 * same.max(axis=1),
            rtol=1e-12)

# 2. Overestimation on a bandit-like next state: 8 actions with true values mu, two independent noisy
#    estimates (online and target) Q = mu + N(0, sigma^2). Exact expectations by quadrature:
#    E[max_a Q_a] = int x d/dx prod_a Phi((x - mu_a)/sigma) dx, and the double estimator's mean
#    sum_a mu_a Pr(online argmax = a), Pr(argmax = a) = int phi_a(x) prod_{b != a} Phi_b(x) dx.
def _pdf_cdf(x, mu, sigma):
    z = (x - mu) / sigma
    return np.exp(-0.5 * z**2) / (sigma * np.sqrt(2 * np.pi)), ndtr(z)


def argmax_probabilities(mu, sigma):
    """Pr(argmax_a (mu_a + noise_a) = a) for every a, one vector-valued integral (scipy quad_vec)."""
    def integrand(x):
        pdf, cdf = _pdf_cdf(x, mu, sigma)
        return pdf * np.prod(cdf) / cdf
    return quad_vec(integrand, mu.min() - 10 * sigma, mu.max() + 10 * sigma)[0]


def expected_max(mu, sigma):
    """E[max_a (mu_a + noise_a)] = int x d/dx prod_a Phi((x - mu_a) / sigma) dx."""
    def integrand(x):
        pdf, cdf = _pdf_cdf(x, mu, sigma)
        return x * np.sum(pdf * np.prod(cdf) / cdf)
    return quad(integrand, mu.min() - 10 * sigma, mu.max() + 10 * sigma, limit=200)[0]


sigma, n = 1.0, 200_000
for label, mu in (("equal true values 0", np.zeros(8)),
                  ("unequal true values", np.array([0.0, 0.3, -0.2, 0.1, 0.5, -0.4, 0.45, 0.2]))):
    online = mu + sigma * rng.standard_normal((n, 8))
    target = mu + sigma * rng.standard_normal((n, 8))
    y_double = double_q_target(np.zeros(n), online, target, np.zeros(n, dtype=bool), 1.0)
    y_max = target.max(axis=1)
    exact_double = argmax_probabilities(mu, sigma) @ mu
    se = y_double.std() / np.sqrt(n)
    check_close(f"{label}: mean double target vs sum_a Pr(argmax=a) mu_a (4 s.e.)", y_double.mean(),
                exact_double, rtol=0, atol=4 * se)
    check_close(f"{label}: mean max target vs E[max] by quadrature (4 s.e.)", y_max.mean(),
                expected_max(mu, sigma), rtol=0, atol=4 * y_max.std() / np.sqrt(n))
    bias_max, bias_double = y_max.mean() - mu.max(), y_double.mean() - mu.max()
    check_true(f"{label}: the max target overestimates max_a mu_a, the double target does not",
               bias_max > 0.3 and bias_double < 4 * se,
               f"bias {bias_max:+.3f} (max) vs {bias_double:+.3f} (double)")
check_close("E[max of 8 standard normals] = 1.4236 (tabulated value)", expected_max(np.zeros(8), 1.0), 1.4236,
            rtol=1e-4)

# 3. Sutton and Barto's Example 6.7 (maximization bias), 2000 independent runs in parallel: from A,
#    "right" ends with reward 0, "left" leads to B, whose 10 actions end with reward N(-0.1, 1).
#    Going left is a mistake, but Q-learning's max over B's noisy estimates makes it look good.
#    Double Q-learning keeps two tables; each update scores the argmax of one with the other.
runs, episodes, n_b, eps, alpha = 2000, 300, 10, 0.1, 0.1
idx = np.arange(runs)


def run(double):
    QA, QB = np.zeros((2, runs, 2)), np.zeros((2, runs, n_b))
    left = np.zeros(episodes)
    for e in range(episodes):
        qa = QA.sum(axis=0) if double else QA[0]
        a = np.where(rng.random(runs) < eps, rng.integers(0, 2, runs),
                     np.argmax(qa + 1e-9 * rng.random((runs, 2)), axis=1))  # random tie-breaking
        left[e] = np.mean(a == 0)
        qb = QB.sum(axis=0) if double else QB[0]
        b = np.where(rng.random(runs) < eps, rng.integers(0, n_b, runs),
                     np.argmax(qb + 1e-9 * rng.random((runs, n_b)), axis=1))
        rb = rng.normal(-0.1, 1.0, runs)
        k = rng.integers(0, 2, runs) if double else np.zeros(runs, dtype=int)
        if double:
            y = double_q_target(np.zeros(runs), QB[k, idx], QB[1 - k, idx], a == 1, 1.0)
        else:
            y = np.where(a == 1, 0.0, QB[0].max(axis=1))
        QA[k, idx, a] += alpha * (y - QA[k, idx, a])
        went = a == 0
        k2 = rng.integers(0, 2, runs) if double else np.zeros(runs, dtype=int)
        QB[k2[went], idx[went], b[went]] += alpha * (rb[went] - QB[k2[went], idx[went], b[went]])
    return left


left_q, left_dq = run(False), run(True)
check_true("Example 6.7: Q-learning goes left far more often in the first 100 episodes",
           left_q[:100].mean() > left_dq[:100].mean() + 0.3,
           f"{left_q[:100].mean():.2f} vs {left_dq[:100].mean():.2f}")
check_true("Double Q-learning ends near the epsilon-greedy floor of 5% left", left_dq[-50:].mean() < 0.08,
           f"last 50 episodes: {left_dq[-50:].mean():.3f} (Q-learning {left_q[-50:].mean():.3f})")

fig, ax = figure("Maximization bias (Sutton and Barto, Example 6.7), 2000 runs", "episode",
                 "fraction of runs choosing left at A")
ax.plot(np.arange(1, episodes + 1), left_q, label="Q-learning (max target)")
ax.plot(np.arange(1, episodes + 1), left_dq, label="Double Q-learning (decoupled target)")
ax.axhline(0.05, color="k", lw=0.6, ls="--", label="optimal with ε = 0.1")
ax.set_ylim(0, 1)
ax.legend()
