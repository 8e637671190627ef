"""JS divergence: checked against scipy jensenshannon squared, the entropy form, symmetry, log 2 bound."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy


# --- formula ---
def kl(p: np.ndarray, q: np.ndarray) -> float:
    support = p > 0
    return float(np.sum(p[support] * np.log(p[support] / q[support])))


def js_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """D_JS(P || Q) in nats: half the KL of each distribution to their midpoint M."""
    m = 0.5 * (p + q)
    return 0.5 * kl(p, m) + 0.5 * kl(q, m)
# --- end formula ---


rng = np.random.default_rng(0)
p = rng.dirichlet(np.ones(10))
q = rng.dirichlet(np.ones(10))

# scipy returns the Jensen-Shannon *distance*, the square root of the divergence, in nats by default.
check_close("JS vs scipy jensenshannon(p, q)**2", js_divergence(p, q), jensenshannon(p, q) ** 2)
m = 0.5 * (p + q)
check_close("JS = H(M) - (H(P) + H(Q)) / 2", js_divergence(p, q),
            entropy(m) - 0.5 * (entropy(p) + entropy(q)))
check_close("in bits: JS / ln 2 vs scipy jensenshannon(p, q, base=2)**2", js_divergence(p, q) / np.log(2),
            jensenshannon(p, q, base=2) ** 2)
check_close("symmetry: JS(P||Q) = JS(Q||P)", js_divergence(p, q), js_divergence(q, p))

disjoint_p = np.array([0.3, 0.7, 0.0, 0.0])
disjoint_q = np.array([0.0, 0.0, 0.6, 0.4])
check_close("disjoint supports reach the bound log 2 (KL would be infinite)",
            js_divergence(disjoint_p, disjoint_q), np.log(2))
pairs = rng.dirichlet(0.3 * np.ones(6), size=(2000, 2))
values = np.array([js_divergence(a, b) for a, b in pairs])
check_true("0 <= JS <= log 2 on 2000 random pairs", values.min() >= 0 and values.max() <= np.log(2),
           f"range [{values.min():.4f}, {values.max():.4f}], log 2 = {np.log(2):.4f}")
# sqrt(JS) is a metric (Endres & Schindelin 2003): triangle inequality on random triples.
triples = rng.dirichlet(0.5 * np.ones(6), size=(2000, 3))
def d(a, b):
    return np.sqrt(js_divergence(a, b))


slack = min(d(a, c) + d(c, b) - d(a, b) for a, b, c in triples)
check_true("sqrt(JS) obeys the triangle inequality on 2000 triples", slack >= -1e-12,
           f"smallest slack {slack:.2e}")

# --- in code: scipy ---
# scipy.spatial.distance.jensenshannon returns the Jensen-Shannon distance, the square root of the
# card's divergence, in nats. Sums of 10 float64 terms and one sqrt: 1e-12.
check_close("jensenshannon(P, Q)**2 = JS(P || Q) in nats", jensenshannon(p, q) ** 2, js_divergence(p, q),
            rtol=1e-12)
check_close("pitfall: unsquared, jensenshannon(P, Q) is the distance sqrt(JS)", jensenshannon(p, q),
            np.sqrt(js_divergence(p, q)), rtol=1e-12)
check_close("pitfall: it divides each argument by its sum, so 5P gives JS(P || Q) too",
            jensenshannon(5 * p, q) ** 2, js_divergence(p, q), rtol=1e-12)
# --- end in code ---

# A coin that always lands heads against Bern(b): KL grows without bound as b -> 0,
# while JS approaches its ceiling log 2 as the supports become disjoint.
b = np.linspace(0.001, 1.0, 500)
always_heads = np.array([1.0, 0.0])
fig, ax = figure("JS stays bounded where KL does not", "model probability of heads  b", "nats")
js_curve = [js_divergence(always_heads, np.array([bi, 1 - bi])) for bi in b]
kl_curve = [kl(always_heads, np.array([bi, 1 - bi])) for bi in b]
ax.plot(b, kl_curve, label="$D_{KL}$(always heads $\\Vert$ Bern(b)) $= -\\log b$")
ax.plot(b, js_curve, label="$D_{JS}$(always heads, Bern(b))")
ax.axhline(np.log(2), color="gray", linestyle=":", label="log 2")
ax.set_ylim(0, 2.5)
ax.legend()
