"""Angular distance: exact 2-D angles, random hyperplanes (SimHash) simulated, triangle inequality."""

import numpy as np
import toy_corpus as tc
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def angular_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """arccos(cos(x, y)) / pi along the last axis, in [0, 1]."""
    cos = np.sum(x * y, axis=-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))
    return np.arccos(np.clip(cos, -1.0, 1.0)) / np.pi
# --- end formula ---


rng = np.random.default_rng(0)
# Exact angles in the plane: directions at angles a and b, lengths arbitrary.
a, b = rng.uniform(-np.pi, np.pi, size=(2, 50))
gap = np.abs(np.angle(np.exp(1j * (a - b))))               # wrapped |a - b| in [0, pi]
u = np.stack([np.cos(a), np.sin(a)], 1) * rng.uniform(0.1, 10, (50, 1))
v = np.stack([np.cos(b), np.sin(b)], 1) * rng.uniform(0.1, 10, (50, 1))
check_close("50 planar pairs: d = |a - b| / pi for directions at angles a, b", angular_distance(u, v),
            gap / np.pi, rtol=1e-7, atol=1e-9)
check_close("orthogonal vectors in R^6: d = 1/2", angular_distance(np.eye(6)[0], np.eye(6)[3]), 0.5,
            rtol=1e-15)

# Rounding: cos(x, x) is often computed as 1 + 2e-16; without the clip arccos would return NaN.
x = rng.normal(size=(200, 8))
check_close("d(x, x) = 0 and d(x, -x) = 1 for 200 random vectors (needs the clip to [-1, 1])",
            [angular_distance(x, x), angular_distance(x, -x)], [np.zeros(200), np.ones(200)], atol=1e-7)

# Random hyperplanes (Goemans-Williamson, Charikar): a random Gaussian direction r separates x and y,
# sign(r.x) != sign(r.y), with probability angle / pi. Simulate it on toy-corpus document pairs.
E = tc.doc_embeddings()
pairs = [(0, 1), (0, 27), (4, 29), (7, 9), (18, 19), (11, 22), (2, 24), (5, 8)]
r = rng.standard_normal((tc.EMBED_DIM, 20_000))
signs = E @ r > 0
freq = np.array([np.mean(signs[i] != signs[j]) for i, j in pairs])
exact = np.array([angular_distance(E[i], E[j]) for i, j in pairs])
check_close("8 toy-corpus pairs: fraction of 20 000 random hyperplanes that separate them",
            freq, exact, atol=4 * np.sqrt(0.25 / 20_000))

# --- in code: scipy ---
from scipy.spatial.distance import cosine as cosine_distance  # noqa: E402

# No library returns the angle itself: it is arccos of the cosine, divided by pi. The 8 pairs are at
# least 0.7 rad apart, where arccos amplifies the cosine's few-ulp error by 1 / sin(angle) < 2: 1e-12.
check_close("arccos(1 - scipy cosine(x, y)) / pi: the 8 toy-corpus pairs",
            [np.arccos(1 - cosine_distance(E[i], E[j])) / np.pi for i, j in pairs], exact, rtol=1e-12)
check_close("scipy clips its distance into [0, 2]: d(x, x) = 0 and d(x, -x) = 1 exactly, never NaN",
            [[np.arccos(1 - cosine_distance(v, v)) / np.pi for v in x],
             [np.arccos(1 - cosine_distance(v, -v)) / np.pi for v in x]], [np.zeros(200), np.ones(200)],
            atol=0)
# --- end in code ---

# --- in code: scikit-learn ---
from sklearn.metrics.pairwise import cosine_similarity  # noqa: E402

self_cos = np.diag(cosine_similarity(x))
with np.errstate(invalid="ignore"):
    unclipped = np.arccos(self_cos) / np.pi
check_true("pitfall: cosine_similarity(x, x) exceeds 1 by an ulp for some vectors, and arccos gives NaN",
           np.any(self_cos > 1) and np.any(np.isnan(unclipped)),
           f"{int(np.sum(np.isnan(unclipped)))} of 200 self-distances NaN")
