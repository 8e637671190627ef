"""SFT loss with prompt masking: equals log p(x, y) - log p(x) per example, scikit-learn's weighted log loss
over response tokens, prompt and padding positions get no gradient, token vs sequence averaging."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax
from sklearn.metrics import log_loss


# --- formula ---
def sft_loss(logits, tokens, prompt_len, seq_len):
    """Token-average NLL of the response tokens. logits[i, t] is the prediction for tokens[i, t + 1];
    positions before prompt_len[i] (the prompt) and from seq_len[i] on (padding) are masked out."""
    z = logits[:, :-1]
    logp = z - z.max(axis=-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=-1, keepdims=True))
    target_logp = np.take_along_axis(logp, tokens[:, 1:, None], axis=-1)[..., 0]
    pos = np.arange(1, tokens.shape[1])
    mask = (pos >= prompt_len[:, None]) & (pos < seq_len[:, None])
    return -np.sum(target_logp * mask) / np.sum(mask)
# --- end formula ---


rng = np.random.default_rng(0)
V, T, B = 11, 14, 5
W = rng.normal(scale=2.0, size=(V, V))  # a bigram "model": the logits after token a are W[a]
tokens = rng.integers(0, V, size=(B, T))
prompt_len = np.array([3, 5, 2, 6, 4])
seq_len = np.array([14, 9, 12, 10, 8])  # the rest is padding
logits = W[tokens]


def seq_logp(seq):
    """log p(seq[1:] | seq[0]) under the bigram model, with scipy's log_softmax."""
    return sum(log_softmax(W[a])[b] for a, b in itertools.pairwise(seq))


# 1. Each example's masked sum is the conditional log-likelihood of the response given the prompt,
#    log p(x, y) - log p(x): the joint minus the prompt alone. One example at a time.
for i in range(B):
    cond = seq_logp(tokens[i, :seq_len[i]]) - seq_logp(tokens[i, :prompt_len[i]])
    n_resp = seq_len[i] - prompt_len[i]
    check_close(f"example {i}: loss x |y| = -(log p(x,y) - log p(x))",
                sft_loss(logits[i:i + 1], tokens[i:i + 1], prompt_len[i:i + 1], seq_len[i:i + 1]) * n_resp,
                -cond, rtol=1e-11)

# 2. The batch loss is scikit-learn's log loss over all next-token predictions, weighted by the mask.
probs = np.exp(log_softmax(logits[:, :-1], axis=-1)).reshape(-1, V)
pos = np.arange(1, T)
weight = ((pos >= prompt_len[:, None]) & (pos < seq_len[:, None])).astype(float).ravel()
check_close("batch loss vs sklearn log_loss(sample_weight = response mask)",
            sft_loss(logits, tokens, prompt_len, seq_len),
            log_loss(tokens[:, 1:].ravel(), probs, sample_weight=weight, labels=np.arange(V)), rtol=1e-10)

# 3. Prompt and padding positions receive no gradient; response positions do (finite differences on
#    one logit at a time, example 1: prompt ends at 5, padding starts at 9).
h = 1e-6


def grad_at(t):
    bump = np.zeros_like(logits)
    bump[1, t, tokens[1, t + 1]] = h
    return (sft_loss(logits + bump, tokens, prompt_len, seq_len)
            - sft_loss(logits - bump, tokens, prompt_len, seq_len)) / (2 * h)


g = np.array([grad_at(t) for t in range(T - 1)])
check_close("no gradient from prompt (t + 1 < 5) or padding (t + 1 >= 9) positions", g[[0, 1, 2, 3, 8, 9]],
            np.zeros(6), atol=1e-10)
check_true("response positions 5..8 all receive gradient", bool(np.all(np.abs(g[4:8]) > 1e-4)),
           f"{np.round(g[4:8], 4)}")

# 4. Averaging: the loss divides by the total number of response tokens in the batch, which differs
#    from the mean of per-example means when lengths differ. Uniform logits give log V everywhere.
per_example = np.array([sft_loss(logits[i:i + 1], tokens[i:i + 1], prompt_len[i:i + 1], seq_len[i:i + 1])
                        for i in range(B)])
n = seq_len - prompt_len
check_close("token average = length-weighted mean of per-example means",
            sft_loss(logits, tokens, prompt_len, seq_len), np.sum(per_example * n) / n.sum(), rtol=1e-12)
check_true("... which is not the plain mean of per-example losses",
           abs(sft_loss(logits, tokens, prompt_len, seq_len) - per_example.mean()) > 1e-3)
check_close("uniform model: loss = log V", sft_loss(np.zeros((B, T, V)), tokens, prompt_len, seq_len),
            np.log(V), rtol=1e-12)
wide = rng.uniform(-900, 900, size=(B, T, V))
wide_lp = np.take_along_axis(log_softmax(wide[:, :-1], axis=-1), tokens[:, 1:, None], -1)[..., 0].ravel()
check_close("logits spanning 1800 (max shift needed): vs scipy log_softmax",
            sft_loss(wide, tokens, prompt_len, seq_len), -np.sum(wide_lp * weight) / weight.sum(), rtol=1e-12)

# --- in code: trl ---
import trl_sft  # noqa: E402

# Three prompt/completion pairs through SFTTrainer's own data preparation and loader, and a random tiny
# language model (float64) whose plain logits feed the card's formula (sft_args: logits, tokens,
# prompt_len, seq_len of the same rows).
trainer = trl_sft.sft_trainer()
batch, sft_args = trl_sft.card_inputs(trainer)
card_sft = sft_loss(*sft_args)
# TRL scores tokens in float32: each -log p is off by a few float32 ulps of 1 + |log p|, and so is their
# float32 sum; the mean of 1 + |log p| is 1 + the loss itself.
sft_atol = 16 * np.finfo(np.float32).eps * (1 + card_sft)
check_close("SFTTrainer.compute_loss on its prompt/completion batch = L_SFT over the completion tokens",
            trainer.compute_loss(trainer.model, dict(batch)).item(), card_sft, atol=sft_atol)
# Under gradient accumulation a run passes the token count of all micro-batches (here, two of the same
# size): each micro-batch's loss is its token sum over that count, half of L_SFT here.
n_tokens = int(np.sum(sft_args[3] - sft_args[2]))
check_close("pitfall: under gradient accumulation the loss is sum / all micro-batches' tokens",
            trainer.compute_loss(trainer.model, dict(batch), num_items_in_batch=2 * n_tokens).item(),
            card_sft / 2, atol=sft_atol)
everything = trl_sft.sft_trainer(completion_only_loss=False)
whole, (w_logits, w_ids, w_prompt_len, w_seq_len) = trl_sft.card_inputs(everything)
check_close("pitfall: completion_only_loss=False (what plain text data gets) trains on the prompt too",
            everything.compute_loss(everything.model, dict(whole)).item(),
            sft_loss(w_logits, w_ids, np.ones_like(w_prompt_len), w_seq_len), atol=sft_atol)
# --- end in code ---
