"""Stochastic depth: the linear-decay survival rule against numpy.linspace and the paper's
expected depth, and the test-time rule as the exact expectation over all 2^L gate patterns."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def survival_probs(L, p_L=0.5):
    """Linear decay p_l = 1 - (l / L) (1 - p_L) for blocks l = 1..L (the input, l = 0, always survives)."""
    ell = np.arange(1, L + 1)
    return 1.0 - ell / L * (1.0 - p_L)


def residual_stack(h, branches, gates):
    """h_l = h_{l-1} + gate_l f_l(h_{l-1}); gate_l = b_l ~ Bernoulli(p_l) in training, p_l at test."""
    for f, g in zip(branches, gates, strict=True):
        h = h + g * f(h)
    return h


def drop_path_gates(b, p):
    """Inverted variant (timm DropPath, torchvision stochastic_depth): b_l / p_l in training, 1 at test."""
    return b / p
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The decay rule against an independent construction: L equally spaced steps from 1 to p_L.
for L, p_L in [(54, 0.5), (12, 0.8), (7, 0.3)]:
    check_close(f"p_l for L = {L}, p_L = {p_L} vs linspace(1, p_L, L + 1)[1:]", survival_probs(L, p_L),
                np.linspace(1.0, p_L, L + 1)[1:], rtol=1e-14)
check_close("default p_L = 0.5 (the paper's choice)", survival_probs(10)[-1], 0.5, rtol=1e-15)

# 2. The paper's ResNet-110 has L = 54 residual blocks; with p_L = 0.5 the expected number of
#    active blocks during training is (3L - 1)/4 = 40.25, the "about 40" quoted by Huang et al.,
#    i.e. a ~25% saving in training time.
exp_depth = survival_probs(54, 0.5).sum()
check_close("ResNet-110: expected active blocks = (3L - 1)/4 = 40.25", exp_depth, 40.25, rtol=1e-13)
check_true("rounded, about 40 of 54 blocks (25% fewer)", round(exp_depth) == 40,
           f"saving {1 - exp_depth / 54:.1%}")

# 3. Test time uses the expected gate p_l. For linear branches f_l(h) = h A_l the output is a
#    product of independent factors (I + b_l A_l), so its expectation over all 2^L gate patterns
#    equals the test-time network exactly.
d, L = 5, 6
A = [rng.normal(scale=0.4, size=(d, d)) for _ in range(L)]
lin = [lambda h, A_l=A_l: h @ A_l for A_l in A]
h0 = rng.normal(size=(3, d))
p = survival_probs(L, 0.5)
check_close("all gates 1: stack == h0 (I + A_1) ... (I + A_L)", residual_stack(h0, lin, np.ones(L)),
            h0 @ np.linalg.multi_dot([np.eye(d) + A_l for A_l in A]), rtol=1e-12, atol=1e-13)
# A gate of 0 must remove the branch and keep the skip: every block alone, and the whole stack, is then
# the identity; dropping only block 3 leaves the product of the other five factors (I + A_l).
zeroed = [residual_stack(h0, [f], [0.0]) for f in lin] + [residual_stack(h0, lin, np.zeros(L))]
check_true("all gates 0: each block alone and the whole stack return their input unchanged",
           all(np.array_equal(z, h0) for z in zeroed))
drop3 = np.ones(L)
drop3[3] = 0.0
check_close("gate 0 on block 3 only: h0 times the product of (I + A_l) over the other blocks",
            residual_stack(h0, lin, drop3),
            h0 @ np.linalg.multi_dot([np.eye(d) + A_l for i, A_l in enumerate(A) if i != 3]), rtol=1e-12,
            atol=1e-13)
patterns = np.array(list(itertools.product([0, 1], repeat=L)), dtype=float)
weights = np.prod(np.where(patterns == 1, p, 1 - p), axis=1)
train_outs = np.array([residual_stack(h0, lin, b) for b in patterns])
check_close("linear branches: E over 2^6 gate patterns = test-time net (gates p_l)",
            np.tensordot(weights, train_outs, axes=1), residual_stack(h0, lin, p), rtol=1e-12,
            atol=1e-13)
# The inverted form gives the same expectation as the plain network with every gate = 1.
inv_outs = np.array([residual_stack(h0, lin, drop_path_gates(b, p)) for b in patterns])
check_close("inverted (DropPath): E over gate patterns = full network at test time",
            np.tensordot(weights, inv_outs, axes=1), residual_stack(h0, lin, np.ones(L)),
            rtol=1e-12, atol=1e-13)

# 4. With nonlinear branches the test-time rule is only approximate (E[f(h)] != f(E[h])).
nonlin = [lambda h, A_l=A_l: np.tanh(h @ A_l) for A_l in A]
gap = np.abs(np.tensordot(weights, np.array([residual_stack(h0, nonlin, b) for b in patterns]), axes=1)
             - residual_stack(h0, nonlin, p)).max()
check_true("tanh branches: expectation and test-time net differ slightly", 1e-6 < gap < 0.5,
           f"max gap {gap:.3f}")

# 5. Sampled gates: block l is active with frequency p_l (20000 draws, 5 standard errors).
n = 20000
draws = rng.random((n, 54)) < survival_probs(54)
check_close("sampled gate frequencies = p_l (5 s.e.)", draws.mean(0), survival_probs(54),
            atol=5 * np.sqrt(0.25 / n))

fig, ax = figure("Stochastic depth: linear decay of survival (L = 54)", "residual block l",
                 r"survival probability $p_\ell$")
lg = np.arange(1, 55)
for pL in (0.5, 0.8):
    ax.plot(lg, survival_probs(54, pL),
            label=fr"$p_L = {pL}$: {survival_probs(54, pL).sum():.1f} blocks expected")
ax.axhline(1.0, color="gray", lw=0.8)
ax.set_ylim(0, 1.05)
ax.legend()
