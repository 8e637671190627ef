"""ReLU and its (sub)gradient: identities with |x|, positive homogeneity, the softplus limit with its
exact ln 2 / beta gap, finite differences away from 0, the one-sided derivatives at 0 and the
library convention ReLU'(0) = 0; plus Nair & Hinton's sum of shifted sigmoids that motivated it."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit


# --- formula ---
# few mutants: max(0, x) and its 0/1 derivative: one comparison and one constant each
def relu(x: np.ndarray) -> np.ndarray:
    """max(0, x), elementwise."""
    return np.maximum(x, 0.0)


def relu_grad(x: np.ndarray) -> np.ndarray:
    """1 for x > 0, else 0: the subgradient 0 is chosen at x = 0 (PyTorch, JAX, TensorFlow)."""
    return (x > 0).astype(float)
# --- end formula ---


rng = np.random.default_rng(0)
x = np.concatenate([rng.normal(scale=3.0, size=200), [-1e300, -2.5, -0.0, 0.0, 1e-300, 7.0, 1e300]])

# 1. Identities that pin down both branches: relu(x) - relu(-x) = x, relu(x) + relu(-x) = |x|.
check_close("relu(x) - relu(-x) = x", relu(x) - relu(-x), x, rtol=0)
check_close("relu(x) + relu(-x) = |x|", relu(x) + relu(-x), np.abs(x), rtol=0)
check_close("relu(x) = (x + |x|) / 2 on moderate inputs", relu(x[:200]), (x[:200] + np.abs(x[:200])) / 2,
            rtol=1e-15)
check_true("output is never negative and keeps positive inputs exactly", np.all(relu(x) >= 0)
           and np.all(relu(x)[x > 0] == x[x > 0]), "relu(x) >= 0, relu(x) = x for x > 0")

# 2. Positive homogeneity: relu(c x) = c relu(x) for c > 0 (so it commutes with rescaling).
check_close("relu(3.7 x) = 3.7 relu(x)", relu(3.7 * x[:200]), 3.7 * relu(x[:200]), rtol=1e-15)

# 3. Softplus limit: softplus(beta x) / beta - relu(x) lies in [0, ln 2 / beta] (up to rounding, 1e-14),
#    with its maximum ln 2 / beta at x = 0.
for beta in (1.0, 10.0, 1000.0):
    gap = np.logaddexp(0.0, beta * x[:200]) / beta - relu(x[:200])
    check_true(f"0 <= softplus({beta:g} x)/{beta:g} - relu(x) <= ln 2/{beta:g}",
               np.all(gap >= -1e-14) and np.all(gap <= np.log(2) / beta * (1 + 1e-12)),
               f"max gap {gap.max():.3e}")
check_close("gap at x = 0 is exactly ln 2 / beta", np.logaddexp(0.0, 0.0) / 5.0 - relu(np.array(0.0)),
            np.log(2) / 5.0, rtol=1e-15)

# 4. Gradient: central finite differences away from the kink.
xs = x[:200][np.abs(x[:200]) > 1e-3]
h = 1e-6
check_close("relu'(x) vs central finite differences (|x| > 1e-3)", relu_grad(xs),
            (relu(xs + h) - relu(xs - h)) / (2 * h), rtol=1e-9, atol=1e-9)
# At 0 the one-sided derivatives are 0 (left) and 1 (right); any value in [0, 1] is a subgradient.
left = (relu(np.array(0.0)) - relu(np.array(-h))) / h
right = (relu(np.array(h)) - relu(np.array(0.0))) / h
check_close("one-sided derivatives at 0: left 0, right 1", [left, right], [0.0, 1.0], rtol=1e-12)
check_close("library convention: relu'(0) = 0 (also for -0.0)", relu_grad(np.array([0.0, -0.0])), [0.0, 0.0],
            rtol=0)
check_close("relu'(tiny positive) = 1, relu'(tiny negative) = 0", relu_grad(np.array([1e-300, -1e-300])),
            [1.0, 0.0], rtol=0)

# 5. Nair & Hinton (2010): a sum of copies of a sigmoid unit with offsets -0.5, -1.5, ... is close to
#    softplus log(1 + e^x), which ReLU approximates; checked numerically on [-6, 6].
grid = np.linspace(-6, 6, 1201)
stepped = sum(expit(grid - i + 0.5) for i in range(1, 200))
err = np.abs(stepped - np.logaddexp(0.0, grid)).max()
check_true("sum_i sigmoid(x - i + 0.5) is within 0.05 of softplus on [-6, 6]", err < 0.05,
           f"max error {err:.3f}")

fig, ax = figure("ReLU and its smooth relatives", "pre-activation  x", "activation")
ax.plot(grid, relu(grid), label="ReLU  max(0, x)")
ax.plot(grid, np.logaddexp(0.0, grid), "--", label=r"softplus  $\log(1 + e^x)$")
ax.plot(grid, stepped, ":", label=r"$\sum_i \sigma(x - i + 0.5)$ (Nair & Hinton)")
ax.plot(grid, relu_grad(grid), color="gray", lw=1, label="ReLU'(x), with ReLU'(0) = 0")
ax.set_xlim(-4, 4)
ax.set_ylim(-0.5, 4)
ax.legend()

# --- in code: torch ---
import torch  # noqa: E402


def torch_grad(function, points):
    """d/dx of an elementwise torch function at each point, by autograd."""
    t = torch.tensor(points, requires_grad=True)
    function(t).sum().backward()
    return t.grad.numpy()


# max(0, x) is exact in floating point, so the values agree bit for bit: rtol 0.
check_close("torch.relu(x) = max(0, x)", torch.relu(torch.tensor(x)).numpy(), relu(x), rtol=0)
check_close("torch.relu's gradient is the card's, 0 at x = 0", torch_grad(torch.relu, x), relu_grad(x),
            rtol=0)
zeros = np.array([0.0, -0.0])
check_close("pitfall: clamp(x, min=0) has the same values but gradient 1 at x = 0",
            torch_grad(lambda t: torch.clamp(t, min=0.0), zeros), relu_grad(zeros) + 1.0, rtol=0)
check_close("pitfall: torch.maximum(x, 0) splits the gradient at a tie: 1/2 at x = 0",
            torch_grad(lambda t: torch.maximum(t, torch.zeros_like(t)), zeros), relu_grad(zeros) + 0.5,
            rtol=0)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
relu_grad_jax = jax.vmap(jax.grad(jax.nn.relu))
check_close("jax.nn.relu(x) = max(0, x), gradient 0 at x = 0",
            [np.asarray(jax.nn.relu(x)), np.asarray(relu_grad_jax(x))], [relu(x), relu_grad(x)], rtol=0)
check_close("pitfall: jnp.maximum(x, 0) has gradient 1/2 at x = 0",
            np.asarray(jax.vmap(jax.grad(lambda t: jax.numpy.maximum(t, 0.0)))(zeros)),
            relu_grad(zeros) + 0.5, rtol=0)
# --- end in code ---
