"""Beam search on the toy model: full width against exhaustive enumeration, width 1 against step-wise
argmax, and a case where widths 1 and 2 miss the most probable sequence."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import TOY_T, TOY_V, toy_all_sequences, toy_log_probs, toy_text
from scipy.special import logsumexp


# --- formula ---
def beam_search(log_probs, T, B):
    """B_t = the B best one-token extensions of the hypotheses in B_{t-1}, scored by
    log p(y_1:t) = log p(y_1:t-1) + log p(y_t | y_t-1). Returns [(sequence, score)], best first."""
    beams = [((), 0.0)]
    for _ in range(T):
        candidates = []
        for seq, score in beams:
            state = seq[-1] + 1 if seq else 0
            for v in range(log_probs.shape[1]):
                candidates.append(((*seq, v), score + log_probs[state, v]))
        candidates.sort(key=lambda c: -c[1])
        beams = candidates[:B]
    return beams
# --- end formula ---


lp = toy_log_probs()
seqs, seq_lp = toy_all_sequences()             # all 625 sequences, exhaustive reference
best = tuple(int(v) for v in seqs[np.argmax(seq_lp)])

# 1. Width V^T = 625 keeps every hypothesis: the final beam holds all sequences, each with its
#    exhaustive log-probability, sorted best first.
full = beam_search(lp, TOY_T, TOY_V**TOY_T)
index = {tuple(int(v) for v in s): i for i, s in enumerate(seqs)}
check_true("B = V^T: the final beam holds each of the 625 sequences once, best one first",
           sorted(index[s] for s, _ in full) == list(range(len(seqs))) and full[0][0] == best,
           f"best '{toy_text(full[0][0])}' = exhaustive best '{toy_text(best)}'")
check_close("B = V^T: beam scores = exhaustive log-probabilities, in decreasing order",
            [v for _, v in full], np.sort(seq_lp)[::-1], rtol=1e-12)
check_close("B = V^T: each beam score = exhaustive log-probability of its own sequence",
            [v for _, v in full], [seq_lp[index[s]] for s, _ in full], rtol=1e-12)

# 2. Width 1 is greedy decoding: the step-wise argmax of the conditional distributions (scipy).
state, greedy = 0, []
for _ in range(TOY_T):
    greedy.append(int(np.argmax(lp[state])))
    state = greedy[-1] + 1
check_true("B = 1 returns the greedy sequence", list(beam_search(lp, TOY_T, 1)[0][0]) == greedy,
           f"'{toy_text(greedy)}'")

# 3. Smaller widths can miss. B = 1 and B = 2 return worse sequences; B >= 3 finds the best one.
found = {B: beam_search(lp, TOY_T, B)[0] for B in range(1, 7)}
hits = [found[B][0] == best for B in range(1, 7)]
check_true("widths 1 and 2 miss the most probable sequence, widths 3 to 6 find it",
           hits == [False, False, True, True, True, True],
           "; ".join(f"B={B}: '{toy_text(s)}' {v:.3f}" for B, (s, v) in found.items()))
for B in (1, 2, 5):
    s, v = found[B]
    check_close(f"B = {B}: returned score = exhaustive log-probability of '{toy_text(s)}'", v,
                seq_lp[np.flatnonzero(np.all(seqs == s, axis=1))[0]], rtol=1e-12)

# 4. Why B = 2 misses: after two steps it keeps the two best extensions of its two first tokens,
#    and the best sequence's prefix 'b e' ranks only third. Prefix log-probabilities are computed
#    independently by log-sum-exp of the exhaustive table over the continuations.
prefix_lp = logsumexp(seq_lp.reshape(TOY_V, TOY_V, -1), axis=2)
beam2 = beam_search(lp, 2, 2)
rank_be = int(np.count_nonzero(prefix_lp > prefix_lp[best[0], best[1]])) + 1
check_close("t = 2, B = 2: beam scores = prefix log-probabilities from the exhaustive table",
            [v for _, v in beam2], [prefix_lp[s] for s, _ in beam2], rtol=1e-12)
check_true("t = 2: the best sequence's prefix ranks 3rd among all 2-token prefixes, so B = 2 drops it",
           rank_be == 3 and best[:2] not in [s for s, _ in beam2],
           f"beam keeps {[toy_text(s) for s, _ in beam2]}; '{toy_text(best[:2])}' ranks {rank_be}")

# --- in code: transformers ---
from decoding_fixture import TOY_LOGITS  # noqa: E402
from hf_table_lm import TableLM  # noqa: E402

# The toy table as a transformers causal LM; there is no end-of-sequence token, so every beam runs
# T steps. generate() scores in float32: sums of four log-probabilities (about -2.5) are good to a few
# float32 ulps (1e-7 relative each), so rtol 1e-5 holds with room.
model = TableLM(TOY_LOGITS)
for B in (2, 3, 5):
    out = model.generate(model.start(), num_beams=B, num_return_sequences=B, do_sample=False,
                         max_new_tokens=TOY_T, use_cache=False, length_penalty=0.0,
                         output_scores=True, return_dict_in_generate=True)
    ours = beam_search(lp, TOY_T, B)
    check_true(f"generate(num_beams={B}, num_return_sequences={B}) returns the card's final beam, in order",
               [tuple(row[1:]) for row in out.sequences.tolist()] == [s for s, _ in ours],
               "; ".join(toy_text(row[1:]) for row in out.sequences.tolist()))
    check_close(f"num_beams={B}, length_penalty=0.0: sequences_scores = the card's beam scores",
                out.sequences_scores.numpy(), [v for _, v in ours], rtol=1e-5)
default = model.generate(model.start(), num_beams=2, do_sample=False, max_new_tokens=TOY_T, use_cache=False,
                         output_scores=True, return_dict_in_generate=True)
check_close("pitfall: the default length_penalty=1.0 divides the score by the length T = 4",
            default.sequences_scores.item() * TOY_T, found[2][1], rtol=1e-5)
# --- end in code ---

widths = np.arange(1, 11)
fig, ax = figure("Beam width against the best sequence found (toy model)",
                 "beam width B", "log-probability of the returned sequence")
ax.plot(widths, [beam_search(lp, TOY_T, int(B))[0][1] for B in widths], "o-", label="beam search")
ax.axhline(seq_lp.max(), color="tab:red", ls="--", label=f"exhaustive best '{toy_text(best)}'")
ax.set_xticks(widths)
ax.legend()
