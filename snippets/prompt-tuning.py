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

# --- in code: peft ---
import warnings  # noqa: E402

import torch  # noqa: E402
from peft import PromptTuningConfig, get_peft_model  # noqa: E402
from peft_fixture import FrozenLM, weight  # noqa: E402


def peft_prompt_tuning(**options):
    """PEFT's prompt tuning of the card's frozen model (FrozenLM adds the positions and runs
    frozen_model): the PEFT model, the frozen LM (which records what it was given) and the prompt."""
    lm = FrozenLM(E, lambda h, cache, mask: frozen_model(h.numpy() + pos[: h.shape[1]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # transformers' own deprecation notice
        model = get_peft_model(lm, PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=p, **options))
    return model, lm, model.prompt_encoder["default"].embedding.weight


torch.manual_seed(0)
model, lm, prompt = peft_prompt_tuning()
check_true("pitfall: the soft prompt is a float32 nn.Embedding even when the model is float64",
           prompt.dtype == torch.float32 and lm.embed.weight.dtype == torch.float64)
trainable = model.get_nb_trainable_parameters()[0]
check_true("only P trains: get_nb_trainable_parameters() = p e", trainable == p * e,
           f"{trainable} vs {p * e}")
# The card's P, rounded to float32 (the prompt's dtype): the rest is exact, a copy and a concatenation.
P32 = P_tasks[0].astype(np.float32).astype(np.float64)
with torch.no_grad():
    prompt.copy_(torch.from_numpy(P32))
labels = rng.integers(0, V, size=(3, n))
out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.ones(3, n, dtype=torch.long),
            labels=torch.from_numpy(labels))
check_close("PEFT hands the frozen model h0 = [P; E x]", weight(lm.seen["inputs_embeds"]),
            prompt_tuned_input(P32, E, ids, np.zeros_like(pos)), rtol=0, atol=0)
check_close("the frozen model's output on it is the card's", weight(out.logits),
            frozen_model(prompt_tuned_input(P32, E, ids, pos)), rtol=0, atol=0)
check_true("pitfall: the output has p + n positions; the input tokens' are the last n",
           tuple(out.logits.shape) == (3, p + n, e), f"shape {tuple(out.logits.shape)}")
check_true("the loss is -log p(y | [P; E x]) on y only: labels get p leading -100s, the mask p ones",
           np.array_equal(lm.seen["labels"].numpy(), np.hstack([np.full((3, p), -100), labels]))
           and np.array_equal(lm.seen["attention_mask"].numpy(), np.ones((3, p + n))))

# Initialization: PEFT's default, RANDOM, draws P from N(0, 1) as nn.Embedding does; Lester et al.
# start from vocabulary embeddings, which SAMPLE_VOCAB does (rows of E, rounded to float32).
random_prompt = weight(peft_prompt_tuning()[2])
gap_to_vocab = np.abs(random_prompt[:, None, :] - E[None]).max(axis=2).min(axis=1)
check_true("pitfall: prompt_tuning_init defaults to RANDOM: no prompt vector is a token embedding",
           bool(np.all(gap_to_vocab > 0.1)), f"closest token embedding at {gap_to_vocab.min():.2f}")
sampled = weight(peft_prompt_tuning(prompt_tuning_init="SAMPLE_VOCAB")[2])
gap_to_vocab = np.abs(sampled[:, None, :] - E.astype(np.float32)[None]).max(axis=2).min(axis=1)
check_true("prompt_tuning_init='SAMPLE_VOCAB': every prompt vector is a row of E",
           bool(np.all(gap_to_vocab == 0)), f"largest distance to a row of E {gap_to_vocab.max():.2g}")
# --- end in code ---

fig, ax = figure("How much each input token attends to the soft prompt", "input token position",
                 "attention mass on the prompt")
hh = prompt_tuned_input(P_tasks[0] * 3.0, E, ids[:1], pos)
T = p + n
s = np.where(np.tril(np.ones((T, T), bool)), (hh @ Wq) @ np.swapaxes(hh @ Wk, 1, 2) / np.sqrt(e), -np.inf)
ax.bar(np.arange(n), softmax(s, axis=-1)[0, p:, :p].sum(axis=1))
