"""DeepNorm: the residual-scaled post-LN update against a scipy-zscore composition, its limits
(alpha = 1 is post-LN, large alpha tends to LN(x)), and the alpha/beta table of Wang et al."""

import numpy as np
from cardcheck import check_close
from cardplot import figure
from scipy.stats import zscore

EPS = 1e-5


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + EPS) + b


# --- formula ---
def deepnorm(x, gx, alpha, g, b):
    """x_{l+1} = LN(alpha x_l + G_l(x_l)), with gx = G_l(x_l) the sublayer output."""
    return layer_norm(alpha * x + gx, g, b)


def deepnorm_constants(arch, N=None, M=None):
    """(alpha, beta) per stack, from the table of Wang et al. (N encoder layers, M decoder layers).
    beta is the gain of the Xavier init of the FFN, value and output projections."""
    if arch == "encoder-only":
        return {"encoder": ((2 * N) ** 0.25, (8 * N) ** -0.25)}
    if arch == "decoder-only":
        return {"decoder": ((2 * M) ** 0.25, (8 * M) ** -0.25)}
    return {"encoder": (0.81 * (N**4 * M) ** (1 / 16), 0.87 * (N**4 * M) ** (-1 / 16)),
            "decoder": ((3 * M) ** 0.25, (12 * M) ** -0.25)}
# --- end formula ---


rng = np.random.default_rng(0)
T, d = 4, 16
x = rng.normal(loc=0.3, scale=1.5, size=(T, d))
gx = rng.normal(scale=0.7, size=(T, d))            # stands for the sublayer output G_l(x_l)
g, b = 1 + 0.1 * rng.normal(size=d), 0.1 * rng.normal(size=d)


def literal(x, gx, alpha):
    """Independent route: scipy's zscore (population std) with eps folded in, row by row."""
    s = alpha * x + gx
    return g * zscore(s, axis=-1) * s.std(-1, keepdims=True) / np.sqrt(s.var(-1, keepdims=True) + EPS) + b


# 1. The update itself, for a DeepNet-sized alpha and for alpha = 1 (plain post-LN).
alpha_100 = deepnorm_constants("decoder-only", M=100)["decoder"][0]
check_close("DeepNorm(x) vs literal LN(alpha x + G(x)), alpha = (2 * 100)^(1/4)",
            deepnorm(x, gx, alpha_100, g, b), literal(x, gx, alpha_100), rtol=1e-12, atol=1e-13)
check_close("alpha = 1 is the post-LN residual LN(x + G(x))", deepnorm(x, gx, 1.0, g, b),
            literal(x, gx, 1.0), rtol=1e-12, atol=1e-13)

# 2. Up-weighting the residual makes each sublayer a small correction: the output approaches LN(x)
#    and the deviation shrinks like 1/alpha.
dev = [np.abs(deepnorm(x, gx, a, g, b) - layer_norm(x, g, b)).max() for a in (10.0, 100.0)]
check_close("deviation from LN(x) scales as 1/alpha (alpha 10 -> 100)", dev[0] / dev[1], 10.0, rtol=0.05)

# 3. The constants. For the closed forms, alpha^4 is the number of residual sublayers of the stack
#    (2N, 2M, or 3M for a decoder with cross-attention) and 2 alpha^2 beta^2 = 1.
for n in (6, 18, 100, 500):
    for arch, key, layers in [("encoder-only", "encoder", 2 * n), ("decoder-only", "decoder", 2 * n),
                              ("encoder-decoder", "decoder", 3 * n)]:
        a, bt = deepnorm_constants(arch, N=n, M=n)[key]
        check_close(f"{arch} ({key}), {n} layers: alpha^4 = {layers} sublayers", a**4, layers, rtol=1e-12)
        check_close(f"{arch} ({key}), {n} layers: 2 alpha^2 beta^2 = 1", 2 * a**2 * bt**2, 1.0, rtol=1e-12)

# The encoder of an encoder-decoder model: the printed 0.81 (N^4 M)^(1/16) and 0.87 (N^4 M)^(-1/16),
# evaluated here in the factored form N^(1/4) M^(1/16) for several unequal depths.
for n, m in [(6, 6), (18, 18), (100, 100), (12, 48), (500, 500)]:
    a_e, b_e = deepnorm_constants("encoder-decoder", N=n, M=m)["encoder"]
    check_close(f"enc-dec encoder, N = {n}, M = {m}: alpha, beta as printed",
                [a_e, b_e], [0.81 * n**0.25 * m**0.0625, 0.87 * n**-0.25 * m**-0.0625], rtol=1e-12)
