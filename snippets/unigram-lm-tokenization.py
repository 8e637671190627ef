"""Unigram LM: forward sums and EM expected counts vs enumeration of every segmentation; EM vs scipy."""

from collections import Counter
from itertools import combinations, pairwise

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax
from text_fixture import TRAIN_WORDS


# --- formula ---
def seg_logprob(pieces, logp: dict[str, float]) -> float:
    """log P(x) = sum_i log p(x_i) for one segmentation x = (x_1, ..., x_M)."""
    return float(sum(logp[t] for t in pieces))


def forward(word: str, logp: dict[str, float], max_len: int) -> np.ndarray:
    """log alpha[j]: log of the summed probability of all segmentations of word[:j], so that
    log alpha[n] = log sum_{x in S(X)} P(x). Pieces longer than max_len are not used;
    positions that no segmentation reaches stay at -inf."""
    alpha = np.full(len(word) + 1, -np.inf)
    alpha[0] = 0.0
    for j in range(1, len(word) + 1):
        terms = [alpha[j - len(t)] + lp for t, lp in logp.items()
                 if len(t) <= max_len and word.endswith(t, 0, j)]
        if terms:
            alpha[j] = np.logaddexp.reduce(terms)
    return alpha


def forward_backward(word: str, logp: dict[str, float], max_len: int):
    """alpha as above; log beta[i], the total of the suffix word[i:], is the forward pass run on the
    reversed word with reversed pieces, read backwards."""
    alpha = forward(word, logp, max_len)
    beta = forward(word[::-1], {t[::-1]: lp for t, lp in logp.items()}, max_len)[::-1]
    return alpha, beta


def expected_counts(word: str, logp: dict[str, float], max_len: int) -> Counter:
    """E-step: posterior expected number of times each piece occurs in a segmentation of word."""
    alpha, beta = forward_backward(word, logp, max_len)
    out: Counter = Counter()
    for i, a in enumerate(alpha[:-1]):
        for t, lp in logp.items():
            if len(t) <= max_len and word.startswith(t, i):
                out[t] += np.exp(a + lp + beta[i + len(t)] - alpha[-1])
    return out


def marginal_loglik(word_freqs: dict[str, float], logp: dict[str, float], max_len: int) -> float:
    """L = sum_s f_s log sum_{x in S(X_s)} P(x), the objective EM maximizes."""
    return float(sum(f * forward_backward(w, logp, max_len)[0][-1] for w, f in word_freqs.items()))


def em_step(word_freqs: dict[str, float], logp: dict[str, float], max_len: int) -> dict[str, float]:
    """M-step: p(t) proportional to the frequency-weighted expected count of t."""
    total: Counter = Counter()
    for w, f in word_freqs.items():
        for t, c in expected_counts(w, logp, max_len).items():
            total[t] += f * c
    z = sum(total.values())
    return {t: (np.log(total[t] / z) if total[t] > 0 else -np.inf) for t in logp}
# --- end formula ---


def segmentations(word: str):
    """Every way to cut the word: all subsets of the n - 1 inner cut points."""
    n = len(word)
    for k in range(n):
        for cuts in combinations(range(1, n), k):
            bounds = (0, *cuts, n)
            yield tuple(word[a:b] for a, b in pairwise(bounds))


# Seed vocabulary: every substring of length <= 4 of the training words, with initial probabilities
# proportional to how often it occurs (frequency-weighted), as Kudo seeds EM.
L = 4
sub = Counter()
for w, f in TRAIN_WORDS.items():
    for i in range(len(w)):
        for j in range(i + 1, min(len(w), i + L) + 1):
            sub[w[i:j]] += f
z = sum(sub.values())
logp0 = {t: float(np.log(c / z)) for t, c in sub.items()}

# 1. The forward sum equals the sum of P(x) over every segmentation whose pieces are all in V.
for word in ("lowest", "newer", "wide", "slow"):
    segs = [s for s in segmentations(word) if all(t in logp0 for t in s)]
    brute = logsumexp([seg_logprob(s, logp0) for s in segs])
    alpha, beta = forward_backward(word, logp0, L)
    check_close(f"'{word}': log sum_x P(x) by forward vs enumeration of {len(segs)} segmentations",
                alpha[-1], brute, rtol=1e-12)
    check_close(f"'{word}': backward sum beta[0] == forward sum", beta[0], alpha[-1], rtol=1e-12)
a_x, b_x = forward_backward("lox", logp0, L)
check_true("a word with a character outside V has no segmentation (forward and backward -inf)",
           a_x[-1] == -np.inf and b_x[0] == -np.inf)
a_x, b_x = forward_backward("xlow", logp0, L)
check_true("'xlow': alpha is -inf from position 1 on, beta is finite from position 1 on",
           bool(np.all(a_x[1:] == -np.inf)) and bool(np.all(np.isfinite(b_x[1:]))))
# beta[i] is the forward total of the suffix word[i:], at every position.
word = "widest"
check_close("'widest': beta[i] == forward total of word[i:], every i",
            forward_backward(word, logp0, L)[1],
            [forward_backward(word[i:], logp0, L)[0][-1] for i in range(len(word))] + [0.0], rtol=1e-12)
# max_len prunes: give the whole word "lowest" (6 characters) a large probability; with max_len 4 it
# must be ignored, with max_len 6 it must count.
big = dict(logp0, lowest=np.log(0.5))
segs4 = [s for s in segmentations("lowest") if all(t in big and len(t) <= 4 for t in s)]
segs6 = [s for s in segmentations("lowest") if all(t in big for t in s)]
check_close("max_len = 4 excludes the 6-letter piece; max_len = 6 includes it",
            [forward_backward("lowest", big, 4)[0][-1], forward_backward("lowest", big, 6)[0][-1]],
            [logsumexp([seg_logprob(s, big) for s in segs4]),
             logsumexp([seg_logprob(s, big) for s in segs6])],
            rtol=1e-12)

