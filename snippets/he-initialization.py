"""He init: signal variance in a deep ReLU net and GPT-2 residual scaling, by simulation."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad

rng = np.random.default_rng(0)


# --- formula ---
def he_std(n_in):
    """Standard deviation of a zero-mean Gaussian weight for ReLU layers: sqrt(2 / fan_in)."""
    return np.sqrt(2.0 / n_in)


def scaled_output_projection(W_proj, n_blocks):
    """GPT-2's residual scaling: each output projection divided by sqrt(2L), L blocks of two sublayers."""
    return W_proj / np.sqrt(2 * n_blocks)
# --- end formula ---


def relu_net_second_moments(width, depth, std_fn, nets=16, batch=32):
    """Propagate Gaussian inputs through `depth` ReLU layers of `nets` independent networks;
    return mean(y^2) per network and layer, shape (nets, depth)."""
    x = rng.normal(size=(nets, batch, width))
    out = []
    for _ in range(depth):
        W = rng.normal(scale=std_fn(width), size=(nets, width, width))
        y = x @ W                     # pre-activations of this layer
        out.append(np.mean(y**2, axis=(1, 2)))
        x = np.maximum(y, 0.0)
    return np.array(out).T


width, depth = 256, 30
he = relu_net_second_moments(width, depth, he_std)
lecun = relu_net_second_moments(width, depth, lambda n: np.sqrt(1.0 / n))

# 1. Eq. (10): (1/2) n Var[w] = 1 makes each layer's gain E[y_{l+1}^2] / E[y_l^2] equal to 1
#    (averaged over layers and networks; a single finite-width net drifts randomly around it).
gain_he = np.mean(he[:, 1:] / he[:, :-1])
check_close("He: mean layer-to-layer gain of Var[y] = 1", gain_he, 1.0, rtol=0.03)
# 2. With Var[w] = 1/n each ReLU layer halves the signal: 2^-(L-1) after L layers.
check_close("1/n init: signal shrinks as 2^-(L-1)", np.mean(np.log2(lecun[:, -1] / lecun[:, 0])),
            -(depth - 1), rtol=0.02)
# 3. The factor 1/2 is E[relu(y)^2] = Var[y]/2 for symmetric y: check by Monte-Carlo.
y = rng.normal(size=2_000_000)
check_close("E[relu(y)^2] = Var[y]/2", np.mean(np.maximum(y, 0) ** 2), 0.5, rtol=0.01)


# 3b. Exactly: the forward condition of He et al. (Eq. 10) is n Var[w] E[relu(y)^2] / Var[y] = 1.
#     E[relu(y)^2] for y ~ N(0, 1) by quadrature of y^2 phi(y) over y > 0 (no sampling error).
half_moment = quad(lambda t: t * t * np.exp(-t * t / 2) / np.sqrt(2 * np.pi), 0, np.inf)[0]
check_close("n * he_std(n)^2 * E[relu(y)^2] = 1 for n = 3, 256, 4096 (quadrature)",
            [n * he_std(n) ** 2 * half_moment for n in (3, 256, 4096)], [1.0, 1.0, 1.0], rtol=1e-10)


# 4. Residual stream (pre-norm): each of the 2L sublayers adds a branch whose output has fixed
#    variance, so Var grows linearly in 2L; scaling the output projection by 1/sqrt(2L) caps it.
def residual_stream_var(n_blocks, with_scaling, d=256, batch=256):
    h = rng.normal(size=(batch, d))
    for _ in range(2 * n_blocks):                          # attention + MLP per block
        u = h / np.sqrt(np.mean(h**2, axis=1, keepdims=True))   # RMS-normalized input
        W = rng.normal(scale=1.0 / np.sqrt(d), size=(d, d))      # output projection
        if with_scaling:
            W = scaled_output_projection(W, n_blocks)
        h = h + u @ W
    return np.mean(h**2)


L = 24
plain = residual_stream_var(L, False)
scaled = residual_stream_var(L, True)
check_close("unscaled: Var grows to 1 + 2L", plain, 1 + 2 * L, rtol=0.1)
check_close("1/sqrt(2L)-scaled: Var stays near 2", scaled, 2.0, rtol=0.1)
check_true("scaling keeps the stream O(1)", scaled < 3 < plain, f"{scaled:.2f} vs {plain:.1f}")

# The page's calculator is checked against he_std and scaled_output_projection (applied to a unit
# weight) on this grid (cardcalc; the build runs the card's JavaScript on the same rows).
import cardcalc  # noqa: E402

cardcalc.table(lambda n_in, L: {"std": float(he_std(n_in)), "scale": float(scaled_output_projection(1.0, L))},
               cardcalc.grid(n_in=(1, 3, 768, 4096, 1_000_000), L=(1, 12, 96, 10_000)))

# --- in code: torch ---
import math  # noqa: E402

import torch  # noqa: E402

torch.manual_seed(0)
n_in, n_out = 1024, 512
w = torch.empty(n_out, n_in, dtype=torch.float64)  # torch stores (out, in): fan_in is size(1)
torch.nn.init.kaiming_normal_(w, nonlinearity="relu")
# A variance from 512 * 1024 Gaussian samples has relative standard error sqrt(2 / 524288) = 0.002:
# rtol = 0.01 is five of them.
check_close("kaiming_normal_(W, nonlinearity='relu') draws Var = 2 / n_in", w.var().item(), he_std(n_in) ** 2,
            rtol=0.01)
linear = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
bound = 1 / math.sqrt(n_in)  # kaiming_uniform_(a=sqrt(5)): gain sqrt(2 / 6) times sqrt(3 / n_in)
top = linear.weight.abs().max().item()
check_true("pitfall: nn.Linear's default is uniform on +-1/sqrt(n_in) (kaiming_uniform_, a = sqrt(5))",
           0.999 * bound < top <= bound, f"max |w| = {top:.6f}, 1/sqrt(n_in) = {bound:.6f}")
# Uniform samples: relative standard error of the variance sqrt(0.8 / 524288) = 0.0012; rtol 0.01.
check_close("so its variance is 1 / (3 n_in), a sixth of He's 2 / n_in",
            linear.weight.var().item(), he_std(n_in) ** 2 / 6, rtol=0.01)
# --- end in code ---

fig, ax = figure("Signal through a deep ReLU net (width 256)", "layer",
                 "pre-activation variance vs. layer 1\n(median of 16 nets)")
layers = np.arange(1, depth + 1)
ax.semilogy(layers, np.median(he / he[:, :1], axis=0), label=r"He: Var $w$ = 2/$n_{in}$")
ax.semilogy(layers, np.median(lecun / lecun[:, :1], axis=0), label=r"Var $w$ = 1/$n_{in}$")
ax.legend()
