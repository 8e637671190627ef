"""Differential attention: the difference of two causal softmax maps against a per-query loop with
scipy's softmax, its limits (lambda = 0, equal maps), the re-parameterized lambda and the layer-wise
lambda_init against the values the paper states, and the multi-head form with its (1 - lambda_init)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as sp_softmax


# --- formula ---
def lambda_init(layer):
    """The initial lambda of layer l = 1, 2, ..., L."""
    return 0.8 - 0.6 * np.exp(-0.3 * (layer - 1))


def diff_lambda(lq1, lk1, lq2, lk2, lam_init):
    """lambda = exp(lambda_q1 . lambda_k1) - exp(lambda_q2 . lambda_k2) + lambda_init."""
    first = np.dot(lq1, lk1)  # equivalent: a dot product of two vectors, symmetric in its arguments
    second = np.dot(lq2, lk2)  # equivalent: a dot product of two vectors, symmetric in its arguments
    return np.exp(first) - np.exp(second) + lam_init


def causal_softmax(scores):
    s = np.where(np.tril(np.ones_like(scores, dtype=bool)), scores, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def diff_attn(x, w_q, w_k, w_v, lam):
    """[Q1; Q2] = X W^Q, [K1; K2] = X W^K (each half d wide), V = X W^V (2d wide)."""
    d = w_q.shape[1] // 2
    q, k = x @ w_q, x @ w_k
    a1 = causal_softmax(q[:, :d] @ k[:, :d].T / np.sqrt(d))
    a2 = causal_softmax(q[:, d:] @ k[:, d:].T / np.sqrt(d))
    return (a1 - lam * a2) @ (x @ w_v)


def multihead_diff_attn(x, heads, lam, lam_init, w_o, eps=1e-5):
    """Each head's output RMS-normalized on its own (headwise norm), scaled by 1 - lambda_init."""
    outs = []
    for w_q, w_k, w_v in heads:
        o = diff_attn(x, w_q, w_k, w_v, lam)
        outs.append((1 - lam_init) * o / np.sqrt(np.mean(o**2, axis=1, keepdims=True) + eps))
    return np.concatenate(outs, axis=1) @ w_o
# --- end formula ---


rng = np.random.default_rng(0)
T, d_model, d = 8, 16, 4

# lambda_init: 0.2 in the first layer, rising toward 0.8 with depth, the gap to 0.8 shrinking by e^-0.3
# per layer (the paper's schedule; the official code writes it with the 0-based depth l - 1).
layers = np.arange(1, 25)
li = lambda_init(layers)
check_close("lambda_init(1) = 0.8 - 0.6 = 0.2", lambda_init(1), 0.2, rtol=1e-15)
check_close("lambda_init(l) -> 0.8 deep in the network (l = 200)", lambda_init(200), 0.8, rtol=1e-15)
check_close("the gap 0.8 - lambda_init shrinks by e^-0.3 = 0.7408 per layer",
            (0.8 - li[1:]) / (0.8 - li[:-1]), np.full(23, 0.7408182206817179), rtol=1e-12)
check_true("lambda_init stays in (0, 1) and increases with depth",
           bool(np.all((li > 0) & (li < 1)) and np.all(np.diff(li) > 0)))

# The re-parameterized lambda: zero vectors give lambda_init; dot products ln 2 and 0 give
# 2 - 1 + lambda_init; swapping the two pairs mirrors lambda about lambda_init.
z = np.zeros(d)
check_close("lambda with zero vectors = lambda_init", diff_lambda(z, z, z, z, 0.35), 0.35, rtol=1e-15)
u = np.full(d, np.sqrt(np.log(2) / d))
check_close("lambda_q1 . lambda_k1 = ln 2, second pair 0: lambda = 1 + lambda_init",
            diff_lambda(u, u, z, z, 0.2), 1.2, rtol=1e-14)
lq1, lk1, lq2, lk2 = rng.normal(0, 0.1, (4, d))
check_close("swapping the pairs mirrors lambda about lambda_init",
            diff_lambda(lq1, lk1, lq2, lk2, 0.3) + diff_lambda(lq2, lk2, lq1, lk1, 0.3), 0.6, rtol=1e-14)
check_close("lambda against sums of products and math.exp",
            diff_lambda(lq1, lk1, lq2, lk2, 0.3),
            np.exp(sum(a * b for a, b in zip(lq1, lk1, strict=True)))
            - np.exp(sum(a * b for a, b in zip(lq2, lk2, strict=True))) + 0.3, rtol=1e-14)

