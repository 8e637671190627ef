"""Token plus position embedding: checked against one lookup in the stacked [E; P] table, and
incremental (cached) decoding against the full sequence."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def input_embedding(ids, E, P, start=0, scale=1.0):
    """h_t = scale * E[x_t] + P[start + t] for t = 0..T-1 (start > 0 when decoding with a cache)."""
    T = ids.shape[-1]
    return scale * E[ids] + P[start:start + T]
# --- end formula ---


rng = np.random.default_rng(0)
V, d, T_max, B, T = 13, 8, 32, 2, 6
E = rng.normal(scale=d**-0.5, size=(V, d))
P_learned = rng.normal(scale=0.02, size=(T_max, d))

# Sinusoidal table of Vaswani et al. (Sec. 3.5): sin on even features, cos on odd ones.
def sinusoidal_table(T_max, d):
    pos = np.arange(T_max)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((T_max, d))
    P[:, 0::2] = np.sin(pos * freq)
    P[:, 1::2] = np.cos(pos * freq)
    return P


P_sin = sinusoidal_table(T_max, d)

ids = rng.integers(0, V, size=(B, T))


def stacked_onehot(ids, E, P, start, scale):
    """Independent route: one product with the (V + T_max) x d table [scale E; P] and a row that
    holds two ones, one in the token block and one in the position block."""
    Vn, Tn = E.shape[0], P.shape[0]
    rows = np.zeros((*ids.shape, Vn + Tn))
    rows[..., :Vn] = ids[..., None] == np.arange(Vn)
    rows[..., Vn:] = (start + np.arange(ids.shape[-1]))[:, None] == np.arange(Tn)
    return rows @ np.vstack([scale * E, P])


for P, name in [(P_learned, "learned P"), (P_sin, "sinusoidal P")]:
    for start, scale in [(0, 1.0), (9, np.sqrt(d))]:
        check_close(f"{name}, start {start}, scale {scale:.3g}: vs stacked one-hot product",
                    input_embedding(ids, E, P, start, scale), stacked_onehot(ids, E, P, start, scale),
                    rtol=1e-14, atol=1e-15)

# Defaults (GPT style: scale 1, positions from 0) on a single unbatched sequence.
check_close("one sequence, default scale and start", input_embedding(ids[1], E, P_learned),
            stacked_onehot(ids[1], E, P_learned, 0, 1.0), rtol=1e-14, atol=1e-15)

# Decoding with a cache embeds one new token at a time at position start = t; the rows must equal
# those of the full-sequence call.
steps = np.concatenate([input_embedding(ids[:, t:t + 1], E, P_sin, start=t) for t in range(T)], axis=1)
check_close("token-by-token with start = t == whole sequence", steps, input_embedding(ids, E, P_sin),
            rtol=0, atol=0)

# Position carries the order: the same token at two positions gets two different inputs, and
# subtracting P recovers exactly which token sits where (nearest row of E).
same = input_embedding(np.array([[3, 3]]), E, P_sin)[0]
check_true("same token, different positions -> different vectors", np.abs(same[0] - same[1]).max() > 0.1)
h = input_embedding(ids, E, P_sin)
recovered = np.argmin((((h - P_sin[:T])[..., None, :] - E) ** 2).sum(-1), axis=-1)
check_true("h - P_t identifies the token at every position", np.array_equal(recovered, ids))

# Scale: every sinusoidal row has squared norm d/2 (sin^2 + cos^2 per pair), while rows of an E
# drawn with variance 1/d have squared norm ~1; the sqrt(d) factor puts the two on one scale.
check_close("sinusoidal rows: ||P_t||^2 = d/2", (P_sin**2).sum(-1), np.full(T_max, d / 2), rtol=1e-12)


# The page's calculator is checked on this grid (cardcalc; the build runs the card's JavaScript on the
# same rows): the norms come from input_embedding applied to a unit-norm token row (a basis vector, so
# its norm is exactly 1) with no position part, and from row 7 of a sinusoidal table of width d.
import cardcalc  # noqa: E402


def embedding_scales(d, s):
    width = int(d)
    token_part = input_embedding(np.array([0]), np.eye(1, width), np.zeros((1, width)), scale=s)
    position_norm = np.linalg.norm(sinusoidal_table(8, width)[7])
    return {"sqrt_d": np.sqrt(d), "norm_P": position_norm,
            "ratio": np.linalg.norm(token_part) / position_norm}


cardcalc.table(embedding_scales, cardcalc.grid(d=(2, 8, 512, 4096, 12288), s=(0, 1, 8, np.sqrt(512), 64)))
