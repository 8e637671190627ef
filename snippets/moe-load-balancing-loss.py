"""Switch load-balancing loss: vs token-pair double loop, alpha at balance, alpha*N at collapse, gradient."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def load_balancing_loss(probs: np.ndarray, alpha: float = 0.01) -> float:
    """alpha * N * sum_i f_i * P_i for router probabilities probs of shape (T tokens, N experts)."""
    T, N = probs.shape
    f = np.bincount(probs.argmax(axis=1), minlength=N) / T  # fraction of tokens sent to expert i
    P = probs.mean(axis=0)  # mean router probability of expert i
    return float(alpha * N * np.sum(f * P))
# --- end formula ---


rng = np.random.default_rng(0)
T, N, alpha = 256, 8, 0.01
logits = rng.normal(size=(T, N)) + np.array([1.5, 0.5] + [0.0] * (N - 2))  # two favoured experts
probs = softmax(logits, axis=1)

# 1. independent route: N sum_i f_i P_i = (N / T^2) sum over token pairs (x, x') of the probability
#    token x gives to the expert chosen for token x'.
choice = probs.argmax(axis=1)
pair_sum = sum(probs[x, choice[x2]] for x in range(T) for x2 in range(T))
check_close("vectorized loss vs double loop over token pairs", load_balancing_loss(probs, alpha),
            alpha * N * pair_sum / T**2)

# 2. perfectly balanced routing (each expert gets T/N tokens, uniform mean probability) gives alpha,
#    whatever N is; full collapse onto one confident expert gives alpha * N.
for n_exp in (4, 16):
    balanced = np.full((64 * n_exp, n_exp), 0.5 / (n_exp - 1))
    balanced[np.arange(64 * n_exp), np.arange(64 * n_exp) % n_exp] = 0.5
    check_close(f"balanced routing over {n_exp} experts gives alpha",
                load_balancing_loss(balanced, alpha), alpha)
collapsed = np.zeros((T, N))
collapsed[:, 0] = 1.0
check_close("all tokens on one expert with probability 1 gives alpha * N",
            load_balancing_loss(collapsed, alpha), alpha * N)

# 3. if f were the soft fractions P themselves, N sum P_i^2 >= 1 (Cauchy-Schwarz), equality iff uniform.
Ps = rng.dirichlet(np.ones(N), size=1000)
check_true("N * sum P_i^2 >= 1 for 1000 random routings", bool(np.all(N * (Ps**2).sum(1) >= 1)))

# 4. gradient w.r.t. router logits (f is a constant: argmax has no gradient), vs finite differences.
f = np.bincount(choice, minlength=N) / T
jac = probs[:, :, None] * (np.eye(N)[None] - probs[:, None, :])  # d p_i / d z_j per token
grad = alpha * N / T * np.einsum("i,tij->tj", f, jac)


def loss_fixed_f(z: np.ndarray) -> float:
    return float(alpha * N * np.sum(f * softmax(z, axis=1).mean(axis=0)))


h, token = 1e-6, 5
fd = np.zeros(N)
for j in range(N):
    bump = np.zeros_like(logits)
    bump[token, j] = h
    fd[j] = (loss_fixed_f(logits + bump) - loss_fixed_f(logits - bump)) / (2 * h)
check_close("gradient w.r.t. one token's router logits vs finite differences", grad[token], fd,
            rtol=1e-5, atol=1e-10)
busiest = int(np.argmax(f))
check_true("descent lowers the logit of the most loaded expert on average",
           bool(grad[:, busiest].mean() > 0), f"expert {busiest} handles {f[busiest]:.0%} of tokens")

# 5. alpha is the value at balance, not a hard floor: with hard top-1 counts f, an unbalanced
#    routing can score lower (2 experts, 90% of tokens at p = (0.5+, 0.5-), 10% at p = (0, 1)).
tricky = np.array([[0.5 + 1e-9, 0.5 - 1e-9]] * 90 + [[0.0, 1.0]] * 10)
check_close("unbalanced 90/10 routing scores 0.92 alpha", load_balancing_loss(tricky, alpha),
            0.92 * alpha, rtol=1e-6)

# The default coefficient is the Switch Transformer's alpha = 10^-2 (Fedus et al., Sec. 2.2).
check_close("default alpha = 1e-2 (Switch Transformer)", load_balancing_loss(probs),
            load_balancing_loss(probs, 1e-2), rtol=1e-15)

# As routing collapses from balanced (t = 0) to one expert (t = 1) the loss rises from alpha to alpha*N.
t = np.linspace(0, 1, 101)
fig, ax = figure("Switch load-balancing loss (f = P)", "collapse  t", r"$\mathcal{L}_{aux}/\alpha$")
for n_exp in (2, 4, 8):
    shares = (1 - t)[:, None] / n_exp + t[:, None] * np.eye(n_exp)[0]
    ax.plot(t, n_exp * np.sum(shares**2, axis=1), label=f"N = {n_exp}")
ax.legend()