x = rng.normal(size=(T, d_model))
w_q, w_k = rng.normal(size=(2, d_model, 2 * d)) / np.sqrt(d_model)
w_v = rng.normal(size=(d_model, 2 * d)) / np.sqrt(d_model)


def loop_reference(x, w_q, w_k, w_v, lam):
    """One query position at a time: two scipy softmaxes over the keys j <= t, then the weighted values."""
    out = np.zeros((len(x), w_v.shape[1]))
    for t in range(len(x)):
        q1, q2 = x[t] @ w_q[:, :d], x[t] @ w_q[:, d:]
        s1 = [q1 @ (x[j] @ w_k[:, :d]) / np.sqrt(d) for j in range(t + 1)]
        s2 = [q2 @ (x[j] @ w_k[:, d:]) / np.sqrt(d) for j in range(t + 1)]
        a = sp_softmax(s1) - lam * sp_softmax(s2)
        out[t] = sum(a[j] * (x[j] @ w_v) for j in range(t + 1))
    return out


lam = diff_lambda(lq1, lk1, lq2, lk2, lambda_init(3))
# Sums of a few dozen O(1) products in another order: a few ulps, so 1e-12 is ample.
check_close("DiffAttn = loop of scipy softmaxes, causal", diff_attn(x, w_q, w_k, w_v, lam),
            loop_reference(x, w_q, w_k, w_v, lam), rtol=1e-12, atol=1e-14)
span = np.ptp((25 * x) @ w_q[:, :d] @ ((25 * x) @ w_k[:, :d]).T / np.sqrt(d))
# Scores of size S carry rounding errors of about S * eps (1e-13 here), which move the weights by as much.
check_close(f"inputs x25 (scores spanning {span:.0f}): the row-max shift keeps exp finite",
            diff_attn(25 * x, w_q, w_k, w_v, lam), loop_reference(25 * x, w_q, w_k, w_v, lam), rtol=1e-9,
            atol=1e-9)

# Limits: lambda = 0 is ordinary attention with the first query/key half; equal halves give (1 - lambda)
# times ordinary attention. Each row of A1 - lambda A2 sums to 1 - lambda, so a constant value column is
# returned scaled by 1 - lambda.
first = x @ w_q[:, :d]
plain = sp_softmax(np.where(np.tril(np.ones((T, T))) > 0, first @ (x @ w_k[:, :d]).T / np.sqrt(d), -np.inf),
                   axis=1) @ (x @ w_v)
check_close("lambda = 0: softmax(Q1 K1^T / sqrt d) V", diff_attn(x, w_q, w_k, w_v, 0.0), plain, rtol=1e-12,
            atol=1e-14)
same_q = np.concatenate([w_q[:, :d], w_q[:, :d]], axis=1)
same_k = np.concatenate([w_k[:, :d], w_k[:, :d]], axis=1)
check_close("Q2 = Q1, K2 = K1: (1 - lambda) x ordinary attention", diff_attn(x, same_q, same_k, w_v, lam),
            (1 - lam) * plain, rtol=1e-12, atol=1e-14)
ones_v = np.zeros((d_model, 2 * d))
x1 = np.concatenate([np.ones((T, 1)), x[:, 1:]], axis=1)
ones_v[0] = 1.0
check_close("rows of A1 - lambda A2 sum to 1 - lambda", diff_attn(x1, w_q, w_k, ones_v, lam),
            np.full((T, 2 * d), 1 - lam), rtol=1e-12)

# Multi-head: h heads, each normalized on its own then scaled by 1 - lambda_init, concatenated, W^O.
n_heads = 2
heads = [tuple(rng.normal(size=(3, d_model, 2 * d)) / np.sqrt(d_model)) for _ in range(n_heads)]
w_o = rng.normal(size=(n_heads * 2 * d, d_model)) / np.sqrt(2 * d)
lam0 = lambda_init(3)


def multihead_reference(x, heads, lam, lam_init, w_o, eps):
    cols = []
    for hq, hk, hv in heads:
        o = loop_reference(x, hq, hk, hv, lam)
        rms = np.array([np.sqrt(np.sum(r * r) / len(r) + eps) for r in o])
        cols.append((1 - lam_init) * o / rms[:, None])
    return np.hstack(cols) @ w_o


