"""Router z-loss: against scipy.special.logsumexp on logits spanning thousands, its gradient
(2/B) lse softmax against finite differences, and the default coefficient c_z = 1e-3."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp, softmax


# --- formula ---
def router_z_loss(logits):
    """L_z = (1/B) sum_i (log sum_j exp(x_ij))^2, with a max-shifted log-sum-exp."""
    m = np.max(logits, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(logits - m), axis=1))
    return np.mean(lse**2)


def router_loss_term(logits, c_z=1e-3):
    """The term added to the training loss: c_z * L_z (ST-MoE uses c_z = 0.001)."""
    return c_z * router_z_loss(logits)
# --- end formula ---


rng = np.random.default_rng(0)
B, N = 32, 8
x = rng.normal(size=(B, N)) * 3 + rng.normal(size=(B, 1))

# 1. Against scipy on ordinary logits and on logits spanning thousands (where exp overflows unshifted).
check_close("L_z == mean(logsumexp^2) (scipy)",
            router_z_loss(x), np.mean(logsumexp(x, axis=1) ** 2), rtol=1e-13)
wide = x * 400.0 - 1500.0
check_true("wide logits span > 1000", np.ptp(wide) > 1000)
check_close("wide logits: L_z == scipy logsumexp", router_z_loss(wide), np.mean(logsumexp(wide, axis=1) ** 2),
            rtol=1e-13)

# 2. Gradient: d L_z / d x_ij = (2/B) lse_i softmax_ij, against central finite differences.
lse = logsumexp(x, axis=1)
grad = 2 / B * lse[:, None] * softmax(x, axis=1)
h = 1e-4
fd = np.zeros_like(x)
for i in (0, 7, 19):
    for j in range(N):
        e = np.zeros_like(x)
        e[i, j] = h
        fd[i, j] = (router_z_loss(x + e) - router_z_loss(x - e)) / (2 * h)
check_close("gradient == (2/B) lse softmax (finite differences, 3 tokens)", fd[[0, 7, 19]], grad[[0, 7, 19]],
            rtol=1e-5, atol=1e-8)

# 3. Not shift-invariant (unlike the softmax it regularizes): adding c to every logit of a token adds c to
#    its log-sum-exp. Zero logits give lse = log N, so L_z = (log N)^2.
check_close("zero logits: L_z = (log N)^2", router_z_loss(np.zeros((B, N))), np.log(N) ** 2, rtol=1e-14)
check_close("uniform logits equal to -log N give lse = 0, so L_z = 0",
            router_z_loss(np.full((B, N), -np.log(N))), 0.0, atol=1e-28)
check_close("shift by c: lse moves by c, so L_z(x + c) = mean((lse + c)^2)", router_z_loss(x + 2.5),
            np.mean((lse + 2.5) ** 2), rtol=1e-13)

# 4. The term added to the loss uses the paper's coefficient c_z = 0.001 by default.
check_close("default c_z = 1e-3 (ST-MoE)", router_loss_term(x), 1e-3 * np.mean(lse**2), rtol=1e-13)

scales = np.logspace(-1, 2, 40)
fig, ax = figure("Router z-loss grows with the scale of the logits", "logit scale s (logits = s z)",
                 r"$L_z$")
ax.loglog(scales, [router_z_loss(s * x) for s in scales])
