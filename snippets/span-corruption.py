"""T5 span corruption: the noise-mask procedure (15% of tokens, mean span 3) checked by counting and
simulation against exact combinatorics, the sentinel format round-tripped, and the target loss."""

from math import comb

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import log_softmax
from scipy.stats import chisquare


# --- formula ---
def random_composition(total: int, parts: int, rng) -> np.ndarray:
    """A uniformly random way to write `total` as an ordered sum of `parts` positive integers."""
    cuts = np.sort(rng.choice(np.arange(1, total), size=parts - 1, replace=False))
    return np.diff(np.concatenate([[0], cuts, [total]]))


def span_noise_mask(length: int, rng, density: float = 0.15, mean_span: float = 3.0) -> np.ndarray:
    """T5's sampler: round(density L) noise tokens in round(n / mean_span) spans; kept and noise spans
    alternate, starting with a kept span, and all such masks are equally likely."""
    n_noise = min(max(int(np.round(length * density)), 1), length - 1)
    n_spans = max(int(np.round(n_noise / mean_span)), 1)
    noise_lengths = random_composition(n_noise, n_spans, rng)
    keep_lengths = random_composition(length - n_noise, n_spans, rng)
    mask = np.zeros(length, dtype=bool)
    pos = 0
    for keep, noise in zip(keep_lengths, noise_lengths, strict=True):
        pos += keep
        mask[pos:pos + noise] = True
        pos += noise
    return mask


def span_corrupt(tokens, mask, sentinels):
    """Input: each noise span replaced by one sentinel. Target: each sentinel followed by the span it
    replaced, closed by one more sentinel (the format of Raffel et al., Fig. 2)."""
    inputs, targets, k = [], [], 0
    for i, tok in enumerate(tokens):
        if mask[i] and (i == 0 or not mask[i - 1]):
            inputs.append(sentinels[k])
            targets.append(sentinels[k])
            k += 1
        (targets if mask[i] else inputs).append(tok)
    targets.append(sentinels[k])
    return inputs, targets


def span_loss(target_logits, targets):
    """-sum_t log p(y_t | y_<t, x~): teacher-forced cross-entropy summed over the target tokens."""
    shifted = target_logits - target_logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(log_p[np.arange(len(targets)), targets])
# --- end formula ---


def spans(mask):
    """Lengths of the runs of True, by scanning (independent of the sampler)."""
    out, run = [], 0
    for m in [*mask, False]:
        if m:
            run += 1
        elif run:
            out.append(run)
            run = 0
    return out


rng = np.random.default_rng(0)

# 1. Counts are fixed per length: 512 tokens -> 77 noise tokens in 26 spans (rate 15.04%, mean 2.96).
#    L = 30 and 3353 sit on rounding boundaries (0.15 L = 4.5 rounds to even; n / 3 = 167.67).
for L, n_expected, k_expected in [(512, 77, 26), (114, 17, 6), (40, 6, 2), (30, 4, 1), (3353, 503, 168),
                                  (3, 1, 1), (2, 1, 1)]:
    masks = [span_noise_mask(L, rng) for _ in range(100 if L < 1000 else 10)]
    check_true(f"L = {L}: every mask has {n_expected} noise tokens in {k_expected} spans, "
               "starts kept, ends noise",
               all(m.sum() == n_expected and len(spans(m)) == k_expected and not m[0] and m[-1]
                   for m in masks), f"rate {n_expected / L:.4f}, mean span {n_expected / k_expected:.3f}")
check_true("density 1.0 on 4 tokens still keeps the first token",
           list(span_noise_mask(4, rng, 1.0)) == [False, True, True, True])

short = {span_noise_mask(30, rng).tobytes() for _ in range(50)}
check_true("L = 30: one span of 4, so the mask is always the last 4 tokens",
           short == {np.array([False] * 26 + [True] * 4).tobytes()})

# 2. All masks with the given counts are equally likely: L = 40 has 5 x 33 = 165 of them.
draws = [span_noise_mask(40, rng).tobytes() for _ in range(16_500)]
kinds, counts = np.unique(draws, return_counts=True)
check_true("L = 40: exactly C(5,1) C(33,1) = 165 distinct masks", len(kinds) == comb(5, 1) * comb(33, 1))
check_true("L = 40: uniform over them (chi-square p > 0.001)", chisquare(counts).pvalue > 1e-3,
           f"p = {chisquare(counts).pvalue:.3f}")

# 3. Span lengths for L = 200 (30 noise tokens, 10 spans): a span's length j has probability
#    C(30 - j - 1, 8) / C(29, 9) (compositions of 30 into 10 parts), mean exactly 3.
first = np.array([spans(span_noise_mask(200, rng))[0] for _ in range(10_000)])
exact = np.array([comb(30 - j - 1, 8) / comb(29, 9) for j in range(1, 22)])
check_close("exact span-length law sums to 1 with mean 3", [exact.sum(), exact @ np.arange(1, 22)], [1, 3],
            rtol=1e-12)