check_close("multi-head: (1 - lambda_init) RMSNorm(head_i), concatenated, W^O, against the loop",
            multihead_diff_attn(x, heads, lam, lam0, w_o),
            multihead_reference(x, heads, lam, lam0, w_o, 1e-5), rtol=1e-11, atol=1e-13)
# eps = 1e-5 (the official RMSNorm's) matters once a head's output is that small: values scaled by 1e-3.
tiny = [(hq, hk, 1e-3 * hv) for hq, hk, hv in heads]
check_close("multi-head with outputs of size 1e-3: eps = 1e-5 counts",
            multihead_diff_attn(x, tiny, lam, lam0, w_o), multihead_reference(x, tiny, lam, lam0, w_o, 1e-5),
            rtol=1e-11, atol=1e-13)
check_true("...and the result differs from eps = 0 by more than 1%",
           np.max(np.abs(multihead_diff_attn(x, tiny, lam, lam0, w_o)
                         - multihead_reference(x, tiny, lam, lam0, w_o, 0.0))) > 1e-2
           * np.max(np.abs(multihead_reference(x, tiny, lam, lam0, w_o, 0.0))))

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def torch_diff_attn(x, w_q, w_k, w_v, lam):
    """Two causal sdpa calls on the halves of Q and K, with the full-width V; the default scale is
    1/sqrt of the query width, the half width d, as on the card."""
    q, k, v = (torch.tensor(x @ w) for w in (w_q, w_k, w_v))
    return (F.scaled_dot_product_attention(q[:, :d], k[:, :d], v, is_causal=True)
            - lam * F.scaled_dot_product_attention(q[:, d:], k[:, d:], v, is_causal=True))


def torch_multihead(heads, norm):
    """Each head through `norm`, times 1 - lambda_init, concatenated, then W^O."""
    outs = [(1 - lam0) * norm(torch_diff_attn(x, hq, hk, hv, lam)) for hq, hk, hv in heads]
    return (torch.cat(outs, dim=1) @ torch.tensor(w_o)).numpy()


# Sums of a few dozen O(1) products in another order, a few ulps: the 1e-12 and 1e-11 of the checks above.
check_close("sdpa(Q1, K1, V, is_causal=True) - lambda sdpa(Q2, K2, V, is_causal=True) = DiffAttn",
            torch_diff_attn(x, w_q, w_k, w_v, lam).numpy(), diff_attn(x, w_q, w_k, w_v, lam),
            rtol=1e-12, atol=1e-14)
check_close("headwise F.rms_norm(head, (2d,), eps=1e-5), outputs of size 1e-3 = multi-head DiffAttn",
            torch_multihead(tiny, lambda o: F.rms_norm(o, (2 * d,), eps=1e-5)),
            multihead_diff_attn(x, tiny, lam, lam0, w_o), rtol=1e-11, atol=1e-13)
# nn.RMSNorm's eps defaults to None, the dtype's machine epsilon, not the 1e-5 of the paper's code.
plain_norm = torch.nn.RMSNorm(2 * d, elementwise_affine=False, dtype=torch.float64)
check_close("pitfall: nn.RMSNorm(2d) has eps = machine epsilon (2.2e-16 in float64), not 1e-5",
            torch_multihead(tiny, plain_norm),
            multihead_diff_attn(x, tiny, lam, lam0, w_o, eps=np.finfo(float).eps),
            rtol=1e-11, atol=1e-13)
# --- end in code ---

# The last query's two maps and their difference: the weights may go negative and sum to 1 - lambda.
a1_last = causal_softmax(x @ w_q[:, :d] @ (x @ w_k[:, :d]).T / np.sqrt(d))[-1]
a2_last = causal_softmax(x @ w_q[:, d:] @ (x @ w_k[:, d:]).T / np.sqrt(d))[-1]
fig, ax = figure(f"One query's attention weights (λ = {lam:.2f})", "key position", "attention weight")
ax.bar(np.arange(T) - 0.27, a1_last, width=0.27, label="softmax(Q₁K₁ᵀ/√d)")
ax.bar(np.arange(T), lam * a2_last, width=0.27, hatch="..", label="λ · softmax(Q₂K₂ᵀ/√d)")
ax.bar(np.arange(T) + 0.27, a1_last - lam * a2_last, width=0.27, hatch="//", label="difference")
ax.axhline(0, color="black", lw=0.8)
ax.legend(fontsize=8)
