"""AdamW: paper's Algorithm 2 vs the lr-scaled framework form, pure decay and Adam + L2."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def adamw_paper(grad, theta0, alpha, sched, lam, b1=0.9, b2=0.999, eps=1e-8):
    """Loshchilov & Hutter, Algorithm 2: the decay is scaled by the schedule multiplier eta_t only."""
    theta, m, v = theta0.copy(), np.zeros_like(theta0), np.zeros_like(theta0)
    for t, eta_t in enumerate(sched, start=1):
        g = grad(theta)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        theta = theta - eta_t * (alpha * m_hat / (np.sqrt(v_hat) + eps) + lam * theta)
    return theta
# --- end formula ---


def adamw_torch_style(grad, theta0, lrs, wd, b1=0.9, b2=0.999, eps=1e-8):
    """Framework convention: decay theta by lr * wd first, then take the Adam step with lr."""
    theta, m, v = theta0.copy(), np.zeros_like(theta0), np.zeros_like(theta0)
    for t, lr in enumerate(lrs, start=1):
        g = grad(theta)
        theta = theta * (1 - lr * wd)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        theta = theta - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    return theta


def adam_l2(grad, theta0, lrs, wd, b1=0.9, b2=0.999, eps=1e-8):
    """Adam with an L2 penalty folded into the gradient (what AdamW is designed to avoid)."""
    theta, m, v = theta0.copy(), np.zeros_like(theta0), np.zeros_like(theta0)
    for t, lr in enumerate(lrs, start=1):
        g = grad(theta) + wd * theta
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        theta = theta - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    return theta


rng = np.random.default_rng(0)
d, T = 8, 200
A = rng.normal(size=(d, d))
target = rng.normal(size=d)
grad = lambda x: A.T @ (A @ x - target) / d  # noqa: E731
theta0 = rng.normal(size=d)
alpha, lam = 1e-2, 5e-3
sched = 0.5 * (1 + np.cos(np.pi * np.arange(T) / T))   # schedule multiplier eta_t in (0, 1]

# 1. Paper (alpha, eta_t, lam) == framework (lr = alpha*eta_t, wd = lam/alpha).
paper = adamw_paper(grad, theta0, alpha, sched, lam)
torch_like = adamw_torch_style(grad, theta0, alpha * sched, lam / alpha)
check_close("paper Alg. 2 == lr-scaled form with wd = lambda/alpha", torch_like, paper, rtol=1e-10)
# ... and passing the paper's lambda straight in as wd gives a much weaker decay.
naive = adamw_torch_style(grad, theta0, alpha * sched, lam)
check_true("same number as wd is not the same decay", np.max(np.abs(naive - paper)) > 1e-2,
           f"max difference {np.max(np.abs(naive - paper)):.3g}")

# 2. With zero loss gradient the decoupled decay is exactly geometric: prod (1 - eta_t lambda).
zero = lambda x: np.zeros_like(x)  # noqa: E731
check_close("zero gradient: theta_T = theta_0 prod(1 - eta_t lambda)",
            adamw_paper(zero, theta0, alpha, sched, lam), theta0 * np.prod(1 - sched * lam),
            rtol=1e-12)
# Adam + L2 instead normalizes the decay gradient by sqrt(v_hat): every weight moves ~lr per
# step regardless of its size, so the two schemes shrink weights very differently.
l2 = adam_l2(zero, theta0, alpha * sched, lam)
ratio_l2 = np.abs(l2 / theta0)
check_true("Adam + L2 shrinks weights non-uniformly, AdamW uniformly",
           np.ptp(ratio_l2) > 0.05, f"surviving fraction under Adam+L2 ranges {ratio_l2.min():.3f}"
           f"..{ratio_l2.max():.3f}, AdamW {np.prod(1 - sched * lam):.3f} for all")

# --- in code: torch ---
import torch  # noqa: E402


def torch_adamw(lrs, **options):
    """torch.optim.AdamW on the card's problem, its learning rate set to lrs[t] before step t."""
    x = torch.tensor(theta0, requires_grad=True)
    opt = torch.optim.AdamW([x], **options)
    for lr in lrs:
        for group in opt.param_groups:
            group["lr"] = lr
        x.grad = torch.tensor(grad(x.detach().numpy()))
        opt.step()
    return x.detach().numpy()


# 200 float64 steps, each a few ulps apart in the order of operations: 1e-10, as in check 1.
check_close("AdamW(lr = alpha eta_t, weight_decay = lambda / alpha) = Algorithm 2",
            torch_adamw(alpha * sched, weight_decay=lam / alpha), paper, rtol=1e-10)
check_close("pitfall: weight_decay is scaled by lr: weight_decay = lambda is the card's alpha lambda",
            torch_adamw(alpha * sched, weight_decay=lam),
            adamw_paper(grad, theta0, alpha, sched, alpha * lam), rtol=1e-10)
check_close("pitfall: left out, weight_decay is 0.01",
            torch_adamw(alpha * sched), adamw_paper(grad, theta0, alpha, sched, alpha * 0.01), rtol=1e-10)
# --- end in code ---

# --- in code: optax ---
import jax  # noqa: E402
import optax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy


def optax_adamw(weight_decay=None):
    """optax.adamw with the card's schedule as its learning rate; its default decay when None."""
    options = {} if weight_decay is None else {"weight_decay": weight_decay}
    opt = optax.adamw(lambda count: alpha * jax.numpy.asarray(sched)[count], **options)
    x = jax.numpy.asarray(theta0)
    state = opt.init(x)
    for _ in range(T):
        updates, state = opt.update(jax.numpy.asarray(grad(np.asarray(x))), state, x)
        x = optax.apply_updates(x, updates)
    return np.asarray(x)


check_close("optax.adamw(schedule alpha eta_t, weight_decay = lambda / alpha) = Algorithm 2",
            optax_adamw(lam / alpha), paper, rtol=1e-10)
check_close("pitfall: optax's default weight_decay is 1e-4, torch's 0.01",
            optax_adamw(), adamw_paper(grad, theta0, alpha, sched, alpha * 1e-4), rtol=1e-10)
# --- end in code ---

fig, ax = figure("Weight decay with no loss gradient", "initial |weight|", "final |weight|")
w0 = np.linspace(0.05, 2, 40)
ax.plot(w0, np.abs(adamw_paper(zero, w0, alpha, sched, lam)), label="AdamW (decoupled)")
ax.plot(w0, np.abs(adam_l2(zero, w0, alpha * sched, lam)), label="Adam + L2 penalty")
ax.plot(w0, w0, ":", color="gray", label="no decay")
ax.legend()