freq = np.array([np.mean(first == j) for j in range(1, 22)])
se = np.sqrt(exact * (1 - exact) / first.size)
check_true("simulated span-length frequencies within 4 sigma of the exact law",
           np.all(np.abs(freq - exact) <= 4 * se + 1e-12),
           f"max |z| = {np.max(np.abs(freq - exact) / np.maximum(se, 1e-12)):.2f}")
check_close("mean simulated span length = 3 (Monte Carlo, 5 sigma)", first.mean(), 3.0,
            atol=5 * first.std() / np.sqrt(first.size))

# 4. Sentinel format: lengths and exact round trip, on 200 random sequences.
SENT = [1000 + k for k in range(100)]
ok = True
for trial in range(300):
    L = int(rng.integers(20, 300))
    x = list(rng.integers(0, 1000, size=L))
    # the sampler's masks, then arbitrary ones (which may start with a noise span)
    m = span_noise_mask(L, rng) if trial < 200 else rng.random(L) < 0.3
    inp, tgt = span_corrupt(x, m, SENT)
    n, k = int(m.sum()), len(spans(m))
    ok &= len(inp) == L - n + k and len(tgt) == n + k + 1
    pieces, cur = {}, None                       # decode: sentinel -> the tokens that follow it
    for t in tgt:
        if t in SENT:
            cur = t
            pieces[cur] = []
        else:
            pieces[cur].append(t)
    rebuilt = [u for t in inp for u in (pieces[t] if t in SENT else [t])]
    ok &= rebuilt == x and tgt[-1] == SENT[k] and inp.count(SENT[0]) == 1
check_true("300 sequences: |input| = L - n + k, |target| = n + k + 1, original rebuilt exactly", ok)
inp, tgt = span_corrupt("Thank you for inviting me to your party last week .".split(),
                        np.array([0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0], bool), ["<X>", "<Y>", "<Z>"])
check_true("the paper's Fig. 2 example", " ".join(inp) == "Thank you <X> me to your party <Y> week ." and
           " ".join(tgt) == "<X> for inviting <Y> last <Z>", " ".join(inp) + "  ->  " + " ".join(tgt))

# 5. Loss on the target sequence, against a loop with scipy.
tg = np.array(rng.integers(0, 12, size=9))
for scale in [2.0, 500.0]:
    lg = rng.normal(scale=scale, size=(9, 12))
    check_close(f"span loss = sum over target tokens of -log softmax (logit scale {scale:g})",
                span_loss(lg, tg), sum(-log_softmax(lg[t])[tg[t]] for t in range(9)), rtol=1e-12)

# The page's calculator is checked against span_noise_mask and span_corrupt on this grid (cardcalc; the
# build runs the card's JavaScript on the same rows): n and k are counted on a sampled mask, the lengths
# on the corrupted pair. The rows reach n = 1 from below (round(L rho) = 0), the cap L - 1 (L = 2 at
# high density), k = 1 from round(n / mu) = 0, and halves that round to even (10 x 0.15 and 30 x 0.15).
import cardcalc  # noqa: E402


def corrupted_sizes(L, rho, mu):
    length = int(L)
    mask = span_noise_mask(length, rng, rho, mu)
    inputs, targets = span_corrupt(list(range(length)), mask, [-1 - s for s in range(length + 1)])
    starts = np.count_nonzero(mask & ~np.concatenate([[False], mask[:-1]]))
    return {"n": int(mask.sum()), "k": starts, "input_len": len(inputs), "target_len": len(targets)}


cardcalc.table(corrupted_sizes,
               [*cardcalc.grid(L=(2, 10, 30, 512, 4096), rho=(0.05, 0.15, 0.5), mu=(1, 3, 20)),
                *cardcalc.grid(L=(2,), rho=(0.75, 1.0), mu=(1, 3))])

# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Section 5's last target: 9 tokens, logits of scale 500; one log-softmax per token in float64: rtol 1e-12.
check_close("F.cross_entropy(target_logits, y, reduction='sum') = L_span",
            F.cross_entropy(torch.tensor(lg), torch.tensor(tg), reduction="sum").item(), span_loss(lg, tg),
            rtol=1e-12)
check_close("pitfall: the default reduction='mean' divides by the |y| = 9 target tokens",
            F.cross_entropy(torch.tensor(lg), torch.tensor(tg)).item() * len(tg), span_loss(lg, tg),
            rtol=1e-12)
# --- end in code ---

fig, ax = figure("Noise-span lengths, 30 noise tokens in 10 spans", "span length (tokens)", "probability")
ax.bar(np.arange(1, 22), freq, alpha=0.6, label="simulated (10 000 masks)")
ax.plot(np.arange(1, 22), exact, "ko", ms=3, label="exact")
ax.set_xlim(0, 15)
ax.legend()
