"""ICM curiosity reward r = eta/2 ||phi_hat(s_{t+1}) - phi(s_{t+1})||^2 (Pathak et al. 2017, Sec. 2):
it equals eta times the forward-model loss, its gradient matches finite differences, gradient descent with
it reaches the least-squares forward model (numpy lstsq), and in features that ignore uncontrollable noise
the reward vanishes on familiar transitions, while raw-state prediction keeps paying for the noise
("noisy TV")."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

rng = np.random.default_rng(0)
ETA = 0.5


# --- formula ---
def forward_predict(F, phi_s, action, n_actions):
    """phi_hat(s_{t+1}) = F [phi(s_t); one_hot(a_t); 1], a linear forward model in feature space."""
    z = np.hstack([phi_s, np.eye(n_actions)[action], np.ones((len(action), 1))])
    return z @ F, z


def icm_reward(F, phi_s, action, phi_next, n_actions, eta):
    """r^i_t = eta / 2 * || phi_hat(s_{t+1}) - phi(s_{t+1}) ||_2^2, one value per transition."""
    pred, _ = forward_predict(F, phi_s, action, n_actions)
    return eta / 2.0 * np.sum((pred - phi_next) ** 2, axis=1)


def forward_loss_grad(F, phi_s, action, phi_next, n_actions):
    """Gradient in F of the forward loss L_F = mean_t 1/2 || phi_hat - phi(s_{t+1}) ||^2."""
    pred, z = forward_predict(F, phi_s, action, n_actions)
    return z.T @ (pred - phi_next) / len(action)


# --- end formula ---


# A world with 2 controllable coordinates (moved by 4 actions, plus drift) and 3 "noisy TV" coordinates that
# are fresh N(0, 1) noise every step, whatever the agent does.
MOVES = np.array([[0.3, 0.0], [-0.3, 0.0], [0.0, 0.3], [0.0, -0.3]])
A_DYN = np.array([[0.9, 0.1], [-0.1, 0.9]])


def transitions(n, centre):
    pos = centre + 0.3 * rng.normal(size=(n, 2))
    a = rng.integers(4, size=n)
    nxt = pos @ A_DYN.T + MOVES[a] + 0.01 * rng.normal(size=(n, 2))
    return np.hstack([pos, rng.normal(size=(n, 3))]), a, np.hstack([nxt, rng.normal(size=(n, 3))])


def phi_controllable(s):
    """What an inverse-dynamics-trained encoder keeps: only the coordinates the actions influence."""
    return s[:, :2]


def phi_raw(s):
    return s


# 1. Reward = eta * forward loss (the forward loss L_F carries the same 1/2 ||.||^2); the gradient
#    matches finite differences.
s, a, s2 = transitions(40, np.zeros(2))
F = rng.normal(size=(2 + 4 + 1, 2))
ps, ps2 = phi_controllable(s), phi_controllable(s2)
manual = np.array(
    [
        0.5 * np.linalg.norm(forward_predict(F, ps[i : i + 1], a[i : i + 1], 4)[0][0] - ps2[i]) ** 2
        for i in range(40)
    ]
)
check_close(
    "r^i = eta * (1/2 ||phi_hat - phi||^2), eta = 0.5 (numpy.linalg.norm)",
    icm_reward(F, ps, a, ps2, 4, ETA),
    ETA * manual,
    rtol=1e-12,
)
fd = np.zeros_like(F)
for idx in np.ndindex(F.shape):
    Fp, Fm = F.copy(), F.copy()
    Fp[idx] += 1e-6
    Fm[idx] -= 1e-6
    fd[idx] = (icm_reward(Fp, ps, a, ps2, 4, 1.0).mean() - icm_reward(Fm, ps, a, ps2, 4, 1.0).mean()) / 2e-6
check_close(
    "dL_F/dF (analytic) = central finite differences of the mean reward at eta = 1",
    forward_loss_grad(F, ps, a, ps2, 4),
    fd,
    rtol=1e-6,
    atol=1e-9,
)

# 2. Train forward models by gradient descent on 2000 familiar transitions, in both feature spaces.
s, a, s2 = transitions(2000, np.zeros(2))
models = {}
for name, phi in [("controllable", phi_controllable), ("raw", phi_raw)]:
    x, x2 = phi(s), phi(s2)
    Fk = np.zeros((x.shape[1] + 5, x.shape[1]))
    for _ in range(3000):
        Fk -= 0.3 * forward_loss_grad(Fk, x, a, x2, 4)
    z = forward_predict(Fk, x, a, 4)[1]
    check_close(
        f"{name} features: gradient descent reaches the least-squares forward model (numpy lstsq)",
        Fk,
        np.linalg.lstsq(z, x2, rcond=None)[0],
        rtol=0,
        atol=2e-3,
    )
    models[name] = Fk

s_t, a_t, s2_t = transitions(2000, np.zeros(2))
r_ctrl = icm_reward(models["controllable"], phi_controllable(s_t), a_t, phi_controllable(s2_t), 4, ETA).mean()
r_raw = icm_reward(models["raw"], phi_raw(s_t), a_t, phi_raw(s2_t), 4, ETA).mean()
check_close(
    "controllable features: familiar transitions pay only eta/2 * 2 * 0.01^2 (the dynamics noise; 15%)",
    r_ctrl,
    ETA / 2 * 2 * 1e-4,
    rtol=0.15,
)
check_close(
    "raw features: the noisy TV keeps paying eta/2 * 3 (three unit-variance coordinates; 5%)",
    r_raw,
    ETA / 2 * 3.0,
    rtol=0.05,
)

# 3. Novelty: the environment changes under the agent. Swap two actions' effects after training;
#    transitions with those actions become surprising, the others do not.
MOVES[[0, 2]] = MOVES[[2, 0]]
s_n, a_n, s2_n = transitions(2000, np.zeros(2))
r_new = icm_reward(models["controllable"], phi_controllable(s_n), a_n, phi_controllable(s2_n), 4, ETA)
check_true(
    "changed dynamics: the affected actions earn > 100x the reward of unaffected ones",
    r_new[np.isin(a_n, [0, 2])].mean() > 100 * r_new[np.isin(a_n, [1, 3])].mean(),
    f"{r_new[np.isin(a_n, [0, 2])].mean():.4f} vs {r_new[np.isin(a_n, [1, 3])].mean():.6f}",
)

fig, ax = figure("ICM reward on familiar transitions", "feature space", "mean curiosity reward")
ax.bar(["controllable phi", "raw state"], [r_ctrl, r_raw])
ax.set_yscale("log")
