"""QK-norm: LayerNorm (or RMSNorm) of each head's queries and keys before the dot product, against a
per-entry loop with scipy's zscore; the logit bound sqrt(d_h) max|gamma_q gamma_k| held on random and
blown-up inputs and reached by a constructed pair; the L2 form g cos(q, k) against scikit-learn."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as sp_softmax
from scipy.stats import zscore
from sklearn.metrics.pairwise import cosine_similarity


# --- formula ---
def normalize(x, gain, centre=True, eps=1e-6):
    """LayerNorm (centre=True) or RMSNorm (centre=False) over the last axis, with a gain and no bias."""
    if centre:
        x = x - x.mean(axis=-1, keepdims=True)
    return gain * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)


def qk_norm_logits(q, k, gain_q, gain_k, centre=True):
    """LN(q) LN(k)^T / sqrt(d_h) for one head: q is (T_q, d_h), k is (T_k, d_h)."""
    return normalize(q, gain_q, centre) @ normalize(k, gain_k, centre).T / np.sqrt(len(gain_q))


def logit_bound(gain_q, gain_k):
    """No logit can exceed sqrt(d_h) max_i |gamma_q,i gamma_k,i| in size, whatever q and k are."""
    return np.sqrt(len(gain_q)) * np.max(np.abs(gain_q * gain_k))


def qk_norm_attention(x, w_q, w_k, w_v, gain_q, gain_k, n_heads, centre=True):
    """Multi-head self-attention with each head's queries and keys normalized over the head's width."""
    d_h = w_q.shape[1] // n_heads
    out = []
    for i in range(n_heads):
        cols = slice(i * d_h, (i + 1) * d_h)
        s = qk_norm_logits(x @ w_q[:, cols], x @ w_k[:, cols], gain_q, gain_k, centre)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(w / w.sum(axis=1, keepdims=True) @ (x @ w_v[:, cols]))
    return np.concatenate(out, axis=1)


def qknorm_l2_logits(q, k, g):
    """Henry et al.'s QKNorm: g times the cosine similarity of each query and key."""
    q_hat = q / np.linalg.norm(q, axis=-1, keepdims=True)
    k_hat = k / np.linalg.norm(k, axis=-1, keepdims=True)
    return g * q_hat @ k_hat.T
# --- end formula ---


rng = np.random.default_rng(0)
T, d, H, d_h = 7, 24, 3, 8
x = rng.normal(size=(T, d))
w_q, w_k, w_v = rng.normal(size=(3, d, H * d_h)) / np.sqrt(d)
gain_q, gain_k = rng.uniform(0.5, 1.5, (2, d_h))


def entry_reference(x, w_q, w_k, w_v, gq, gk, centre):
    """Every logit as its own sum: zscore (population std) for LayerNorm, the root mean square for
    RMSNorm, both with eps folded in as the snippet's norm does; scipy's softmax per row."""
    out = np.zeros((T, H * d_h))
    for i in range(H):
        cols = slice(i * d_h, (i + 1) * d_h)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]

        def norm(r, g):
            if centre:
                return g * zscore(r) * np.std(r) / np.sqrt(np.var(r) + 1e-6)
            return g * r / np.sqrt(sum(c * c for c in r) / len(r) + 1e-6)
        for t in range(T):
            logits = [sum(a * b for a, b in zip(norm(q[t], gq), norm(k[j], gk), strict=True)) / np.sqrt(d_h)
                      for j in range(T)]
            out[t, cols] = sp_softmax(logits) @ v
    return out


# Sums of d_h products and a softmax over T, taken in another order: a few ulps, so 1e-12 is ample.
for centre, name in ((True, "LayerNorm"), (False, "RMSNorm")):
    check_close(f"QK-norm attention ({name}) = entry-by-entry loop with scipy",
                qk_norm_attention(x, w_q, w_k, w_v, gain_q, gain_k, H, centre),
                entry_reference(x, w_q, w_k, w_v, gain_q, gain_k, centre), rtol=1e-12, atol=1e-14)

# Gains of 40 allow logits in the thousands: the row-max shift must keep exp finite.
g40 = np.full(d_h, 40.0)
span = np.ptp(qk_norm_logits(x @ w_q[:, :d_h], x @ w_k[:, :d_h], g40, g40))
check_close(f"gains 40 (head 0's logits spanning {span:.0f}): still equals the loop",
            qk_norm_attention(x, w_q, w_k, w_v, g40, g40, H),
            entry_reference(x, w_q, w_k, w_v, g40, g40, True), rtol=1e-9, atol=1e-9)
# (Logits of size S carry rounding errors of about S * eps, 1e-12 here, which move the weights by as much.)

