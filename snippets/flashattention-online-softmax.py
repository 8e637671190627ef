"""Online softmax: the one-pass normalizer and the tiled (m, l, o) attention recurrence checked
against two-pass softmax attention, at any block size, on scores spanning more than 1000."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import logsumexp
from scipy.special import softmax as scipy_softmax


# --- formula ---
def online_normalizer(x):
    """One pass over x: m_j = max(m_{j-1}, x_j), d_j = d_{j-1} e^(m_{j-1} - m_j) + e^(x_j - m_j).
    Starting from m_0 = -inf, d_0 = 0, the first step gives m_1 = x_1, d_1 = 1; we start there."""
    m, d = x[0], 1.0
    for xj in x[1:]:
        m_new = max(m, xj)
        d = d * np.exp(m - m_new) + np.exp(xj - m_new)
        m = m_new
    return m, d


def block_stats(q, k_blk, v_blk):
    """One tile: row max m, normalizer l = sum exp(s - m), and the tile's own normalized output."""
    s = q @ k_blk.T / np.sqrt(q.shape[1])
    m = s.max(axis=1)
    p = np.exp(s - m[:, None])
    ell = p.sum(axis=1)
    return m, ell, (p @ v_blk) / ell[:, None]


def merge(m_a, l_a, o_a, m_b, l_b, o_b):
    """Combine results over two disjoint sets of keys into the result over their union."""
    m = np.maximum(m_a, m_b)
    alpha = np.exp(m_a - m)
    beta = np.exp(m_b - m)
    ell = alpha * l_a + beta * l_b
    o = ((alpha * l_a)[:, None] * o_a + (beta * l_b)[:, None] * o_b) / ell[:, None]
    return m, ell, o


def flash_attention_forward(q, k, v, block):
    """Exact softmax(QK^T/sqrt(d))V, visiting the keys in tiles of `block` and never storing scores.
    (Merging the first tile into m = -inf, l = 0, o = 0 returns that tile unchanged; we start there.)"""
    m, ell, o = block_stats(q, k[:block], v[:block])
    for start in range(block, k.shape[0], block):
        tile = block_stats(q, k[start:start + block], v[start:start + block])
        m, ell, o = merge(m, ell, o, *tile)
    return o, m, ell
# --- end formula ---


rng = np.random.default_rng(0)

# 1. The one-pass normalizer on logits spanning ~3000: m = max x, log d = logsumexp(x) - max x.
x = 400.0 * rng.normal(size=257)
m, d = online_normalizer(x)
with np.errstate(over="ignore"):
    check_true(f"logits span {np.ptp(x):.0f}: the naive sum of exp overflows", np.isinf(np.sum(np.exp(x))))
check_close("online m equals max(x) exactly", m, x.max(), rtol=0)
check_close("m + log d = scipy logsumexp(x)", m + np.log(d), logsumexp(x), rtol=1e-14)
check_close("softmax from (m, d) = scipy softmax", np.exp(x - m) / d, scipy_softmax(x), rtol=1e-12,
            atol=1e-300)
y = rng.normal(size=40)
check_close("moderate logits: d = sum exp(x - max x)", online_normalizer(y)[1],
            np.sum(np.exp(y - y.max())), rtol=1e-13)

# 2. Tiled attention = two-pass softmax attention, for tile sizes from 1 to larger than n_k.
n_q, n_k, d_k, d_v = 6, 29, 8, 5
Q, K, V = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))
S = Q @ K.T / np.sqrt(d_k)
reference = scipy_softmax(S, axis=1) @ V
for block in (1, 4, 7, 29, 64):
    o, m_row, l_row = flash_attention_forward(Q, K, V, block)
    check_close(f"tile size {block}: output = softmax(QK^T/sqrt(d)) V", o, reference, rtol=1e-12,
                atol=1e-14)
    check_close(f"tile size {block}: m + log l = logsumexp of the scores", m_row + np.log(l_row),
                logsumexp(S, axis=1), rtol=1e-13)
check_close("final m is the exact row maximum", flash_attention_forward(Q, K, V, 5)[1], S.max(axis=1),
            rtol=0)

# 3. Scores spanning > 1000: naive exp overflows, the tiled pass agrees with scipy to round-off.
Qw = 300.0 * Q
Sw = Qw @ K.T / np.sqrt(d_k)
with np.errstate(over="ignore", invalid="ignore"):
    naive = np.exp(Sw) / np.exp(Sw).sum(axis=1, keepdims=True) @ V
check_true(f"scores span {np.ptp(Sw):.0f}: naive softmax gives inf/nan", not np.all(np.isfinite(naive)))
o_w, m_w, l_w = flash_attention_forward(Qw, K, V, 6)
check_close("wide scores: tiled output = scipy softmax attention", o_w, scipy_softmax(Sw, axis=1) @ V,
            rtol=1e-12, atol=1e-14)
check_close("wide scores: logsumexp", m_w + np.log(l_w), logsumexp(Sw, axis=1), rtol=1e-14)

