"""rsLoRA: the adapter scaled by alpha / sqrt(r) instead of LoRA's alpha / r. Checked by hand values
(and the value PEFT's use_rslora documents), by the merged weight against the two-path forward, and
by simulation of the paper's argument: after a gradient step from B = 0 the adapter's output change
grows like gamma_r^2 r, which only alpha / sqrt(r) holds constant as the rank grows."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def adapter_scale(alpha: float, r: int, rank_stabilized: bool = True) -> float:
    """gamma_r: alpha / sqrt(r) for rsLoRA, alpha / r for LoRA."""
    return alpha / np.sqrt(r) if rank_stabilized else alpha / r


def adapted_forward(W0, A, B, x, alpha, rank_stabilized=True):
    """h = W0 x + gamma_r B A x, with A of shape (r, k) and B of shape (d, r)."""
    gamma = adapter_scale(alpha, A.shape[0], rank_stabilized)
    return W0 @ x + gamma * (B @ (A @ x))


def merged_weight(W0, A, B, alpha, rank_stabilized=True):
    """W' = W0 + gamma_r B A."""
    return W0 + adapter_scale(alpha, A.shape[0], rank_stabilized) * (B @ A)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Hand values. alpha = 16: r = 4 gives 16/2 = 8 (LoRA: 4); r = 64 gives 2 (LoRA: 0.25); at r = 1
#    the two agree. PEFT documents use_rslora as lora_alpha / math.sqrt(r): 32 / sqrt(16) = 8.
check_close("rsLoRA gamma for (alpha, r) = (16, 4), (16, 64), (16, 1), (32, 16)",
            [adapter_scale(16, 4), adapter_scale(16, 64), adapter_scale(16, 1), adapter_scale(32, 16)],
            [8.0, 2.0, 16.0, 8.0], rtol=1e-15)
check_close("LoRA gamma for the same (alpha, r)",
            [adapter_scale(16, 4, False), adapter_scale(16, 64, False), adapter_scale(16, 1, False),
             adapter_scale(32, 16, False)], [4.0, 0.25, 16.0, 2.0], rtol=1e-15)

# 2. The merged weight reproduces the two-path forward, for both scalings, on a 48 x 40 layer.
d, k, r, alpha = 48, 40, 8, 16.0
W0 = rng.normal(size=(d, k)) / np.sqrt(k)
A = rng.normal(size=(r, k)) / np.sqrt(k)
B = rng.normal(size=(d, r))
X = rng.normal(size=(k, 6))
for stabilized in (True, False):
    name = "rsLoRA" if stabilized else "LoRA"
    check_close(f"{name}: merged weight times x = frozen path + scaled adapter path",
                merged_weight(W0, A, B, alpha, stabilized) @ X,
                adapted_forward(W0, A, B, X, alpha, stabilized), rtol=1e-12, atol=1e-13)
# The adapter path of rsLoRA is sqrt(r) times LoRA's at equal alpha: sqrt(8) here.
ratio = (adapted_forward(W0, A, B, X, alpha) - W0 @ X) / (adapted_forward(W0, A, B, X, alpha, False) - W0 @ X)
check_close("adapter path: rsLoRA / LoRA = sqrt(r)", ratio, np.full(ratio.shape, np.sqrt(8)), rtol=1e-12)

# 3. The paper's argument, simulated. Loss L = v^T h; from B = 0 one SGD step on B (gradient taken by
#    central differences of the forward pass, exact here up to
#    rounding as L is linear in B, so it does not assume the closed form) makes the adapter
#    output change by -lr gamma^2 |A x|^2 v, and E|A x|^2 = r sigma^2 |x|^2. So the change per unit
#    lr, |v| and sigma^2 |x|^2 is gamma^2 r on average: alpha^2 for rsLoRA at every r, alpha^2 / r for
#    LoRA.
def one_step_change(r: int, stabilized: bool, n_draws: int) -> np.ndarray:
    d_, k_, sigma, lr = 6, 32, 1.0 / np.sqrt(32), 1e-3
    W = np.zeros((d_, k_))
    x = rng.normal(size=k_)
    v = rng.normal(size=d_)
    out = []
    for _ in range(n_draws):
        A_ = rng.normal(scale=sigma, size=(r, k_))
        B_ = np.zeros((d_, r))
        # every entry of B perturbed at once: a stack of d r copies, each moved by +-h in one entry
        E = np.eye(d_ * r).reshape(d_ * r, d_, r) * 1e-3
        plus = adapted_forward(W, A_, B_ + E, x, 2.0, stabilized) @ v
        minus = adapted_forward(W, A_, B_ - E, x, 2.0, stabilized) @ v
        grad = ((plus - minus) / 2e-3).reshape(d_, r)
        change = adapted_forward(W, A_, B_ - lr * grad, x, 2.0, stabilized)
        out.append(np.linalg.norm(change) / (lr * np.linalg.norm(v) * sigma**2 * (x @ x)))
    return np.array(out)


