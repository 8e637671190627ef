"""Locally typical sampling: the sorted-prefix procedure against its threshold form, against a
brute-force search over all subsets (the paper's objective and its min-max version), and the
frequencies of a masked sampler."""

import numpy as np
from cardcheck import check_close, check_true
from decoding_fixture import TOKENS, V, check_frequencies, kept_tokens_figure, next_token_probs, subset_table
from scipy.stats import entropy


# --- formula ---
def typical_set(p, tau):
    """Order tokens by |-log p_i - H(p)| and keep the shortest prefix whose mass reaches tau."""
    logp = np.log(p)  # equivalent: log2 scales every deviation by 1/ln 2, the order and set are unchanged
    H = -np.sum(p * logp)
    dev = np.abs(-logp - H)
    order = np.argsort(dev, kind="stable")
    mass_before = np.cumsum(p[order]) - p[order]
    return order[mass_before < tau]


def typical_filter(p, tau):
    """p'_i = p_i 1[i in C] / sum_{j in C} p_j for the typical set C."""
    keep = typical_set(p, tau)
    q = np.zeros_like(p)
    q[keep] = p[keep]
    return q / q.sum()


def sample_typical(p, tau, rng, n):
    """Mask the log-probabilities outside the typical set to -inf, then draw (Gumbel-max)."""
    keep = typical_set(p, tau)
    masked = np.full(p.size, -np.inf)
    masked[keep] = np.log(p[keep])
    return np.argmax(masked + rng.gumbel(size=(n, p.size)), axis=1)
# --- end formula ---


rng = np.random.default_rng(0)
p = next_token_probs()
H = entropy(p)                                   # scipy, nats
dev = np.abs(-np.log(p) - H)                     # |surprisal - entropy| per token
taus = (0.2, 0.5, 0.8, 0.9, 0.95)


def threshold_form(tau):
    """Same family of sets written as {i : dev_i <= delta}, with the smallest delta among the
    observed deviations whose set reaches mass tau; found by scanning, without sort or cumsum."""
    for delta in np.unique(dev):
        members = dev <= delta
        if p[members].sum() >= tau:
            return members
    return np.ones(V, dtype=bool)


# 1. The procedure against the threshold form, with entropy and deviations from scipy.
for tau in taus:
    q = typical_filter(p, tau)
    ref = threshold_form(tau)
    check_true(f"tau = {tau}: sorted prefix = {{i : |-log p_i - H| <= delta}} for the smallest delta "
               f"reaching mass tau", np.array_equal(q > 0, ref),
               f"{ref.sum()} tokens, mass {p[ref].sum():.4f}, H = {H:.4f} nats")
    check_close(f"tau = {tau}: kept probabilities renormalized by the kept mass", q,
                np.where(ref, p / p[ref].sum(), 0.0), rtol=1e-12)

# 2. Brute force over all 2^20 subsets with mass >= tau.
#    (a) The prefix minimizes the LARGEST deviation in the set: exactly, for every tau.
#    (b) The paper's objective is the SUM of deviations: the prefix attains it at 0.9 and 0.95,
#        but at tau = 0.2, 0.5 and 0.8 another subset has a smaller sum (a knapsack-type problem).
mass = subset_table(p)
dev_sum = subset_table(dev)
dev_max = subset_table(dev, combine=np.maximum)
ids = np.arange(2**V)
for tau in taus:
    kept = typical_filter(p, tau) > 0
    ok = mass >= tau
    check_close(f"tau = {tau}: largest deviation in the prefix = brute-force min-max over subsets",
                dev[kept].max(), dev_max[ok].min(), rtol=1e-12)
    best = ids[ok][np.argmin(dev_sum[ok])]
    in_best = (best >> np.arange(V)) & 1 == 1
    if tau >= 0.9:
        check_true(f"tau = {tau}: prefix = brute-force minimizer of the summed deviation",
                   np.array_equal(kept, in_best), f"sum {dev[kept].sum():.4f} = {dev_sum[best]:.4f}")
    else:
        check_true(f"tau = {tau}: prefix is NOT the minimizer of the summed deviation",
                   dev[kept].sum() > dev_sum[best] + 0.1,
                   f"prefix {[TOKENS[i] for i in np.flatnonzero(kept)]} sum {dev[kept].sum():.3f}; "
                   f"optimum {[TOKENS[i] for i in np.flatnonzero(in_best)]} sum {dev_sum[best]:.3f}")

