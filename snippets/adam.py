"""Adam: checked against the paper's folded step-size form, an IIR filter and the first step."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.signal import lfilter


# --- formula ---
def adam(grads, theta0, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """Kingma & Ba, Algorithm 1, on a given sequence of gradients; returns all iterates and moments."""
    theta, m, v = theta0.copy(), np.zeros_like(theta0), np.zeros_like(theta0)
    thetas, ms, vs = [], [], []
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat = m / (1 - b1**t)
        v_hat = v / (1 - b2**t)
        theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
        thetas.append(theta.copy())
        ms.append(m)
        vs.append(v)
    return np.array(thetas), np.array(ms), np.array(vs)
# --- end formula ---


rng = np.random.default_rng(0)
T, d = 300, 5
grads = rng.normal(loc=0.3, scale=1.0, size=(T, d)) * np.array([1e-3, 1e-1, 1, 10, 1e3])
theta0 = rng.normal(size=d)
lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
thetas, ms, vs = adam(grads, theta0, lr, b1, b2, eps)

# 1. The moments are exponential moving averages: a first-order IIR filter
#    y_t = (1 - b) x_t + b y_{t-1}, run by scipy along the time axis.
check_close("m_t vs scipy.signal.lfilter EMA of g", ms, lfilter([1 - b1], [1, -b1], grads, axis=0),
            rtol=1e-10, atol=1e-15)
check_close("v_t vs scipy.signal.lfilter EMA of g^2", vs,
            lfilter([1 - b2], [1, -b2], grads**2, axis=0), rtol=1e-10, atol=1e-15)

# 2. Sec. 2 of the paper folds the corrections into the step size:
#    alpha_t = lr sqrt(1 - b2^t)/(1 - b1^t), theta -= alpha_t m_t / (sqrt(v_t) + eps_hat),
#    which equals Algorithm 1 when eps_hat = eps sqrt(1 - b2^t).
theta, m, v = theta0.copy(), np.zeros(d), np.zeros(d)
for t, g in enumerate(grads, start=1):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g**2
    alpha_t = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
    theta = theta - alpha_t * m / (np.sqrt(v) + eps * np.sqrt(1 - b2**t))
check_close("Algorithm 1 == folded step-size form (Sec. 2)", thetas[-1], theta, rtol=1e-12)

# 3. First step: m_hat_1 = g_1 and v_hat_1 = g_1^2, so every coordinate moves by ~lr,
#    whatever the gradient's scale (a sign step).
step1 = theta0 - thetas[0]
check_close("first step = lr * sign(g_1)", step1, lr * np.sign(grads[0]), rtol=1e-4)

# 4. Bias correction makes a constant gradient come out exactly: m_t = (1 - b1^t) g.
g_const = np.full((20, 1), 2.5)
_, m_c, v_c = adam(g_const, np.zeros(1), lr, b1, b2, eps)
t = np.arange(1, 21)[:, None]
check_close("constant g: m_t/(1-b1^t) = g and v_t/(1-b2^t) = g^2",
            np.hstack([m_c / (1 - b1**t), v_c / (1 - b2**t)]),
            np.hstack([np.full((20, 1), 2.5), np.full((20, 1), 6.25)]), rtol=1e-12)
# Without the correction m_1 alone is ten times too small; the step m_1 / sqrt(v_1) is about three
# times too large, since v_1 is a thousand times too small (the card's common mistake).
check_true("uncorrected m_1 is (1 - b1) g", np.isclose(m_c[0, 0], 0.1 * 2.5), f"m_1 = {m_c[0, 0]}")

# 5. Scale invariance: multiplying all gradients by 1000 barely changes the trajectory.
thetas_big, _, _ = adam(1000 * grads, theta0, lr, b1, b2, eps)
check_close("update invariant to gradient scale", thetas_big, thetas, rtol=1e-5)

# 6. The defaults are the paper's "good default settings" (Algorithm 1): alpha = 0.001,
#    beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8.
check_close("default arguments == the paper's defaults (0.001, 0.9, 0.999, 1e-8)",
            adam(grads, theta0)[0], adam(grads, theta0, 0.001, 0.9, 0.999, 1e-8)[0], rtol=1e-15)

# The page's calculator is checked against adam run for t steps on a constant gradient: the moments it
# returns, the step it takes at t, and the step the uncorrected moments would give, at t = 1 (the largest
# bias) to 1000 and for gradients above and below epsilon.
import cardcalc  # noqa: E402


def constant_gradient_step(g, eta, beta_1, beta_2, epsilon, t):
    path, ms, vs = adam(np.full((t, 1), g), np.zeros(1), eta, beta_1, beta_2, epsilon)
    before = path[-2, 0] if t > 1 else 0.0
    return {"m": ms[-1, 0], "v": vs[-1, 0], "step": before - path[-1, 0],
            "raw": eta * ms[-1, 0] / (np.sqrt(vs[-1, 0]) + epsilon)}


cardcalc.table(constant_gradient_step,
               cardcalc.grid(g=(-3.0, 1e-9, 2.5), eta=(1e-3, 0.5), beta_1=(0.0, 0.9), beta_2=(0.95, 0.999),
                             epsilon=(1e-8, 1e-6), t=(1, 2, 10, 1000)))

# --- in code: torch ---
import torch  # noqa: E402


def torch_adam(gradients, **options):
    """torch.optim.Adam fed the given gradient sequence from theta0; returns every iterate."""
    x = torch.tensor(theta0, requires_grad=True)
    opt = torch.optim.Adam([x], **options)
    path = []
    for g in gradients:
        x.grad = torch.tensor(g)
        opt.step()
        path.append(x.detach().numpy().copy())
    return np.array(path)


# 300 float64 steps whose rounding adds up without feedback (the gradients are given): 1e-10,
# as for the folded form in check 2.
check_close("Adam(lr=eta, betas=(beta1, beta2), eps=epsilon) = Algorithm 1",
            torch_adam(grads, lr=lr, betas=(b1, b2), eps=eps), thetas, rtol=1e-10)
check_close("its defaults are the paper's (lr 1e-3, betas (0.9, 0.999), eps 1e-8)",
            torch_adam(grads), adam(grads, theta0)[0], rtol=1e-10)
# weight_decay adds lambda * theta to the gradient before the moments (an L2 penalty, which
# sqrt(v_hat) then rescales), not the decoupled decay of AdamW: torch's path is Algorithm 1 run on
# g_t + lambda theta_{t-1}, with theta_{t-1} taken from that same path.
wd = 0.1
coupled = torch_adam(grads, lr=lr, weight_decay=wd)
previous = np.vstack([theta0, coupled[:-1]])
check_close("pitfall: weight_decay=lambda is an L2 term in g_t, not AdamW's decay",
            coupled, adam(grads + wd * previous, theta0)[0], rtol=1e-10)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def optax_adam(**options):
    """optax.adam fed the card's gradient sequence from theta0; returns every iterate."""
    opt = optax.adam(**options)
    x = jax.numpy.asarray(theta0)
    state = opt.init(x)
    path = []
    for g in grads:
        updates, state = opt.update(jax.numpy.asarray(g), state, x)
        x = optax.apply_updates(x, updates)
        path.append(np.asarray(x))
    return np.array(path)


# Its eps_root (a constant under the square root) is 0 by default, so eps sits outside the root
# as on the card.
check_close("optax.adam(eta, b1, b2, eps) = Algorithm 1",
            optax_adam(learning_rate=lr, b1=b1, b2=b2, eps=eps), thetas, rtol=1e-10)
# --- end in code ---
