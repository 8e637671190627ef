"""Critic loss: vs sklearn MSE, its minimizer is the mean return per state (exact V of a small chain by
simulation), finite-difference gradient, and both branches of the clipped variant."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.signal import lfilter
from sklearn.metrics import mean_squared_error


# --- formula ---
def discounted_returns(rewards, gamma):
    """R_t = r_t + gamma R_{t+1} over one finished episode (R after the last step is 0)."""
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def value_loss(v, target):
    """L_V = mean_t (V(s_t) - R_t)^2 (PPO's L^VF)."""
    return np.mean((v - target) ** 2)


def clipped_value_loss(v, v_old, target, eps=0.2):
    """The variant in PPO code bases: the worse of the plain and the clipped prediction's error."""
    v_clip = v_old + np.clip(v - v_old, -eps, eps)
    return np.mean(np.maximum((v - target) ** 2, (v_clip - target) ** 2))
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Returns of one episode against a reversed linear filter, and the loss against scikit-learn.
rew = rng.normal(size=20)
R = discounted_returns(rew, 0.97)
check_close("discounted returns vs scipy.signal.lfilter", R,
            lfilter([1.0], [1.0, -0.97], rew[::-1])[::-1], rtol=1e-12)
check_close("hand case: rewards (1, 2, 3), gamma = 1/2 -> returns (2.75, 3.5, 3)",
            discounted_returns(np.array([1.0, 2.0, 3.0]), 0.5), [2.75, 3.5, 3.0], rtol=1e-12)
v = R + rng.normal(size=20)
check_close("L_V vs sklearn mean_squared_error", value_loss(v, R), mean_squared_error(R, v), rtol=1e-12)

# 2. Gradient: dL/dV_i = 2 (V_i - R_i) / N, against central finite differences.
h = 1e-6
fd = np.array([(value_loss(v + h * e, R) - value_loss(v - h * e, R)) / (2 * h) for e in np.eye(20)])
check_close("gradient 2 (V - R) / N vs finite differences", fd, 2 * (v - R) / 20, rtol=1e-6)

# 3. What the loss learns: a 3-state chain, reward r(s) on leaving s, episode ends with probability
#    0.2 after each step. The exact value is V = (I - gamma 0.8 P)^{-1} r. Fit a table V(s) by
#    minimizing L_V over simulated Monte Carlo returns (least squares on one-hot features, solved by
#    numpy.linalg.lstsq); the minimizer is the per-state mean return, hence close to V.
gamma = 0.9
P = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.3, 0.3, 0.4]])
r_state = np.array([1.0, -2.0, 0.5])
V_exact = np.linalg.solve(np.eye(3) - gamma * 0.8 * P, r_state)
states, targets = [], []
for _ in range(4000):
    s, path = rng.integers(3), []
    while True:
        path.append(s)
        if rng.random() < 0.2:
            break
        s = rng.choice(3, p=P[s])
    states += path
    targets += list(discounted_returns(r_state[path], gamma))
states, targets = np.array(states), np.array(targets)
onehot = np.eye(3)[states]
V_fit = np.linalg.lstsq(onehot, targets, rcond=None)[0]
check_close("least-squares critic = per-state mean return", V_fit,
            [targets[states == s].mean() for s in range(3)], rtol=1e-10)
se = np.array([targets[states == s].std() / np.sqrt((states == s).sum()) for s in range(3)])
check_true("fitted V within 4 standard errors of the exact (I - gamma P)^-1 r",
           bool(np.all(np.abs(V_fit - V_exact) < 4 * se)), f"|error| / se = {np.abs(V_fit - V_exact) / se}")
check_true("the fitted table minimizes L_V: moving any entry raises the loss",
           all(value_loss((V_fit + d * e)[states], targets) > value_loss(V_fit[states], targets)
               for e in np.eye(3) for d in (-1e-3, 1e-3)))

# 4. Clipped variant, both branches. Inside the trust region (|V - V_old| <= eps) it equals L_V;
#    outside, it takes the larger of the two errors, by hand: V_old = 0, V = 1, R = 0.5, eps = 0.2:
#    plain error (1 - 0.5)^2 = 0.25, clipped prediction 0.2 -> (0.2 - 0.5)^2 = 0.09, loss 0.25;
#    with R = 2: plain 1, clipped (0.2 - 2)^2 = 3.24, loss 3.24.
v_old = v + rng.uniform(-0.19, 0.19, size=20)
check_close("clipped loss = L_V inside the clip range", clipped_value_loss(v, v_old, R), value_loss(v, R),
            rtol=1e-12)
check_close("clipped loss, hand cases (target 0.5 and 2)",
            [clipped_value_loss(np.array([1.0]), np.array([0.0]), np.array([0.5])),
             clipped_value_loss(np.array([1.0]), np.array([0.0]), np.array([2.0]))], [0.25, 3.24], rtol=1e-12)
check_close("clipped loss, downward move: V = -1, V_old = 0, target -2 -> max(1, 3.24)",
            clipped_value_loss(np.array([-1.0]), np.array([0.0]), np.array([-2.0])), 3.24, rtol=1e-12)

fig, ax = figure("Critic loss for one sample (target R = 1, V_old = 0, ε = 0.2)", "prediction V(s)",
                 "loss")
grid = np.linspace(-1.0, 2.5, 351)
ax.plot(grid, [value_loss(np.array([g]), np.array([1.0])) for g in grid], label="(V − R)²")
ax.plot(grid, [clipped_value_loss(np.array([g]), np.array([0.0]), np.array([1.0])) for g in grid], "--",
        label="clipped variant")
ax.legend()
