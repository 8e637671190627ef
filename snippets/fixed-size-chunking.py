"""Fixed-size chunking with stride: closed-form chunk count and spans vs brute-force walks over starts."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def n_chunks(n_tokens: int, size: int, stride: int) -> int:
    """n = 1 + ceil(max(N - L, 0) / S): windows start at 0, S, 2S, ... until one reaches the end."""
    overhang = max(n_tokens - size, 0)
    return 1 + -(-overhang // stride)


def chunk_spans(n_tokens: int, size: int, stride: int) -> list[tuple[int, int]]:
    """Half-open token spans [iS, min(iS + L, N)) of chunk i = 0 .. n - 1."""
    return [(i * stride, min(i * stride + size, n_tokens)) for i in range(n_chunks(n_tokens, size, stride))]


def overlap(size: int, stride: int) -> int:
    """Tokens shared by two neighbouring full chunks; negative means a gap of S - L tokens."""
    return size - stride
# --- end formula ---


def walk(n_tokens, size, stride):
    """Brute force: step a window along the tokens, keep it, stop once it has covered the last token."""
    spans, start = [], 0
    while True:
        end = start + size
        spans.append((start, end if end < n_tokens else n_tokens))
        if end >= n_tokens:
            return spans
        start += stride


# 1. Spans and counts against the walk for every (N, L, S) on a grid, including N <= L, S = L
#    (no overlap), S > L (gaps) and N exactly on a stride boundary.
mismatch = [(n, size, s) for n in range(1, 41) for size in range(1, 13) for s in range(1, 15)
            if chunk_spans(n, size, s) != walk(n, size, s)]
check_true("chunk spans equal the brute-force walk on all 6720 (N, L, S) triples", not mismatch,
           f"{len(mismatch)} mismatches")

# 2. Hand example: N = 10, L = 4, S = 3 -> starts 0, 3, 6 and the last chunk ends at token 9.
check_true("N = 10, L = 4, S = 3 gives [0,4), [3,7), [6,10)",
           chunk_spans(10, 4, 3) == [(0, 4), (3, 7), (6, 10)])
check_close("N = 1000, L = 256, S = 200 -> 1 + ceil(744/200) = 5 chunks", n_chunks(1000, 256, 200), 5)
check_close("text shorter than one chunk -> exactly one chunk", n_chunks(50, 256, 200), 1)

# 3. Overlap: count the tokens two neighbouring chunks share, by set intersection, on real chunks
#    of a tokenized document; and the uncovered tokens when S > L.
tokens = np.arange(137)
for size, s in [(32, 24), (32, 32), (20, 7)]:
    parts = [set(tokens[a:b].tolist()) for a, b in chunk_spans(len(tokens), size, s)]
    shared = [len(parts[i] & parts[i + 1]) for i in range(len(parts) - 2)]  # full-size neighbours
    check_true(f"L = {size}, S = {s}: neighbouring chunks share L - S = {overlap(size, s)} tokens",
               set(shared) == {overlap(size, s)}, f"shared counts {sorted(set(shared))}")
    check_true(f"L = {size}, S = {s}: every token lies in some chunk",
               set().union(*parts) == set(tokens.tolist()))
gappy = [set(tokens[a:b].tolist()) for a, b in chunk_spans(len(tokens), 10, 13)]
missed = len(set(tokens.tolist()) - set().union(*gappy))
check_close("S > L: L = 10, S = 13 skips S - L = 3 tokens after each of the 10 full chunks", missed,
            -overlap(10, 13) * 10)

# 4. Storage cost: total indexed tokens ~ N L / S, i.e. a factor L / S over the text itself.
n_long = 100_000
stored = sum(b - a for a, b in chunk_spans(n_long, 512, 384))
check_close("indexed tokens / N approaches L / S = 4/3 for a long text", stored / n_long, 512 / 384,
            rtol=5e-3)

# The page's calculator is checked against n_chunks and overlap on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): texts shorter than, equal to and longer than one chunk, lengths
# on and just past a stride boundary, overlapping chunks, S = L and gaps (S > L).
import cardcalc  # noqa: E402

cardcalc.table(lambda N, L, S: {"n": n_chunks(int(N), int(L), int(S)), "overlap": overlap(int(L), int(S))},
               cardcalc.grid(N=(1, 255, 256, 257, 456, 10_000), L=(1, 256), S=(1, 100, 256, 300)))

fig, ax = figure("Chunks needed for a 10,000-token text, L = 512", "overlap L - S (tokens)",
                 "number of chunks")
ov = np.arange(0, 480, 8)
ax.plot(ov, [n_chunks(10_000, 512, 512 - o) for o in ov], drawstyle="steps-post")
