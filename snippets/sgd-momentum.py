"""SGD momentum: vs Polyak's heavy-ball recursion, Sutskever's form and the optimal quadratic rate."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
# few mutants: v = mu v + g and theta - lr v: four operators and nothing else
def momentum_sgd(grad, theta0, lrs, mu):
    """PyTorch-style momentum: v_t = mu v_{t-1} + g_t, theta_t = theta_{t-1} - lr_t v_t."""
    theta, v, path = theta0.copy(), np.zeros_like(theta0), [theta0.copy()]
    for lr in lrs:
        v = mu * v + grad(theta)
        theta = theta - lr * v
        path.append(theta.copy())
    return np.array(path)
# --- end formula ---


rng = np.random.default_rng(0)
d = 6
Q = rng.normal(size=(d, d))
H = Q @ Q.T / d + 0.1 * np.eye(d)          # positive-definite Hessian of f(x) = x^T H x / 2
grad = lambda x: H @ x  # noqa: E731
theta0 = rng.normal(size=d)
mu, steps = 0.9, 60

# 1. With a constant learning rate this is Polyak's heavy ball:
#    theta_{t+1} = theta_t - eta g_t + mu (theta_t - theta_{t-1}).
eta = 0.05
path = momentum_sgd(grad, theta0, [eta] * steps, mu)
hb = [theta0.copy(), theta0 - eta * grad(theta0)]
for _ in range(steps - 1):
    hb.append(hb[-1] - eta * grad(hb[-1]) + mu * (hb[-1] - hb[-2]))
check_close("constant lr: v-form == heavy-ball recursion", path, np.array(hb), rtol=1e-10, atol=1e-12)

# 2. Sutskever et al.'s form (v <- mu v - lr g; theta <- theta + v) agrees for constant lr ...
def sutskever(lrs):
    theta, v, out = theta0.copy(), np.zeros(d), [theta0.copy()]
    for lr in lrs:
        v = mu * v - lr * grad(theta)
        theta = theta + v
        out.append(theta.copy())
    return np.array(out)


check_close("constant lr: PyTorch form == Sutskever form", path, sutskever([eta] * steps),
            rtol=1e-10, atol=1e-12)
# ... but not when the learning rate changes: the lr multiplies the whole velocity in one form
# and only the new gradient in the other.
lrs = np.linspace(0.08, 0.01, steps)
gap = np.max(np.abs(momentum_sgd(grad, theta0, lrs, mu) - sutskever(lrs)))
check_true("decaying lr: the two forms differ", gap > 1e-3, f"max difference {gap:.3g}")

# 3. Constant gradient: velocity tends to g / (1 - mu), i.e. effective step eta / (1 - mu).
g = rng.normal(size=d)
v = np.zeros(d)
for _ in range(400):
    v = mu * v + g
check_close("steady-state velocity = g / (1 - mu)", v, g / (1 - mu), rtol=1e-9)

# 4. Polyak's tuning on a quadratic with curvatures in [m, L]:
#    eta = 4/(sqrt L + sqrt m)^2, mu = ((sqrt k - 1)/(sqrt k + 1))^2 gives rate (sqrt k - 1)/(sqrt k + 1).
lam = np.linalg.eigvalsh(H)
m_, L_ = lam.min(), lam.max()
kappa = L_ / m_
eta_opt = 4 / (np.sqrt(L_) + np.sqrt(m_)) ** 2
mu_opt = ((np.sqrt(kappa) - 1) / (np.sqrt(kappa) + 1)) ** 2
# iteration matrix of the (theta_t, theta_{t-1}) linear system
T = np.block([[(1 + mu_opt) * np.eye(d) - eta_opt * H, -mu_opt * np.eye(d)],
              [np.eye(d), np.zeros((d, d))]])
rho = np.max(np.abs(np.linalg.eigvals(T)))
check_close("spectral radius = (sqrt k - 1)/(sqrt k + 1)", rho,
            (np.sqrt(kappa) - 1) / (np.sqrt(kappa) + 1), rtol=1e-4)

# The page's calculator is checked against momentum_sgd on a constant gradient: the step it takes at t,
# read off its path, and the velocity that step implies, from plain SGD (mu = 0) to mu = 0.99 and t = 1000.
import cardcalc  # noqa: E402


def constant_gradient_step(g, eta, mu, t):
    path = momentum_sgd(lambda theta: np.full(1, g), np.zeros(1), [eta] * t, mu)
    step = path[-2, 0] - path[-1, 0]
    return {"step": step, "v": step / eta}


cardcalc.table(constant_gradient_step,
               cardcalc.grid(g=(-2.0, 0.5), eta=(0.01, 1.0), mu=(0.0, 0.5, 0.9, 0.99), t=(1, 2, 10, 1000)))

# --- in code: torch ---
import torch  # noqa: E402


def torch_sgd(lr_seq, **options):
    """torch.optim.SGD on the card's quadratic, its learning rate set to lr_seq[t] before step t."""
    x = torch.tensor(theta0, requires_grad=True)
    opt = torch.optim.SGD([x], lr=lr_seq[0], **options)
    out = [theta0.copy()]
    for lr in lr_seq:
        for group in opt.param_groups:
            group["lr"] = lr
        x.grad = torch.tensor(grad(x.detach().numpy()))
        opt.step()
        out.append(x.detach().numpy().copy())
    return np.array(out)


