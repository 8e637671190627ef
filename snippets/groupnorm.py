"""GroupNorm: against a statistics-module loop over groups, its two limits (G = 1 is LayerNorm over
(C, H, W), G = C is InstanceNorm; scipy zscore), batch independence and group membership."""

import statistics

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import zscore


# --- formula ---
def group_norm(x, G, gamma, beta, eps=1e-5):
    """x is (N, C, ...); channels are split into G contiguous groups of C/G; statistics per
    (sample, group) over the group's channels and all spatial positions; gain and bias per channel."""
    N, C = x.shape[0], x.shape[1]
    xg = x.reshape(N, G, C // G, int(np.prod(x.shape[2:])))
    mu = xg.mean(axis=(2, 3), keepdims=True)
    var = ((xg - mu) ** 2).mean(axis=(2, 3), keepdims=True)
    xhat = ((xg - mu) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, C) + (1,) * (x.ndim - 2)
    return gamma.reshape(shape) * xhat + beta.reshape(shape)
# --- end formula ---


rng = np.random.default_rng(0)
N, C, H, W = 2, 6, 3, 4
x = rng.normal(size=(N, C, H, W)) * rng.uniform(0.05, 3.0, size=(1, C, 1, 1)) + rng.normal(size=(1, C, 1, 1))
gamma, beta = rng.normal(size=C), rng.normal(size=C)


def loop_gn(x, G, gamma, beta, eps):
    """Independent route: Wu & He Eqs. (1)-(3) with the set S_i of Eq. (7), written as loops."""
    out = np.empty_like(x)
    per = C // G
    for n in range(x.shape[0]):
        for g in range(G):
            chans = range(g * per, (g + 1) * per)
            vals = [float(v) for c in chans for v in x[n, c].ravel()]
            mu, var = statistics.fmean(vals), statistics.pvariance(vals)
            for c in chans:
                out[n, c] = gamma[c] * (x[n, c] - mu) / (var + eps) ** 0.5 + beta[c]
    return out


# 1. Every valid group count, against the loop.
for G in (1, 2, 3, 6):
    check_close(f"G = {G}: GN vs loop over groups", group_norm(x, G, gamma, beta, 1e-4),
                loop_gn(x, G, gamma, beta, 1e-4), rtol=1e-12, atol=1e-13)
check_close("default eps is 1e-5 (PyTorch)", group_norm(x, 3, gamma, beta), loop_gn(x, 3, gamma, beta, 1e-5),
            rtol=1e-12, atol=1e-13)
x1d = rng.normal(size=(3, C, 10)) * 2.0 + 1.0
check_close("(N, C, L) input, G = 2, vs loop", group_norm(x1d, 2, gamma, beta, 1e-4),
            np.stack([loop_gn(x1d[:, :, None, :][i:i + 1], 2, gamma, beta, 1e-4)[0, :, 0] for i in range(3)]),
            rtol=1e-12, atol=1e-13)

ones, zeros = np.ones(C), np.zeros(C)
# 2. G = 1: one group holds the whole sample, i.e. LayerNorm over (C, H, W).
layer = np.stack([zscore(x[n].ravel()).reshape(C, H, W) for n in range(N)])
check_close("G = 1 equals LayerNorm over (C, H, W) (scipy zscore)", group_norm(x, 1, ones, zeros, 0.0), layer,
            rtol=1e-12, atol=1e-13)
# 3. G = C: one channel per group, i.e. InstanceNorm over (H, W).
inst = zscore(x.reshape(N, C, H * W), axis=-1).reshape(x.shape)
check_close("G = C equals InstanceNorm over (H, W)", group_norm(x, C, ones, zeros, 0.0), inst, rtol=1e-12,
            atol=1e-13)

# 4. No batch axis in the statistics: changing sample 1 leaves sample 0 untouched.
x2 = x.copy()
x2[1] = rng.normal(size=(C, H, W)) * 10
check_close("sample 0 is independent of the rest of the batch", group_norm(x2, 3, gamma, beta)[0],
            group_norm(x, 3, gamma, beta)[0], rtol=0, atol=0)

# 5. Groups are contiguous blocks of C/G channels (group of channel c = floor(c / (C/G))): rescaling
#    channel 2 (group 1 when G = 3) moves channel 3, its partner, but no channel of groups 0 or 2.
x3 = x.copy()
x3[:, 2] *= 4.0
delta = np.abs(group_norm(x3, 3, ones, zeros) - group_norm(x, 3, ones, zeros)).max(axis=(0, 2, 3))
check_true("only channels 2 and 3 change", np.all(delta[[0, 1, 4, 5]] == 0) and delta[3] > 1e-3,
           f"per-channel change {np.round(delta, 3).tolist()}")
# ... and scaling a whole group by a constant changes nothing (eps = 0).
x4 = x.copy()
x4[:, 2:4] *= 7.0
check_close("invariant to rescaling a whole group (eps = 0)", group_norm(x4, 3, gamma, beta, 0.0),
            group_norm(x, 3, gamma, beta, 0.0), rtol=1e-11, atol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# F.group_norm(x, G, gamma, beta, eps) in float64: the same per-(sample, group) statistics over 24
# values, a few ulps each: 1e-12 relative, atol 1e-13 near zeros.
check_close("F.group_norm(x, num_groups=3, weight=gamma, bias=beta, eps=1e-5) = GN(x)",
            F.group_norm(torch.tensor(x), 3, torch.tensor(gamma), torch.tensor(beta), eps=1e-5).numpy(),
            group_norm(x, 3, gamma, beta), rtol=1e-12, atol=1e-13)
# nn.GroupNorm takes (num_groups, num_channels), in that order, and starts at gamma = 1, beta = 0.
check_close("nn.GroupNorm(3, C) as created: gamma = 1, beta = 0, eps = 1e-5",
            torch.nn.GroupNorm(3, C).double()(torch.tensor(x)).detach().numpy(),
            group_norm(x, 3, np.ones(C), np.zeros(C)), rtol=1e-12, atol=1e-13)
# --- end in code ---
