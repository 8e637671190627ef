"""Reformer LSH attention: the angular hash argmax([xR; -xR]) (labels, symmetry, collision
probability vs angle by simulation) and sort-by-bucket attention vs dense masked attention."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax
from scipy.stats import special_ortho_group


# --- formula ---
def lsh_hash(x, rotation):
    """h(x) = argmax([x R ; -x R]): b = 2 * (columns of R) buckets, one per signed projection axis."""
    proj = x @ rotation
    return np.argmax(np.concatenate([proj, -proj], axis=-1), axis=-1)


def lsh_attention(q, k, v, bucket_q, bucket_k, exclude_self=False):
    """Sort positions by bucket and attend only within each bucket. With exclude_self (shared-QK
    attention), position i may not attend to itself unless it is alone in its bucket."""
    out = np.empty((q.shape[0], v.shape[1]))          # every row is written by exactly one group
    order = np.argsort(bucket_q, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(bucket_q[order])) + 1)
    for rows in groups:
        cols = np.flatnonzero(bucket_k == bucket_q[rows[0]])
        scores = q[rows] @ k[cols].T / np.sqrt(q.shape[1])
        if exclude_self and cols.size > 1:
            scores = np.where(rows[:, None] == cols[None, :], -np.inf, scores)
        scores = scores - scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        out[rows] = (p / p.sum(axis=1, keepdims=True)) @ v[cols]
    return out
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Labels: with an orthogonal R (d = b/2), the direction of column c hashes to bucket c and its
#    opposite to bucket c + b/2; the hash ignores the length of x.
d = 4
R = special_ortho_group.rvs(d, random_state=1)
check_true("h(R[:, c]) = c", lsh_hash(R.T, R).tolist() == [0, 1, 2, 3])
check_true("h(-R[:, c]) = c + b/2", lsh_hash(-R.T, R).tolist() == [4, 5, 6, 7])
x = rng.normal(size=(50, d))
check_true("h(3.7 x) = h(x) (angular: only the direction matters)",
           np.array_equal(lsh_hash(3.7 * x, R), lsh_hash(x, R)))
check_true("h(-x) = h(x) + b/2 mod b", np.array_equal(lsh_hash(-x, R), (lsh_hash(x, R) + 4) % 8))
heads = rng.normal(size=(2, 50, d))
check_true("batched over heads: same as hashing each head separately",
           np.array_equal(lsh_hash(heads, R), np.stack([lsh_hash(h, R) for h in heads])))


def pair_at_angle(theta, dim):
    """Two unit vectors at angle theta in a random plane."""
    a, b = np.linalg.qr(rng.normal(size=(dim, 2)))[0].T
    return a, np.cos(theta) * a + np.sin(theta) * b


# 2. b = 2 is random-hyperplane hashing: P[h(x) = h(y)] = 1 - theta/pi (Charikar), any d.
n_sim = 20000
for theta in (np.pi / 6, np.pi / 2, 5 * np.pi / 6):
    u, w = pair_at_angle(theta, 8)
    Rs = rng.normal(size=(n_sim, 8, 1))
    p_hat = np.mean(lsh_hash(u[None, None, :], Rs)[:, 0] == lsh_hash(w[None, None, :], Rs)[:, 0])
    p = 1 - theta / np.pi
    check_true(f"b = 2, angle {np.degrees(theta):.0f} deg: collision rate within 4 SE of 1 - theta/pi",
               abs(p_hat - p) < 4 * np.sqrt(p * (1 - p) / n_sim), f"{p_hat:.4f} vs {p:.4f}")

# 3. b = 4 in the plane with uniformly random rotations: four 90-degree cones, so
#    P = 1 - theta/(pi/2) for theta < pi/2 and exactly 0 beyond.
rots = special_ortho_group.rvs(2, size=n_sim, random_state=2)
for theta in (np.pi / 6, np.pi / 3, 2 * np.pi / 3):
    u = np.array([1.0, 0.0])
    w = np.array([np.cos(theta), np.sin(theta)])
    same = lsh_hash(u[None, None, :], rots)[:, 0] == lsh_hash(w[None, None, :], rots)[:, 0]
    p = max(0.0, 1 - theta / (np.pi / 2))
    check_true(f"b = 4, d = 2, angle {np.degrees(theta):.0f} deg: rate within 4 SE of {p:.3f}",
               abs(same.mean() - p) <= 4 * np.sqrt(p * (1 - p) / n_sim), f"{same.mean():.4f}")

# 4. Bucketed attention equals dense attention with the mask [h(q_i) = h(k_j)]. Position i's
#    query and key share the bucket of its hidden state x_i, so no bucket is without keys.
n, dk, dv, b = 40, 8, 3, 8
X = rng.normal(size=(n, dk))
Q, K, V = X @ rng.normal(size=(dk, dk)), X @ rng.normal(size=(dk, dk)), rng.normal(size=(n, dv))
Rb = rng.normal(size=(dk, b // 2))
hq = hk = lsh_hash(X, Rb)
mask = hq[:, None] == hk[None, :]
dense = scipy_softmax(np.where(mask, Q @ K.T / np.sqrt(dk), -np.inf), axis=1) @ V
check_close("sort-by-bucket attention vs dense masked attention", lsh_attention(Q, K, V, hq, hk),
            dense, rtol=1e-12, atol=1e-14)
check_true(f"queries use {mask.sum(axis=1).mean():.1f} of {n} keys on average", mask.sum() < n * n)
check_close("one bucket for everything = full softmax attention",
            lsh_attention(Q, K, V, np.zeros(n, int), np.zeros(n, int)),
            scipy_softmax(Q @ K.T / np.sqrt(dk), axis=1) @ V, rtol=1e-12, atol=1e-14)
Qw = 25.0 * Q
dense_w = scipy_softmax(np.where(mask, Qw @ K.T / np.sqrt(dk), -np.inf), axis=1) @ V
span = np.ptp((Qw @ K.T / np.sqrt(dk))[mask])
check_close(f"scores spanning {span:.0f}: bucketed vs dense", lsh_attention(Qw, K, V, hq, hk), dense_w,
            rtol=1e-12, atol=1e-14)

# 5. Shared-QK attention: keys are the normalized queries, so q_i lands in its own bucket; a
#    position attends to itself only when its bucket holds nothing else.
R16 = rng.normal(size=(dk, 8))                                  # b = 16 buckets: some hold one token
Kn = X / np.linalg.norm(X, axis=1, keepdims=True)
hx = lsh_hash(X, R16)
check_true("shared-QK: h(k_i) = h(q_i) for every i", np.array_equal(lsh_hash(Kn, R16), hx))
allowed = (hx[:, None] == hx[None, :]) & ~np.eye(n, dtype=bool)
allowed[~allowed.any(axis=1)] = np.eye(n, dtype=bool)[~allowed.any(axis=1)]
ref = scipy_softmax(np.where(allowed, X @ Kn.T / np.sqrt(dk), -np.inf), axis=1) @ V
check_close("shared-QK bucketed attention (self excluded unless alone) vs dense mask",
            lsh_attention(X, Kn, V, hx, hx, exclude_self=True), ref, rtol=1e-12, atol=1e-14)
lone = np.flatnonzero(np.bincount(hx)[hx] == 1)
check_true("a position alone in its bucket returns its own value", len(lone) > 0 and np.allclose(
    lsh_attention(X, Kn, V, hx, hx, exclude_self=True)[lone], V[lone], rtol=1e-13),
    f"{len(lone)} lone positions")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# The hash in torch: argmax over [x R, -x R]; then attention under the mask "same bucket", a boolean
# attn_mask that is True where a query may attend.
proj = torch.tensor(X) @ torch.tensor(Rb)
h_t = torch.argmax(torch.cat([proj, -proj], dim=-1), dim=-1)
check_true("torch.argmax(torch.cat([x R, -x R], -1), -1) = h(x)", np.array_equal(h_t.numpy(), hq))
same_bucket = h_t[:, None] == h_t[None, :]
# Width-8 dot products and softmaxes over at most 40 keys, a few ulps: the 1e-12 of the checks above.
check_close("sdpa(Q, K, V, attn_mask=[h(q_i) = h(k_j)]) = LSH attention (computing every score)",
            F.scaled_dot_product_attention(torch.tensor(Q), torch.tensor(K), torch.tensor(V),
                                           attn_mask=same_bucket).numpy(),
            lsh_attention(Q, K, V, hq, hk), rtol=1e-12, atol=1e-14)
# Shared-QK: "same bucket and not itself" leaves a position alone in its bucket with no key at all,
# and sdpa returns a row of zeros for it, where Reformer lets it attend to itself.
not_self = torch.tensor((hx[:, None] == hx[None, :]) & ~np.eye(n, dtype=bool))
empty_rows = F.scaled_dot_product_attention(torch.tensor(X), torch.tensor(Kn), torch.tensor(V),
                                            attn_mask=not_self).numpy()
check_close(f"pitfall: with self masked, the {len(lone)} lone positions get zeros, not their own value",
            empty_rows[lone], np.zeros((len(lone), dv)), rtol=0, atol=0)
check_close("fix: let a position with no other key attend to itself (the card's rule)",
            F.scaled_dot_product_attention(torch.tensor(X), torch.tensor(Kn), torch.tensor(V),
                                           attn_mask=torch.tensor(allowed)).numpy(),
            lsh_attention(X, Kn, V, hx, hx, exclude_self=True), rtol=1e-12, atol=1e-14)
# --- end in code ---

# Figure: collision probability against angle for several bucket counts (d = 64).
angles = np.linspace(0, np.pi, 13)
fig, ax = figure("Angular LSH: probability that two vectors share a bucket", "angle between x and y (deg)",
                 "P[h(x) = h(y)]")
for nb in (2, 4, 8, 16):
    Rs = rng.normal(size=(2000, 64, nb // 2))
    rates = []
    for theta in angles:
        u, w = pair_at_angle(theta, 64)
        rates.append(np.mean(lsh_hash(u[None, None, :], Rs) == lsh_hash(w[None, None, :], Rs)))
    ax.plot(np.degrees(angles), rates, "o-", ms=3, label=f"b = {nb}")
ax.plot(np.degrees(angles), 1 - angles / np.pi, "k:", label=r"$1 - \theta/\pi$ (b = 2 theory)")
ax.legend()
