"""Schedule-free AdamW (Defazio et al. 2024, Algorithm 1): gradients at y_t, an interpolation of the
base iterate z_t and the average x_t; z takes an AdamW step without momentum; x is the average of
the z's weighted by the squared learning rates, which warmup and bias correction make unequal.
Checked against the authors' two-buffer form (only y and z are stored, x recovered from them),
against the explicit weighted average of the z's, by hand values of the learning rates, and at the
beta_1 = 0 end, where the gradient is taken at z and x is a plain weighted average."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def sf_lr(t: int, lr: float, beta2: float, warmup: int) -> float:
    """gamma_t = gamma sqrt(1 - beta2^t) min(1, t / T_warmup)."""
    return lr * np.sqrt(1 - beta2**t) * min(1.0, t / warmup)


def schedule_free_adamw(grad, x1, steps, *, lr, beta1, beta2, eps, wd, warmup):
    """Returns the x, z and y sequences (x_1..x_{T+1}, z_1..z_{T+1}, y_1..y_T)."""
    x, z, v = x1.copy(), x1.copy(), np.zeros_like(x1)
    xs, zs, ys, weight_sum = [x], [z], [], 0.0
    for t in range(1, steps + 1):
        y = (1 - beta1) * z + beta1 * x          # gradients are taken here
        g = grad(y)
        v = beta2 * v + (1 - beta2) * g * g
        gamma = sf_lr(t, lr, beta2, warmup)
        z = z - gamma * g / (np.sqrt(v) + eps) - gamma * wd * y
        weight_sum += gamma**2
        c = gamma**2 / weight_sum
        x = (1 - c) * x + c * z
        xs.append(x), zs.append(z), ys.append(y)
    return np.array(xs), np.array(zs), np.array(ys)
# --- end formula ---


rng = np.random.default_rng(0)
n = 6
H = np.diag(np.geomspace(0.2, 5.0, n))
target = rng.normal(size=n)
noise = rng.normal(size=(400, n)) * 0.3
calls = []


def make_grad():
    """A noisy quadratic's gradient; the k-th call gets the k-th noise row, and every query point is
    recorded."""
    calls.clear()

    def grad(p):
        calls.append(p.copy())
        return H @ (p - target) + noise[len(calls) - 1]
    return grad


def two_buffer(grad, x1, steps, lr, beta1, beta2, eps, wd, warmup):
    """The authors' memory-saving form: only y and z are kept. Each step moves y toward z by the
    averaging weight and adds the normalized gradient with coefficient lr (beta1 (1 - c) - 1); z takes
    the plain step. Learning rates and weights are recomputed here from their definitions."""
    y, z, v = x1.copy(), x1.copy(), np.zeros_like(x1)
    weights = 0.0
    for k in range(steps):
        t = k + 1
        g = grad(y)
        v = beta2 * v + (1 - beta2) * g**2
        step_dir = g / (np.sqrt(v) + eps) + wd * y
        lr_t = lr * min(1.0, t / warmup) * np.sqrt(1 - beta2**t)
        weights += lr_t**2
        ckp1 = lr_t**2 / weights
        y = y + ckp1 * (z - y) + lr_t * (beta1 * (1 - ckp1) - 1) * step_dir
        z = z - lr_t * step_dir
    x = (y - (1 - beta1) * z) / beta1
    return x, z


x1 = rng.normal(size=n)
cfg = dict(lr=0.05, beta1=0.9, beta2=0.99, eps=1e-8, wd=0.01, warmup=20)
T = 300
xs, zs, ys = schedule_free_adamw(make_grad(), x1, T, **cfg)
queries = np.array(calls)
x_ref, z_ref = two_buffer(make_grad(), x1, T, **cfg)
# 300 steps of elementwise updates; recovering x divides by beta1 = 0.9. Rounding ~1e-14; 1e-10 is ample.
check_close("x_T and z_T = the authors' two-buffer form (y, z stored; x recovered), 300 steps",
            np.stack([xs[-1], zs[-1]]), np.stack([x_ref, z_ref]), rtol=0, atol=1e-10)

# Where the gradients are taken: at y_t = (1 - beta1) z_t + beta1 x_t, not at x_t or z_t.
check_close("gradient queries = (1 - beta1) z_t + beta1 x_t", queries,
            0.1 * zs[:-1] + 0.9 * xs[:-1], rtol=0, atol=1e-12)
check_true("... and they are not at x_t nor at z_t",
           min(np.abs(queries - xs[:-1]).max(), np.abs(queries - zs[:-1]).max()) > 1e-3)

# The learning rates: gamma_t = gamma sqrt(1 - beta2^t) min(1, t / 20), by hand at t = 1, 10, 20, 100.
check_close("gamma_t at t = 1, 10, 20, 100 (hand values)",
            [sf_lr(t, 0.05, 0.99, 20) for t in (1, 10, 20, 100)],
            [0.05 * 0.1 * 0.05, 0.05 * np.sqrt(1 - 0.99**10) * 0.5, 0.05 * np.sqrt(1 - 0.99**20),
             0.05 * np.sqrt(1 - 0.99**100)], rtol=1e-12)

# x is the average of z_2..z_{T+1} weighted by gamma_t^2 (c_2 = 1 drops x_1), computed directly.
w = np.array([0.05 * np.sqrt(1 - 0.99**t) * min(1.0, t / 20) for t in range(1, T + 1)]) ** 2
check_close("x_{T+1} = sum_t gamma_t^2 z_{t+1} / sum_t gamma_t^2", xs[-1], (w @ zs[1:]) / w.sum(),
            rtol=0, atol=1e-12)
check_close("x_2 = z_2: the first weight is the whole sum", xs[1], zs[1], rtol=0, atol=0)
check_true("warmup and bias correction make the weights unequal: the first weight is tiny",
           w[0] / w[-1] < 1e-3, f"gamma_1^2 / gamma_T^2 = {w[0] / w[-1]:.2e}")

# beta1 = 0: gradients at z, so z alone is RMSprop-style Adam without momentum (written out here), and
# x is its gamma^2-weighted average.
xs0, zs0, _ = schedule_free_adamw(make_grad(), x1, 50, lr=0.05, beta1=0.0, beta2=0.99, eps=1e-8, wd=0.0,
                                  warmup=5)
zz, vv = x1.copy(), np.zeros(n)
grad0 = make_grad()
for t in range(1, 51):
    g = grad0(zz)
    vv = 0.99 * vv + 0.01 * g**2
    zz = zz - 0.05 * np.sqrt(1 - 0.99**t) * min(1.0, t / 5) * g / (np.sqrt(vv) + 1e-8)
check_close("beta1 = 0: z follows Adam without momentum, with the warmed-up, bias-corrected rate", zs0[-1],
            zz, rtol=0, atol=1e-12)
check_true("beta1 = 0: x_T moves less than z_T in the last 10 steps (it is an average)",
           np.linalg.norm(xs0[-1] - xs0[-11]) < np.linalg.norm(zs0[-1] - zs0[-11]))

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def run_optax(opt, grad, steps):
    """Run a schedule-free optax optimizer from x1; returns (x, z) after the steps. Its params are y."""
    y = jax.numpy.asarray(x1)
    state = opt.init(y)
    for _ in range(steps):
        updates, state = opt.update(jax.numpy.asarray(grad(np.asarray(y))), state, y)
        y = optax.apply_updates(y, updates)
    return np.asarray(optax.contrib.schedule_free_eval_params(state, y)), np.asarray(state.z)


# The card's step as optax's pieces: an RMS scaling without bias correction (the card puts sqrt(1 - b2^t)
# into gamma_t) and decay at y, scaled by gamma_t. The step's schedule counts from 0 but schedule_free's
# own count, which sets the averaging weight, from 1: the same gamma_t needs the two offsets.
step_lr = lambda count: sf_lr(int(count) + 1, cfg["lr"], cfg["beta2"], cfg["warmup"])  # noqa: E731
weight_lr = lambda t: sf_lr(int(t), cfg["lr"], cfg["beta2"], cfg["warmup"])  # noqa: E731
card_as_optax = optax.contrib.schedule_free(
    optax.chain(optax.scale_by_rms(decay=cfg["beta2"], eps=cfg["eps"], eps_in_sqrt=False,
                                   bias_correction=False),
                optax.add_decayed_weights(cfg["wd"]), optax.scale_by_learning_rate(step_lr)),
    learning_rate=weight_lr, b1=cfg["beta1"])
# 300 steps; optax recovers x from y and z (dividing by beta1) each step: 1e-10, as for the two-buffer form.
check_close("optax.contrib.schedule_free(RMS step, learning_rate = gamma_t, b1): x and z after 300 steps",
            np.stack(run_optax(card_as_optax, make_grad(), T)), np.stack([xs[-1], zs[-1]]),
            rtol=0, atol=1e-10)

# schedule_free_adamw's own lr: warmup_steps counts from step 0, so the first step has lr 0 and does nothing.
_, z_after_one = run_optax(optax.contrib.schedule_free_adamw(0.05, warmup_steps=20), make_grad(), 1)
check_true("pitfall: warmup_steps = 20 starts at lr 0: the first step leaves z = x_1 (card: gamma_1 > 0)",
           np.array_equal(z_after_one, x1) and not np.array_equal(zs[1], x1))


def noise_only():
    """Gradients that ignore the point: the k-th call returns the k-th noise row."""
    calls.clear()

    def grad(p):
        calls.append(p)
        return noise[len(calls) - 1]
    return grad


# Without warmup it weights the average by lr^2 (bias correction sits in the Adam step instead): x is the
# plain mean of the z's. Gradients that ignore the point keep the z's of both runs the same up to where eps
# sits (eps sqrt(1 - b2^t) against sqrt(v) ~ 0.1: 1e-7 relative), so 1e-6 separates the two averages.
x_opt, _ = run_optax(optax.contrib.schedule_free_adamw(0.05, b2=0.99), noise_only(), 50)
xs_free, zs_free, _ = schedule_free_adamw(noise_only(), x1, 50, lr=0.05, beta1=0.9, beta2=0.99, eps=1e-8,
                                          wd=0.0, warmup=1)
check_close("pitfall: schedule_free_adamw's x is the plain mean of the z's, not the gamma_t^2-weighted one",
            x_opt, zs_free[1:].mean(axis=0), rtol=1e-6)
check_true("... which is not the card's x", np.abs(x_opt - xs_free[-1]).max() > 1e-3,
           f"max difference {np.abs(x_opt - xs_free[-1]).max():.3g}")
# --- end in code ---

fig, ax = figure("Schedule-free AdamW on a noisy quadratic", "step t", "distance to the minimizer")
ax.semilogy(np.linalg.norm(zs - target, axis=1), label=r"$z_t$ (base iterate)")
ax.semilogy(np.linalg.norm(xs - target, axis=1), label=r"$x_t$ (average, evaluated)")
ax.semilogy(np.linalg.norm(ys - target, axis=1), ":", label=r"$y_t$ (gradients taken here)")
ax.legend()
