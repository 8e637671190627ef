"""Native sparse attention (NSA): compressed blocks, top-n selected blocks scored by the compressed
attention, and a sliding window, each attended by the query and mixed by sigmoid gates. Each branch is
checked against plain masked attention over all the keys (scipy's softmax) with the branch's key set built
by brute force, the selection against a sort of every block's summed score, the gated sum against the
branches one by one, and the limits where a branch sees every key."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit
from scipy.special import softmax as scipy_softmax

# --- formula ---


def attn(q, K, V):
    """Attn(q, K, V) = sum_i alpha_i v_i / sum_j alpha_j, alpha_i = exp(q . k_i / sqrt(d_k));
    q is (heads, d_k)."""
    s = q @ K.T / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p @ V / p.sum(axis=-1, keepdims=True)


def compress(X, t, block, stride, phi_w, phi_pos):
    """phi of every block X[i d : i d + l] that ends at or before position t (0-based),
    i = 0..floor((t + 1 - l) / d): a linear map of the block plus its intra-block position encoding
    (the paper's phi is a small MLP)."""
    starts = range(0, (t + 1 - block) // stride * stride + 1, stride)
    return np.array([np.einsum("jk,jkm->m", X[s:s + block] + phi_pos, phi_w) for s in starts])


def select_blocks(p_cmp, n):
    """Top-n blocks by importance summed over the heads of a GQA group:
    I_t = {i : rank(sum_h p_h[i]) <= n}."""
    heads = 0
    shared = p_cmp.sum(axis=heads)  # equivalent: heads is 0; a mean over heads is sum / H, same ranking
    return np.sort(np.argsort(-shared, kind="stable")[:n])


def nsa(q, K_all, V_all, t, gates, cfg):
    """o*_t = sum_{c in (cmp, slc, win)} g_t^c Attn(q_t, K~_t^c, V~_t^c) for the query heads q of one group.
    K_all / V_all hold each branch's own keys and values; compression and selection blocks share
    l' = l = d (the block size b below)."""
    b, n, w = cfg["block"], cfg["n"], cfg["window"]
    Kc = compress(K_all["cmp"], t, b, b, cfg["phi_k"], cfg["pos_k"])
    Vc = compress(V_all["cmp"], t, b, b, cfg["phi_v"], cfg["pos_v"])
    d_k = q.shape[q.ndim - 1]
    s = q @ Kc.T / np.sqrt(d_k)
    p_cmp = np.exp(s - s.max(axis=-1, keepdims=True))
    p_cmp = p_cmp / p_cmp.sum(axis=-1, keepdims=True)
    o_cmp = p_cmp @ Vc                                  # the compressed branch reuses its own scores
    chosen = select_blocks(p_cmp, n)
    idx = np.concatenate([np.arange(i * b, (i + 1) * b) for i in chosen])
    o_slc = attn(q, K_all["slc"][idx], V_all["slc"][idx])
    lo = max(0, t + 1 - w)
    o_win = attn(q, K_all["win"][lo:t + 1], V_all["win"][lo:t + 1])
    branches = np.stack([o_cmp, o_slc, o_win], axis=1)  # (heads, 3, d_v)
    return np.einsum("hc,hcv->hv", gates, branches), branches, chosen
# --- end formula ---


rng = np.random.default_rng(0)
T, d_k, d_v, H = 64, 8, 4, 3
cfg = {"block": 8, "n": 2, "window": 12,
       "phi_k": rng.normal(size=(8, d_k, d_k)) / 8, "pos_k": rng.normal(size=(8, d_k)),
       "phi_v": rng.normal(size=(8, d_v, d_v)) / 8, "pos_v": rng.normal(size=(8, d_v))}
K_all = {c: rng.normal(size=(T, d_k)) for c in ("cmp", "slc", "win")}
V_all = {c: rng.normal(size=(T, d_v)) for c in ("cmp", "slc", "win")}


def masked_attention(q, K, V, allowed):
    """Reference: scores against every key, -inf outside the allowed set, scipy's softmax."""
    s = np.where(allowed, q @ K.T / np.sqrt(K.shape[1]), -np.inf)
    return scipy_softmax(s, axis=-1) @ V


def compressed_by_loop(X, t, block, stride, W, pos):
    """Reference compression: walk start positions while the block still ends at or before t, and sum
    the per-position maps one position at a time."""
    out, start = [], 0
    while start + block <= t + 1:
        out.append(sum((X[start + j] + pos[j]) @ W[j] for j in range(block)))
        start += stride
    return np.array(out)


# 1. Compression (Eq. 7) against the loop, with overlapping blocks (l = 8, d = 4) and without (d = l),
#    at query positions where the last block just fits and where it does not. Sums of 64 products of
#    O(1) terms: 1e-12.
for t, stride in ((31, 4), (34, 4), (39, 8), (46, 8), (20, 1)):
    ours = compress(K_all["cmp"], t, 8, stride, cfg["phi_k"], cfg["pos_k"])
    ref = compressed_by_loop(K_all["cmp"], t, 8, stride, cfg["phi_k"], cfg["pos_k"])
    check_true(f"t = {t}, l = 8, d = {stride}: floor((t + 1 - l) / d) + 1 = {len(ref)} compressed keys",
               ours.shape == ref.shape, f"got {ours.shape[0]}")
    check_close(f"t = {t}, l = 8, d = {stride}: compressed keys = block-by-block loop", ours, ref,
                rtol=1e-12, atol=1e-12)

# 2. Each branch against plain attention over all t + 1 keys with the branch's keys as a mask.
for t in (23, 40, 63):
    q = rng.normal(size=(H, d_k)) * 1.5
    gates = expit(rng.normal(size=(H, 3)))        # sigmoid gates, as the paper's MLP outputs them
    out, branches, chosen = nsa(q, K_all, V_all, t, gates, cfg)
    Kc = compressed_by_loop(K_all["cmp"], t, 8, 8, cfg["phi_k"], cfg["pos_k"])
    Vc = compressed_by_loop(V_all["cmp"], t, 8, 8, cfg["phi_v"], cfg["pos_v"])
    all_blocks = np.ones(len(Kc), bool)
    check_close(f"t = {t}: compressed branch = attention over the compressed keys",
                branches[:, 0], masked_attention(q, Kc, Vc, all_blocks), rtol=1e-12, atol=1e-14)
    # Selection by brute force: each complete block's compressed-attention probability, summed over the
    # three heads of the group, the blocks sorted by it, the best n kept.
    probs = scipy_softmax(q @ Kc.T / np.sqrt(d_k), axis=-1).sum(axis=0)
    best = sorted(sorted(range(len(probs)), key=lambda i: -probs[i])[:cfg["n"]])
    check_true(f"t = {t}: selected blocks = top {cfg['n']} of the head-summed scores {best}",
               [int(i) for i in chosen] == best, f"got {[int(i) for i in chosen]}")
    tokens = np.arange(T)
    in_selected = np.isin(tokens // 8, best)
    check_close(f"t = {t}: selection branch = masked attention over the tokens of blocks {best}",
                branches[:, 1], masked_attention(q, K_all["slc"], V_all["slc"], in_selected),
                rtol=1e-12, atol=1e-14)
    in_window = (tokens <= t) & (tokens > t - cfg["window"])
    check_close(f"t = {t}: window branch = masked attention over tokens {t - 11}..{t}",
                branches[:, 2], masked_attention(q, K_all["win"], V_all["win"], in_window),
                rtol=1e-12, atol=1e-14)
    # The gate combination (Eq. 5), term by term.
    mixed = sum(gates[:, [c]] * branches[:, c] for c in range(3))
    check_close(f"t = {t}: o* = g_cmp o_cmp + g_slc o_slc + g_win o_win", out, mixed, rtol=1e-13, atol=1e-15)
    one_hot = np.eye(3)
    for c, name in enumerate(("cmp", "slc", "win")):
        alone, _, _ = nsa(q, K_all, V_all, t, np.tile(one_hot[c], (H, 1)), cfg)
        check_close(f"t = {t}: gates (1 on {name}, 0 elsewhere) give that branch alone", alone,
                    branches[:, c], rtol=0, atol=0)

# 3. A sharp query (scores in the thousands, far past exp's overflow at 709): every branch still
#    matches scipy's softmax, which subtracts the maximum; at t = 50, one head at a time (a 1-D query).
q = rng.normal(size=(H, d_k)) * 400
_, branches, chosen = nsa(q, K_all, V_all, 50, np.ones((H, 3)), cfg)
tokens = np.arange(T)
Kc = compressed_by_loop(K_all["cmp"], 50, 8, 8, cfg["phi_k"], cfg["pos_k"])
Vc = compressed_by_loop(V_all["cmp"], 50, 8, 8, cfg["phi_v"], cfg["pos_v"])
sharp_refs = [masked_attention(q, Kc, Vc, np.ones(len(Kc), bool)),
              masked_attention(q, K_all["slc"], V_all["slc"], np.isin(tokens // 8, chosen)),
              masked_attention(q, K_all["win"], V_all["win"], (tokens <= 50) & (tokens > 50 - 12))]
for c, name in enumerate(("compressed", "selection", "window")):
    check_close(f"scores ~1e3: {name} branch = scipy's masked softmax attention", branches[:, c],
                sharp_refs[c], rtol=1e-12, atol=1e-14)
check_close("one head as a 1-D query: Attn(q_h, K, V) = row h of the batched call",
            np.array([attn(q[h], K_all["win"][39:51], V_all["win"][39:51]) for h in range(H)]),
            sharp_refs[2], rtol=1e-12, atol=1e-14)

# 4. Limits: with n covering every block at t = 63 (8 complete blocks) the selection branch is full causal
#    attention; with w >= t + 1 the window branch is too.
cfg_full = dict(cfg, n=8, window=64)
q = rng.normal(size=(H, d_k))
_, branches, chosen = nsa(q, K_all, V_all, 63, np.ones((H, 3)), cfg_full)
causal = np.ones(T, bool)
check_close("n = all blocks: selection branch = full attention over 64 keys", branches[:, 1],
            masked_attention(q, K_all["slc"], V_all["slc"], causal), rtol=1e-12, atol=1e-14)
check_close("w = 64: window branch = full attention over 64 keys", branches[:, 2],
            masked_attention(q, K_all["win"], V_all["win"], causal), rtol=1e-12, atol=1e-14)

# 5. Keys per query (Eq. 6): N_t = floor((t + 1 - l) / d) + 1 compressed + n l' selected + w in the window,
#    against the context t + 1 it replaces.
t = 63
n_cmp = len(compressed_by_loop(K_all["cmp"], t, 8, 8, cfg["phi_k"], cfg["pos_k"]))
N_t = n_cmp + cfg["n"] * 8 + cfg["window"]
check_true("t = 63, l = l' = d = 8, n = 2, w = 12: N_t = 8 + 16 + 12 = 36 of 64 keys", N_t == 36,
           f"N_t = {N_t}")

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# One query position t = 40 of a GQA group of H heads, each head a batch of one query: [H, 1, d_k].
nsa_rng = np.random.default_rng(1)
t_q, b = 40, cfg["block"]
q_nsa, gates_nsa = nsa_rng.normal(size=(H, d_k)) * 1.5, expit(nsa_rng.normal(size=(H, 3)))
q_t = torch.tensor(q_nsa)[:, None]
k_cmp = torch.tensor(compress(K_all["cmp"], t_q, b, b, cfg["phi_k"], cfg["pos_k"]))
v_cmp = torch.tensor(compress(V_all["cmp"], t_q, b, b, cfg["phi_v"], cfg["pos_v"]))
o_cmp = F.scaled_dot_product_attention(q_t, k_cmp, v_cmp)
# sdpa returns no weights; the selection ranks blocks by the compressed branch's probabilities, summed
# over the group's heads, and torch.topk picks the n best (in score order; attention ignores key order).
p_cmp = torch.softmax(q_t[:, 0] @ k_cmp.T / np.sqrt(d_k), dim=-1)
best = torch.topk(p_cmp.sum(dim=0), cfg["n"]).indices
tokens_sel = (best[:, None] * b + torch.arange(b)).flatten()
o_slc = F.scaled_dot_product_attention(q_t, torch.tensor(K_all["slc"])[tokens_sel],
                                       torch.tensor(V_all["slc"])[tokens_sel])
lo = max(0, t_q + 1 - cfg["window"])
o_win = F.scaled_dot_product_attention(q_t, torch.tensor(K_all["win"][lo:t_q + 1]),
                                       torch.tensor(V_all["win"][lo:t_q + 1]))
mixed = (torch.tensor(gates_nsa)[:, :, None] * torch.cat([o_cmp, o_slc, o_win], dim=1)).sum(dim=1)
card_out, _, card_chosen = nsa(q_nsa, K_all, V_all, t_q, gates_nsa, cfg)
check_true("torch.topk(p_cmp summed over heads, n) picks the card's blocks",
           sorted(best.tolist()) == [int(i) for i in card_chosen], f"{sorted(best.tolist())}")
# Sums of 64 products and softmaxes over at most 16 keys, a few ulps each: the 1e-12 of the checks above.
check_close("three sdpa calls over compressed, selected and window keys, gated = NSA",
            mixed.numpy(), card_out, rtol=1e-12, atol=1e-14)
# --- end in code ---

fig, ax = figure("Keys attended per query",
                 "context length t (tokens)", "keys attended")
ctx = np.geomspace(4096, 131072, 50)   # from 4k: below ~1.6k the fixed n l' + w exceeds t itself
l_cmp, d_cmp, l_sel, n_sel, w_win = 32, 16, 64, 16, 512   # the paper's settings (Sec. 4.1)
ax.loglog(ctx, ctx, label="full attention: t")
ax.loglog(ctx, np.floor((ctx - l_cmp) / d_cmp) + 1 + n_sel * l_sel + w_win,
          label="NSA: compressed + selected + window")
ax.legend()
