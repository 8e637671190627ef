"""RAG-Sequence on a toy retrieve-then-generate model: exhaustive enumeration of outputs and latent
passage paths, a Monte-Carlo simulation of the generative story, hand values, and scipy's logsumexp."""

import itertools

import numpy as np
import ragas_fixture as rf
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import check_frequencies
from scipy.special import logsumexp


# --- formula ---
def rag_sequence_logprob(log_retriever: np.ndarray, log_tokens: np.ndarray) -> float:
    """log p(y | x) = log sum_z p_eta(z | x) prod_i p_theta(y_i | x, z, y_<i).
    log_retriever: (K,) log p_eta(z | x) over the kept passages; log_tokens: (K, N) per-token logs."""
    per_passage = log_retriever + np.sum(log_tokens, axis=1)   # log of p(z | x) p(y | x, z)
    top = np.max(per_passage)
    return float(top + np.log(np.sum(np.exp(per_passage - top))))
# --- end formula ---


log_r = np.log(rf.RETRIEVER)


def seq_prob(y) -> float:
    return float(np.exp(rag_sequence_logprob(log_r, rf.token_logprobs(y))))


# 1. Hand value, output ("yes",) then ("yes", "no"): p_eta = softmax(2.1, 1.4, 0.9).
e = np.exp([2.1, 1.4, 0.9])
pz = e / e.sum()
hand_one = pz[0] * 0.70 + pz[1] * 0.10 + pz[2] * 0.30
hand_two = pz[0] * 0.70 * 0.30 + pz[1] * 0.10 * 0.20 + pz[2] * 0.30 * 0.10
check_close("hand value p(yes | x) = sum_z p(z|x) p(yes|z) with p_eta = softmax(2.1, 1.4, 0.9)",
            seq_prob([0]), hand_one, rtol=1e-12)
check_close("hand value p(yes no | x): mixture over passages of two-token products",
            seq_prob([0, 1]), hand_two, rtol=1e-12)

# 2. Exhaustive: the generative story is "draw one passage, then all tokens from it". Enumerate every
#    latent path z_1..z_N in K^N, keep the paths that never switch passage, and sum their joint
#    probability p(z_1) prod_i p(y_i | z_i, y_<i). Every output of length 1..4.
for n in (1, 2, 3, 4):
    outs = rf.all_outputs(n)
    brute = []
    for y in outs:
        tok = np.exp(rf.token_logprobs(y))
        total = 0.0
        for path in itertools.product(range(rf.K_TOP), repeat=n):
            if len(set(path)) == 1:
                total += rf.RETRIEVER[path[0]] * np.prod([tok[z, i] for i, z in enumerate(path)])
        brute.append(total)
    got = [seq_prob(y) for y in outs]
    check_close(f"N = {n}: all {len(outs)} outputs vs enumeration of constant passage paths", got, brute,
                rtol=1e-12)
    check_close(f"N = {n}: probabilities of all {len(outs)} outputs sum to one", sum(got), 1.0, rtol=1e-12)

# 3. Monte Carlo: simulate the story 200,000 times; output frequencies fit the formula (chi-square).
rng = np.random.default_rng(0)
n = 3
draws = rf.sample_outputs(rng, 200_000, n, per_token=False)
probs = np.array([seq_prob(y) for y in rf.all_outputs(n)])
check_frequencies("N = 3: simulated one-passage outputs vs RAG-Sequence probabilities", draws, probs)

# 4. Long outputs: each passage's log p(y | z) is about -5000, far below exp's range; the shifted
#    log-sum-exp stays finite and agrees with scipy.special.logsumexp, while the naive sum underflows.
long_y = rng.integers(0, rf.V, size=4000)
lt = rf.token_logprobs(long_y)
got = rag_sequence_logprob(log_r, lt)
ref = logsumexp(log_r + lt.sum(axis=1))
span = np.ptp(log_r + lt.sum(axis=1))
check_close(f"N = 4000 (per-passage log-likelihoods {lt.sum(axis=1).round(0)}), vs scipy logsumexp",
            got, ref, rtol=1e-12)
with np.errstate(divide="ignore"):
    naive = np.log(np.sum(rf.RETRIEVER * np.exp(lt.sum(axis=1))))
check_true("the naive product-then-sum underflows to log 0 = -inf on that output",
           np.isneginf(naive) and np.isfinite(got), f"spread between passages {span:.0f} nats")

# 5. Passage posterior: the passage that explains the whole output best gets all the weight.
y = [1] * 10   # "no" ten times, which passage 2 of the kept three prefers strongly
joint = log_r + rf.token_logprobs(y).sum(axis=1)
post = np.exp(joint - rag_sequence_logprob(log_r, rf.token_logprobs(y)))
check_close("posterior p(z | x, y) = p(z|x) p(y|x,z) / p(y|x) sums to one", post.sum(), 1.0, rtol=1e-12)
check_true("ten 'no' tokens: the posterior moves almost all mass to the 'no'-loving passage",
           post[1] > 0.99 and rf.RETRIEVER[1] < 0.3,
           f"prior {rf.RETRIEVER.round(3)}, posterior {post.round(4)}")

fig, ax = figure("RAG-Sequence: probability of every 3-token output", "output (base-3 index)",
                 "p(y | x)")
ax.bar(np.arange(len(probs)), probs, color="tab:blue", label="formula")
ax.plot(np.arange(len(probs)), np.bincount(draws, minlength=len(probs)) / len(draws), "k.",
        label="simulated frequency")
ax.legend()