# The -inf / 0 / 0 starting state is neutral: merging a tile into it returns the tile.
first = block_stats(Q, K[:5], V[:5])
start = merge(np.full(n_q, -np.inf), np.zeros(n_q), np.zeros((n_q, d_v)), *first)
check_close("merging into (m, l, o) = (-inf, 0, 0) returns the tile unchanged",
            np.concatenate([start[0], start[1], start[2].ravel()]),
            np.concatenate([first[0], first[1], first[2].ravel()]), rtol=1e-15)

# 4. The merge is associative: a tree reduction over tiles (split-K, Flash-Decoding) gives the
#    same answer as the left-to-right loop, and so does visiting the tiles in reverse.
tiles = [block_stats(Qw, K[s:s + 8], V[s:s + 8]) for s in range(0, n_k, 8)]
left, right = merge(*tiles[0], *tiles[1]), merge(*tiles[2], *tiles[3])
check_close("tree reduction ((1,2),(3,4)) = sequential loop", merge(*left, *right)[2], o_w,
            rtol=1e-12, atol=1e-14)
rev = tiles[-1]
for t in tiles[-2::-1]:
    rev = merge(*rev, *t)
check_close("tiles merged in reverse order", rev[2], o_w, rtol=1e-12, atol=1e-14)

# Figure: one query row, tile by tile.
q_fig = 1.5 * Q[:1]
m_run, lse_run = [], []
state = (np.full(1, -np.inf), np.zeros(1), np.zeros((1, d_v)))
for s in range(0, n_k, 3):
    state = merge(*state, *block_stats(q_fig, K[s:s + 3], V[s:s + 3]))
    m_run.append(state[0][0])
    lse_run.append(state[0][0] + np.log(state[1][0]))
# --- in code: torch ---
import warnings  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention.flex_attention import AuxRequest, flex_attention  # noqa: E402

q_t, k_t, v_t = (torch.tensor(a)[None, None] for a in (Q, K, V))     # [batch, heads, positions, d]
o_tiled, m_tiled, l_tiled = flash_attention_forward(Q, K, V, 8)
# Width-8 dot products and softmaxes over 29 keys, a few ulps each: the 1e-12 of the checks above.
check_close("F.scaled_dot_product_attention(Q, K, V) = the tiled output",
            F.scaled_dot_product_attention(q_t, k_t, v_t)[0, 0].numpy(), o_tiled, rtol=1e-12, atol=1e-14)
# flex_attention also returns each row's log-sum-exp, the m + log l kept for the backward pass and for
# merging partial results. Uncompiled it runs unfused on the CPU and warns so; the values are the same.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    flex_out, aux = flex_attention(q_t, k_t, v_t, return_aux=AuxRequest(lse=True))
check_close("flex_attention(..., return_aux=AuxRequest(lse=True)): output = the tiled output",
            flex_out[0, 0].numpy(), o_tiled, rtol=1e-12, atol=1e-14)
check_close("... and aux.lse = m + log l, in nats", aux.lse[0, 0].numpy(), m_tiled + np.log(l_tiled),
            rtol=1e-13)
# torch.logsumexp has no default dim: it must be told the key axis.
check_close("torch.logsumexp(scores, dim=-1) = m + log l", torch.logsumexp(torch.tensor(S), dim=-1).numpy(),
            m_tiled + np.log(l_tiled), rtol=1e-13)
# --- end in code ---

# --- in code: scipy ---
# scipy.special.logsumexp gives a tile's m + log l in one call. The tiles' values combine by another
# logsumexp, and each tile's normalized output is weighted by exp(lse_tile - lse_row): the merge as
# split-K and Flash-Decoding write it. Sums of at most 29 exponentials, a few ulps: as the checks above.
tile_lse = np.array([logsumexp(S[:, s:s + 8], axis=1) for s in range(0, n_k, 8)])      # [tiles, n_q]
tile_out = [block_stats(Q, K[s:s + 8], V[s:s + 8])[2] for s in range(0, n_k, 8)]
row_lse = logsumexp(tile_lse, axis=0)
o_8, m_8, l_8 = flash_attention_forward(Q, K, V, 8)
check_close("logsumexp over the tiles' logsumexp(s, axis=1) = the row's m + log l", row_lse,
            m_8 + np.log(l_8),
            rtol=1e-13)
check_close("tiles' outputs weighted by exp(lse_tile - lse_row) = the tiled output",
            sum(np.exp(lse - row_lse)[:, None] * o for lse, o in zip(tile_lse, tile_out, strict=True)),
            o_8, rtol=1e-12, atol=1e-14)
# Left out, axis is None: every score of every row goes into one number.
check_close("pitfall: logsumexp(S) without axis= reduces all queries' scores into one number",
            logsumexp(S), logsumexp(logsumexp(S, axis=1)), rtol=1e-13)
check_true("... not the per-row m + log l", np.ndim(logsumexp(S)) == 0, f"shape {np.shape(logsumexp(S))}")
# --- end in code ---

fig, ax = figure("Online softmax for one query row (tiles of 3 keys)", "tiles processed",
                 "log-domain value")
ax.step(range(1, len(m_run) + 1), m_run, where="post", label="running max $m$")
ax.plot(range(1, len(m_run) + 1), lse_run, "o", ms=4, label=r"running $m + \log \ell$")
ax.axhline(logsumexp(q_fig @ K.T / np.sqrt(d_k)), color="gray", ls=":", label="logsumexp of all scores")
ax.legend()
