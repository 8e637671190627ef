"""Temperature scaling: scaled softmax vs scipy, T = 1 identity, the NLL fit vs scipy.optimize and a
grid search, recovery of a known temperature, unchanged accuracy, lower ECE."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax


# --- formula ---
def scaled_log_probs(logits: np.ndarray, t: float) -> np.ndarray:
    """log softmax(z / T), stabilized by subtracting the row maximum."""
    s = logits / t
    s = s - s.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def nll(logits: np.ndarray, labels: np.ndarray, t: float) -> float:
    """Mean negative log-likelihood of the labels under softmax(z / T)."""
    return float(-np.mean(scaled_log_probs(logits, t)[np.arange(len(labels)), labels]))


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """argmin_T NLL over T in [e^-10, e^10]. The NLL is convex in beta = 1/T, with derivative
    mean(E_p[z] - z_y); bisection on the sign of that derivative over log beta in [-10, 10]."""
    lo, hi = -10.0, 10.0
    iters = 60  # equivalent: after 60 halvings the bracket is 2e-17 wide; more move T by < 1e-16 relative
    for _ in range(iters):  # equivalent: a 61st halving moves T by under 1e-16 relative
        mid = 0.5 * (lo + hi)
        p = np.exp(scaled_log_probs(logits, np.exp(-mid)))
        gap = np.sum(p * logits, axis=1) - logits[np.arange(len(labels)), labels]
        slope = np.mean(gap)  # equivalent: only the sign is used, and a mean and a sum share it
        if slope > 0:
            hi = mid
        else:
            lo = mid
    return float(np.exp(-0.5 * (lo + hi)))
# --- end formula ---


rng = np.random.default_rng(0)

# Synthetic validation set: 5 classes, "true" logits u; labels drawn from softmax(u); the model
# reports z = 2.5 u, i.e. it is overconfident by a temperature of 2.5.
n, k, t_true = 20_000, 5, 2.5
u = rng.normal(scale=1.5, size=(n, k))
cdf = np.cumsum(np.exp(log_softmax(u, axis=1)), axis=1)
labels = np.minimum((rng.random((n, 1)) > cdf).sum(axis=1), k - 1)     # inverse-CDF sampling
z = t_true * u

# 1. The scaled softmax vs scipy, including logits of size ~1e4 (exp overflows without the shift).
check_close("T = 1 is the identity: log softmax(z)", scaled_log_probs(z[:50], 1.0),
            log_softmax(z[:50], axis=1), rtol=1e-12, atol=1e-12)
for t in (0.3, 2.5, 40.0):
    check_close(f"T = {t}: vs scipy log_softmax(z / T)", scaled_log_probs(z[:50], t),
                log_softmax(z[:50] / t, axis=1), rtol=1e-12, atol=1e-12)
big = 3000.0 * z[:5]
check_close("logits ~ 1e4: no overflow", scaled_log_probs(big, 2.0), log_softmax(big / 2.0, axis=1),
            rtol=1e-12, atol=1e-9)
check_true("argmax (accuracy) unchanged for every T > 0",
           all((scaled_log_probs(z, t).argmax(1) == z.argmax(1)).all() for t in (0.1, 1.0, 7.0)))

# 2. The fit vs scipy's bounded scalar minimizer and a grid search on the NLL.
t_fit = fit_temperature(z, labels)
t_scipy = minimize_scalar(lambda t: nll(z, labels, t), bounds=(0.05, 20), method="bounded",
                          options={"xatol": 1e-10}).x
grid = np.linspace(1.5, 3.5, 201)
t_grid = grid[np.argmin([nll(z, labels, t) for t in grid])]
check_close("fitted T vs scipy minimize_scalar", t_fit, t_scipy, rtol=1e-6)
check_close("fitted T vs grid search (step 0.01)", t_fit, t_grid, atol=0.01)
h = 1e-4
check_close("dNLL/dT = 0 at the fitted T (central difference)",
            (nll(z, labels, t_fit + h) - nll(z, labels, t_fit - h)) / (2 * h), 0.0, atol=1e-6)

# 3. It recovers the temperature the data were made with (Monte Carlo: within 3%).
check_close("fitted T vs the true 2.5", t_fit, t_true, rtol=0.03)
check_true("NLL at the fitted T below NLL at T = 1", nll(z, labels, t_fit) < nll(z, labels, 1.0) - 0.1)
# A model that is already calibrated (logits u) needs T = 1.
check_close("calibrated logits: fitted T = 1 (within 3%)", fit_temperature(u, labels), 1.0, rtol=0.03)
# The search range is T in [e^-10, e^10]: separable data (every argmax right) push T to the lower end,
# anti-informative logits (the label always the least likely class) push it to the upper end.
sep = z[:200].copy()
anti = z[:200].copy()
check_close("separable: T* = e^-10; anti-informative: T* = e^10",
            [fit_temperature(sep, sep.argmax(1)), fit_temperature(anti, anti.argmin(1))],
            [np.exp(-10.0), np.exp(10.0)], rtol=1e-9)


# 4. Calibration improves: ECE (15 bins) before and after.
def ece(conf, hit, m=15):
    idx = np.minimum((conf * m).astype(int), m - 1)
    return sum(abs(hit[idx == b].mean() - conf[idx == b].mean()) * np.mean(idx == b) for b in np.unique(idx))


hit = (z.argmax(1) == labels).astype(float)
before = ece(np.exp(scaled_log_probs(z, 1.0)).max(1), hit)
after = ece(np.exp(scaled_log_probs(z, t_fit)).max(1), hit)
check_true("ECE drops after temperature scaling (and ends below 0.01)", after < before and after < 0.01,
           f"ECE {before:.3f} -> {after:.4f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

Z, Y = torch.tensor(z), torch.tensor(labels)
# F.cross_entropy takes logits and by default averages over the batch (reduction="mean"): the card's
# NLL. Both are log-softmax sums over 5 classes, a few ulps apart, averaged: 1e-12.
check_close("F.cross_entropy(z / T, y) = mean NLL at T = 2.5", F.cross_entropy(Z / 2.5, Y).item(),
            nll(z, labels, 2.5), rtol=1e-12)
as_probs = F.cross_entropy(torch.softmax(Z / 2.5, dim=1), Y).item()
check_true("pitfall: it takes logits: softmax(z / T) passed in is log-softmaxed a second time",
           abs(as_probs - nll(z, labels, 2.5)) > 0.1,
           f"{as_probs:.4f} vs the card's {nll(z, labels, 2.5):.4f}")


def fit_log_temperature(**options) -> torch.Tensor:
    """T = exp(log_t) fitted by one torch.optim.LBFGS step on the validation NLL, from T = 1."""
    log_t = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], **options)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(Z / log_t.exp(), Y)
        loss.backward()
        return loss

    opt.step(closure)
    return log_t


log_t = fit_log_temperature(line_search_fn="strong_wolfe")
# LBFGS stops on a small gradient g, not at the exact minimum: a Newton step |g| / h (h the curvature in
# log T, by central difference) bounds the distance left; twice it, plus the bisection's 1e-12.
F.cross_entropy(Z / log_t.exp(), Y).backward()
curvature = (nll(z, labels, t_fit * np.exp(1e-3)) - 2 * nll(z, labels, t_fit)
             + nll(z, labels, t_fit * np.exp(-1e-3))) / 1e-6
check_close("LBFGS on log T with F.cross_entropy(z / exp(log_t), y) reaches the card's T*",
            log_t.item(), np.log(t_fit), atol=2 * abs(log_t.grad.item()) / curvature + 1e-12)
# A widely copied implementation fits T itself, from 1.5, with LBFGS(lr=0.01, max_iter=50) and no
# line search: one step then stops far short of the minimum.
t_param = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
short = torch.optim.LBFGS([t_param], lr=0.01, max_iter=50)


def short_closure():
    short.zero_grad()
    loss = F.cross_entropy(Z / t_param, Y)
    loss.backward()
    return loss


short.step(short_closure)
check_true("pitfall: LBFGS(lr=0.01, max_iter=50) without a line search stops far from T*",
           abs(t_param.item() - t_fit) > 0.5, f"T = {t_param.item():.3f} vs T* = {t_fit:.3f}")
# --- end in code ---

ts = np.linspace(0.5, 6, 80)
fig, ax = figure("Temperature scaling: validation NLL vs T", "temperature T", "mean NLL")
ax.plot(ts, [nll(z, labels, t) for t in ts])
ax.axvline(t_fit, color="gray", ls="--", label=f"fitted T = {t_fit:.2f}")
ax.axvline(1.0, color="gray", ls=":", label="T = 1 (uncalibrated model)")
ax.legend()
