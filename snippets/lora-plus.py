"""LoRA+: the adapter's B matrix trained with a learning rate lambda times that of A. Checked by Adam's
first step, which is the sign of the gradient (so each entry of A moves by exactly eta_A and each of
B by lambda eta_A), and by the width scaling behind the ratio, simulated on the paper's toy model:
with eta_A ~ 1/n and eta_B ~ 1 both adapter updates change the output by O(1) at every width n,
while one shared rate lets the A-update grow like n."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


def adam_direction(g, state, t, b1=0.9, b2=0.999, eps=1e-12):
    """Adam's bias-corrected direction m_hat / (sqrt(v_hat) + eps) for one tensor; state holds m, v."""
    state["m"] = b1 * state["m"] + (1 - b1) * g
    state["v"] = b2 * state["v"] + (1 - b2) * g * g
    return (state["m"] / (1 - b1**t)) / (np.sqrt(state["v"] / (1 - b2**t)) + eps)


# --- formula ---
def loraplus_rates(lr_A: float, ratio: float) -> dict:
    """eta_A is the optimizer's learning rate; eta_B = lambda eta_A."""
    return {"A": lr_A, "B": ratio * lr_A}


def loraplus_step(params: dict, grads: dict, states: dict, t: int, lr_A: float, ratio: float) -> dict:
    """One Adam step of the adapter, each matrix with its own rate."""
    rates = loraplus_rates(lr_A, ratio)
    return {name: params[name] - rates[name] * adam_direction(grads[name], states[name], t)
            for name in ("A", "B")}
# --- end formula ---


rng = np.random.default_rng(0)


def fresh_states(params):
    return {k: {"m": np.zeros_like(p), "v": np.zeros_like(p)} for k, p in params.items()}


# 1. Adam's first step is sign(g) (m_hat = g, v_hat = g^2), so from any point LoRA+ moves every entry
#    of A by exactly eta_A and every entry of B by exactly lambda eta_A, against the gradient's sign.
d, k, r = 12, 10, 4
params = {"A": rng.normal(size=(r, k)), "B": rng.normal(size=(d, r))}
grads = {"A": rng.normal(size=(r, k)), "B": rng.normal(size=(d, r))}
lr_A, ratio = 2e-4, 16.0
new = loraplus_step(params, grads, fresh_states(params), 1, lr_A, ratio)
# eps = 1e-12 against |g| ~ 1 changes the step by ~1e-12 relative; rtol 1e-9 covers it.
check_close("first step: A moves by -eta_A sign(g_A) = -2e-4 sign(g_A)", new["A"] - params["A"],
            -2e-4 * np.sign(grads["A"]), rtol=1e-9)
check_close("first step: B moves by -lambda eta_A sign(g_B) = -3.2e-3 sign(g_B)", new["B"] - params["B"],
            -3.2e-3 * np.sign(grads["B"]), rtol=1e-9)
same = loraplus_step(params, grads, fresh_states(params), 1, 5e-4, 1.0)
check_close("lambda = 1 is plain LoRA: both matrices move by eta = 5e-4",
            [np.abs(same["A"] - params["A"]).max(), np.abs(same["B"] - params["B"]).max()], [5e-4, 5e-4],
            rtol=1e-9)


# 2. The paper's toy model of width n: f(x) = (w + b a)^T x with a in R^n, b a scalar (rank one), a
#    initialized N(0, 1/n), b = 0, squared loss against a target y. Two Adam steps; after the second,
#    the output change splits into delta_A = b (da^T x) from a's update and delta_B = db (a^T x) from
#    b's. At step 1 b = 0, so only b moves; at step 2 both do.
def toy_run(n: int, lr_A: float, ratio: float, draws: int = 8):
    out = []
    for _ in range(draws):
        x = rng.normal(size=n)
        w = rng.normal(size=n) / n
        y = 1.0
        p = {"A": rng.normal(size=(1, n)) / np.sqrt(n), "B": np.zeros((1, 1))}
        states = fresh_states(p)

        for t in (1, 2):
            # the toy model's own chain rule: dL/da = (f - y) b x, dL/db = (f - y) a^T x
            err = float((w + p["B"][0, 0] * p["A"][0]) @ x) - y
            g = {"A": err * p["B"][0, 0] * x[None, :], "B": np.array([[err * float(p["A"][0] @ x)]])}
            before = p
            p = loraplus_step(p, g, states, t, lr_A, ratio)
        delta_A = before["B"][0, 0] * float((p["A"][0] - before["A"][0]) @ x)
        delta_B = float(p["B"][0, 0] - before["B"][0, 0]) * float(before["A"][0] @ x)
        out.append((abs(delta_A), abs(delta_B)))
    return np.array(out).mean(axis=0)


widths = [64, 256, 1024]
plus = np.array([toy_run(n, lr_A=0.5 / n, ratio=0.1 * n) for n in widths])      # eta_A ~ 1/n, eta_B = 0.05
shared = np.array([toy_run(n, lr_A=0.05, ratio=1.0) for n in widths])          # one rate for both
# Theory: delta_A ~ eta_A eta_B n and delta_B ~ eta_B, up to O(1) random factors. Across a 16-fold
# width range LoRA+ keeps both within a factor 3, the shared rate lets delta_A grow by about 16.
spread = plus.max(axis=0) / plus.min(axis=0)
check_true("LoRA+ (eta_B / eta_A grows like n): both updates O(1) from n = 64 to 1024",
           bool(np.all(spread < 3)), f"max/min over widths: delta_A {spread[0]:.2f}, delta_B {spread[1]:.2f}")