ranks = [2, 8, 32]
for stabilized, expected in ((True, lambda r: 4.0), (False, lambda r: 4.0 / r)):
    name = "rsLoRA" if stabilized else "LoRA"
    for r_ in ranks:
        draws = one_step_change(r_, stabilized, 60)
        se = draws.std(ddof=1) / np.sqrt(len(draws))
        # Monte Carlo: the mean of 60 draws is within 4 standard errors of its expectation.
        check_true(f"{name}, r = {r_}: mean output change per unit = gamma^2 r = {expected(r_):.3g}",
                   abs(draws.mean() - expected(r_)) < 4 * se,
                   f"{draws.mean():.4f} +- {se:.4f}")

# The page's calculator is checked against adapter_scale on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows), both branches of it: rsLoRA's factor and LoRA's.
import cardcalc  # noqa: E402

cardcalc.table(lambda alpha, r: {"gamma": adapter_scale(alpha, r),
                                 "gamma_lora": adapter_scale(alpha, r, rank_stabilized=False)},
               cardcalc.grid(alpha=(0.5, 16, 32), r=(1, 4, 64, 2048)))
# --- in code: peft ---
import torch  # noqa: E402
from peft import LoraConfig  # noqa: E402
from peft_fixture import TARGET, adapt, load_factors, run  # noqa: E402

# float64 sums of <= 40 products in another order than numpy's: a few ulps of the largest terms, so
# rtol 1e-12 and an atol of 1e-12 times the largest output (the other scaling is off by sqrt(8)).
near = {"rtol": 1e-12, "atol": 1e-12 * np.abs(adapted_forward(W0, A, B, X, alpha)).max()}
model, layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, use_rslora=True, target_modules=[TARGET]))
load_factors(layer, A, B)
check_true("LoraConfig(use_rslora=True): scaling = lora_alpha / sqrt(r)",
           layer.scaling["default"] == adapter_scale(alpha, r), f"scaling {layer.scaling['default']}")
check_close("use_rslora=True: the layer's forward = W0 x + alpha / sqrt(r) B A x",
            run(model, X.T).T, adapted_forward(W0, A, B, X, alpha), **near)
lora_model, lora_layer = adapt(W0, LoraConfig(r=r, lora_alpha=alpha, target_modules=[TARGET]))
load_factors(lora_layer, A, B)
check_close("pitfall: use_rslora defaults to False, LoRA's alpha / r: sqrt(8) times smaller",
            run(lora_model, X.T).T, adapted_forward(W0, A, B, X, alpha, rank_stabilized=False), **near)


def peft_step_change(r_: int, stabilized: bool, lr: float = 1e-3):
    """One SGD step of peft's lora_B from zero, by torch's autograd, on the loss v^T h at one input
    x: the change of the output, and what the card predicts, -lr gamma_r^2 |A x|^2 v. The frozen
    weight is zero, as in check 3 (it adds the same W0 x before and after the step), so the output
    is the change itself, free of the cancellation of subtracting W0 x."""
    A_ = rng.normal(size=(r_, k)) / np.sqrt(k)
    x, v = X[:, 0], rng.normal(size=d)
    config = LoraConfig(r=r_, lora_alpha=alpha, use_rslora=stabilized, target_modules=[TARGET])
    step_model, step_layer = adapt(np.zeros_like(W0), config)
    load_factors(step_layer, A_, np.zeros((d, r_)))
    (step_model(torch.from_numpy(x)) @ torch.from_numpy(v)).backward()
    with torch.no_grad():
        step_layer.lora_B["default"].weight -= lr * step_layer.lora_B["default"].weight.grad
    predicted = -lr * adapter_scale(alpha, r_, stabilized) ** 2 * np.sum((A_ @ x) ** 2) * v
    return run(step_model, x), predicted


# The gradient flows through the same factor: the first step's output change is gamma_r^2 |A x|^2
# lr |v| for either scaling, as in check 3 (a float64 gradient of a short sum: rtol 1e-12).
for r_ in (2, 32):
    for stabilized in (True, False):
        change, predicted = peft_step_change(r_, stabilized)
        check_close(f"peft, use_rslora={stabilized}, r = {r_}: first SGD step on lora_B changes h by "
                    "-lr gamma_r^2 |A x|^2 v", change, predicted, rtol=1e-12)
# --- end in code ---

fig, ax = figure("Output change after one step from B = 0", "adapter rank r",
                 "change / (lr |v| sigma^2 |x|^2)")
rr = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256])
ax.loglog(rr, [adapter_scale(2.0, q) ** 2 * q for q in rr], "o-", label=r"rsLoRA, $\alpha/\sqrt{r}$")
ax.loglog(rr, [adapter_scale(2.0, q, False) ** 2 * q for q in rr], "s--", label=r"LoRA, $\alpha/r$")
ax.legend()
