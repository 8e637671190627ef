"""BatchNorm: per-channel statistics over (N, H, W) against a statistics-module loop, the running
averages against their closed form, Bessel's correction by Monte Carlo, and train/eval behaviour."""

import statistics

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def batchnorm_train(x, gamma, beta, eps=1e-5):
    """x is (N, C) or (N, C, H, W); mean and biased variance per channel over all other axes."""
    axes = (0, *range(2, x.ndim))
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    y = gamma.reshape(shape) * (x - mu) / np.sqrt(var + eps) + beta.reshape(shape)
    return y, mu.ravel(), var.ravel()


def update_running(run_mean, run_var, mu, var, m, momentum=0.1):
    """Exponential moving averages (PyTorch convention); the variance is stored unbiased, m/(m-1)."""
    run_mean = (1 - momentum) * run_mean + momentum * mu
    run_var = (1 - momentum) * run_var + momentum * var * m / (m - 1)
    return run_mean, run_var


def batchnorm_eval(x, gamma, beta, run_mean, run_var, eps=1e-5):
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    return (gamma.reshape(shape) * (x - run_mean.reshape(shape)) / np.sqrt(run_var.reshape(shape) + eps)
            + beta.reshape(shape))
# --- end formula ---


rng = np.random.default_rng(0)
N, C, H, W = 4, 3, 5, 6
x = (rng.normal(size=(N, C, H, W)) * np.array([1.0, 3.0, 0.5])[:, None, None]
     + np.array([2.0, -1.0, 0.0])[:, None, None])
gamma, beta = rng.normal(size=C), rng.normal(size=C)
eps = 1e-5

# 1. Independent route: for each channel, the N*H*W values through the statistics module.
y, mu, var = batchnorm_train(x, gamma, beta, eps)
ref = np.empty_like(x)
for c in range(C):
    vals = x[:, c].ravel().tolist()
    m_c, v_c = statistics.fmean(vals), statistics.pvariance(vals)
    check_close(f"channel {c}: mean and biased variance over (N, H, W)", [mu[c], var[c]], [m_c, v_c],
                rtol=1e-12)
    ref[:, c] = gamma[c] * (x[:, c] - m_c) / (v_c + eps) ** 0.5 + beta[c]
check_close("BN(x) for (N, C, H, W) vs per-channel loop", y, ref, rtol=1e-12, atol=1e-13)
check_close("default eps is 1e-5 (as in PyTorch)", batchnorm_train(x, gamma, beta)[0], ref, rtol=1e-12,
            atol=1e-13)

x2d = rng.normal(loc=3.0, scale=2.0, size=(16, C))
y2d = batchnorm_train(x2d, gamma, beta, eps)[0]
ref2d = np.column_stack([gamma[c] * (x2d[:, c] - statistics.fmean(x2d[:, c]))
                         / (statistics.pvariance(x2d[:, c]) + eps) ** 0.5 + beta[c] for c in range(C)])
check_close("BN(x) for (N, C) vs per-feature loop", y2d, ref2d, rtol=1e-12, atol=1e-13)

# 2. Normalized per channel, not per sample.
z = batchnorm_train(x, np.ones(C), np.zeros(C), eps=0.0)[0]
check_true("each channel: mean 0, variance 1 over (N, H, W)",
           np.allclose(z.mean(axis=(0, 2, 3)), 0, atol=1e-13)
           and np.allclose(z.var(axis=(0, 2, 3)), 1, atol=1e-12))
check_true("individual samples are not normalized", np.abs(z.mean(axis=(2, 3))).max() > 0.05)

# 3. Running averages: K updates with the same batch statistics follow the closed form
#    r_K = (1 - 0.1)^K r_0 + (1 - (1 - 0.1)^K) s, with s the unbiased variance for the variance.
m = N * H * W
run_mean, run_var = np.zeros(C), np.ones(C)
for _ in range(20):
    run_mean, run_var = update_running(run_mean, run_var, mu, var, m)
