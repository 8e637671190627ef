"""DQN loss: mean squared TD error against a frozen target network. Loss vs sklearn's MSE, the Huber form
(error clipping) vs scipy.special.huber, the semi-gradient vs finite differences with the target held
fixed, and in the tabular case: the loss minimizer is one Bellman optimality backup of the target
network, so repeated target updates (fitted Q iteration) reach Q* from the LP."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, random_mdp, solve_optimal
from scipy.special import huber as scipy_huber
from sklearn.metrics import mean_squared_error


# --- formula ---
def dqn_targets(r, q_target_next, done, gamma):
    """y = r + gamma max_a' Q_{theta^-}(s', a'), and y = r when s' is terminal."""
    return r + gamma * np.where(done, 0.0, np.max(q_target_next, axis=-1))


def dqn_loss(q_taken, y):
    """L(theta) = mean over the minibatch of (y - Q_theta(s, a))^2."""
    return np.mean((y - q_taken) ** 2)


def huber(x, kappa=1.0):
    """Huber loss, x^2 / 2 for |x| <= kappa and kappa (|x| - kappa / 2) beyond; its derivative is the TD
    error clipped to [-kappa, kappa] (Mnih et al. clip at 1)."""
    ax = np.abs(x)
    return np.where(ax <= kappa, 0.5 * x**2, kappa * (ax - 0.5 * kappa))


def dqn_semi_gradient(theta, phi_taken, y):
    """Gradient of the loss for a linear Q_theta(s, a) = phi(s, a) . theta with the target y held fixed:
    -2 mean((y - Q) phi)."""
    err = y - phi_taken @ theta
    return -2.0 * phi_taken.T @ err / len(y)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Loss on a random minibatch (32 transitions, 6 actions, 5 of them terminal) vs sklearn's MSE of the
#    targets built by explicit per-sample branching.
B, nA, gamma = 32, 6, 0.99
r = rng.normal(size=B)
q_next = rng.normal(size=(B, nA)) * 3
done = rng.random(B) < 0.15
q_taken = rng.normal(size=B)
y = dqn_targets(r, q_next, done, gamma)
y_loop = np.array([r[i] if done[i] else r[i] + gamma * max(q_next[i]) for i in range(B)])
check_close("targets vs per-sample branching (terminal -> r)", y, y_loop, rtol=1e-12)
check_true("the batch has terminal transitions", bool(done.sum() >= 2), f"{int(done.sum())} terminal")
check_close("loss vs sklearn.metrics.mean_squared_error", dqn_loss(q_taken, y),
            mean_squared_error(y, q_taken), rtol=1e-12)

# 2. Error clipping = Huber loss: vs scipy.special.huber(kappa, x) on both branches; derivative (central
#    differences) = error clipped to [-1, 1] with the default kappa, the value in Mnih et al.
x = np.linspace(-4, 4, 81) + 0.013
for kappa in (1.0, 2.5):
    check_close(f"huber(x, kappa={kappa}) vs scipy.special.huber", huber(x, kappa), scipy_huber(kappa, x),
                rtol=1e-12)
h = 1e-6
check_close("default kappa: d huber / dx = clip(x, -1, 1) (central differences)",
            (huber(x + h) - huber(x - h)) / (2 * h), np.clip(x, -1, 1), rtol=0, atol=1e-8)

# 3. Semi-gradient for a linear Q: with the target network frozen, the gradient equals central
#    differences of the loss in theta (targets not recomputed). If the target were allowed to move with
#    theta (theta^- = theta), the gradient would differ: DQN deliberately ignores that part.
d = 7
phi_taken = rng.normal(size=(B, d))
phi_next = rng.normal(size=(B, nA, d))
theta = rng.normal(size=d)
y_frozen = dqn_targets(r, phi_next @ theta, done, gamma)


def loss_at(th, frozen):
    """The loss at parameters th; the target uses the frozen y, or is recomputed from th itself."""
    yy = y_frozen if frozen else dqn_targets(r, phi_next @ th, done, gamma)
    return dqn_loss(phi_taken @ th, yy)


fd = np.array([(loss_at(theta + h * e, True) - loss_at(theta - h * e, True)) / (2 * h) for e in np.eye(d)])
check_close("semi-gradient vs finite differences with the target frozen", dqn_semi_gradient(theta, phi_taken,
            y_frozen), fd, rtol=1e-6, atol=1e-8)
fd_moving = np.array([(loss_at(theta + h * e, False) - loss_at(theta - h * e, False)) / (2 * h)
                      for e in np.eye(d)])
gap = np.abs(fd_moving - fd).max()
check_true("differentiating through the target too gives a different gradient", gap > 0.1,
           f"max difference {gap:.2f}")

# 4. Tabular case on the gridworld (one-hot features): the dataset holds every (s, a, s') with weight
#    P(s'|s, a). The loss minimizer, by weighted least squares (numpy.linalg.lstsq), is one Bellman
#    optimality backup of the target network: r + gamma P max_a' Q^-, with terminal successors
#    contributing nothing even though Q^- holds arbitrary numbers there.
grid = GRIDWORLD
S, A = 16, 4
s_i, a_i, s2_i = (m.ravel() for m in np.meshgrid(np.arange(S), np.arange(A), np.arange(S), indexing="ij"))
w = grid.P[s_i, a_i, s2_i]
keep = w > 0
s_i, a_i, s2_i, w = s_i[keep], a_i[keep], s2_i[keep], w[keep]
onehot = np.eye(S * A)[s_i * A + a_i]
Q_minus = rng.normal(size=(S, A))
y_tab = dqn_targets(grid.R_sas[s_i, a_i, s2_i], Q_minus[s2_i], grid.terminal[s2_i], grid.gamma)
fit = np.linalg.lstsq(np.sqrt(w)[:, None] * onehot, np.sqrt(w) * y_tab, rcond=None)[0].reshape(S, A)
masked_next = np.where(grid.terminal, 0.0, Q_minus.max(axis=1))
check_close("argmin of the expected loss = r + gamma P max Q^- (terminal masked)", fit,
            grid.R + grid.gamma * grid.P @ masked_next, rtol=1e-10, atol=1e-12)
idx_sa = s_i * A + a_i
loss_fit = np.sum(w * (y_tab - fit.ravel()[idx_sa]) ** 2)
loss_prev = np.sum(w * (y_tab - Q_minus.ravel()[idx_sa]) ** 2)
check_true("the expected loss at that minimizer is below its value at Q^- itself", loss_fit < loss_prev,
           f"{loss_fit:.3f} < {loss_prev:.3f}")

# Fitted Q iteration: minimize, copy to the target network, repeat. 250 rounds reach Q* (LP) because
# each round is one contraction step; on a random MDP as well (every successor non-terminal).
for name, m in (("gridworld", grid), ("random MDP", random_mdp(rng, n_states=6, n_actions=3, gamma=0.8))):
    nS, nA_ = m.n_states, m.n_actions
    grids = np.meshgrid(np.arange(nS), np.arange(nA_), np.arange(nS), indexing="ij")
    ss, aa, s2s = (g.ravel() for g in grids)
    ww = m.P[ss, aa, s2s]
    Qk = np.zeros((nS, nA_))
    for _ in range(250):
        yk = dqn_targets(m.R_sas[ss, aa, s2s], Qk[s2s], m.terminal[s2s], m.gamma)
        Qk = (np.bincount(ss * nA_ + aa, weights=ww * yk, minlength=nS * nA_)
              / np.bincount(ss * nA_ + aa, weights=ww, minlength=nS * nA_)).reshape(nS, nA_)
    _, Q_star, _ = solve_optimal(m)
    check_close(f"{name}: 250 target-network rounds of the exact loss minimizer = Q*", Qk, Q_star, rtol=1e-9,
                atol=1e-12)
