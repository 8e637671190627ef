"""Min-p sampling: both sides of the threshold p_base * p_max, its logit-space form, the interaction with
temperature, and the frequencies of a masked-logit sampler."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import EXPERT_LOGITS, TOKENS, V, check_frequencies, kept_tokens_figure
from scipy.special import log_softmax, softmax


# --- formula ---
def min_p_filter(p, p_base):
    """Keep tokens with p_i >= p_base * max_j p_j, renormalize."""
    q = np.where(p >= p_base * p.max(), p, 0.0)
    return q / q.sum()


def min_p_logit_mask(z, p_base):
    """The same rule on logits, as samplers apply it: z_i >= max_j z_j + log(p_base)."""
    return z >= z.max() + np.log(p_base)


def sample_min_p(z, p_base, rng, n):
    """Set the logits outside the min-p set to -inf, then draw (Gumbel-max)."""
    masked = np.where(min_p_logit_mask(z, p_base), z, -np.inf)
    return np.argmax(masked + rng.gumbel(size=(n, z.size)), axis=1)
# --- end formula ---


rng = np.random.default_rng(0)
z = EXPERT_LOGITS
p = softmax(z)

# 1. Both sides of the threshold, on probabilities that are exact in floating point:
#    p_max = 0.5, p_base = 0.5 puts the threshold exactly on the 0.25 token, which is kept;
#    a threshold a hair above it drops that token.
p_dy = np.array([0.125, 0.5, 0.0625, 0.25, 0.0625])
check_close("threshold exactly at a token's probability keeps it (p >= 0.5 * 0.5)",
            min_p_filter(p_dy, 0.5), [0, 2 / 3, 0, 1 / 3, 0], rtol=1e-12)
check_close("threshold just above drops it (p_base = 0.5000001)", min_p_filter(p_dy, 0.5000001),
            [0, 1, 0, 0, 0], rtol=1e-12)
check_close("p_base = 0.25 keeps 0.5, 0.25 and 0.125 (threshold 0.125)", min_p_filter(p_dy, 0.25),
            [0.125 / 0.875, 0.5 / 0.875, 0, 0.25 / 0.875, 0], rtol=1e-12)
check_close("p_base = 0 keeps everything", min_p_filter(p, 0.0), p, rtol=1e-12)
check_close("p_base = 1 keeps only the top token", min_p_filter(p, 1.0), np.eye(V)[np.argmax(p)],
            rtol=1e-12)

# 2. The logit-space rule against the probability-space rule computed by scipy's log_softmax,
#    on the example and on 200 random logit vectors of different widths and scales.
for p_base in (0.02, 0.05, 0.1, 0.3):
    lp = log_softmax(z)
    check_true(f"p_base = {p_base}: logit mask = {{i : log p_i - log p_max >= log p_base}}",
               np.array_equal(min_p_logit_mask(z, p_base), lp - lp.max() >= np.log(p_base)),
               f"{min_p_logit_mask(z, p_base).sum()} tokens kept")
z_edge = np.array([0.0, np.log(0.5), np.log(0.25)])
check_true("logit form, both sides: z_i = z_max + log 0.5 exactly is kept, log 0.25 is not",
           min_p_logit_mask(z_edge, 0.5).tolist() == [True, True, False],
           f"mask {min_p_logit_mask(z_edge, 0.5).tolist()}")
agree = 0
for _ in range(200):
    zr = rng.normal(scale=rng.uniform(0.5, 4.0), size=rng.integers(5, 60))
    pb = rng.uniform(0.01, 0.5)
    agree += np.array_equal(min_p_logit_mask(zr, pb), min_p_filter(softmax(zr), pb) > 0)
check_true("random logits: the logit mask and the probability filter keep the same tokens",
           agree == 200, f"{agree}/200 agree")

# 3. Applied after temperature tau, the rule keeps z_i >= z_max + tau log p_base: higher temperature,
#    larger set. Counted independently from the tempered probabilities.
for tau in (0.5, 1.0, 1.5, 3.0):
    kept = int(np.count_nonzero(min_p_filter(softmax(z / tau), 0.1)))
    check_true(f"tau = {tau}, p_base = 0.1: kept count = #{{z_i >= z_max + tau log 0.1}}",
               kept == np.count_nonzero(z >= z.max() + tau * np.log(0.1)), f"{kept} tokens")

# 4. The sampler follows the truncated, renormalized distribution (reference from log_softmax).
ref_keep = log_softmax(z) - log_softmax(z).max() >= np.log(0.1)
draws = sample_min_p(z, 0.1, rng, 200_000)
check_frequencies("p_base = 0.1: masked-logit sampler vs truncated distribution", draws,
                  np.where(ref_keep, p / p[ref_keep].sum(), 0.0))

# --- in code: transformers ---
import torch  # noqa: E402
from hf_table_lm import TableLM, processed_probs, sampled_distribution  # noqa: E402
from transformers import MinPLogitsWarper, TemperatureLogitsWarper  # noqa: E402

# The warper sets the logits of the dropped tokens to -inf; the softmax renormalizes. In float64 the
# kept probabilities are p_i / (kept mass) to a few ulps, hence rtol 1e-12.
logits = torch.tensor(z)[None, :]
check_close("softmax(MinPLogitsWarper(p_base)(logits)) = the card's min-p filter, p_base = 0.02 .. 0.3",
            [processed_probs(MinPLogitsWarper(b), z) for b in (0.02, 0.05, 0.1, 0.3)],
            [min_p_filter(p, b) for b in (0.02, 0.05, 0.1, 0.3)], rtol=1e-12)
check_close("TemperatureLogitsWarper(1.5) then MinPLogitsWarper(0.1) = min-p of softmax(z / 1.5)",
            processed_probs(MinPLogitsWarper(0.1), TemperatureLogitsWarper(1.5)(None, logits)[0].numpy()),
            min_p_filter(softmax(z / 1.5), 0.1), rtol=1e-12)
# generate() applies its default top_k = 50 before min_p. On 60 tokens whose probabilities lie within
# a factor e of each other, min_p = 0.1 keeps all 60; generate() samples from the top 50 only.
# generate() works in float32: probabilities near 1/50 good to a few float32 ulps, so rtol 1e-5.
flat = -np.linspace(0.0, 1.0, 60)
wide = TableLM(flat[None, :])
check_close("pitfall: generate(do_sample=True, min_p=0.1) samples from the top_k=50 tokens, renormalized",
            sampled_distribution(wide, min_p=0.1), np.where(np.arange(60) < 50, softmax(flat), 0.0)
            / softmax(flat)[:50].sum(), rtol=1e-5)
check_close("fix: with top_k=0 it samples from the card's min-p set (all 60 here)",
            sampled_distribution(wide, min_p=0.1, top_k=0), min_p_filter(softmax(flat), 0.1), rtol=1e-5)
# --- end in code ---

keep = min_p_filter(p, 0.1) > 0
fig, ax = kept_tokens_figure("Min-p with p_base = 0.1: keep p_i >= 0.1 p_max", p, keep,
                             f"kept ({keep.sum()} tokens, mass {p[keep].sum():.2f})")
ax.axhline(0.1 * p.max(), color="tab:red", ls="--", lw=1, label=r"$0.1\, p_{\max}$")
ax.legend(fontsize=8)

taus = np.linspace(0.3, 3.0, 60)
fig2, ax2 = figure("Min-p after temperature: the kept set grows with temperature",
                   r"temperature $\tau$", "tokens kept (of 20)")
for p_base in (0.05, 0.1, 0.2):
    ax2.plot(taus, [np.count_nonzero(min_p_filter(softmax(z / t), p_base)) for t in taus],
             drawstyle="steps-post", label=rf"$p_{{\mathrm{{base}}}}$ = {p_base}")
ax2.legend()
print(f"tokens kept at p_base = 0.1: {[TOKENS[i] for i in np.flatnonzero(keep)]}")
