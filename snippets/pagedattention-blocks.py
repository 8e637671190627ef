"""PagedAttention block allocation: a sequence of T tokens holds ceil(T / B_s) fixed-size KV blocks, so its
memory is that count times the bytes of one block and the unused slots are fewer than B_s. Checked against a
simulated block allocator with a free list and block tables, whose gathered cache equals a contiguous one."""

import math

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def num_blocks(n_tokens, block_size):
    """ceil(T / B_s) with integer arithmetic."""
    return -(-n_tokens // block_size)


def paged_kv_bytes(n_tokens, block_size, n_layer, n_kv_heads, head_dim, bytes_per_el):
    """Blocks x slots per block x (key and value) x layers x KV heads x head dim x bytes."""
    return num_blocks(n_tokens, block_size) * block_size * 2 * n_layer * n_kv_heads * head_dim * bytes_per_el


def internal_waste(n_tokens, block_size):
    """Reserved but unused token slots in the last block of a sequence."""
    return num_blocks(n_tokens, block_size) * block_size - n_tokens
# --- end formula ---


class PagedCache:
    """Minimal vLLM-style KV cache manager: a physical pool of blocks, a free list, one block table per
    sequence; a new block is taken only when the sequence's last block is full."""

    def __init__(self, n_phys, block_size, n_layer, n_kv, dh):
        self.k = np.zeros((n_layer, n_phys, block_size, n_kv, dh), dtype=np.float16)
        self.v = np.zeros_like(self.k)
        self.bs, self.free, self.tables, self.lens = block_size, list(range(n_phys)), {}, {}

    def append(self, seq, k_tok, v_tok):
        table = self.tables.setdefault(seq, [])
        n = self.lens.get(seq, 0)
        if n == len(table) * self.bs:                # last block full (or none yet)
            table.append(self.free.pop())
        blk, slot = table[n // self.bs], n % self.bs
        self.k[:, blk, slot], self.v[:, blk, slot] = k_tok, v_tok
        self.lens[seq] = n + 1

    def gather(self, seq):
        """Contiguous view of a sequence's keys and values through its block table."""
        n, table = self.lens[seq], self.tables[seq]
        k = self.k[:, table].reshape(self.k.shape[0], -1, *self.k.shape[3:])[:, :n]
        v = self.v[:, table].reshape(self.v.shape[0], -1, *self.v.shape[3:])[:, :n]
        return k, v

    def release(self, seq):
        self.free += self.tables.pop(seq)
        del self.lens[seq]


rng = np.random.default_rng(0)
L, H_kv, dh, bs, n_phys = 2, 3, 4, 16, 200
cache = PagedCache(n_phys, bs, L, H_kv, dh)
block_bytes = cache.k[:, 0].nbytes + cache.v[:, 0].nbytes            # one physical block, K and V, all layers
lengths = [1, 15, 16, 17, 31, 32, 33, 100, 257, 5]
contiguous = {}
order = rng.permutation(np.repeat(np.arange(len(lengths)), max(lengths)))  # interleave the sequences' tokens
counts = [0] * len(lengths)
for s in order:
    if counts[s] < lengths[s]:
        kt, vt = rng.normal(size=(2, L, H_kv, dh)).astype(np.float16)
        cache.append(s, kt, vt)
        contiguous.setdefault(s, []).append((kt, vt))
        counts[s] += 1

for s, T in enumerate(lengths):
    k, v = cache.gather(s)
    ref_k = np.stack([kv[0] for kv in contiguous[s]], axis=1)
    ref_v = np.stack([kv[1] for kv in contiguous[s]], axis=1)
    check_true(f"T={T}: cache gathered through the block table equals the contiguous cache",
               bool(np.array_equal(k, ref_k) and np.array_equal(v, ref_v)))
    check_close(f"T={T}: blocks = ceil(T / B_s) = {math.ceil(T / bs)}, allocated {len(cache.tables[s])}",
                [num_blocks(T, bs), num_blocks(T, bs)], [math.ceil(T / bs), len(cache.tables[s])], rtol=0)
    check_close(f"T={T}: bytes = allocated blocks x nbytes of a block",
                paged_kv_bytes(T, bs, L, H_kv, dh, 2), len(cache.tables[s]) * block_bytes, rtol=0)
    waste = len(cache.tables[s]) * bs - T
    check_close(f"T={T}: unused slots = {waste}", internal_waste(T, bs), waste, rtol=0)
    check_true(f"T={T}: 0 <= waste < B_s", 0 <= internal_waste(T, bs) < bs)
used = sum(len(t) for t in cache.tables.values())
check_close("pool: used + free blocks = physical blocks", used + len(cache.free), n_phys, rtol=0)
cache.release(8)
check_close("freeing the 257-token sequence returns ceil(257/16) = 17 blocks", len(cache.free),
            n_phys - used + 17, rtol=0)

# Brute-force sweep of lengths and block sizes against float ceil and the defining inequality.
for b in (1, 2, 7, 16, 32):
    T = np.arange(0, 600)
    nb = num_blocks(T, b)
    check_true(f"B_s={b}: (n-1) B_s < T <= n B_s for all T in 1..599",
               bool(np.all((nb[1:] - 1) * b < T[1:]) and np.all(T <= nb * b)))
    check_close(f"B_s={b}: equals math.ceil", nb, [math.ceil(t / b) for t in T], rtol=0)

# OPT-13B (L = 40, H = 40, d_h = 128, fp16), vLLM default block size 16: one block is 16 x 800 KiB.
check_close("OPT-13B, B_s=16: 100 tokens take 7 blocks = 5600 KiB",
            paged_kv_bytes(100, 16, 40, 40, 128, 2) / 1024, 7 * 16 * 800, rtol=0)

T = np.arange(1, 200)
fig, ax = figure("Unused KV slots per sequence", "sequence length T (tokens)", "wasted token slots")
ax.plot(T, internal_waste(T, 16), label="paged, B_s = 16")
ax.plot(T, 2048 - T, label="contiguous reservation of 2048", alpha=0.6)
ax.set_yscale("symlog")
ax.legend()

# The page's calculator is checked against num_blocks, paged_kv_bytes and internal_waste on this grid
# (cardcalc; the build runs the card's JavaScript on the same rows): T on, just past and inside a block edge.
import cardcalc  # noqa: E402

cardcalc.table(lambda T, B_s, L, h_kv, d_h, b: {
    "N_blk": num_blocks(int(T), int(B_s)), "M": paged_kv_bytes(int(T), int(B_s), L, h_kv, d_h, b),
    "W": internal_waste(int(T), int(B_s))},
    cardcalc.grid(T=(0, 1, 15, 16, 17, 1000, 4096), B_s=(1, 16, 32), L=(1, 32, 80), h_kv=(1, 8, 32),
                  d_h=(64, 128),
                  b=(1, 2)))
