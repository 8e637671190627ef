"""Top-k sampling: the kept set against a brute-force search over all size-k subsets, renormalization,
tie handling, and the frequencies of a masked-logit sampler."""

import numpy as np
from cardcheck import check_close, check_true
from decoding_fixture import (
    EXPERT_LOGITS,
    TOKENS,
    V,
    check_frequencies,
    kept_tokens_figure,
    next_token_probs,
    subset_table,
)


# --- formula ---
def top_k_set(scores, k):
    """Indices of the k largest scores; equal scores are ranked by token id (stable sort)."""
    return np.argsort(-np.asarray(scores), kind="stable")[:k]


def top_k_filter(p, k):
    """p'_i = p_i 1[i in S_k] / sum_{j in S_k} p_j."""
    keep = top_k_set(p, k)
    q = np.zeros_like(p)
    q[keep] = p[keep]
    return q / q.sum()


def sample_top_k(z, k, rng, n):
    """As libraries do it: set every logit outside the top k to -inf, then draw (Gumbel-max)."""
    keep = top_k_set(z, k)
    masked = np.full(z.size, -np.inf)
    masked[keep] = z[keep]
    return np.argmax(masked + rng.gumbel(size=(n, z.size)), axis=1)
# --- end formula ---


rng = np.random.default_rng(0)
p = next_token_probs()

# 1. Brute force over all 2^20 subsets of the vocabulary: among the subsets of size k, the one
#    with the most probability mass (Holtzman et al.'s definition of the top-k vocabulary).
mass = subset_table(p)
size = subset_table(np.ones(V))
ids = np.arange(2**V)
for k in (1, 3, 5, 10, 19):
    q = top_k_filter(p, k)
    best = ids[size == k][np.argmax(mass[size == k])]
    in_best = (best >> np.arange(V)) & 1 == 1
    check_true(f"k = {k}: exactly k tokens kept, and they are the max-mass subset of size k",
               np.count_nonzero(q) == k and np.array_equal(q > 0, in_best),
               f"kept {np.count_nonzero(q)}; brute-force best mass {mass[best]:.6f}")
    check_close(f"k = {k}: kept probabilities = p_i / (mass of the best subset)", q,
                np.where(in_best, p / mass[best], 0.0), rtol=1e-12)

# 2. The two ends: k = V changes nothing, k = 1 is greedy decoding.
check_close("k = V returns the distribution unchanged", top_k_filter(p, V), p, rtol=1e-12)
check_close("k = 1 is one-hot on the argmax", top_k_filter(p, 1), np.eye(V)[np.argmax(p)],
            rtol=1e-12)

# 3. Ties at the boundary. The card's rule keeps exactly k, breaking ties by token id; the
#    threshold rule "keep p_i >= k-th largest" (Hugging Face's TopKLogitsWarper) keeps all ties.
p_tie = np.array([0.1, 0.3, 0.2, 0.2, 0.2])
q_tie = top_k_filter(p_tie, 2)
kth = np.sort(p_tie)[::-1][1]
check_true("tie at the k-th place (k = 2): card keeps tokens 1 and 2, the threshold rule keeps 4",
           np.flatnonzero(q_tie).tolist() == [1, 2] and np.count_nonzero(p_tie >= kth) == 4,
           f"kept {np.flatnonzero(q_tie).tolist()}, threshold rule keeps "
           f"{np.flatnonzero(p_tie >= kth).tolist()}")
check_close("tie case renormalized: 0.3/0.5 and 0.2/0.5", q_tie, [0, 0.6, 0.4, 0, 0], rtol=1e-12)

# 4. Sampling: draws from the masked logits follow the brute-force truncated distribution.
k = 5
best = ids[size == k][np.argmax(mass[size == k])]
in_best = (best >> np.arange(V)) & 1 == 1
draws = sample_top_k(EXPERT_LOGITS, k, rng, 200_000)
check_frequencies("k = 5: masked-logit sampler vs brute-force truncated distribution", draws,
                  np.where(in_best, p / mass[best], 0.0))
greedy = sample_top_k(EXPERT_LOGITS, 1, rng, 5_000)
check_true("k = 1: every draw is the argmax token", bool(np.all(greedy == np.argmax(p))),
           f"all draws '{TOKENS[np.argmax(p)]}'")

# --- in code: torch ---
import torch  # noqa: E402

logits = torch.tensor(EXPERT_LOGITS)
for k in (1, 5, 10):
    check_true(f"torch.topk(z, {k}).indices = S_k (no ties among these logits)",
               sorted(torch.topk(logits, k).indices.tolist()) == sorted(top_k_set(EXPERT_LOGITS, k).tolist()))
# The usual filter masks every logit below the k-th largest, then takes the softmax: a softmax of
# V = 20 terms against a division by a sum, a few ulps, so 1e-12.
kth_value = torch.topk(logits, 5).values[-1]
masked = logits.masked_fill(logits < kth_value, float("-inf"))
check_close("softmax(z masked below topk(z, k).values[-1]) = p' (k = 5)",
            torch.softmax(masked, dim=-1).numpy(), top_k_filter(p, 5), rtol=1e-12)
# That threshold keeps every token tied with the k-th: on the tie case of check 3 it keeps 4 tokens
# for k = 2, each p_i over their total mass 0.9, where the card keeps exactly 2.
tie_logits = torch.log(torch.tensor(p_tie))
tie_masked = tie_logits.masked_fill(tie_logits < torch.topk(tie_logits, 2).values[-1], float("-inf"))
check_close("pitfall: the threshold filter keeps all 4 tokens tied at the k-th place (k = 2)",
            torch.softmax(tie_masked, dim=-1).numpy(), np.where(p_tie >= kth, p_tie, 0.0) / 0.9, rtol=1e-12)
# Scattering topk's indices into a mask keeps exactly k (which of the tied ones is topk's choice).
exact = torch.zeros_like(tie_logits, dtype=torch.bool).scatter(-1, torch.topk(tie_logits, 2).indices, True)
check_true("fix: a mask scattered from topk(z, k).indices keeps exactly k = 2 of the tied tokens",
           int(exact.sum()) == 2 and bool(exact[1]), f"kept {torch.nonzero(exact).flatten().tolist()}")
# --- end in code ---

fig, ax = kept_tokens_figure("Top-k with k = 5 keeps a fixed number of tokens", p,
                             top_k_filter(p, 5) > 0,
                             f"kept (k = 5), mass {mass[best]:.3f}")