# d(x, x): a computed self-cosine is within the dot product's error bound (D + 2) u = 1.1e-15 of 1 (D = 8),
# and arccos(1 - delta) / pi = sqrt(2 delta) / pi is then at most 1.5e-8: atol 2e-8.
check_close("fix: np.arccos(np.clip(cosine_similarity(X, Y), -1, 1)) / pi: the 8 pairs, then d(x, x) = 0",
            np.concatenate([[np.arccos(np.clip(cosine_similarity(E[i:i + 1], E[j:j + 1])[0, 0], -1, 1))
                             for i, j in pairs], np.arccos(np.clip(self_cos, -1, 1))]) / np.pi,
            np.concatenate([exact, np.zeros(200)]), rtol=1e-12, atol=2e-8)
# --- end in code ---

# A metric: triangle inequality on random triples, with equality for points in order on a great circle.
p, q, s = rng.normal(size=(3, 5000, 4))
slack = angular_distance(p, q) + angular_distance(q, s) - angular_distance(p, s)
check_true("triangle inequality on 5000 random triples in R^4", np.all(slack >= -1e-12),
           f"smallest slack {slack.min():.2e}")
t1, t2 = 0.4, 1.3
ring = np.array([[np.cos(t), np.sin(t), 0.0] for t in (0.0, t1, t1 + t2)])
check_close("three points in order on a great circle: d(p, s) = d(p, q) + d(q, s)",
            angular_distance(ring[0], ring[2]), angular_distance(ring[0], ring[1]) +
            angular_distance(ring[1], ring[2]), rtol=1e-12)
# ... whereas the cosine distance 1 - cos is not a metric.
e0, e1 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
mid = (e0 + e1) / np.sqrt(2)
cos_dist = {k: 1 - np.dot(*pair) for k, pair in {"ac": (e0, e1), "ab": (e0, mid), "bc": (mid, e1)}.items()}
check_true("1 - cos violates the triangle inequality at 0, 45 and 90 degrees; the angle does not",
           cos_dist["ac"] > cos_dist["ab"] + cos_dist["bc"]
           and angular_distance(e0, e1) <= angular_distance(e0, mid) + angular_distance(mid, e1) + 1e-15,
           f"1 - cos: {cos_dist['ac']:.3f} > {cos_dist['ab'] + cos_dist['bc']:.3f}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

X = torch.tensor(x)
torch_self = F.cosine_similarity(X, X, dim=-1)
check_true("pitfall: F.cosine_similarity(x, x) also exceeds 1 by an ulp, and torch.arccos gives NaN",
           bool(torch.isnan(torch.arccos(torch_self)).any()),
           f"{int(torch.isnan(torch.arccos(torch_self)).sum())} of 200 self-distances NaN")
first, second = torch.tensor(E[[i for i, _ in pairs]]), torch.tensor(E[[j for _, j in pairs]])
pair_cos = F.cosine_similarity(first, second, dim=-1)
# As for scikit-learn: the self-cosine is within 1.1e-15 of 1, so d(x, x) <= 1.5e-8: atol 2e-8.
check_close("fix: torch.arccos(F.cosine_similarity(x, y, dim=-1).clamp(-1, 1)) / pi: 8 pairs, then d(x, x)",
            torch.arccos(torch.cat([pair_cos, torch_self]).clamp(-1, 1)).numpy() / np.pi,
            np.concatenate([exact, np.zeros(200)]), rtol=1e-12, atol=2e-8)
# --- end in code ---

fig, ax = figure("Random hyperplanes separate a pair with probability θ/π",
                 "angular distance  arccos(cos) / π", "fraction of hyperplanes separating the pair")
iu = np.triu_indices(len(E), 1)
all_d = angular_distance(E[:, None, :], E[None, :, :])[iu]
sep = (signs[:, None, :2000] != signs[None, :, :2000]).mean(axis=2)[iu]
ax.plot([0, 0.6], [0, 0.6], color="gray", linewidth=1, label="y = x")
ax.scatter(all_d, sep, s=8, label="toy-corpus pairs, 2000 hyperplanes")
ax.legend(fontsize=8)
