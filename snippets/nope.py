"""NoPE (no positional encoding): a causal attention layer fed token embeddings only, checked
against a per-position loop with scipy's softmax; then, by brute force, what such a model can and
cannot see: Kazemnejad et al.'s construction that recovers the absolute position t as 1/t from
attention to the BOS token, the blindness of one layer (and of unmasked attention) to the order of
the prefix, and the order information that a second causal layer picks up."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def causal_attention(H: np.ndarray, Wq: np.ndarray, Wk: np.ndarray, Wv: np.ndarray,
                     causal: bool = True) -> np.ndarray:
    """softmax over j <= t of (H Wq)_t . (H Wk)_j / sqrt(d_k), applied to H Wv; rows are positions."""
    T = H.shape[0]
    s = (H @ Wq) @ (H @ Wk).T / np.sqrt(Wk.shape[1])
    if causal:
        s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ (H @ Wv)


def nope_layer(tokens: np.ndarray, E: np.ndarray, Wq, Wk, Wv, causal: bool = True) -> np.ndarray:
    """NoPE: the first layer sees h_t = E[x_t] only, no position vector is added anywhere."""
    return causal_attention(E[tokens], Wq, Wk, Wv, causal)
# --- end formula ---


rng = np.random.default_rng(0)
V, d, dk, T = 12, 8, 4, 40
BOS = 0
E = rng.normal(size=(V, d))
Wq, Wk, Wv = rng.normal(size=(d, dk)), rng.normal(size=(d, dk)), rng.normal(size=(d, dk))
tokens = np.concatenate([[BOS], rng.integers(1, V, size=T - 1)])

# 1. The layer against a loop: position t attends over its prefix 0 .. t with scipy's softmax.
ref = np.empty((T, dk))
for t in range(T):
    H = E[tokens[: t + 1]]
    scores = (H[-1] @ Wq) @ (H @ Wk).T / np.sqrt(dk)
    ref[t] = softmax(scores) @ (H @ Wv)
check_close("NoPE causal layer vs per-position loop over the prefix (scipy softmax)",
            nope_layer(tokens, E, Wq, Wk, Wv), ref, rtol=1e-11, atol=1e-13)
big = nope_layer(tokens, 150.0 * E, Wq, Wk, Wv)
check_true("logits spanning thousands stay finite (max shift)", np.all(np.isfinite(big)),
           f"score range {np.ptp((150 * E[tokens] @ Wq) @ (150 * E[tokens] @ Wk).T):.0f}")

# 2. Kazemnejad et al., Theorem 1: with W_Q = 0 every position attends uniformly to its t tokens
#    (counting the current one); if only the BOS token has a nonzero value, the output is 1/t.
E_count = np.column_stack([E, (np.arange(V) == BOS).astype(float)])  # one extra "is BOS" coordinate
Wq0 = np.zeros((d + 1, 1))
Wk_any = rng.normal(size=(d + 1, 1))
Wv_bos = np.zeros((d + 1, 1))
Wv_bos[-1, 0] = 1.0
L = 300
long_tokens = np.concatenate([[BOS], rng.integers(1, V, size=L - 1)])
out = nope_layer(long_tokens, E_count, Wq0, Wk_any, Wv_bos)[:, 0]
t = np.arange(1, L + 1)
check_close("position t (1-based) from attention to BOS: output = 1/t, t = 1 .. 300", out, 1.0 / t,
            rtol=1e-12)
check_close("an MLP-free decoder, round(1/output), recovers every absolute position", np.rint(1 / out), t,
            rtol=0)
bi = nope_layer(long_tokens, E_count, Wq0, Wk_any, Wv_bos, causal=False)[:, 0]
check_close("without the causal mask the same layer gives 1/T everywhere: no position signal", bi,
            np.full(L, 1.0 / L), rtol=1e-12)

# 3. What one layer cannot see: the order of the tokens before position t.
perm = np.concatenate([[0], 1 + rng.permutation(T - 2), [T - 1]])  # shuffle positions 1 .. T-2
one = nope_layer(tokens, E, Wq, Wk, Wv)
check_close("one causal layer: last output unchanged when the prefix is shuffled",
            nope_layer(tokens[perm], E, Wq, Wk, Wv)[-1], one[-1], rtol=1e-11)
full_perm = rng.permutation(T)
check_close("no mask, no positions: permutation-equivariant (outputs are shuffled with the inputs)",
            nope_layer(tokens[full_perm], E, Wq, Wk, Wv, causal=False),
            nope_layer(tokens, E, Wq, Wk, Wv, causal=False)[full_perm], rtol=1e-11, atol=1e-13)

# 4. Two causal layers: earlier positions summarize different prefixes, so order becomes visible.
Wq2, Wk2, Wv2 = rng.normal(size=(dk, dk)), rng.normal(size=(dk, dk)), rng.normal(size=(dk, dk))
two = causal_attention(one, Wq2, Wk2, Wv2)[-1]
two_perm = causal_attention(nope_layer(tokens[perm], E, Wq, Wk, Wv), Wq2, Wk2, Wv2)[-1]
check_true("two causal layers: the same shuffle now changes the last output",
           np.abs(two - two_perm).max() > 1e-3, f"max change {np.abs(two - two_perm).max():.3f}")

fig, ax = figure("A NoPE layer counts tokens through the causal mask", "position  t", "attention output")
ax.plot(t[:60], out[:60], "o", ms=3, label="causal, $W_Q = 0$, value = [token is BOS]")
ax.plot(t[:60], 1 / t[:60], "-", lw=1, label="$1/t$")
ax.plot(t[:60], bi[:60], "--", label="same layer without the mask: $1/T$")
ax.legend()
