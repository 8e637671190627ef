"""Random network distillation: the bonus ||f_hat(s) - f(s)||^2 of a predictor MLP against a fixed random
target MLP; its hand-written gradient matches finite differences, and after training on visited states the
bonus is small there and large on novel states, and falls with how often a state was visited."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

rng = np.random.default_rng(0)
D_IN, H, D_OUT = 6, 32, 4


def mlp(params, s):
    """Two-layer tanh network, s of shape (n, D_IN)."""
    W1, b1, W2, b2 = params
    return np.tanh(s @ W1 + b1) @ W2 + b2


target = [
    rng.normal(size=(D_IN, H)) / np.sqrt(D_IN),
    rng.normal(size=H) * 0.1,
    rng.normal(size=(H, D_OUT)) / np.sqrt(H),
    np.zeros(D_OUT),
]


# --- formula ---
def rnd_bonus(pred, s):
    """r_int(s) = || f_hat(s; theta) - f(s) ||_2^2 with f the fixed, randomly initialised target network."""
    diff = mlp(pred, s) - mlp(target, s)
    return np.sum(diff**2, axis=1)


def rnd_grad(pred, s):
    """Gradient of the predictor loss mean_s r_int(s) with respect to (W1, b1, W2, b2), by backpropagation."""
    W1, b1, W2, b2 = pred
    h = np.tanh(s @ W1 + b1)
    diff = h @ W2 + b2 - mlp(target, s)
    g_out = 2.0 * diff / s.shape[0]
    g_h = (g_out @ W2.T) * (1.0 - h**2)
    return [s.T @ g_h, g_h.sum(axis=0), h.T @ g_out, g_out.sum(axis=0)]


# --- end formula ---


pred = [
    rng.normal(size=(D_IN, H)) / np.sqrt(D_IN),
    np.zeros(H),
    rng.normal(size=(H, D_OUT)) / np.sqrt(H),
    np.zeros(D_OUT),
]

# 1. Definition and gradient: the bonus is the squared Euclidean distance (numpy.linalg.norm), and the
#    backpropagated gradient matches central finite differences, parameter by parameter.
s_check = rng.normal(size=(7, D_IN))
check_close(
    "bonus = ||f_hat(s) - f(s)||^2 (numpy.linalg.norm)",
    rnd_bonus(pred, s_check),
    np.linalg.norm(mlp(pred, s_check) - mlp(target, s_check), axis=1) ** 2,
    rtol=1e-12,
)
grads = rnd_grad(pred, s_check)
for k, name in enumerate(["W1", "b1", "W2", "b2"]):
    fd = np.zeros_like(pred[k])
    for idx in np.ndindex(pred[k].shape):
        plus = [p.copy() for p in pred]
        minus = [p.copy() for p in pred]
        plus[k][idx] += 1e-6
        minus[k][idx] -= 1e-6
        fd[idx] = (rnd_bonus(plus, s_check).mean() - rnd_bonus(minus, s_check).mean()) / 2e-6
    check_close(
        f"d loss / d {name}: backprop = central finite differences", grads[k], fd, rtol=1e-5, atol=1e-8
    )

# 2. Novelty: visit 500 states near c_home, train the predictor by gradient descent on them; the bonus
#    collapses there but stays large on states near an unvisited centre.
c_home, c_far = np.zeros(D_IN), np.full(D_IN, 2.0)
visited = c_home + 0.5 * rng.normal(size=(500, D_IN))
novel = c_far + 0.5 * rng.normal(size=(500, D_IN))
before_v, before_n = rnd_bonus(pred, visited).mean(), rnd_bonus(pred, novel).mean()
curve = []
for step in range(1500):
    g = rnd_grad(pred, visited)
    pred = [p - 0.1 * gk for p, gk in zip(pred, g, strict=True)]
    if step % 30 == 0:
        curve.append((step, rnd_bonus(pred, visited).mean(), rnd_bonus(pred, novel).mean()))
after_v, after_n = rnd_bonus(pred, visited).mean(), rnd_bonus(pred, novel).mean()
check_true(
    "training lowers the bonus on visited states at least 20-fold",
    after_v < before_v / 20,
    f"{before_v:.3f} -> {after_v:.4f}",
)
check_true(
    "novel states keep a bonus at least 10x that of visited ones",
    after_n > 10 * after_v,
    f"novel {after_n:.3f} vs visited {after_v:.4f}",
)
fresh = c_home + 0.5 * rng.normal(size=(500, D_IN))
check_true(
    "unseen states from the visited region also get a small bonus (generalisation)",
    rnd_bonus(pred, fresh).mean() < 2 * after_v + 0.01,
    f"{rnd_bonus(pred, fresh).mean():.4f}",
)

# 3. Count-like behaviour: one state seen 50x as often as another in training gets the smaller bonus.
rare, common = rng.normal(size=(1, D_IN)) + 1.0, rng.normal(size=(1, D_IN)) + 1.0
batch = np.vstack([np.repeat(common, 50, axis=0), rare, visited[:100]])
p2 = [p.copy() for p in pred]
b_rare0, b_common0 = rnd_bonus(p2, rare)[0], rnd_bonus(p2, common)[0]
for _ in range(300):
    p2 = [p - 0.05 * gk for p, gk in zip(p2, rnd_grad(p2, batch), strict=True)]
check_true(
    "the frequently visited state's bonus falls by more (relative) than the rare one's",
    rnd_bonus(p2, common)[0] / b_common0 < rnd_bonus(p2, rare)[0] / b_rare0,
    f"common x{rnd_bonus(p2, common)[0] / b_common0:.3f}, rare x{rnd_bonus(p2, rare)[0] / b_rare0:.3f}",
)

steps, cv, cn = np.array(curve).T
fig, ax = figure("RND bonus while training on visited states", "gradient steps", "mean intrinsic reward")
ax.semilogy(steps, cv, label="visited states")
ax.semilogy(steps, cn, label="novel states")
ax.legend()
