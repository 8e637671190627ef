"""RAG-Token on a toy retrieve-then-generate model: exhaustive enumeration of latent passage paths,
a Monte-Carlo simulation of the per-token story, hand values, and the comparison with RAG-Sequence."""

import itertools

import numpy as np
import ragas_fixture as rf
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import check_frequencies
from scipy.special import logsumexp


# --- formula ---
def rag_token_logprob(log_retriever: np.ndarray, log_tokens: np.ndarray) -> float:
    """log p(y | x) = sum_i log sum_z p_eta(z | x) p_theta(y_i | x, z, y_<i).
    log_retriever: (K,) log p_eta(z | x) over the kept passages; log_tokens: (K, N) per-token logs."""
    joint = log_retriever[:, None] + log_tokens              # (K, N): log p(z|x) p(y_i | x, z, y_<i)
    top = np.max(joint, axis=0)
    per_token = top + np.log(np.sum(np.exp(joint - top), axis=0))
    return float(np.sum(per_token))
# --- end formula ---


log_r = np.log(rf.RETRIEVER)


def tok_prob(y) -> float:
    return float(np.exp(rag_token_logprob(log_r, rf.token_logprobs(y))))


def seq_prob(y) -> float:
    """RAG-Sequence by plain loops, for the comparison."""
    tok = np.exp(rf.token_logprobs(y))
    return float(sum(rf.RETRIEVER[z] * np.prod(tok[z]) for z in range(rf.K_TOP)))


# 1. Hand value for ("yes", "no"): each token is its own mixture, then the two mixtures multiply.
e = np.exp([2.1, 1.4, 0.9])
pz = e / e.sum()
first = pz[0] * 0.70 + pz[1] * 0.10 + pz[2] * 0.30
second = pz[0] * 0.30 + pz[1] * 0.20 + pz[2] * 0.10
check_close("hand value p(yes no | x) = [sum_z p(z) p(yes|z)] x [sum_z p(z) p(no|z,yes)]",
            tok_prob([0, 1]), first * second, rtol=1e-12)

# 2. Exhaustive: a fresh passage may be drawn for every token, so sum the joint probability
#    prod_i p(z_i | x) p(y_i | x, z_i, y_<i) over ALL K^N latent paths (distributivity turns that sum
#    into the formula's product of sums). Every output of length 1..4.
for n in (1, 2, 3, 4):
    outs = rf.all_outputs(n)
    brute = []
    for y in outs:
        tok = np.exp(rf.token_logprobs(y))
        brute.append(sum(np.prod([rf.RETRIEVER[z] * tok[z, i] for i, z in enumerate(path)])
                         for path in itertools.product(range(rf.K_TOP), repeat=n)))
    got = [tok_prob(y) for y in outs]
    check_close(f"N = {n}: all {len(outs)} outputs vs enumeration of all {rf.K_TOP ** n} passage paths",
                got, brute, rtol=1e-12)
    check_close(f"N = {n}: probabilities of all {len(outs)} outputs sum to one", sum(got), 1.0, rtol=1e-12)

# 3. Monte Carlo: simulate "fresh passage per token" 200,000 times; frequencies fit (chi-square).
rng = np.random.default_rng(0)
n = 3
draws = rf.sample_outputs(rng, 200_000, n, per_token=True)
probs = np.array([tok_prob(y) for y in rf.all_outputs(n)])
check_frequencies("N = 3: simulated per-token-passage outputs vs RAG-Token probabilities", draws, probs)

# 4. RAG-Sequence vs RAG-Token: equal for one-token outputs, different from two tokens on.
one = [tok_prob(y) for y in rf.all_outputs(1)]
check_close("N = 1: RAG-Token equals RAG-Sequence for every one-token output",
            one, [seq_prob(y) for y in rf.all_outputs(1)], rtol=1e-12)
seq3 = np.array([seq_prob(y) for y in rf.all_outputs(n)])
gap = np.abs(probs - seq3)
check_true("N = 3: the two models disagree on every output", bool(np.all(gap > 1e-4)),
           f"smallest gap {gap.min():.2e}, largest {gap.max():.3f}")
y_same = [1] * 8    # "no" eight times, which one passage produces far better than the others
check_true("one passage explains all 8 tokens: sequence-level mixing rates that output higher",
           seq_prob(y_same) > 2 * tok_prob(y_same),
           f"RAG-Sequence {seq_prob(y_same):.3e}, RAG-Token {tok_prob(y_same):.3e}")

# 5. Long outputs: per-token mixtures in log space agree with scipy's logsumexp; plain probabilities
#    underflow. Token log-probabilities are made to span more than 700 nats across passages.
long_y = rng.integers(0, rf.V, size=300)
lt = rf.token_logprobs(long_y) * np.array([[1.0], [900.0], [1.0]])   # passage 2 made extreme
got = rag_token_logprob(log_r, lt)
ref = float(np.sum(logsumexp(log_r[:, None] + lt, axis=0)))
check_close("N = 300 with per-token logs down to -2700: stable result vs scipy logsumexp per token",
            got, ref, rtol=1e-12)
check_close("same output in float64 probabilities: sum of log of mixtures, direct route",
            got, float(np.sum(np.log(np.exp(log_r) @ np.exp(lt)))), rtol=1e-12)

fig, ax = figure("RAG-Token vs RAG-Sequence on all 27 three-token outputs", "RAG-Sequence p(y | x)",
                 "RAG-Token p(y | x)")
ax.plot(seq3, probs, "o", color="tab:blue")
lim = max(seq3.max(), probs.max()) * 1.05
ax.plot([0, lim], [0, lim], "k--", lw=1, label="equal")
ax.legend()