# 3. The boundary is ">= tau". Dyadic example: H = 1.75 bits, deviations 0.75, 0.25, 1.25, 1.25 bits,
#    so the order is 0.25, 0.5, 0.125, 0.125 with prefix masses 0.25, 0.75, 0.875, 1 (exact in floats).
p_dy = np.array([0.5, 0.25, 0.125, 0.125])
sizes = [int(np.count_nonzero(typical_filter(p_dy, t))) for t in (0.25, 0.2501, 0.75, 0.7501, 1.0)]
check_true("dyadic example: a prefix whose mass equals tau stops the set (sizes 1, 2, 2, 3, 4)",
           sizes == [1, 2, 2, 3, 4], f"sizes {sizes}")
check_close("dyadic example, tau = 0.75: keeps 0.25 and 0.5, renormalized to 1/3 and 2/3",
            typical_filter(p_dy, 0.75), [2 / 3, 1 / 3, 0, 0], rtol=1e-12)

# 4. The ends. tau = 1 keeps everything; a tiny tau keeps the single most typical token, which is
#    not the most probable one here: typical sampling can exclude the mode.
check_close("tau = 1 keeps the whole distribution", typical_filter(p, 1.0), p, rtol=1e-12)
one = typical_filter(p, 1e-9)
check_true("tau = 1e-9 keeps only the token whose surprisal is closest to H (not the argmax)",
           np.flatnonzero(one).tolist() == [int(np.argmin(dev))] and np.argmin(dev) != np.argmax(p),
           f"kept '{TOKENS[np.flatnonzero(one)[0]]}' (deviation {dev.min():.3f}); argmax is "
           f"'{TOKENS[np.argmax(p)]}' (deviation {dev[np.argmax(p)]:.3f})")

# 5. The seed's fixed deviation bound can select nothing: no token lies within 0.05 nats of H.
check_true("a fixed bound |-log p_i - H| <= 0.05 keeps no token at all on this distribution",
           np.count_nonzero(dev <= 0.05) == 0, f"smallest deviation {dev.min():.3f} nats")

# 6. Sampling from the masked distribution matches the threshold-form reference.
ref = threshold_form(0.5)
draws = sample_typical(p, 0.5, rng, 200_000)
check_frequencies("tau = 0.5: masked sampler vs threshold-form typical distribution", draws,
                  np.where(ref, p / p[ref].sum(), 0.0))

# --- in code: transformers ---
from hf_table_lm import processed_probs  # noqa: E402
from transformers import TypicalLogitsWarper  # noqa: E402

# The warper sets the logits outside the typical set to -inf; the softmax renormalizes. In float64
# the kept probabilities are p_i / (kept mass) to a few ulps, hence rtol 1e-12.
check_close("softmax(TypicalLogitsWarper(mass=tau)(logits)) = the card's typical set, tau = 0.2 .. 0.95",
            [processed_probs(TypicalLogitsWarper(mass=t), np.log(p)) for t in taus],
            [typical_filter(p, t) for t in taus], rtol=1e-12)
# Ties: on the dyadic example the two 0.125 tokens have the same deviation (computed from equal
# inputs, so equal in floating point). At tau = 0.7501 the card's prefix needs one of them; the
# warper keeps every token whose deviation is no larger than the last one needed, so both.
tie = processed_probs(TypicalLogitsWarper(mass=0.7501), np.log(p_dy))
check_true("pitfall: at a tie on the boundary the warper keeps all tied tokens (4 tokens, the card 3)",
           np.count_nonzero(tie) == 4 and np.count_nonzero(typical_filter(p_dy, 0.7501)) == 3,
           f"warper {np.count_nonzero(tie)} tokens, card {np.count_nonzero(typical_filter(p_dy, 0.7501))}")
# --- end in code ---

kept = typical_filter(p, 0.2) > 0
fig, ax = kept_tokens_figure("Locally typical set, tau = 0.2: the most probable token is dropped",
                             p, kept, f"kept ({kept.sum()} tokens, mass {p[kept].sum():.2f})")
ax2 = ax.twinx()
ax2.plot(np.arange(V), -np.log(p), "k.", ms=5, label=r"surprisal $-\log p_i$")
ax2.axhline(H, color="tab:red", ls="--", lw=1, label=f"entropy H = {H:.2f} nats")
ax2.set_ylabel("nats")
ax2.legend(loc="center right", fontsize=8)
