"""GLU (Dauphin et al. 2017): (X * W + b) gated by sigmoid(X * V + c), with * a causal convolution
over time. Checked against an explicit loop, against np.convolve channel by channel, for causality
by brute force, for the dense (kernel width 1) case, for the halves convention of torch's F.glu,
and for the gradient argument of the paper: the value path has gradient sigmoid(g), with no
vanishing factor, unlike the tanh-gated unit."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit


# --- formula ---
def causal_conv(X: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(X * W + b)_t = sum_i X_{t-k+1+i} W_i + b: kernel W (k, m, n), inputs X (T, m), zeros before t = 0."""
    k = W.shape[0]
    padded = np.concatenate([np.zeros((k - 1, X.shape[1])), X])
    return sum(padded[i:i + X.shape[0]] @ W[i] for i in range(k)) + b


def glu(X, W, b, V, c):
    """h(X) = (X * W + b) (x) sigmoid(X * V + c)."""
    return causal_conv(X, W, b) * expit(causal_conv(X, V, c))


def glu_unit_grad(a: np.ndarray, g: np.ndarray):
    """Partial derivatives of a * sigmoid(g): (sigmoid(g), a sigmoid(g) (1 - sigmoid(g)))."""
    s = expit(g)
    return s, a * s * (1 - s)
# --- end formula ---


rng = np.random.default_rng(0)
T, m, n, k = 9, 3, 4, 3
X = rng.normal(size=(T, m))
W, V = rng.normal(size=(k, m, n)), rng.normal(size=(k, m, n))
b, c = rng.normal(size=n), rng.normal(size=n)
H = glu(X, W, b, V, c)

# 1. Explicit loop with math.exp: output t sees inputs t-k+1 .. t (zeros before the start).
ref = np.zeros((T, n))
for t in range(T):
    for o in range(n):
        lin, gate = b[o], c[o]
        for i in range(k):
            s = t - k + 1 + i
            if s >= 0:
                lin += sum(X[s, ch] * W[i, ch, o] for ch in range(m))
                gate += sum(X[s, ch] * V[i, ch, o] for ch in range(m))
        ref[t, o] = lin / (1 + math.exp(-gate))
check_close("GLU vs explicit loop over time, taps and channels", H, ref, rtol=1e-12, atol=1e-14)

# 2. The convolution itself against np.convolve (full convolution with the kernel flipped in time).
conv_ref = np.stack([sum(np.convolve(X[:, ch], W[::-1, ch, o])[:T] for ch in range(m)) for o in range(n)],
                    axis=1) + b
check_close("causal conv vs np.convolve per channel pair", causal_conv(X, W, b), conv_ref,
            rtol=1e-12, atol=1e-14)

# 3. Causality by brute force: changing inputs from t0 on leaves outputs before t0 unchanged.
t0 = 5
X2 = X.copy()
X2[t0:] = rng.normal(size=(T - t0, m))
H2 = glu(X2, W, b, V, c)
check_close("outputs before t0 = 5 unchanged when inputs from t0 on change", H2[:t0], H[:t0], rtol=0)
check_true("...and output t0 does change", np.abs(H2[t0] - H[t0]).max() > 1e-3,
           f"{np.abs(H2[t0] - H[t0]).max():.3f}")

# 4. Kernel width 1 is the dense GLU of Transformer MLPs: (x W + b) (x) sigmoid(x V + c) per token.
check_close("k = 1: dense GLU (xW + b) * sigmoid(xV + c)", glu(X, W[:1], b, V[:1], c),
            (X @ W[0] + b) / (1 + np.exp(-(X @ V[0] + c))), rtol=1e-12)
# torch.nn.functional.glu(z, dim) splits z in halves [a | g] and returns a * sigmoid(g): the first
# half is the value path. One fused convolution with 2n outputs gives the same result.
z = causal_conv(X, np.concatenate([W, V], axis=2), np.concatenate([b, c]))
check_close("fused conv then F.glu-style split: first half value, second half gate",
            z[:, :n] * expit(z[:, n:]), H, rtol=1e-12)

