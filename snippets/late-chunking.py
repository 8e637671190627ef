"""Late chunking: pooling each chunk's span of the whole document's token embeddings, against a plain loop,
against embedding each chunk alone (equal for a context-free encoder, different for a toy contextual one),
and the context that reaches a chunk from tokens outside it."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def late_chunk(token_embeddings, spans):
    """c_i = (1 / (e_i - s_i)) sum_{t = s_i}^{e_i - 1} h_t for half-open token spans [s_i, e_i), from prefix
    sums."""
    prefix = np.vstack([np.zeros((1, token_embeddings.shape[1])), np.cumsum(token_embeddings, axis=0)])
    starts = np.array([s for s, _ in spans])
    ends = np.array([e for _, e in spans])
    return (prefix[ends] - prefix[starts]) / (ends - starts)[:, None]
# --- end formula ---


rng = np.random.default_rng(0)
V, d = 50, 16
table = rng.normal(size=(V, d))
Wq, Wk, Wv = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))


def contextual_encoder(tokens):
    """A toy bidirectional encoder: token embeddings plus one softmax self-attention layer over the whole
    input."""
    E = table[tokens]
    scores = (E @ Wq) @ (E @ Wk).T / np.sqrt(d)
    A = np.exp(scores - scores.max(axis=1, keepdims=True))
    return E + (A / A.sum(axis=1, keepdims=True)) @ (E @ Wv)


def context_free_encoder(tokens):
    return table[tokens] * 2.0 + 1.0


doc = rng.integers(0, V, size=40)
spans = [(0, 7), (7, 19), (19, 20), (20, 33), (33, 40)]       # uneven, one of a single token


def loop_pool(H, spans):
    """Mean of each span by an explicit loop over its tokens."""
    out = []
    for s, e in spans:
        acc = np.zeros(H.shape[1])
        for t in range(s, e):
            acc += H[t]
        out.append(acc / (e - s))
    return np.array(out)


# 1. Pooling: prefix sums against a loop over each span's tokens. The prefix sums grow to ~40 and their
#    difference keeps their absolute rounding, a few ulps of 40 (~1e-14): atol 1e-13 on values ~1.
H = contextual_encoder(doc)
late = late_chunk(H, spans)
check_close("late chunks = mean of each span's token embeddings (loop)", late, loop_pool(H, spans),
            rtol=1e-12, atol=1e-13)
check_close("one span covering the document = the document's mean-pooled embedding",
            late_chunk(H, [(0, len(doc))])[0], H.mean(axis=0), rtol=1e-12, atol=1e-13)
check_close("a one-token span is that token's embedding", late[2], H[19], rtol=1e-12, atol=1e-13)
lengths = np.array([e - s for s, e in spans])
check_close("the length-weighted mean of the chunks = the document mean (spans tile the document)",
            lengths @ late / lengths.sum(), H.mean(axis=0), rtol=1e-12, atol=1e-13)

# 2. Against embedding each chunk alone (naive chunking). With a context-free encoder each token's vector
#    ignores its neighbours, so the two coincide; with attention over the whole input they do not.
naive_free = np.array([context_free_encoder(doc[s:e]).mean(axis=0) for s, e in spans])
check_close("context-free encoder: late chunking = embedding each chunk alone",
            late_chunk(context_free_encoder(doc), spans), naive_free, rtol=1e-12, atol=1e-13)
naive = np.array([contextual_encoder(doc[s:e]).mean(axis=0) for s, e in spans])
gap = np.linalg.norm(late - naive, axis=1) / np.linalg.norm(naive, axis=1)
check_true("contextual encoder: every chunk's late embedding differs from its chunk-alone embedding",
           np.all(gap > 1e-2), f"relative differences {np.round(gap, 3)}")

# 3. Context crosses chunk boundaries: change a token of the last chunk and the first chunk's late embedding
#    moves, while its chunk-alone embedding cannot.
edited = doc.copy()
edited[36] = (edited[36] + 1) % V
moved_late = np.linalg.norm(late_chunk(contextual_encoder(edited), spans)[0] - late[0])
moved_naive = np.linalg.norm(contextual_encoder(edited[0:7]).mean(axis=0) - naive[0])
check_true("editing token 36 moves chunk 1's late embedding but not its chunk-alone one",
           moved_late > 1e-3 and moved_naive == 0.0,
           f"late moved {moved_late:.3g}, chunk-alone {moved_naive:.3g}")

cos = np.sum(late * naive, axis=1) / (np.linalg.norm(late, axis=1) * np.linalg.norm(naive, axis=1))
fig, ax = figure("Late chunking against embedding each chunk alone", "chunk (token span)",
                 "cosine(late, chunk-alone)")
ax.bar([f"{s}–{e}" for s, e in spans], cos)
ax.set_ylim(0, 1)
