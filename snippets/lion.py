"""Lion (Chen et al. 2023, Algorithm 2): sign of the beta1-interpolation for the update, beta2-EMA for
the state, decoupled weight decay. Checked on a quadratic against the unrolled sums, the exact step
size, the weight-decay factor and the special cases beta1 = 0 and beta1 = beta2."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def lion_step(theta, m, g, lr, beta1=0.9, beta2=0.99, wd=0.0):
    """One Lion step; returns (new parameters, new momentum, the interpolation c whose sign is used)."""
    c = beta1 * m + (1.0 - beta1) * g
    theta = theta - lr * (np.sign(c) + wd * theta)
    m = beta2 * m + (1.0 - beta2) * g
    return theta, m, c
# --- end formula ---


rng = np.random.default_rng(0)
D = 5
Q = np.linalg.qr(rng.normal(size=(D, D)))[0]
A = Q @ np.diag([0.1, 0.5, 1.0, 3.0, 10.0]) @ Q.T          # ill-conditioned, non-diagonal quadratic
target = rng.normal(size=D)


def grad(theta):
    return A @ (theta - target)


def loss(theta):
    return 0.5 * (theta - target) @ A @ (theta - target)


# 1. Run Lion with the paper's defaults on the quadratic (noisy gradients, decaying lr), recording all.
steps = 400
theta, m = np.zeros(D), np.zeros(D)
thetas, gs, cs, ms, lrs = [theta], [], [], [], []
for t in range(1, steps + 1):
    g = grad(theta) + 0.05 * rng.normal(size=D)
    lr = 0.05 * (1 - t / (steps + 1))
    theta, m, c = lion_step(theta, m, g, lr)
    thetas.append(theta)
    gs.append(g)
    cs.append(c)
    ms.append(m)
    lrs.append(lr)
gs, cs, ms, thetas = np.array(gs), np.array(cs), np.array(ms), np.array(thetas)

# Unrolled reference with the paper's constants: m_{t-1} = 0.01 sum_{s<t} 0.99^(t-1-s) g_s,
# c_t = 0.9 m_{t-1} + 0.1 g_t, m_t = 0.01 sum_{s<=t} 0.99^(t-s) g_s.
m_prev = np.array([0.01 * sum(0.99 ** (t - 1 - s) * gs[s] for s in range(t)) if t else np.zeros(D)
                   for t in range(steps)])
check_close("c_t = 0.9 m_{t-1} + 0.1 g_t, with m the 0.99-EMA of past gradients (unrolled sums)", cs,
            0.9 * m_prev + 0.1 * gs, rtol=1e-10, atol=1e-14)
check_close("momentum state m_t = 0.01 sum_s 0.99^(t-s) g_s", ms[-1],
            0.01 * sum(0.99 ** (steps - 1 - s) * gs[s] for s in range(steps)), rtol=1e-10)
check_close("each step is -lr * sign(c_t)", thetas[1:] - thetas[:-1], -np.array(lrs)[:, None] * np.sign(cs),
            rtol=1e-9, atol=1e-15)
check_true("every coordinate moves by exactly lr each step",
           np.allclose(np.abs(thetas[1:] - thetas[:-1]), np.array(lrs)[:, None], rtol=1e-9, atol=0))
check_true("converges on the quadratic: loss falls by > 1000x",
           loss(thetas[-1]) < 1e-3 * loss(thetas[0]), f"{loss(thetas[0]):.3f} -> {loss(thetas[-1]):.2e}")

# 2. Decoupled weight decay: with zero gradient and momentum, theta shrinks by (1 - lr wd) per step.
th0 = rng.normal(size=D)
th, mm = th0, np.zeros(D)
for _ in range(10):
    th, mm, _ = lion_step(th, mm, np.zeros(D), lr=0.01, wd=2.0)
check_close("g = 0, lr = 0.01, wd = 2: ten steps multiply theta by 0.98^10", th, 0.98**10 * th0, rtol=1e-12)
check_close("weight decay uses theta_{t-1}, added to the sign", lion_step(th, np.ones(D), -np.ones(D), 0.1,
            wd=0.5)[0], th - 0.1 * (np.sign(0.9 - 0.1) + 0.5 * th), rtol=1e-12)

# 3. Special cases. beta1 = 0: signSGD. beta1 = beta2 = b: sign of the freshly updated EMA, the
#    one-beta form sign(m_t); with the defaults the two betas differ and so do the updates.
m0, g0 = rng.normal(size=D), rng.normal(size=D)
check_close("beta1 = 0: sign(g)", lion_step(np.zeros(D), m0, g0, 1.0, beta1=0.0)[0], -np.sign(g0))
check_close("beta1 = beta2: update = -sign(m_t)", lion_step(np.zeros(D), m0, g0, 1.0, 0.95, 0.95)[0],
            -np.sign(0.95 * m0 + 0.05 * g0))
check_close("new state is the beta2-EMA for any beta1", lion_step(np.zeros(D), m0, g0, 1.0, 0.3, 0.8)[1],
            0.8 * m0 + 0.2 * g0, rtol=1e-12)
one_beta = np.zeros(D)
path_one = []
for t in range(steps):
    one_beta = 0.9 * one_beta + 0.1 * gs[t]
    path_one.append(-np.sign(one_beta))
check_true("the one-beta form sign(m_t) is a different optimizer (updates differ on this run)",
           np.mean(np.array(path_one) != np.sign(-cs)) > 0.01,
           f"{np.mean(np.array(path_one) != np.sign(-cs)):.1%} of coordinate updates differ")

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def optax_lion(**options):
    """optax.lion with the run's learning rates as its schedule, replaying the recorded gradients."""
    opt = optax.lion(lambda count: jax.numpy.asarray(lrs)[count], **options)
    params = jax.numpy.zeros(D)
    state = opt.init(params)
    for g in gs:
        updates, state = opt.update(jax.numpy.asarray(g), state, params)
        params = optax.apply_updates(params, updates)
    return np.asarray(params)


def card_lion(wd):
    """The card's lion_step over the same gradients and learning rates, with decay wd."""
    theta, m = np.zeros(D), np.zeros(D)
    for g, lr in zip(gs, lrs, strict=True):
        theta, m, _ = lion_step(theta, m, g, lr, wd=wd)
    return theta


# 400 steps of +-lr and a decay: the same operations in the same order, only the additions of the
# schedule's float64 rates differ by ulps; 1e-12 relative is ample (a sign flip would move by 2 lr).
check_close("optax.lion(schedule, b1 = 0.9, b2 = 0.99, weight_decay = 0.1) = the card, 400 steps",
            optax_lion(weight_decay=0.1), card_lion(0.1), rtol=1e-12)
check_close("pitfall: weight_decay defaults to 1e-3, not 0", optax_lion(), card_lion(1e-3), rtol=1e-12)
check_true("... which moves the run away from the card's undecayed one",
           np.abs(optax_lion() - thetas[-1]).max() > 1e-5,
           f"max difference {np.abs(optax_lion() - thetas[-1]).max():.2e}")
# --- end in code ---

fig, ax = figure("Lion on a 5-D quadratic (noisy gradients, linear lr decay)", "step", "loss")
ax.semilogy([loss(t) for t in thetas], label="Lion ($\\beta_1$ = 0.9, $\\beta_2$ = 0.99)")
ax.legend()
