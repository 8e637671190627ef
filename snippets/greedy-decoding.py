"""Greedy decoding on the toy model: step-wise argmax against prefix probabilities obtained by summing
the exhaustive joint, the zero-temperature limit of sampling, and the gap to the most probable sequence."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import (
    TOKENS,
    TOY_LOGITS,
    TOY_T,
    TOY_V,
    next_token_probs,
    toy_all_sequences,
    toy_log_probs,
    toy_text,
)


# --- formula ---
def greedy_decode(scores, T):
    """x_t = argmax_i score(i | state); state 0 is the start, state 1 + v follows token v."""
    seq = []
    state = 0
    for _ in range(T):
        v = int(np.argmax(scores[state]))
        seq.append(v)
        state = v + 1
    return seq
# --- end formula ---


rng = np.random.default_rng(0)
lp = toy_log_probs()
seqs, seq_lp = toy_all_sequences()          # all 5^4 = 625 sequences and their log-probabilities
joint = np.exp(seq_lp).reshape((TOY_V,) * TOY_T)
greedy = greedy_decode(lp, TOY_T)

# 1. Independent route: the probability of a prefix is the joint summed over all its continuations,
#    and P(x_<t, v) = P(x_<t) p(v | x_<t), so the greedy token maximizes the prefix probability
#    among the one-token extensions of the greedy prefix.
ref = []
for t in range(TOY_T):
    prefix_probs = joint[tuple(ref)].sum(axis=tuple(range(1, TOY_T - t)))
    ref.append(int(np.argmax(prefix_probs)))
check_true("greedy sequence = step-wise argmax of prefix probabilities from the exhaustive joint",
           greedy == ref, f"greedy '{toy_text(greedy)}', reference '{toy_text(ref)}'")
check_close("the joint sums to 1 over all 625 sequences", joint.sum(), 1.0, rtol=1e-12)

# 2. Softmax is monotone, so greedy on raw logits and on log-probabilities agree; one step on the
#    20-token example picks its most probable token.
check_true("greedy on raw logits = greedy on log-probabilities", greedy_decode(TOY_LOGITS, TOY_T) == greedy,
           f"'{toy_text(greedy_decode(TOY_LOGITS, TOY_T))}'")
one_step = greedy_decode(np.log(next_token_probs())[None, :], 1)
check_true("one greedy step on 'The cat sat on the' picks ' mat'", TOKENS[one_step[0]] == " mat",
           f"picked '{TOKENS[one_step[0]]}'")

# 3. Zero-temperature limit: ancestral sampling at tau = 0.01 returns the greedy sequence every time.
n = 2000
state = np.zeros(n, dtype=int)
samples = np.zeros((n, TOY_T), dtype=int)
for t in range(TOY_T):
    samples[:, t] = np.argmax(lp[state] / 0.01 + rng.gumbel(size=(n, TOY_V)), axis=1)
    state = samples[:, t] + 1
differ = int(np.count_nonzero(np.any(samples != np.array(greedy), axis=1)))
check_true(f"{n} samples at temperature 0.01 all equal the greedy sequence", differ == 0,
           f"{differ} differ")

# 4. Greedy is not exact search: the most probable sequence (exhaustive) is different and better.
best = int(np.argmax(seq_lp))
g_idx = int(np.flatnonzero(np.all(seqs == greedy, axis=1))[0])
rank = int(np.count_nonzero(seq_lp > seq_lp[g_idx])) + 1
check_true("the exhaustive argmax differs from the greedy sequence and has higher probability",
           seqs[best].tolist() != greedy and seq_lp[best] > seq_lp[g_idx] + 0.3,
           f"greedy '{toy_text(greedy)}' log p = {seq_lp[g_idx]:.3f} (rank {rank} of 625); "
           f"best '{toy_text(seqs[best])}' log p = {seq_lp[best]:.3f}")

# --- in code: transformers ---
import torch  # noqa: E402
from hf_table_lm import TableLM  # noqa: E402
from transformers import TemperatureLogitsWarper  # noqa: E402

# The toy model's table as a transformers causal LM; generate() without sampling is greedy search.
model = TableLM(TOY_LOGITS)
hf_greedy = model.generate(model.start(), do_sample=False, max_new_tokens=TOY_T, use_cache=False)
check_true("generate(do_sample=False, max_new_tokens=T) = the card's greedy sequence",
           hf_greedy[0, 1:].tolist() == greedy, f"transformers '{toy_text(hf_greedy[0, 1:].tolist())}'")
# A checkpoint whose generation config says do_sample=True makes the same call sample: 20 rows drawn
# with a fixed torch seed, not all of them the greedy sequence (each is with probability 0.072).
model.generation_config.do_sample = True
torch.manual_seed(0)
sampled = model.generate(model.start(20), max_new_tokens=TOY_T, use_cache=False)[:, 1:].tolist()
model.generation_config.do_sample = False
check_true("pitfall: with do_sample=True in the model's generation config, generate() samples instead",
           any(row != greedy for row in sampled),
           f"{sum(row != greedy for row in sampled)} of 20 rows differ")
try:
    TemperatureLogitsWarper(0.0)
    refused = False
except ValueError:
    refused = True
check_true("pitfall: temperature=0.0 is not greedy decoding, transformers refuses it (ValueError)", refused)
# --- end in code ---

order = np.argsort(-seq_lp)
fig, ax = figure("Greedy output vs the most probable of 625 sequences (toy model)",
                 "rank of the sequence by probability", "sequence log-probability")
ax.plot(np.arange(1, 31), seq_lp[order][:30], "o", color="gray", ms=4, label="30 most probable sequences")
ax.plot([1], [seq_lp[best]], "s", color="black", ms=8, label=f"best: {toy_text(seqs[best])}")
ax.plot([rank], [seq_lp[g_idx]], "*", color="tab:red", ms=13, label=f"greedy: {toy_text(greedy)}")
ax.legend()
