"""Nucleus (top-p) sampling: the sorted prefix against a brute-force search over all subsets,
the >= boundary, renormalization, and the frequencies of a masked sampler."""

import numpy as np
from cardcheck import check_close, check_true
from decoding_fixture import V, check_frequencies, kept_tokens_figure, next_token_probs, subset_table


# --- formula ---
def nucleus_set(p, top_p):
    """Shortest prefix of the tokens sorted by probability whose mass reaches top_p (>=)."""
    order = np.argsort(-p, kind="stable")
    mass_before = np.cumsum(p[order]) - p[order]
    return order[mass_before < top_p]


def nucleus_filter(p, top_p):
    """p'_i = p_i 1[i in V_p] / sum_{j in V_p} p_j."""
    keep = nucleus_set(p, top_p)
    q = np.zeros_like(p)
    q[keep] = p[keep]
    return q / q.sum()


def sample_nucleus(p, top_p, rng, n):
    """Mask the log-probabilities outside the nucleus to -inf, then draw (Gumbel-max)."""
    keep = nucleus_set(p, top_p)
    masked = np.full(p.size, -np.inf)
    masked[keep] = np.log(p[keep])
    return np.argmax(masked + rng.gumbel(size=(n, p.size)), axis=1)
# --- end formula ---


rng = np.random.default_rng(0)
p = next_token_probs()

# 1. Brute force over all 2^20 subsets: the smallest size that reaches mass top_p, and among the
#    subsets of that size the one with the most mass. The nucleus must be exactly that subset.
mass = subset_table(p)
size = subset_table(np.ones(V))
ids = np.arange(2**V)
for top_p in (0.3, 0.5, 0.8, 0.9, 0.95):
    q = nucleus_filter(p, top_p)
    reach = mass >= top_p
    m_star = int(size[reach].min())
    cand = ids[reach & (size == m_star)]
    best = cand[np.argmax(mass[cand])]
    in_best = (best >> np.arange(V)) & 1 == 1
    check_true(f"top_p = {top_p}: nucleus = smallest subset reaching top_p (the max-mass one of "
               f"that size)", np.count_nonzero(q) == m_star and np.array_equal(q > 0, in_best),
               f"{m_star} tokens, mass {mass[best]:.4f}; {len(cand)} subsets of size {m_star} "
               f"reach {top_p}")
    check_close(f"top_p = {top_p}: kept probabilities = p_i / nucleus mass", q,
                np.where(in_best, p / mass[best], 0.0), rtol=1e-12)

# 2. The boundary is ">=": with dyadic probabilities the prefix masses are exact in floating point.
p2 = np.array([0.0625, 0.5, 0.125, 0.25, 0.0625])
sizes = [int(np.count_nonzero(nucleus_filter(p2, t))) for t in (0.5, 0.7499, 0.75, 0.7501, 0.875, 1.0)]
check_true("dyadic example: mass exactly equal to top_p stops the prefix (sizes 1, 2, 2, 3, 3, 5)",
           sizes == [1, 2, 2, 3, 3, 5], f"sizes {sizes}")
check_close("top_p = 0.75 on the dyadic example keeps 0.5 and 0.25, renormalized to 2/3 and 1/3",
            nucleus_filter(p2, 0.75), [0, 2 / 3, 0, 1 / 3, 0], rtol=1e-12)

# 3. The ends: a tiny top_p is greedy decoding, top_p = 1 is plain sampling.
check_close("top_p = 1e-9 is one-hot on the argmax", nucleus_filter(p, 1e-9), np.eye(V)[np.argmax(p)],
            rtol=1e-12)
check_close("top_p = 1 keeps the whole distribution", nucleus_filter(p, 1.0), p, rtol=1e-12)

# 4. Sampling from the masked distribution matches the brute-force nucleus, renormalized.
reach = mass >= 0.8
m_star = int(size[reach].min())
cand = ids[reach & (size == m_star)]
best = cand[np.argmax(mass[cand])]
in_best = (best >> np.arange(V)) & 1 == 1
draws = sample_nucleus(p, 0.8, rng, 200_000)
check_frequencies("top_p = 0.8: masked sampler vs brute-force nucleus distribution", draws,
                  np.where(in_best, p / mass[best], 0.0))

# --- in code: transformers ---
from hf_table_lm import TableLM, processed_probs, sampled_distribution  # noqa: E402
from transformers import TopPLogitsWarper  # noqa: E402

# The warper masks logits (to -inf) and leaves the renormalizing to the softmax that sampling applies.
# In float64 the kept probabilities are p_i / (nucleus mass) to a few ulps, hence rtol 1e-12; the
# masked ones are exactly 0. (At a prefix mass exactly equal to top_p, as in the dyadic example, the
# rounding of the softmax decides, so that boundary is not compared here.)
check_close("softmax(TopPLogitsWarper(top_p)(logits)) = the card's nucleus, top_p = 0.3 .. 0.95",
            [processed_probs(TopPLogitsWarper(t), np.log(p)) for t in (0.3, 0.5, 0.8, 0.9, 0.95)],
            [nucleus_filter(p, t) for t in (0.3, 0.5, 0.8, 0.9, 0.95)], rtol=1e-12)
# generate() applies its default top_k = 50 before top_p: on 60 nearly equal tokens the nucleus of
# 0.95 holds 56 of them. One step of generate() on a one-row table, with the processed scores returned.
flat = -np.linspace(0.0, 1.0, 60)
p_flat = np.exp(flat) / np.exp(flat).sum()
wide = TableLM(flat[None, :])


def kept_by_generate(**settings):
    return sampled_distribution(wide, top_p=0.95, **settings)


# generate() cuts to the 50 most probable first (flat is decreasing: the first 50), then takes the
# nucleus of that renormalized top 50, which holds fewer tokens than the nucleus of all 60.
# generate() casts the model's logits to float32: probabilities near 1/50 from a float32 softmax are
# good to a few float32 ulps (6e-8 each), so rtol 1e-5 holds with room; no prefix mass here lies
# within 1e-5 of 0.95, so float32 keeps the same tokens.
top50 = np.where(np.arange(60) < 50, p_flat, 0.0) / p_flat[:50].sum()
check_close("pitfall: generate(do_sample=True, top_p=0.95) applies its default top_k=50 first",
            kept_by_generate(), nucleus_filter(top50, 0.95), rtol=1e-5)
kept, in_nucleus = np.count_nonzero(kept_by_generate()), nucleus_set(p_flat, 0.95).size
check_true("pitfall: so it keeps fewer tokens than the nucleus of the full distribution",
           kept < in_nucleus, f"generate keeps {kept}, the nucleus {in_nucleus}")
check_close("fix: top_k=0 leaves the nucleus alone", kept_by_generate(top_k=0), nucleus_filter(p_flat, 0.95),
            rtol=1e-5)
# --- end in code ---

keep = nucleus_filter(p, 0.8) > 0
fig, ax = kept_tokens_figure("Top-p with p = 0.8 keeps the shortest prefix reaching 80%", p, keep,
                             f"kept ({keep.sum()} tokens)")
ax.step(np.arange(V), np.cumsum(p), where="mid", color="black", lw=1, label="cumulative mass")
ax.axhline(0.8, color="tab:red", ls="--", lw=1, label="p = 0.8")
ax.legend(fontsize=8)