# The two-decimal coefficients agree with 3^(-3/16) = 0.814 and 2^(-1/2) 3^(3/16) = 0.869, a pair with
# 2 c_a^2 c_b^2 = 1 like the closed forms; the printed pair satisfies that product rule to rounding.
a_e, b_e = deepnorm_constants("encoder-decoder", N=18, M=18)["encoder"]
scale = (18**4 * 18) ** (1 / 16)
check_close("enc-dec encoder coefficients = 3^(-3/16), 2^(-1/2) 3^(3/16) to two decimals",
            [a_e / scale, b_e * scale], [3 ** (-3 / 16), 2**-0.5 * 3 ** (3 / 16)], atol=0.005)
check_close("enc-dec encoder: 2 alpha^2 beta^2 = 1 up to the rounding", 2 * a_e**2 * b_e**2, 1.0, rtol=0.01)

# The page's calculator is checked against deepnorm_constants on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), with equal and unequal depths for the encoder-decoder encoder.
import cardcalc  # noqa: E402


def calculator_constants(N, M):
    """All four rows of the table for N encoder and M decoder layers, by output name."""
    (a_e, b_e), = deepnorm_constants("encoder-only", N=N).values()
    (a_d, b_d), = deepnorm_constants("decoder-only", M=M).values()
    both = deepnorm_constants("encoder-decoder", N=N, M=M)
    return {"alpha_enc": a_e, "beta_enc": b_e, "alpha_dec": a_d, "beta_dec": b_d,
            "alpha_ed_enc": both["encoder"][0], "beta_ed_enc": both["encoder"][1],
            "alpha_ed_dec": both["decoder"][0], "beta_ed_dec": both["decoder"][1]}


cardcalc.table(calculator_constants, cardcalc.grid(N=(1, 6, 18, 100, 1000), M=(1, 6, 48, 500)))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from cardcheck import check_true  # noqa: E402

# F.layer_norm's eps defaults to 1e-5, the card's, and nn.LayerNorm's too.
check_close("F.layer_norm(alpha x + G(x), (d,), gamma, beta_LN) = DeepNorm, alpha = (2 * 100)^(1/4)",
            F.layer_norm(alpha_100 * torch.tensor(x) + torch.tensor(gx), (d,), torch.tensor(g),
                         torch.tensor(b)).numpy(),
            deepnorm(x, gx, alpha_100, g, b), rtol=1e-12, atol=1e-13)
# beta is the gain of a Xavier-normal init: std = beta sqrt(2 / (fan_in + fan_out)). A 512 x 256 layer
# has 131072 weights; the sample std of n normal draws has relative standard error 1/sqrt(2 n), so
# 4 of those (0.8%) is the tolerance (the uniform default below has a smaller one, so it holds too).
beta_100 = deepnorm_constants("decoder-only", M=100)["decoder"][1]
torch.manual_seed(0)
layer = torch.nn.Linear(256, 512, bias=False, dtype=torch.float64)         # fan_in 256, fan_out 512
draws = 4 / np.sqrt(2 * layer.weight.numel())
default_std = layer.weight.detach().std().item()
xavier_std = torch.nn.init.xavier_normal_(layer.weight.detach().clone(), gain=beta_100).std().item()
check_close("torch.nn.init.xavier_normal_(W, gain=beta): std = beta sqrt(2 / (fan_in + fan_out))",
            xavier_std, beta_100 * np.sqrt(2 / (256 + 512)), rtol=draws)
# nn.Linear's own init is uniform with std 1 / sqrt(3 fan_in), not Xavier: multiplying it by beta
# gives a different scale.
check_close("pitfall: nn.Linear's default init has std 1 / sqrt(3 fan_in), not sqrt(2 / (fan_in + fan_out))",
            default_std, 1 / np.sqrt(3 * 256), rtol=draws)
check_true("... so beta times the default init is not DeepNet's init (here 1/sqrt(2) of its std)",
           abs(beta_100 * default_std / xavier_std - 1) > 0.2,
           f"ratio {beta_100 * default_std / xavier_std:.2f}")
# --- end in code ---

fig, ax = figure("DeepNorm constants versus depth", "number of layers (N = M)",
                 r"$\alpha$ (residual weight), $\beta$ (init gain)")
depths = np.unique(np.logspace(0, 3, 60).astype(int))
for arch, key, style in [("decoder-only", "decoder", "-"), ("encoder-decoder", "decoder", "--"),
                         ("encoder-decoder", "encoder", ":")]:
    vals = np.array([deepnorm_constants(arch, N=n, M=n)[key] for n in depths])
    ax.loglog(depths, vals[:, 0], style, color="C0", label=fr"$\alpha$, {arch} ({key})")
    ax.loglog(depths, vals[:, 1], style, color="C1", label=fr"$\beta$, {arch} ({key})")
ax.set_ylim(0.05, 60)
ax.legend(fontsize=7, ncol=2, loc="upper left")
