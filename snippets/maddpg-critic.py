"""MADDPG: each agent's centralised critic Q_i(x, a_1, ..., a_N) is fitted to the target
y = r_i + gamma Q_i'(x', mu'_1(o'_1), ..., mu'_N(o'_N)); iterating the fit converges to the exact Q^mu_i of
the joint policy (linear solve on a small two-agent Markov game), and the decentralised actor gradient
E[grad_theta mu_i(o_i) grad_{a_i} Q_i] matches finite differences of the critic's value."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def critic_target(r_i, gamma, done, target_q_i, x_next, o_next, target_actors):
    """y = r_i + gamma Q_i'(x', a'_1, ..., a'_N), a'_j = mu'_j(o'_j) from the target actors; no bootstrap
    after a terminal x'."""
    a_next = np.stack([mu(o) for mu, o in zip(target_actors, o_next, strict=True)], axis=-1)
    return r_i + gamma * (1.0 - done) * target_q_i(x_next, a_next)


def critic_loss(q_i, x, a, y, weight):
    """L(phi_i) = E[(Q_i(x, a_1, ..., a_N) - y)^2], a weighted mean over the batch."""
    return np.sum(weight * (q_i(x, a) - y) ** 2) / np.sum(weight)


def actor_gradient(i, theta_i, o_i, x, a, dq_da):
    """E[grad_theta mu_i(o_i) grad_{a_i} Q_i(x, a)] at a_i = mu_i(o_i), for the linear actor
    mu_i(o) = o . theta_i; the other agents' actions stay as in the batch (x, a ~ D)."""
    a = a.copy()
    a[:, i] = o_i @ theta_i
    return np.mean(o_i * dq_da(x, a, i)[:, None], axis=0)
# --- end formula ---


# A two-agent Markov game with K = 4 states. Agent j observes o_j = OBS[j][x] (3 numbers), acts with a scalar
# a_j. Transitions x -> x' do not depend on the actions (so Q^mu has a closed form); each agent's reward is a
# state-dependent quadratic in the joint action. The critic is linear in features
# onehot(x) (x) [1, a_1, a_2, a_1^2, a_2^2, a_1 a_2], which contains every Q^mu_i exactly.
rng = np.random.default_rng(0)
K, GAMMA = 4, 0.7
P = rng.dirichlet(np.ones(K), size=K)
OBS = [rng.normal(size=(K, 3)), rng.normal(size=(K, 3))]
COEF = [rng.normal(size=(K, 6)) for _ in range(2)]
for c in COEF:
    c[:, 3:5] = -np.abs(c[:, 3:5]) - 1.0  # concave in each agent's own action


def basis(a):
    a1, a2 = a[:, 0], a[:, 1]
    return np.stack([np.ones(len(a)), a1, a2, a1 ** 2, a2 ** 2, a1 * a2], axis=1)


def features(x, a):
    return (np.eye(K)[x][:, :, None] * basis(a)[:, None, :]).reshape(len(x), -1)


def reward(i, x, a):
    return np.sum(COEF[i][x] * basis(a), axis=1)


def critic(w):
    return lambda x, a: features(x, a) @ w


def critic_grad(w):
    """d/da_i of the linear-in-features critic."""
    def dq_da(x, a, i):
        zero, one = np.zeros(len(a)), np.ones(len(a))
        if i == 0:
            d = [zero, one, zero, 2 * a[:, 0], zero, a[:, 1]]
        else:
            d = [zero, zero, one, zero, 2 * a[:, 1], a[:, 0]]
        return (np.eye(K)[x][:, :, None] * np.stack(d, axis=1)[:, None, :]).reshape(len(x), -1) @ w
    return dq_da


def exact_q(i, thetas, x, a):
    """Q^mu_i(x, a) = r_i(x, a) + gamma sum_x' P(x'|x) V_i(x'), V_i from the joint policy's linear system."""
    states = np.arange(K)
    a_pol = np.stack([OBS[j] @ thetas[j] for j in range(2)], axis=1)
    V = np.linalg.solve(np.eye(K) - GAMMA * P, reward(i, states, a_pol))
    return reward(i, x, a) + GAMMA * P[x] @ V


# 1. The loss by hand: Q = (1, 2, 3), y = (1, 0, 3): unweighted 4/3; weights (0.5, 0.25, 0.25): 1.
q_fixed = lambda x, a: np.array([1.0, 2.0, 3.0])  # noqa: E731
check_close("critic loss by hand (equal weights, then weights 0.5/0.25/0.25)",
            [critic_loss(q_fixed, None, None, np.array([1.0, 0.0, 3.0]), np.ones(3)),
             critic_loss(q_fixed, None, None, np.array([1.0, 0.0, 3.0]), np.array([0.5, 0.25, 0.25]))],
            [4 / 3, 1.0], rtol=1e-12)
check_close("target by hand: r = 1, gamma = 0.5, Q'(x', mu'(o')) = 4 -> 3; terminal -> 1",
            [critic_target(1.0, 0.5, 0.0, lambda x, a: 4.0 + 0 * a[..., 0], 0, [np.ones(1), np.ones(1)],
                           [lambda o: o, lambda o: -o]),
             critic_target(1.0, 0.5, 1.0, lambda x, a: 4.0 + 0 * a[..., 0], 0, [np.ones(1), np.ones(1)],
                           [lambda o: o, lambda o: -o])], [[3.0], [1.0]], rtol=1e-12)
check_close("the target critic sees the target actors' next actions: Q'(a') = a'_1 - 2 a'_2 at o' = (3, 5)",
            critic_target(0.0, 1.0, 0.0, lambda x, a: a[..., 0] - 2 * a[..., 1], 0,
                          [np.array([3.0]), np.array([5.0])], [lambda o: 2 * o, lambda o: o + 1]), [-6.0],
            rtol=1e-12)

# 2. Fitted critic iteration with the MADDPG loss: 300 (x, a) pairs from a behaviour distribution, each with
#    every next state x' weighted by P(x'|x) (the expectation over transitions, done exactly). Each round
#    builds y with the target critic and target actors (= current actors, fixed), minimises the loss
#    (weighted least squares, numpy lstsq), and copies the result into the target. After 60 rounds
#    (gamma^60 < 1e-9) both centralised critics equal Q^mu_i from the linear solve.
thetas = [rng.normal(size=3), rng.normal(size=3)]
actors = [lambda o, t=t: o @ t for t in thetas]
x0 = rng.integers(K, size=300)
a0 = rng.normal(scale=1.5, size=(300, 2))
xb = np.repeat(x0, K)
ab = np.repeat(a0, K, axis=0)
xn = np.tile(np.arange(K), 300)
wb = P[xb, xn]
F = features(xb, ab)
x_test, a_test = rng.integers(K, size=50), rng.normal(scale=2.0, size=(50, 2))
fitted, history = [], []
for i in range(2):
    w = np.zeros(F.shape[1])
    errs = []
    for _ in range(60):
        y = critic_target(reward(i, xb, ab), GAMMA, 0.0, critic(w), xn, [OBS[0][xn], OBS[1][xn]], actors)
        w = np.linalg.lstsq(F * np.sqrt(wb)[:, None], y * np.sqrt(wb), rcond=None)[0]
        errs.append(np.abs(critic(w)(x_test, a_test) - exact_q(i, thetas, x_test, a_test)).max())
    fitted.append(w)
    history.append(errs)
    check_close(f"agent {i + 1}: fitted centralised critic = exact Q^mu_{i + 1} at 50 test points",
                critic(w)(x_test, a_test), exact_q(i, thetas, x_test, a_test), rtol=1e-5, atol=1e-5)
    grad = np.array([(critic_loss(critic(w + 1e-5 * e), xb, ab, y, wb)
                      - critic_loss(critic(w - 1e-5 * e), xb, ab, y, wb)) / 2e-5 for e in np.eye(len(w))])
    check_true(f"agent {i + 1}: the least-squares weights are a stationary point of the loss (central FD)",
               np.abs(grad).max() < 1e-6, f"max |dL/dw| = {np.abs(grad).max():.1e}")
check_true("a done flag on every transition removes the bootstrap: the target is the reward alone",
           np.allclose(critic_target(reward(0, xb, ab), GAMMA, 1.0, critic(fitted[0]), xn,
                                     [OBS[0][xn], OBS[1][xn]], actors), reward(0, xb, ab), rtol=0, atol=0))

# 3. Decentralised actor gradient (deterministic policy gradient through the centralised critic) against
#    central finite differences of J(theta_i) = E[Q_i(x, mu_i(o_i; theta_i), a_-i)], agent i's action replaced
#    by its policy, the others' taken from the batch.
for i in range(2):
    w = fitted[i]
    o_i = OBS[i][x0]
    g = actor_gradient(i, thetas[i], o_i, x0, a0, critic_grad(w))

    def J(theta, i=i, w=w, o_i=o_i):
        a = a0.copy()
        a[:, i] = o_i @ theta
        return critic(w)(x0, a).mean()

    fd = np.array([(J(thetas[i] + 1e-6 * e) - J(thetas[i] - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    check_close(f"agent {i + 1}: actor gradient = finite differences of the critic's value", g, fd, rtol=1e-6,
                atol=1e-8)

fig, ax = figure("MADDPG critic: fitted iteration toward Q^mu", "round of fitting", "max |Q_i - Q^mu_i|")
for i, errs in enumerate(history):
    ax.semilogy(range(1, 61), np.array(errs) + 1e-16, label=f"agent {i + 1}")
ax.legend()
