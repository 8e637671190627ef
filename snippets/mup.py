"""muP for Adam (Tensor Programs V, Table 3): input weights and biases keep init variance 1/fan_in and
a width-independent learning rate; hidden weights keep 1/fan_in but their Adam rate falls like
1/fan_in; output weights get variance 1/fan_in^2 and rate 1/fan_in. Checked by hand values and by
the coordinate check the paper prescribes: after an Adam step, the change of every layer's
activations and of the output stays the same size as the width grows 16-fold, while the standard
parametrization's grows with width; and the muP output at initialization shrinks like 1/sqrt(width)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def mup_adam(kind: str, fan_in: int, base_fan_in: int, base_lr: float, base_std: float):
    """(init std, Adam learning rate) of a layer in muP, from values tuned at base width.
    input: var base_std^2 / fan_in, lr base_lr (fan_in is the fixed input size)
    hidden: var base_std^2 / fan_in, lr base_lr * base_fan_in / fan_in
    output: var base_std^2 / fan_in^2, lr base_lr * base_fan_in / fan_in"""
    width_mult = fan_in / base_fan_in
    if kind == "input":
        return base_std / np.sqrt(fan_in), base_lr
    if kind == "hidden":
        return base_std / np.sqrt(fan_in), base_lr / width_mult
    if kind == "output":
        return base_std / fan_in, base_lr / width_mult
    raise ValueError(kind)
# --- end formula ---


def standard(kind, fan_in, base_fan_in, base_lr, base_std):
    """The standard parametrization for comparison: variance 1/fan_in and one learning rate for all."""
    return base_std / np.sqrt(fan_in), base_lr


# 1. Hand values. Base width 64, target 1024 (width multiplier 16), base lr 1e-2, base std 1, input size 8.
check_close("input layer (fan_in 8): std 1/sqrt(8), lr 1e-2 at any width",
            mup_adam("input", 8, 8, 1e-2, 1.0), [1 / np.sqrt(8), 1e-2], rtol=1e-15)
check_close("hidden 1024 x 1024: std 1/32, lr 1e-2 / 16", mup_adam("hidden", 1024, 64, 1e-2, 1.0),
            [1 / 32, 6.25e-4], rtol=1e-15)
check_close("output layer, fan_in 1024: std 1/1024 (variance 1/fan_in^2), lr 1e-2 / 16",
            mup_adam("output", 1024, 64, 1e-2, 1.0), [1 / 1024, 6.25e-4], rtol=1e-15)
check_close("at the base width muP and the base model agree: hidden and output lr 1e-2",
            [mup_adam("hidden", 64, 64, 1e-2, 1.0)[1], mup_adam("output", 64, 64, 1e-2, 1.0)[1]],
            [1e-2, 1e-2], rtol=1e-15)

# 2. The coordinate check on an MLP x (8) -> tanh(W_in x) -> W_h -> tanh -> W_out -> y, one example,
#    squared loss. Backpropagation is written out by the chain rule; Adam's first step is
#    -lr sign(gradient) (bias-corrected m / sqrt(v) = g / |g|). After the step, measure the RMS change
#    of each hidden pre-activation and the change of the output.
rng = np.random.default_rng(0)
D_IN, BASE, LR, STD = 8, 32, 1e-2, 1.0


def coord_check(width: int, rule, draws: int = 6):
    out = []
    for _ in range(draws):
        x = rng.normal(size=D_IN)
        s_in, lr_in = rule("input", D_IN, D_IN, LR, STD)
        s_h, lr_h = rule("hidden", width, BASE, LR, STD)
        s_o, lr_o = rule("output", width, BASE, LR, STD)
        W_in = rng.normal(scale=s_in, size=(width, D_IN))
        W_h = rng.normal(scale=s_h, size=(width, width))
        W_o = rng.normal(scale=s_o, size=width)

        def forward(W_in, W_h, W_o, x=x):
            a1 = W_in @ x
            h1 = np.tanh(a1)
            a2 = W_h @ h1
            h2 = np.tanh(a2)
            return a1, h1, a2, h2, W_o @ h2

        a1, h1, a2, h2, y = forward(W_in, W_h, W_o)
        e = y - 1.0
        g_o = e * h2
        g_a2 = e * W_o * (1 - h2**2)
        g_h = np.outer(g_a2, h1)
        g_in = np.outer((W_h.T @ g_a2) * (1 - h1**2), x)
        b1, _, b2, _, y_new = forward(W_in - lr_in * np.sign(g_in), W_h - lr_h * np.sign(g_h),
                                      W_o - lr_o * np.sign(g_o))
        out.append([np.sqrt(np.mean((b1 - a1) ** 2)), np.sqrt(np.mean((b2 - a2) ** 2)),
                    abs(y_new - y), abs(y)])
    return np.mean(out, axis=0)


widths = [32, 128, 512]
mu = np.array([coord_check(n, mup_adam) for n in widths])
sp = np.array([coord_check(n, standard) for n in widths])
names = ["layer-1 change", "layer-2 change", "output change"]
for j, name in enumerate(names):
    spread = mu[:, j].max() / mu[:, j].min()
    # Each entry averages 6 draws of O(1) random factors; a 16-fold width range should move a
    # width-independent quantity by far less than 1.5x, while a 1/n or n scaling moves it 16x.
    check_true(f"muP: {name} stays the same size from width 32 to 512", spread < 1.5,
               f"{', '.join(f'{v:.3g}' for v in mu[:, j])} (max/min {spread:.2f})")
growth = sp[-1, 1] / sp[0, 1]
check_true("standard parametrization: layer-2 change grows with width (16x width -> over 8x)", growth > 8,
           f"{', '.join(f'{v:.3g}' for v in sp[:, 1])}")
# The muP output at initialization is a sum of n terms of size 1/n with random signs: ~ 1/sqrt(n), so
# 16x the width divides it by about 4 (6 draws: allow 2 to 8).
shrink = mu[0, 3] / mu[-1, 3]
check_true("muP output at initialization shrinks like 1/sqrt(width): about 4x over 16x width",
           2 < shrink < 8, f"{shrink:.2f}")

# The page's calculator is checked against mup_adam on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): each kind of layer, at widths below, at and above the base width, with the
# variance as the square of mup_adam's std.
import cardcalc  # noqa: E402


def calculator_row(n, n0, fan_in_x, eta, c):
    row = {}
    for kind, fan, key in (("input", fan_in_x, "in"), ("hidden", n, "hid"), ("output", n, "out")):
        std, lr = mup_adam(kind, fan, n0, eta, c)
        row["var_" + key], row["lr_" + key] = std**2, lr
    return row


cardcalc.table(calculator_row, cardcalc.grid(n=(64, 256, 4096), n0=(64, 256), fan_in_x=(8, 50257),
                                             eta=(1e-3, 0.01), c=(0.02, 1.0)))

# --- in code: torch ---
import torch  # noqa: E402

# muP in torch is one Adam parameter group per kind of layer, each with its own lr, and normal inits of the
# card's std. Width 1024 from base 32, input size 8; gradients of size >= 1 so Adam's first step is
# lr g / (|g| + 1e-8): lr to within 1e-8 relative.
torch.manual_seed(0)
width = 1024
layers = {kind: torch.empty(shape, dtype=torch.float64)
          for kind, shape in (("input", (width, D_IN)), ("hidden", (width, width)), ("output", (1, width)))}
fan_in = {"input": D_IN, "hidden": width, "output": width}
rule = {kind: mup_adam(kind, fan_in[kind], D_IN if kind == "input" else BASE, LR, STD) for kind in layers}
groups = []
for kind, weight in layers.items():
    std, lr_kind = rule[kind]
    torch.nn.init.normal_(weight, std=std)
    weight.requires_grad_()
    groups.append({"params": [weight], "lr": lr_kind})
opt = torch.optim.Adam(groups)
before = {kind: weight.detach().clone() for kind, weight in layers.items()}
for weight in layers.values():
    weight.grad = torch.sign(torch.randn_like(weight)) * (1 + torch.rand_like(weight))
opt.step()
check_close("Adam param groups, first step: each entry moves by the card's lr (1e-2, 1e-2/32, 1e-2/32)",
            [float((layers[k].detach() - before[k]).abs().mean()) for k in layers],
            [rule[k][1] for k in layers], rtol=1e-7)
# nn.Linear's default init is uniform on +-1/sqrt(fan_in): variance 1/(3 fan_in), and the same for the output
# layer, which muP wants at 1/fan_in^2. Mean of 1024^2 squares of a uniform: relative sd sqrt(0.8 / 1024^2)
# ~ 1e-3, so 4 sigma is 4e-3.
default = torch.nn.Linear(width, width, dtype=torch.float64).weight.detach().numpy()
check_close("pitfall: nn.Linear's default init has variance 1/(3 fan_in), a third of 1/fan_in",
            np.mean(default**2), 1 / (3 * width), rtol=4e-3)
check_true("... uniform within +-1/sqrt(fan_in)", bool(np.abs(default).max() <= 1 / np.sqrt(width)))
# --- end in code ---

fig, ax = figure("Coordinate check after one Adam step", "width", "size of the change")
for j, (name, mark) in enumerate(zip(names, "osd", strict=True)):
    ax.loglog(widths, mu[:, j], mark + "-", label=f"muP: {name}")
    ax.loglog(widths, sp[:, j], mark + "--", label=f"standard: {name}")
ax.legend(fontsize=7, ncol=2)