# The bound. Random queries and keys, then the same with W^Q and W^K blown up 10^4 times (the logit
# growth that made ViT-22B diverge): without the norm the logits grow 10^8-fold, with it they stay under
# sqrt(d_h) max|gamma_q gamma_k|, which they nearly reach for aligned queries and keys.
bound = logit_bound(gain_q, gain_k)
check_close("bound by hand: sqrt(8) x max_i |gamma_q,i gamma_k,i|", bound,
            np.sqrt(8) * max(abs(a * b) for a, b in zip(gain_q, gain_k, strict=True)), rtol=1e-15)
signed = np.array([0.5, -2.0, 1.0, 0.3, -0.1, 1.2, 0.9, 1.1])
check_close("bound with signed gains: the largest |gamma_q,i gamma_k,i| is (-2)(1.5) -> 3 sqrt(8)",
            logit_bound(signed, np.full(8, 1.5)), 3 * np.sqrt(8), rtol=1e-15)
q_big, k_big = 1e4 * (x @ w_q[:, :d_h]), 1e4 * (x @ w_k[:, :d_h])
for centre, name in ((True, "LayerNorm"), (False, "RMSNorm")):
    worst = np.max(np.abs(qk_norm_logits(q_big, k_big, gain_q, gain_k, centre)))
    check_true(f"{name}: inputs x 1e4, every logit within the bound", worst <= bound,
               f"{worst:.3f} <= {bound:.3f}")
raw = np.max(np.abs(q_big @ k_big.T / np.sqrt(d_h)))
check_true("without QK-norm the same inputs give logits above 1e7", raw > 1e7, f"{raw:.2e}")