# 60 float64 steps of a contracting iteration, a few ulps apart per step: 1e-10, as in check 1.
check_close("SGD(lr=eta_t, momentum=mu) = the card's recursion, decaying lr too",
            torch_sgd(lrs, momentum=mu), momentum_sgd(grad, theta0, lrs, mu), rtol=1e-10, atol=1e-12)
check_close("pitfall: left out, momentum is 0 (plain SGD)",
            torch_sgd(lrs), momentum_sgd(grad, theta0, lrs, 0.0), rtol=1e-10, atol=1e-12)
# dampening d scales the new gradient by 1 - d, except in the first step, which copies g_1 whole.
damp = 0.5
factors = iter([1.0] + [1 - damp] * steps)
check_close("pitfall: dampening=d gives v_t = mu v_{t-1} + (1 - d) g_t, but v_1 = g_1 undamped",
            torch_sgd(lrs, momentum=mu, dampening=damp),
            momentum_sgd(lambda x: next(factors) * grad(x), theta0, lrs, mu), rtol=1e-10, atol=1e-12)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy

# optax.sgd is trace(decay=mu) (v = mu v + g from v_0 = 0) followed by scaling with -lr_t: the
# schedule multiplies the whole velocity, as on the card, not only the new gradient (Sutskever).
opt = optax.sgd(learning_rate=lambda count: jax.numpy.asarray(lrs)[count], momentum=mu)
x = jax.numpy.asarray(theta0)
state, optax_path = opt.init(x), [theta0.copy()]
for _ in range(steps):
    updates, state = opt.update(jax.numpy.asarray(grad(np.asarray(x))), state, x)
    x = optax.apply_updates(x, updates)
    optax_path.append(np.asarray(x))
check_close("optax.sgd(schedule eta_t, momentum=mu) = the card's recursion",
            np.array(optax_path), momentum_sgd(grad, theta0, lrs, mu), rtol=1e-10, atol=1e-12)
# --- end in code ---

fig, ax = figure(f"Quadratic, condition number {kappa:.0f}", "step", "distance to optimum")
gd = momentum_sgd(grad, theta0, [2 / (L_ + m_)] * 200, 0.0)
hbp = momentum_sgd(grad, theta0, [eta_opt] * 200, mu_opt)
ax.semilogy(np.linalg.norm(gd, axis=1), label="plain SGD (best fixed lr)")
ax.semilogy(np.linalg.norm(hbp, axis=1), label="momentum (Polyak tuning)")
ax.legend()
