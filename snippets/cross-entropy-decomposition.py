"""H(P,Q) = H(P) + KL(P||Q): checked against scipy, equal gradients, and the wrong-code bound."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import rel_entr, softmax
from scipy.stats import entropy as scipy_entropy


# --- formula ---
def cross_entropy(p: np.ndarray, q: np.ndarray) -> float:
    s = p > 0
    return float(-np.sum(p[s] * np.log(q[s])))


def entropy(p: np.ndarray) -> float:
    s = p > 0
    return float(-np.sum(p[s] * np.log(p[s])))


def kl(p: np.ndarray, q: np.ndarray) -> float:
    s = p > 0
    return float(np.sum(p[s] * np.log(p[s] / q[s])))
# --- end formula ---


rng = np.random.default_rng(0)
V = 8
p = rng.dirichlet(np.ones(V))
qs = rng.dirichlet(np.ones(V), size=200)

check_close("H(P,Q) summed directly vs scipy entropy(p) + rel_entr(p, q).sum(), 200 models Q",
            [cross_entropy(p, q) for q in qs],
            [scipy_entropy(p) + rel_entr(p, q).sum() for q in qs], rtol=1e-12)
check_close("H(P,Q) - D_KL(P||Q) is the same for 200 models Q and equals scipy's H(P)",
            [cross_entropy(p, q) - kl(p, q) for q in qs], np.full(len(qs), scipy_entropy(p)),
            rtol=1e-12)

p_sparse = np.array([0.0, 0.4, 0.0, 0.25, 0.35, 0.0, 0.0, 0.0])  # outcomes P never produces count 0
check_close("P with zeros: H(P,Q), H(P), KL(P||Q) vs scipy (entropy, rel_entr), 200 models Q",
            [[cross_entropy(p_sparse, q), entropy(p_sparse), kl(p_sparse, q)] for q in qs],
            [[scipy_entropy(p_sparse) + rel_entr(p_sparse, q).sum(), scipy_entropy(p_sparse),
              rel_entr(p_sparse, q).sum()] for q in qs], rtol=1e-12)

# Because H(P) does not depend on the model, cross-entropy and KL have the same gradient in the
# model's logits (both equal softmax(z) - P): training on either is the same optimisation.
z = rng.normal(size=V)
eps = 1e-6
grad = lambda f: np.array([(f(softmax(z + eps * e)) - f(softmax(z - eps * e))) / (2 * eps)  # noqa: E731
                           for e in np.eye(V)])
g_ce, g_kl = grad(lambda q: cross_entropy(p, q)), grad(lambda q: kl(p, q))
check_close("d H(P,Q)/dz = d D_KL(P||Q)/dz (central differences)", g_ce, g_kl, rtol=1e-6, atol=1e-9)
check_close("... and both equal softmax(z) - P", g_ce, softmax(z) - p, rtol=1e-6, atol=1e-9)

# Wrong-code theorem (Cover & Thomas, Thm 5.4.3): code lengths ceil(log2 1/Q(x)) used on data
# from P have expected length between H(P) + D_KL(P||Q) and that plus one bit.
bits = np.log(2)
ok = True
for q in qs:
    lengths = np.ceil(-np.log2(q))
    expected_length = float(p @ lengths)
    bound = (entropy(p) + kl(p, q)) / bits
    ok &= bound <= expected_length < bound + 1
check_true("H(P) + D_KL <= E_P[ceil(log2 1/Q)] < H(P) + D_KL + 1 bit for 200 models Q", ok)

# The loss floor: move Q from uniform towards P and watch only the KL part shrink.
peaked = rng.dirichlet(np.full(V, 0.3))
lams = np.linspace(0, 1, 6)
h = entropy(peaked)
kls = [kl(peaked, (1 - lam) * np.full(V, 1 / V) + lam * peaked) for lam in lams]
fig, ax = figure("Cross-entropy = entropy + KL as the model Q approaches P",
                 "mixing weight λ in Q = (1 − λ)·uniform + λ·P", "nats")
ax.bar(lams, np.full(len(lams), h), width=0.12, label="H(P): irreducible", color="tab:blue")
ax.bar(lams, kls, width=0.12, bottom=h, label="$D_{KL}$(P‖Q): reducible", color="tab:orange")
ax.set_ylim(0, 1.3 * (h + kls[0]))
ax.legend(loc="upper right")