growth = shared[-1, 0] / shared[0, 0]
check_true("one shared rate: the A-update grows roughly like n (16x width -> over 8x)", growth > 8,
           f"delta_A at n = 1024 over n = 64: {growth:.1f}")

# The page's calculator is checked against loraplus_rates on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows). There is no branch: a product, from lambda = 1 (plain LoRA) up.
import cardcalc  # noqa: E402

cardcalc.table(lambda eta_A, lam: {"eta_B": loraplus_rates(eta_A, lam)["B"]},
               cardcalc.grid(eta_A=(1e-6, 5e-5, 2e-4, 1e-2), lam=(1, 16, 20, 1000)))

# --- in code: peft ---
import torch  # noqa: E402
from peft import LoraConfig  # noqa: E402
from peft.optimizers import create_loraplus_optimizer  # noqa: E402
from peft_fixture import TARGET, adapt, load_factors, weight  # noqa: E402

# Two Adam steps of the card's A and B (check 1's point and gradients, then new gradients), by the
# card's loraplus_step and by PEFT's create_loraplus_optimizer on its LoRA layer (lora_A is A, r x k).
grads2 = {"A": rng.normal(size=(r, k)), "B": rng.normal(size=(d, r))}
states = fresh_states(params)
card_two = loraplus_step(loraplus_step(params, grads, states, 1, lr_A, ratio), grads2, states, 2, lr_A, ratio)


def peft_two_steps(optimizer_cls=torch.optim.Adam, use_dora=False, **options):
    """create_loraplus_optimizer(model, optimizer_cls, lr=eta_A, loraplus_lr_ratio=lambda) run for two
    steps on the card's gradients: the new A and B, and the optimizer and layer."""
    model, layer = adapt(rng.normal(size=(d, k)), LoraConfig(r=r, lora_alpha=r, target_modules=[TARGET],
                                                             use_dora=use_dora))
    load_factors(layer, params["A"], params["B"])
    optimizer = create_loraplus_optimizer(model, optimizer_cls, lr=lr_A, loraplus_lr_ratio=ratio, eps=1e-12,
                                          **options)
    for g in (grads, grads2):
        layer.lora_A["default"].weight.grad = torch.from_numpy(g["A"])
        layer.lora_B["default"].weight.grad = torch.from_numpy(g["B"])
        optimizer.step()
    return {"A": weight(layer.lora_A["default"].weight), "B": weight(layer.lora_B["default"].weight)}, \
        optimizer, layer


def both(adapter):
    """A and B as one flat vector."""
    return np.concatenate([adapter["A"].ravel(), adapter["B"].ravel()])


# The steps are about 1e-3 on entries of size <= 4, each rounded to a few ulps of the entry: atol
# 1e-12 (the wrong rate on either matrix moves it by 1e-4 or more).
peft_two, optimizer, _ = peft_two_steps()
check_close("create_loraplus_optimizer(Adam): two steps = the card's, eta_B = lambda eta_A",
            both(peft_two), both(card_two), rtol=0, atol=1e-12)
check_true("its groups: lora_A at lr, lora_B at loraplus_lr_ratio * lr",
           sorted({g["lr"] for g in optimizer.param_groups if g["params"]}) == [lr_A, ratio * lr_A])

# The groups set their own weight_decay from loraplus_weight_decay (default 0), so AdamW's
# weight_decay passed alongside is overridden: the run is plain Adam's.
ignored, _, _ = peft_two_steps(torch.optim.AdamW, weight_decay=0.1)
check_close("pitfall: weight_decay=0.1 is ignored (AdamW then steps as the card's Adam)",
            both(ignored), both(card_two), rtol=0, atol=1e-12)
decayed, _, _ = peft_two_steps(torch.optim.AdamW, loraplus_weight_decay=0.1)
check_true("loraplus_weight_decay=0.1 is the one that decays",
           np.abs(decayed["A"] - card_two["A"]).max() > 1e-6,
           f"A moves by {np.abs(decayed['A'] - card_two['A']).max():.2g} more")

# Every trainable 1-D tensor joins lora_B's group: DoRA's magnitude m gets lambda eta_A too.
_, dora_optimizer, dora_layer = peft_two_steps(use_dora=True)
magnitude = dora_layer.lora_magnitude_vector["default"].weight
check_true("pitfall: with use_dora=True, the magnitude vector also gets lambda eta_A",
           [g["lr"] for g in dora_optimizer.param_groups if any(q is magnitude for q in g["params"])]
           == [ratio * lr_A])
# --- end in code ---

fig, ax = figure("Output change from each adapter matrix (toy model, step 2)", "width n", "|output change|")
ax.loglog(widths, plus[:, 0], "o-", label=r"LoRA+: from $A$")
ax.loglog(widths, plus[:, 1], "s-", label=r"LoRA+: from $B$")
ax.loglog(widths, shared[:, 0], "o--", label=r"shared rate: from $A$")
ax.loglog(widths, shared[:, 1], "s--", label=r"shared rate: from $B$")
ax.legend(fontsize=8)