decay = 0.9 ** 20                                      # PyTorch's default momentum is 0.1
unbiased = np.array([statistics.variance(x[:, c].ravel().tolist()) for c in range(C)])
check_close("running mean after 20 steps (momentum 0.1)", run_mean, (1 - decay) * mu, rtol=1e-12)
check_close("running var after 20 steps, unbiased", run_var, decay * 1.0 + (1 - decay) * unbiased,
            rtol=1e-12)

# 4. Bessel's correction: over many batches of m = 8 draws from N(0, 4) the stored m/(m-1) sigma_B^2
#    averages to 4, while the biased batch variance averages to 4 * 7/8 = 3.5.
batches = rng.normal(scale=2.0, size=(4000, 8, 1))
stored = []
for b in batches:
    _, mu_b, var_b = batchnorm_train(b, np.ones(1), np.zeros(1))
    stored.append(update_running(0.0, 0.0, mu_b, var_b, 8, momentum=1.0)[1][0])
se = 4.0 * np.sqrt(2 / 7 / 4000)
check_close("E[m/(m-1) sigma_B^2] = population variance 4 (5 s.e.)", np.mean(stored), 4.0, atol=5 * se)

# 5. Evaluation uses stored statistics: with the batch's own statistics it reproduces training
#    mode; with fixed statistics a sample's output no longer depends on the rest of the batch.
check_close("eval with (mu_B, sigma_B^2) == train-mode output", batchnorm_eval(x, gamma, beta, mu, var, eps),
            y, rtol=1e-12, atol=1e-13)
check_close("eval default eps is 1e-5 too", batchnorm_eval(x, gamma, beta, mu, var), y, rtol=1e-12,
            atol=1e-13)
x_other = x.copy()
x_other[1:] += 5.0
train_shift = np.abs(batchnorm_train(x_other, gamma, beta)[0][0] - y[0]).max()
eval_shift = np.abs(batchnorm_eval(x_other, gamma, beta, run_mean, run_var)[0]
                    - batchnorm_eval(x, gamma, beta, run_mean, run_var)[0]).max()
check_true("train mode: sample 0 changes when the others change; eval mode: it does not",
           train_shift > 0.1 and eval_shift == 0.0, f"{train_shift:.2f} vs {eval_shift:.1f}")

# --- in code: torch ---
import torch  # noqa: E402

# nn.BatchNorm2d in training mode, in float64, with the card's gamma and beta. Per-channel means
# and variances over 120 values: a few ulps each, so 1e-12 relative with atol 1e-13 near zeros.
bn = torch.nn.BatchNorm2d(C, eps=eps).double()
with torch.no_grad():
    bn.weight.copy_(torch.tensor(gamma))
    bn.bias.copy_(torch.tensor(beta))
    y_torch = bn(torch.tensor(x)).numpy()
check_close("nn.BatchNorm2d(C) in train mode = the card's y", y_torch, y, rtol=1e-12, atol=1e-13)
# One step from running_mean = 0, running_var = 1 with momentum = 0.1: the new statistics get
# weight 0.1 (Keras and Flax call 0.9 or 0.99, the weight of the old value, "momentum").
check_close("running_mean after one step: 0.1 mu_B (momentum weights the new value)",
            bn.running_mean.numpy(), update_running(np.zeros(C), np.ones(C), mu, var, m)[0], rtol=1e-12)
check_close("pitfall: running_var stores the unbiased m/(m-1) sigma_B^2, not the card's sigma_B^2",
            bn.running_var.numpy(), 0.9 + 0.1 * var * m / (m - 1), rtol=1e-12)
# In eval mode the layer normalizes with those running statistics, not the batch's.
bn.eval()
with torch.no_grad():
    check_close("eval mode uses the running statistics",
                bn(torch.tensor(x)).numpy(),
                batchnorm_eval(x, gamma, beta, bn.running_mean.numpy(), bn.running_var.numpy()),
                rtol=1e-12, atol=1e-13)
# --- end in code ---
