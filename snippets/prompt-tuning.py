"""Prompt tuning: a soft prompt equal to a hard prompt's embeddings reproduces the hard prompt exactly (ids
concatenated before the lookup), mixed-task batches equal per-example runs, the prompt reaches every token,
parameter count."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax


# --- formula ---
def prompt_tuned_input(P, E, ids, pos):
    """h0 = [P; E x] + positions: p trainable prompt vectors (one set, or one per example) followed by
    the frozen embeddings of the n input tokens; P has shape (p, e) or (B, p, e), ids (B, n)."""
    batch = ids.shape[0]
    prompts = np.broadcast_to(P, (batch, *P.shape[-2:]))
    h0 = np.concatenate([prompts, E[ids]], axis=1)
    return h0 + pos[: h0.shape[1]]
# --- end formula ---


rng = np.random.default_rng(0)
V, e, n, p, max_len = 50, 12, 8, 5, 32
E = rng.normal(size=(V, e))  # frozen token embeddings
pos = rng.normal(size=(max_len, e)) * 0.5  # frozen learned absolute positions
Wq, Wk, Wv = (rng.normal(size=(e, e)) / np.sqrt(e) for _ in range(3))


def frozen_model(h):
    """One causal self-attention layer with a residual, batch-first: the frozen network."""
    T = h.shape[1]
    s = np.where(np.tril(np.ones((T, T), bool)), (h @ Wq) @ np.swapaxes(h @ Wk, 1, 2) / np.sqrt(e), -np.inf)
    return h + softmax(s, axis=-1) @ (h @ Wv)


ids = rng.integers(0, V, size=(3, n))
hard = rng.integers(0, V, size=p)

# 1. A soft prompt whose rows are the embeddings of a discrete prompt gives exactly the model's output
#    on the token sequence [prompt tokens; input tokens] (ids concatenated first, then looked up).
soft = E[hard]
seq_ids = np.concatenate([np.broadcast_to(hard, (3, p)), ids], axis=1)
check_close("soft prompt = E[hard prompt] reproduces the hard-prompted model",
            frozen_model(prompt_tuned_input(soft, E, ids, pos)), frozen_model(E[seq_ids] + pos[:p + n]),
            rtol=1e-12)

# 2. One batch, three tasks: each example carries its own prompt; the frozen model is shared.
P_tasks = rng.normal(size=(3, p, e))
batched = frozen_model(prompt_tuned_input(P_tasks, E, ids, pos))
single = np.concatenate([frozen_model(prompt_tuned_input(P_tasks[b], E, ids[b:b + 1], pos))
                         for b in range(3)])
check_close("mixed-task batch = each example run with its own prompt", batched, single, rtol=1e-12)
check_true("output has p + n positions", batched.shape == (3, p + n, e))

# 3. The prompt reaches every input position (causal attention lets every token see it): finite
#    differences of the last token's output with respect to one prompt entry are non-zero, while the
#    prompt does not move the input embeddings themselves.
h = 1e-6
bump = np.zeros((p, e))
bump[0, 0] = h
d_out = (frozen_model(prompt_tuned_input(soft + bump, E, ids, pos))
         - frozen_model(prompt_tuned_input(soft - bump, E, ids, pos))) / (2 * h)
check_true("every input token's output depends on the first prompt vector",
           bool(np.all(np.abs(d_out[:, p:]).max(axis=2) > 1e-6)))
check_close("input embeddings do not depend on P", prompt_tuned_input(soft + bump, E, ids, pos)[:, p:],
            prompt_tuned_input(soft, E, ids, pos)[:, p:], rtol=0, atol=0)

# 4. Trainable parameters: p e. With T5-XXL's e = 4096 and a 100-token prompt, 409,600, about
#    0.004% of 11 billion.
check_true("p e parameters: 100 x 4096 = 409,600 (< 0.01% of 11B)", 100 * 4096 == 409_600
           and 409_600 / 11e9 < 1e-4 and soft.size == p * e)

fig, ax = figure("How much each input token attends to the soft prompt", "input token position",
                 "attention mass on the prompt")
hh = prompt_tuned_input(P_tasks[0] * 3.0, E, ids[:1], pos)
T = p + n
s = np.where(np.tril(np.ones((T, T), bool)), (hh @ Wq) @ np.swapaxes(hh @ Wk, 1, 2) / np.sqrt(e), -np.inf)
ax.bar(np.arange(n), softmax(s, axis=-1)[0, p:, :p].sum(axis=1))