# 5. Gradients of a * sigmoid(g) (finite differences), and the paper's argument against tanh gating:
#    d/da [a sigmoid(g)] = sigmoid(g) has no tanh'(a) factor, so it does not vanish for large |a|.
a = rng.normal(scale=3.0, size=50)
g = rng.normal(scale=3.0, size=50)
da, dg = glu_unit_grad(a, g)
h = 1e-6
check_close("d/da of a sigmoid(g) vs finite differences", da,
            ((a + h) * expit(g) - (a - h) * expit(g)) / (2 * h), rtol=1e-8)
check_close("d/dg of a sigmoid(g) vs finite differences", dg,
            (a * expit(g + h) - a * expit(g - h)) / (2 * h), rtol=1e-7, atol=1e-10)
gtu_da = (1 - np.tanh(5.0) ** 2) * expit(2.0)
check_true("at a = 5, g = 2: GLU value-path gradient 0.88 vs tanh-gated (GTU) 0.00016",
           glu_unit_grad(np.array(5.0), np.array(2.0))[0] > 400 * gtu_da,
           f"GLU {float(glu_unit_grad(np.array(5.0), np.array(2.0))[0]):.3f}, GTU {gtu_da:.5f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# conv1d takes [batch, channels, T] and weights [out, in, k] and cross-correlates: output t sums the
# padded inputs t .. t + k - 1 against taps 0 .. k - 1, the card's X_{t-k+1+i} W_i once k - 1 zeros
# lead. padding=k - 1 pads both ends, so only the first T outputs are causal.
x_t = torch.tensor(X.T)[None]
w_fused = torch.tensor(np.concatenate([W, V], axis=2).transpose(2, 1, 0))     # [2n, m, k]: [W | V]
b_fused = torch.tensor(np.concatenate([b, c]))
z_t = F.conv1d(x_t, w_fused, b_fused, padding=k - 1)[..., :T]
# Sums of k m = 9 products and a sigmoid, a few ulps each: 1e-12 relative, as in check 1.
check_close("F.glu(F.conv1d(X, [W | V], padding=k-1)[..., :T], dim=1) = GLU",
            F.glu(z_t, dim=1)[0].numpy().T, H, rtol=1e-12, atol=1e-14)
# F.glu's default dim=-1 is the time axis in conv1d's channels-first layout: it gates the first half
# of the time steps by the second half, silently wherever T is even.
check_close("pitfall: default dim=-1 on [batch, channels, T] gates steps 0..3 by steps 4..7",
            F.glu(z_t[..., :8])[0].numpy().T, z[:4] * expit(z[4:8]), rtol=1e-12, atol=1e-14)
# padding="same" centres the kernel: output t sees inputs t-1 .. t+1, one step of the future.
same = F.conv1d(x_t, w_fused, b_fused, padding="same")[0].numpy().T
check_close("pitfall: padding='same' is not causal: its output t is the card's output t + 1",
            same[:T - 1], z[1:], rtol=1e-12, atol=1e-14)
check_close("fix: pad the left end only, F.conv1d(F.pad(X, (k - 1, 0)), [W | V]) = X*W + b, X*V + c",
            F.conv1d(F.pad(x_t, (k - 1, 0)), w_fused, b_fused)[0].numpy().T, z, rtol=1e-12, atol=1e-14)
# --- end in code ---

# --- in code: jax ---
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # float64, as the card's numpy
# jax.nn.glu splits its axis (default -1) as F.glu does: first half the value path, second the gate.
check_close("jax.nn.glu([X*W + b | X*V + c]) = GLU", np.asarray(jax.nn.glu(jax.numpy.asarray(z))), H,
            rtol=1e-12, atol=1e-14)
# --- end in code ---

fig, ax = figure("Gradient along the value path (gate pre-activation g = 2)", "value pre-activation  a",
                 "d output / d a")
aa = np.linspace(-5, 5, 300)
ax.plot(aa, glu_unit_grad(aa, np.full_like(aa, 2.0))[0], label=r"GLU  $a\,\sigma(g)$: $\sigma(g)$")
ax.plot(aa, (1 - np.tanh(aa) ** 2) * expit(2.0), "--", label=r"GTU  $\tanh(a)\,\sigma(g)$")
ax.legend()