# 2. E-step: expected counts vs the posterior-weighted counts over all segmentations.
word = "newest"
segs = [s for s in segmentations(word) if all(t in logp0 for t in s)]
lp = np.array([seg_logprob(s, logp0) for s in segs])
post = np.exp(lp - logsumexp(lp))
brute_counts = Counter()
for s, q in zip(segs, post, strict=True):
    for t in s:
        brute_counts[t] += q
ec = expected_counts(word, logp0, L)
keys = sorted(set(brute_counts) | set(ec))
check_close("'newest': expected piece counts vs posterior-weighted enumeration",
            [ec[t] for t in keys], [brute_counts[t] for t in keys], rtol=1e-10, atol=1e-15)

# 3. EM never lowers the marginal likelihood, and it converges to a stationary point: there the
#    likelihood's gradient along the simplex vanishes. Independent route: maximize the same
#    likelihood directly with scipy (softmax parametrization, BFGS) from the same start.
logp = dict(logp0)
trace = [marginal_loglik(TRAIN_WORDS, logp, L)]
for _ in range(60):
    logp = em_step(TRAIN_WORDS, logp, L)
    trace.append(marginal_loglik(TRAIN_WORDS, logp, L))
check_true("EM: marginal log-likelihood never decreases (60 iterations)",
           bool(np.all(np.diff(trace) > -1e-9)), f"{trace[0]:.3f} -> {trace[-1]:.3f}")
pieces = sorted(logp0)


def neg_ll_and_grad(theta):
    """-L and its gradient in the softmax parameters: dL/dtheta_t = sum_s f_s (E[n_t] - E[M] p_t)."""
    lq = theta - logsumexp(theta)
    lp = dict(zip(pieces, lq, strict=True))
    grad = np.zeros_like(theta)
    for w, f in TRAIN_WORDS.items():
        ec = expected_counts(w, lp, L)
        grad += f * (np.array([ec[t] for t in pieces]) - sum(ec.values()) * np.exp(lq))
    return -marginal_loglik(TRAIN_WORDS, lp, L), -grad


res = minimize(neg_ll_and_grad, np.array([logp0[t] for t in pieces]), jac=True, method="BFGS",
               options={"gtol": 1e-8, "maxiter": 2000})
check_close("EM's final likelihood vs direct BFGS maximization", trace[-1], -res.fun, rtol=1e-6)
check_true("EM's likelihood is at least the starting one by a margin", trace[-1] > trace[0] + 1.0)

# 4. P(x) of a segmentation is the product of its piece probabilities, and the probabilities of all
#    segmentations of a word sum to exactly the forward total (no double counting).
p_each = [np.exp(seg_logprob(s, logp)) for s in segmentations("lower") if all(t in logp for t in s)]
check_close("sum of P(x) over segmentations of 'lower' == exp(log alpha[n])", sum(p_each),
            np.exp(forward_backward("lower", logp, L)[0][-1]), rtol=1e-12)
prod = np.prod([np.exp(logp[t]) for t in ("l", "ow", "er")])
check_close("P(l, ow, er) = p(l) p(ow) p(er)", np.exp(seg_logprob(("l", "ow", "er"), logp)), prod,
            rtol=1e-12)
check_close("probabilities after EM sum to 1", sum(np.exp(v) for v in logp.values()), 1.0, rtol=1e-12)
check_close("softmax route agrees with the EM normalization", softmax(np.array(list(logp.values()))),
            np.exp(np.array(list(logp.values()))), rtol=1e-12, atol=1e-300)

# --- in code: tokenizers ---
from tokenizers import Tokenizer, models  # noqa: E402


def hf_unigram(**options) -> Tokenizer:
    """Hugging Face's Unigram model over the seed pieces and their log-probabilities, <unk> as id 0."""
    return Tokenizer(models.Unigram([("<unk>", 0.0), *logp0.items()], unk_id=0, **options))


word = "wide"
segs = [s for s in segmentations(word) if all(t in logp0 for t in s)]
p_seg = {s: np.exp(seg_logprob(s, logp0) - forward(word, logp0, L)[-1]) for s in segs}
# With alpha = 1, encode() draws x with probability P(x) / sum_x' P(x'): the card's P(x) normalized by
# the forward total. 20000 draws; each segmentation with p >= 0.01 (an expected count of 200 or more)
# must land within 6 binomial standard deviations, which fails by chance with probability < 1e-8.
n_draws = 20000
drawn = Counter(tuple(e.tokens) for e in hf_unigram(alpha=1.0).encode_batch([word] * n_draws))
check_true("Unigram(alpha=1.0) draws only segmentations of 'wide' into seed pieces", set(drawn) <= set(segs),
           str(sorted(drawn)))
check_true("and each with frequency P(x) / exp(log alpha_n), within 6 sigma (p >= 0.01)",
           all(abs(drawn[s] / n_draws - p) <= 6 * np.sqrt(p * (1 - p) / n_draws)
               for s, p in p_seg.items() if p >= 0.01),
           "; ".join(f"{'|'.join(s)} {p:.4f} vs {drawn[s] / n_draws:.4f}" for s, p in p_seg.items()))
best = max(p_seg, key=p_seg.get)
check_true("pitfall: without alpha encode() returns only the most probable segmentation, not a draw",
           {tuple(e.tokens) for e in hf_unigram().encode_batch([word] * 50)} == {best}, str(best))
# --- end in code ---

fig, ax = figure("EM for the unigram LM on the toy dictionary", "EM iteration",
                 "marginal log-likelihood (nats)")
ax.plot(trace, marker="o", ms=3)