# Reaching the bound: z = (+1, -1, ...) has mean 0 and unit variance, so LN(a z + b) = gamma z for any
# a > 0 and offset b. With equal gains c the logit of two such vectors is
# c^2 |z|^2 / sqrt(d_h) = c^2 sqrt(d_h).
z = np.tile([1.0, -1.0], d_h // 2)
c = np.full(d_h, 1.3)
# rtol 1e-6: eps = 1e-6 against variances of 49 and 9 shrinks each normalized vector by under 1e-7.
check_close("aligned +-1 query and key, gains 1.3: logit = 1.3^2 sqrt(d_h) = the bound",
            qk_norm_logits(7.0 * z[None], 3.0 * z[None] + 5.0, c, c)[0, 0], logit_bound(c, c), rtol=1e-6)
check_close("...and = 1.69 sqrt(8) by hand", logit_bound(c, c), 1.69 * np.sqrt(8), rtol=1e-15)
check_close("...and the opposite key gives minus the bound",
            qk_norm_logits(7.0 * z[None], -3.0 * z[None], c, c)[0, 0], -1.69 * np.sqrt(d_h), rtol=1e-6)
check_true("LayerNorm removes a constant offset of the key; RMSNorm does not",
           abs(qk_norm_logits(z[None], z[None] + 5.0, c, c, centre=False)[0, 0] - 1.69 * np.sqrt(d_h)) > 1.0)

# Scale invariance: multiplying W^Q and W^K by any positive factor leaves QK-norm attention unchanged
# (up to eps), while plain attention collapses onto one key per query.
# Only eps = 1e-6 tells the two apart: it shrinks each normalized row by at most eps / (2 var) of the row,
# so every logit moves by at most bound * eps / var_min, and each output (a convex mix of values, whose
# weights move by at most twice the logit shift) by 2 * that * max|v|.
big = qk_norm_attention(x, 300 * w_q, 300 * w_k, w_v, gain_q, gain_k, H)
var_min = min(np.min(np.var(x @ w, axis=1)) for w in np.split(np.hstack([w_q, w_k]), 2 * H, axis=1))
tol = 2 * bound * 1e-6 / var_min * np.max(np.abs(x @ w_v))
check_close(f"W^Q, W^K x 300: attention unchanged (to the eps effect, {tol:.1e})", big,
            qk_norm_attention(x, w_q, w_k, w_v, gain_q, gain_k, H), rtol=0, atol=tol)

# Henry et al.'s L2 form: g times the cosine similarity, so |logit| <= g.
qa, ka = x @ w_q[:, :d_h], x @ w_k[:, :d_h]
check_close("QKNorm (L2): g q_hat k_hat^T = g x scikit-learn cosine similarity",
            qknorm_l2_logits(qa, ka, 4.5), 4.5 * cosine_similarity(qa, ka), rtol=1e-12, atol=1e-14)
check_close("QKNorm (L2): a query against itself scores exactly g",
            qknorm_l2_logits(qa[:1], 3e5 * qa[:1], 4.5), [[4.5]], rtol=1e-14)
check_true("QKNorm (L2): every logit within [-g, g]", bool(np.all(np.abs(qknorm_l2_logits(q_big, -k_big, 4.5))
                                                                  <= 4.5 * (1 + 1e-15))))

scales = np.logspace(-1, 3, 40)
ent_plain, ent_norm = [], []
for s in scales:
    q_s, k_s = s * (x @ w_q[:, :d_h]), s * (x @ w_k[:, :d_h])
    p_plain = sp_softmax(q_s @ k_s.T / np.sqrt(d_h), axis=1)
    p_norm = sp_softmax(qk_norm_logits(q_s, k_s, gain_q, gain_k), axis=1)
    ent_plain.append(np.mean(-np.sum(p_plain * np.log(p_plain + 1e-300), axis=1)))
    ent_norm.append(np.mean(-np.sum(p_norm * np.log(p_norm + 1e-300), axis=1)))
# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def torch_heads(w):
    """x W as [H, T, d_h], the layout scaled_dot_product_attention takes."""
    return torch.tensor((x @ w).reshape(T, H, d_h).transpose(1, 0, 2))


def torch_merge(heads):
    return heads.numpy().transpose(1, 0, 2).reshape(T, H * d_h)


tq, tk, tv = torch_heads(w_q), torch_heads(w_k), torch_heads(w_v)
tgq, tgk = torch.tensor(gain_q), torch.tensor(gain_k)
# Sums of d_h products, a square root and a softmax over T: a few ulps, the 1e-12 of the loop check.
check_close("sdpa(F.layer_norm(Q, (d_h,), gamma_q, eps=1e-6), F.layer_norm(K, ...), V) = QK-norm (LayerNorm)",
            torch_merge(F.scaled_dot_product_attention(F.layer_norm(tq, (d_h,), tgq, eps=1e-6),
                                                       F.layer_norm(tk, (d_h,), tgk, eps=1e-6), tv)),
            qk_norm_attention(x, w_q, w_k, w_v, gain_q, gain_k, H), rtol=1e-12, atol=1e-14)
check_close("sdpa(F.rms_norm(Q, (d_h,), gamma_q, eps=1e-6), F.rms_norm(K, ...), V) = QK-norm (RMSNorm)",
            torch_merge(F.scaled_dot_product_attention(F.rms_norm(tq, (d_h,), tgq, eps=1e-6),
                                                       F.rms_norm(tk, (d_h,), tgk, eps=1e-6), tv)),
            qk_norm_attention(x, w_q, w_k, w_v, gain_q, gain_k, H, centre=False), rtol=1e-12, atol=1e-14)
# The modules' defaults: nn.LayerNorm's eps is 1e-5, nn.RMSNorm's the dtype's machine epsilon.
ln_q = torch.nn.LayerNorm(d_h, bias=False, dtype=torch.float64)
rms_q = torch.nn.RMSNorm(d_h, dtype=torch.float64)
with torch.no_grad():
    ln_q.weight.copy_(tgq)
    rms_q.weight.copy_(tgq)
q_head = x @ w_q[:, :d_h]
check_close("pitfall: nn.LayerNorm(d_h) has eps = 1e-5, not 1e-6",
            ln_q(torch.tensor(q_head)).detach().numpy(), normalize(q_head, gain_q, eps=1e-5), rtol=1e-12)
check_close("pitfall: nn.RMSNorm(d_h) has eps = machine epsilon (2.2e-16 in float64), not 1e-6",
            rms_q(torch.tensor(q_head)).detach().numpy(),
            normalize(q_head, gain_q, centre=False, eps=np.finfo(float).eps), rtol=1e-12)
# Henry et al.'s QKNorm through sdpa: unit vectors (F.normalize, p=2 by default), with scale=g in
# place of 1/sqrt(d_h). Values = the identity read out the weights.
qn, kn = F.normalize(torch.tensor(qa), dim=-1), F.normalize(torch.tensor(ka), dim=-1)
eye_t = torch.eye(T, dtype=torch.float64)
check_close("sdpa(F.normalize(q), F.normalize(k), V, scale=g) = softmax(g q_hat k_hat^T) V (QKNorm, L2)",
            F.scaled_dot_product_attention(qn, kn, eye_t, scale=4.5).numpy(),
            sp_softmax(qknorm_l2_logits(qa, ka, 4.5), axis=1), rtol=1e-12, atol=1e-14)
check_close("pitfall: without scale=, sdpa still divides by sqrt(d_h): logits g / sqrt(d_h) times the cosine",
            F.scaled_dot_product_attention(qn, kn, eye_t).numpy(),
            sp_softmax(qknorm_l2_logits(qa, ka, 1 / np.sqrt(d_h)), axis=1), rtol=1e-12, atol=1e-14)
# --- end in code ---

fig, ax = figure("Attention entropy as query/key weights grow", "scale of W^Q and W^K", "mean entropy (nats)")
ax.semilogx(scales, ent_plain, label="plain dot product")
ax.semilogx(scales, ent_norm, "--", label="with QK-norm (LayerNorm)")
ax.axhline(np.log(T), color="grey", lw=0.8, ls=":", label="uniform, log T")
ax.legend(fontsize=8)
