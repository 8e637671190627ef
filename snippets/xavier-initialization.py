"""Xavier/Glorot init: the uniform bound's variance via scipy.stats, the harmonic-mean compromise,
a KS test of the samples, and forward/backward variance in a linear net by simulation."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy import stats


# --- formula ---
def xavier_bound(n_in, n_out, gain=1.0):
    """Half-width a of U[-a, a]: gain * sqrt(6 / (n_in + n_out))."""
    return gain * np.sqrt(6.0 / (n_in + n_out))


def xavier_std(n_in, n_out, gain=1.0):
    """Standard deviation of the normal variant: gain * sqrt(2 / (n_in + n_out))."""
    return gain * np.sqrt(2.0 / (n_in + n_out))


def xavier_uniform(rng, n_in, n_out, gain=1.0):
    a = xavier_bound(n_in, n_out, gain)
    return rng.uniform(-a, a, size=(n_in, n_out))
# --- end formula ---


rng = np.random.default_rng(0)
shapes = [(256, 256), (512, 128), (100, 300), (3, 7)]

for n_in, n_out in shapes:
    a = xavier_bound(n_in, n_out)
    # 1. Var of U[-a, a] (scipy: loc = -a, scale = 2a) equals the harmonic mean of the forward
    #    requirement 1/n_in and the backward requirement 1/n_out, i.e. 2 / (n_in + n_out).
    target = stats.hmean([1.0 / n_in, 1.0 / n_out])
    check_close(f"{n_in}x{n_out}: Var U[-a, a] = hmean(1/n_in, 1/n_out)",
                stats.uniform(loc=-a, scale=2 * a).var(), target, rtol=1e-12)
    check_close(f"{n_in}x{n_out}: normal variant has the same variance", xavier_std(n_in, n_out) ** 2,
                target, rtol=1e-12)
check_close("gain scales the bound linearly (tanh gain 5/3)", xavier_bound(64, 32, 5 / 3),
            5 / 3 * np.sqrt(stats.uniform(loc=-1, scale=2).var() ** -1 * stats.hmean([1 / 64, 1 / 32])),
            rtol=1e-12)

# 2. Samples: inside [-a, a], uniform by a Kolmogorov-Smirnov test, variance within 5 s.e.
n_in, n_out = 512, 128
W = xavier_uniform(rng, n_in, n_out)
a = xavier_bound(n_in, n_out)
ks = stats.kstest(W.ravel(), stats.uniform(loc=-a, scale=2 * a).cdf)
check_true("KS test: samples ~ U[-a, a] (p > 0.001)", ks.pvalue > 1e-3 and np.abs(W).max() <= a,
           f"p = {ks.pvalue:.3f}")
se = np.sqrt((stats.uniform(loc=-a, scale=2 * a).moment(4) - (a * a / 3) ** 2) / W.size)
check_close("sample variance = 2/(n_in + n_out) (5 s.e.)", W.var(), 2 / (n_in + n_out), atol=5 * se)

# 3. Glorot's "standard" heuristic U[-1/sqrt(n), 1/sqrt(n)] has n Var = 1/3: it shrinks the
#    signal three-fold per linear layer, which motivated the normalized rule above.
check_close("standard init: n Var[W] = 1/3", 256 * stats.uniform(loc=-256**-0.5, scale=2 * 256**-0.5).var(),
            1 / 3, rtol=1e-12)

# 4. Linear network with changing widths: activations scale by n_in Var[W] = 2 n_in / (n_in + n_out)
#    per layer, back-propagated gradients by n_out Var[W]; neither is exactly 1 unless widths match.
widths = [256, 512, 128, 384, 256]
fwd_pred = np.prod([2 * widths[i] / (widths[i] + widths[i + 1]) for i in range(4)])
bwd_pred = np.prod([2 * widths[i + 1] / (widths[i] + widths[i + 1]) for i in range(4)])
fwd, bwd = [], []
for _ in range(100):
    Ws = [xavier_uniform(rng, widths[i], widths[i + 1]) for i in range(4)]
    x = rng.normal(size=(64, widths[0]))
    g = rng.normal(size=(64, widths[-1]))
    for Wl in Ws:
        x = x @ Wl
    for Wl in reversed(Ws):
        g = g @ Wl.T
    fwd.append(np.mean(x**2))
    bwd.append(np.mean(g**2))
check_close("forward variance gain = prod n_in Var[W] (MC, 100 nets)", np.mean(fwd), fwd_pred, rtol=0.03)
check_close("backward variance gain = prod n_out Var[W] (MC)", np.mean(bwd), bwd_pred, rtol=0.03)


# 5. Depth. ReLU with Xavier halves the pre-activation variance at every layer (He's 2/n_in fixes
#    that). With tanh, E[tanh(y)^2] ~ q - 2 q^2 for y ~ N(0, q) small, so q_{l+1} ~ q_l - 2 q_l^2:
#    the signal decays only polynomially, q_l ~ 1 / (2 (l - 1) + 1) from q_1 = 1.
def depth_profile(act, std_fn, width=256, depth=30, nets=4):
    out = np.zeros(depth)
    for _ in range(nets):
        x = rng.normal(size=(64, width))
        for layer in range(depth):
            y = x @ rng.normal(scale=std_fn(width, width), size=(width, width))
            out[layer] += np.mean(y**2) / nets
            x = act(y)
    return out


def relu(u):
    return np.maximum(u, 0.0)


xr = depth_profile(relu, xavier_std)
xt = depth_profile(np.tanh, xavier_std)
hr = depth_profile(relu, lambda n_in, n_out: np.sqrt(2.0 / n_in))
check_close("ReLU + Xavier: variance halves per layer", np.mean(np.diff(np.log2(xr))), -1.0, rtol=0.05)
check_close("tanh + Xavier: polynomial decay, q_30 ~ 1/59", xt[-1], 1 / 59, rtol=0.2)

fig, ax = figure("Pre-activation variance through 30 layers (width 256)", "layer",
                 "mean square of pre-activations")
layers = np.arange(1, 31)
ax.semilogy(layers, xt, label="tanh, Xavier")
ax.semilogy(layers, xr, label="ReLU, Xavier")
ax.semilogy(layers, hr, "--", label=r"ReLU, He ($2/n_{in}$)")
ax.legend()

# The page's calculator is checked against xavier_bound and xavier_std (gain 1) on this grid (cardcalc;
# the build runs the card's JavaScript on the same rows), square and very unequal layers.
import cardcalc  # noqa: E402

cardcalc.table(lambda n_in, n_out: {"a": float(xavier_bound(n_in, n_out)),
                                    "var": float(xavier_std(n_in, n_out)) ** 2,
                                    "std": float(xavier_std(n_in, n_out))},
               cardcalc.grid(n_in=(1, 3, 512, 4096, 1_000_000), n_out=(1, 128, 4096, 11_008)))

# --- in code: torch ---
import torch  # noqa: E402

torch.manual_seed(0)
# torch stores a Linear weight as (n_out, n_in); xavier_uniform_ reads fan_in = n_in from dim 1.
# 65,536 draws: the largest |W| is within 0.1% of the bound a except with probability
# 0.999^65536 = e^-65, and the variance is checked within 5 standard errors, as above.
n_in, n_out = 512, 128
a = xavier_bound(n_in, n_out)
se = np.sqrt((stats.uniform(loc=-a, scale=2 * a).moment(4) - (a * a / 3) ** 2) / (n_in * n_out))
W_torch = torch.nn.init.xavier_uniform_(torch.empty(n_out, n_in, dtype=torch.float64)).numpy()
check_true("xavier_uniform_ fills U[-a, a], a = sqrt(6 / (n_in + n_out))",
           0.999 * a < np.abs(W_torch).max() <= a, f"max |W| = {np.abs(W_torch).max():.5f}, a = {a:.5f}")
check_close("xavier_uniform_: variance 2 / (n_in + n_out) (5 s.e.)", W_torch.var(), 2 / (n_in + n_out),
            atol=5 * se)
tanh_gain = torch.nn.init.calculate_gain("tanh")
W_tanh = torch.nn.init.xavier_uniform_(torch.empty(n_out, n_in, dtype=torch.float64), gain=tanh_gain).numpy()
check_true("gain=calculate_gain('tanh') = 5/3 widens the bound to 5/3 a",
           tanh_gain == 5 / 3 and 0.999 * xavier_bound(n_in, n_out, 5 / 3) < np.abs(W_tanh).max()
           <= xavier_bound(n_in, n_out, 5 / 3), f"max |W| = {np.abs(W_tanh).max():.5f}")
# nn.Linear's own initialization is kaiming_uniform_(a=sqrt(5)): U[-1/sqrt(n_in), 1/sqrt(n_in)],
# Glorot's "standard" heuristic with n Var = 1/3, not Xavier.
W_linear = torch.nn.Linear(n_in, n_out).weight.detach().numpy()
check_true("pitfall: nn.Linear's default is U[-1/sqrt(n_in), 1/sqrt(n_in)], not the Xavier bound",
           0.999 / np.sqrt(n_in) < np.abs(W_linear).max() <= 1 / np.sqrt(n_in) < 0.9 * a,
           f"max |W| = {np.abs(W_linear).max():.5f}, 1/sqrt(n_in) = {1 / np.sqrt(n_in):.5f}, a = {a:.5f}")
# --- end in code ---
