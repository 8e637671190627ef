# %% [markdown]
# # From logits to text
#
# A language model hands the decoder one vector of logits per step, and everything after that is a choice:
# how sharp to make the distribution, which tokens to allow, and whether to sample or search. This notebook
# takes one fixed next-token distribution through temperature, top-$k$, top-$p$, min-$p$ and typical
# sampling, shows the entropy and the tokens each rule keeps, and then runs a small beam search with a
# length penalty on a three-step toy model, checked against every sequence the model can produce. Replace
# the logits and the settings in the first code cell to see what your own sampler configuration keeps.

# %%
from itertools import product

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import softmax as scipy_softmax
from scipy.stats import entropy as scipy_entropy

V = 50                                         # vocabulary of the toy next-token distribution
ZIPF_S = 1.2                                   # logit of the token of rank r is -s log r
LOGITS = -ZIPF_S * np.log(np.arange(1, V + 1))
TEMPERATURE = 1.0                              # applied before truncation, as Hugging Face does
TOP_K, TOP_P, MIN_P, TYPICAL_P = 10, 0.9, 0.05, 0.5
rng = np.random.default_rng(0)

# %% [markdown]
# ## Softmax and entropy of the raw distribution
#
# The [softmax](../../cards/softmax/) turns logits into probabilities,
# $\operatorname{softmax}(z)_i = \exp(z_i) / \sum_j \exp(z_j)$, computed with the largest logit subtracted
# first so that nothing overflows. The logits here are $z_r = -s \log r$ for the token of rank $r$, so the
# probabilities follow a Zipf law, $p_r = r^{-s} / \sum_{j=1}^{V} j^{-s}$: one token at 30% and a long tail,
# roughly the shape of a real next-token distribution. Its [entropy](../../cards/entropy/)
# $H(p) = -\sum_i p_i \log p_i$ is the average surprisal, and $\exp H(p)$ reads as the number of equally
# likely tokens that would be just as uncertain. Checks: the Zipf closed form, scipy's softmax on logits
# shifted by 1000 (where a naive `exp` overflows), and scipy's entropy.

# %%
def softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def entropy(p):
    nz = p > 0                                 # 0 log 0 = 0
    return float(-np.sum(p[nz] * np.log(p[nz])))


P = softmax(LOGITS / TEMPERATURE)
ranks = np.arange(1, V + 1)
check_close("softmax of -s log r vs the Zipf law r^-s / sum_j j^-s", softmax(LOGITS),
            ranks**-ZIPF_S / np.sum(ranks**-ZIPF_S), rtol=1e-12)
check_close("softmax of logits + 1000 vs scipy.special.softmax", softmax(LOGITS + 1000.0),
            scipy_softmax(LOGITS + 1000.0), rtol=1e-12)
check_close("entropy vs scipy.stats.entropy (nats)", entropy(P), scipy_entropy(P), rtol=1e-12)
print(f"top 5 probabilities: {np.round(P[:5], 4)}, smallest: {P[-1]:.5f}")
print(f"entropy H = {entropy(P):.4f} nats (maximum log V = {np.log(V):.4f}), "
      f"effective number of tokens exp H = {np.exp(entropy(P)):.1f}")

# %% [markdown]
# ## Temperature
#
# [Temperature sampling](../../cards/temperature-sampling/) divides the logits by $\tau$ before the
# softmax, $p^{(\tau)} = \operatorname{softmax}(z / \tau)$. Every odds ratio $p_i / p_j$ is raised to the
# power $1/\tau$, so the ranking never changes: below 1 the mass piles onto the top token, above 1 it
# spreads towards uniform. Two checks: dividing logits by $\tau$ must equal raising the probabilities to
# $1/\tau$ and renormalising, and the entropy must rise with $\tau$ at the rate
# $\mathrm{d}H / \mathrm{d}\tau = \operatorname{Var}_{p^{(\tau)}}(z) / \tau^3$, compared here with a central
# finite difference.

# %%
def tempered(z, tau):
    return softmax(z / tau)


p1 = softmax(LOGITS)
for tau in (0.5, 1.5):
    powered = p1 ** (1 / tau)
    check_close(f"softmax(z / {tau}) vs p^(1/{tau}) renormalised", tempered(LOGITS, tau),
                powered / powered.sum(), rtol=1e-12)
taus = np.linspace(0.25, 2.5, 10)
h_tau = np.array([entropy(tempered(LOGITS, t)) for t in taus])
check_true("entropy rises with temperature", bool(np.all(np.diff(h_tau) > 0)))
eps = 1e-5
finite_diff = [(entropy(tempered(LOGITS, t + eps)) - entropy(tempered(LOGITS, t - eps))) / (2 * eps)
               for t in taus]
variance = [np.sum(tempered(LOGITS, t) * LOGITS**2) - np.sum(tempered(LOGITS, t) * LOGITS) ** 2
            for t in taus]
check_close("dH/dtau by finite differences vs Var(z) / tau^3", finite_diff, np.array(variance) / taus**3,
            rtol=1e-5)
print(f"{'tau':>5}{'p(top)':>9}{'H (nats)':>10}{'exp H':>8}")
for t in (0.5, 0.75, 1.0, 1.5, 2.0):
    p_t = tempered(LOGITS, t)
    print(f"{t:5.2f}{p_t[0]:9.4f}{entropy(p_t):10.4f}{np.exp(entropy(p_t)):8.1f}")

# %% [markdown]
# ## Four ways to cut the tail
#
# Each truncation rule picks a set of tokens, zeroes the rest and divides by the mass that survived:
#
# - [Top-$k$](../../cards/top-k-sampling/) keeps the $k$ most probable tokens, whatever their mass.
# - [Nucleus (top-$p$)](../../cards/nucleus-sampling/) keeps the shortest run of most probable tokens whose
#   total reaches $p$.
# - [Min-$p$](../../cards/min-p-sampling/) keeps every token with $p_i \ge p_{\mathrm{base}} \max_j p_j$.
# - [Locally typical sampling](../../cards/typical-sampling/) sorts tokens by how far their surprisal
#   $-\log p_i$ lies from the entropy $H(p)$ and keeps the closest ones until they hold mass $\tau$. It can
#   drop the most probable token, because that token is far *less* surprising than average.
#
# Each rule gets its own check by a second route. Top-$k$ uses `np.argpartition`, which finds the $k$
# largest without sorting. Top-$p$ uses the ascending form of Hugging Face's `TopPLogitsWarper`: drop
# every token whose cumulative mass from the bottom is at most $1 - p$. Min-$p$ is applied to the logits,
# as samplers do, keeping $z_i \ge \max_j z_j + \log p_{\mathrm{base}}$. Typical uses a threshold search:
# the smallest deviation $\delta$ for which $\{i : |-\log p_i - H| \le \delta\}$ reaches mass $\tau$.
# Finally, drawing 100,000 samples by the Gumbel-max trick from logits masked to $-\infty$ outside each set,
# the way libraries sample, must reproduce the renormalised distribution.

# %%
def renormalise(p, keep):
    q = np.zeros_like(p)
    q[keep] = p[keep]
    return q / q.sum()


def top_k_set(p, k):
    return np.argsort(-p, kind="stable")[:k]


def nucleus_set(p, top_p):
    order = np.argsort(-p, kind="stable")
    mass_before = np.cumsum(p[order]) - p[order]
    return order[mass_before < top_p]


def min_p_set(p, p_base):
    return np.flatnonzero(p >= p_base * p.max())


def typical_set(p, mass):
    logp = np.log(p)
    deviation = np.abs(-logp - entropy(p))
    order = np.argsort(deviation, kind="stable")
    mass_before = np.cumsum(p[order]) - p[order]
    return order[mass_before < mass]


RULES = {f"top-k (k={TOP_K})": lambda p: top_k_set(p, TOP_K),
         f"top-p (p={TOP_P})": lambda p: nucleus_set(p, TOP_P),
         f"min-p (p_base={MIN_P})": lambda p: min_p_set(p, MIN_P),
         f"typical (tau={TYPICAL_P})": lambda p: typical_set(p, TYPICAL_P)}
z_t = LOGITS / TEMPERATURE
KEPT = {name: np.sort(rule(P)) for name, rule in RULES.items()}

check_true("top-k: same set as np.argpartition",
           set(KEPT[f"top-k (k={TOP_K})"]) == set(np.argpartition(-P, TOP_K)[:TOP_K]))
ascending = np.argsort(P, kind="stable")
hf_removed = ascending[np.cumsum(P[ascending]) <= 1 - TOP_P]
check_true("top-p: same set as the ascending 'remove cumulative mass <= 1 - p' form",
           set(KEPT[f"top-p (p={TOP_P})"]) == set(range(V)) - set(hf_removed))
check_true("min-p: same set as the logit form z >= z_max + log p_base",
           set(KEPT[f"min-p (p_base={MIN_P})"]) == set(np.flatnonzero(z_t >= z_t.max() + np.log(MIN_P))))
deviation = np.abs(-np.log(P) - scipy_entropy(P))
delta = min(d for d in np.sort(deviation) if P[deviation <= d].sum() >= TYPICAL_P)
check_true("typical: same set as the smallest deviation threshold reaching the mass",
           set(KEPT[f"typical (tau={TYPICAL_P})"]) == set(np.flatnonzero(deviation <= delta)))

n_draws = 100_000
print(f"{'rule':24}{'kept':>5}{'mass':>8}{'H after':>9}  ranks kept")
for name, keep in KEPT.items():
    q = renormalise(P, keep)
    masked = np.full(V, -np.inf)
    masked[keep] = z_t[keep]
    draws = np.argmax(masked + rng.gumbel(size=(n_draws, V)), axis=1)
    check_close(f"{name}: Gumbel-max on masked logits vs the renormalised distribution",
                np.bincount(draws, minlength=V) / n_draws, q, atol=0.006)
    print(f"{name:24}{keep.size:5d}{P[keep].sum():8.3f}{entropy(q):9.3f}  {(keep + 1).tolist()}")

# %% [markdown]
# ## How much mass each rule keeps as the temperature changes
#
# Applied after temperature, the four rules react in different ways. Top-$k$ always keeps 10 tokens, so
# its kept mass falls as $\tau$ flattens the distribution. Top-$p$ keeps its mass near $p$ by letting the
# set grow. Min-$p$'s bar moves with the top token: in logit terms it keeps
# $z_i \ge z_{\max} + \tau \log p_{\mathrm{base}}$, so hotter sampling admits more tokens. Typical sampling
# behaves in two regimes. While the top token is likely enough to sit closest to the entropy (here up to
# $\tau \approx 0.9$) the set must grow around it and overshoots its mass target; once the top token
# becomes the outlier it is dropped, and the set, taken from the middle of the distribution, holds close to
# the target mass (see the second figure, where rank 1 is missing). The check: on the
# whole temperature grid, top-$p$ and typical keep at least their target mass, and the min-$p$ set matches
# its logit form with the threshold scaled by $\tau$.

# %%
grid = np.linspace(0.3, 2.5, 23)
kept_mass = {name: [] for name in RULES}
kept_size = {name: [] for name in RULES}
minp_ok, mass_ok = True, True
for tau in grid:
    p_tau = tempered(LOGITS, tau)
    for name, rule in RULES.items():
        keep = rule(p_tau)
        kept_mass[name].append(p_tau[keep].sum())
        kept_size[name].append(keep.size)
    by_logits = np.flatnonzero(LOGITS >= LOGITS.max() + tau * np.log(MIN_P))
    minp_ok &= set(min_p_set(p_tau, MIN_P)) == set(by_logits)
    mass_ok &= (p_tau[nucleus_set(p_tau, TOP_P)].sum() >= TOP_P
                and p_tau[typical_set(p_tau, TYPICAL_P)].sum() >= TYPICAL_P)
check_true("min-p after temperature tau keeps z >= z_max + tau log p_base, every tau", minp_ok)
check_true("top-p and typical sets reach their target mass, every tau", mass_ok)
for name in RULES:
    print(f"{name:24} tokens kept from tau = {grid[0]:.1f} to {grid[-1]:.1f}: "
          f"{kept_size[name][0]} -> {kept_size[name][-1]}")

fig, ax = figure("Probability mass kept by each rule", "temperature $\\tau$",
                 "kept mass before renormalising")
for (name, mass), marker in zip(kept_mass.items(), "os^D"):
    ax.plot(grid, mass, marker + "-", ms=3, label=name)
ax.axvline(TEMPERATURE, ls=":", color="gray")
ax.set_ylim(0, 1.02)
ax.legend()

fig, ax = figure(f"Tokens kept at $\\tau$ = {TEMPERATURE}", "token rank (1 = most probable)", "rule")
for row, (name, keep) in enumerate(KEPT.items()):
    ax.scatter(keep + 1, np.full(keep.size, row), s=30, marker="s")
ax.set_yticks(range(len(KEPT)), list(KEPT))
ax.set_xlim(0, V + 1)
ax.invert_yaxis()

# %% [markdown]
# ## A toy model for search
#
# Sampling picks one token at a time. Search instead looks for the whole output with the best score. The
# toy model below has three tokens plus an end marker `</s>` and at most three steps; the next-token
# probabilities depend only on the previous token. A sequence is finished when it emits `</s>` or reaches
# three tokens, so there are $1 + 3 + 9 + 27 = 40$ finished sequences, and their probabilities must sum to 1.
#
# Its log-probability is a sum of negative terms, so short outputs score well just for being short. The
# [length-normalised score](../../cards/length-normalized-score/) divides by GNMT's penalty,
#
# $$s_\alpha(y) = \frac{\log p(y)}{\mathrm{lp}(T)}, \qquad
# \mathrm{lp}(T) = \frac{(5 + T)^{\alpha}}{(5 + 1)^{\alpha}},$$
#
# where $T$ counts the generated tokens, `</s>` included. Brute force over all 40 sequences gives the best
# output for each $\alpha$: with $\alpha = 0$ it is the empty output, `</s>` alone at probability 0.14,
# and already at $\alpha = 0.5$ a full three-token answer wins.

# %%
TOKENS = ["a", "b", "c", "</s>"]
EOS, MAX_STEPS = 3, 3
# Rows: the previous token (start, a, b, c); columns: the next token (a, b, c, </s>).
NEXT = np.array([[0.29, 0.32, 0.25, 0.14],
                 [0.35, 0.44, 0.14, 0.07],
                 [0.38, 0.56, 0.02, 0.04],
                 [0.02, 0.16, 0.72, 0.10]])
LOG_NEXT = np.log(NEXT)


def step_log_prob(prefix, token):
    state = 0 if not prefix else prefix[-1] + 1
    return LOG_NEXT[state, token]


def finished(seq):
    return seq[-1] == EOS or len(seq) == MAX_STEPS


def length_penalty(T, alpha):
    return (5 + T) ** alpha / (5 + 1) ** alpha


def normalised(seq, log_p, alpha):
    return log_p / length_penalty(len(seq), alpha)


ALL = {}
for length in range(1, MAX_STEPS + 1):
    for seq in product(range(len(TOKENS)), repeat=length):
        if all(t != EOS for t in seq[:-1]) and finished(seq):
            ALL[seq] = sum(step_log_prob(seq[:i], t) for i, t in enumerate(seq))
check_close("40 finished sequences, probabilities sum to 1", [len(ALL), sum(np.exp(list(ALL.values())))],
            [40, 1.0], rtol=1e-12)
check_close("lp(T) = 1 for alpha = 0 and for T = 1", [length_penalty(3, 0.0), length_penalty(1, 0.8)],
            [1.0, 1.0], rtol=0)


def words(seq):
    return " ".join(TOKENS[t] for t in seq)


def brute_force_best(alpha):
    return max(ALL, key=lambda s: normalised(s, ALL[s], alpha))


for alpha in (0.0, 0.5, 1.0):
    top3 = sorted(ALL, key=lambda s: -normalised(s, ALL[s], alpha))[:3]
    shown = [f"{words(s)!r} ({normalised(s, ALL[s], alpha):.3f})" for s in top3]
    print(f"alpha = {alpha}, best three: " + ", ".join(shown))

# %% [markdown]
# ## Beam search with a length penalty, against brute force
#
# [Beam search](../../cards/beam-search/) keeps the $B$ best prefixes by log-probability; each step
# extends every one by every token and keeps the $B$ best extensions. A kept extension that is finished
# leaves the beam and waits; the rest go on. At the end the finished hypotheses are compared by the
# length-normalised score. Within one step all live prefixes have the same length, so the penalty cannot
# change which ones are kept; it matters only for that final comparison.
#
# The table shows the classic trap. With raw scores ($\alpha = 0$), greedy decoding ($B = 1$) returns
# "b b b", while a wide beam finds the true optimum, the empty output: widening the beam makes the text
# worse. With $\alpha = 1$ the optimum is "c c c", whose first token is only the third most probable, so
# beams of width 1 and 2 drop it at the first step and width 3 finds it. Checks: with a beam wide enough to
# hold every candidate (36), beam search must return the brute-force best for every $\alpha$, with the same
# score; and any beam's answer can never score above the brute-force best.

# %%
def beam_search(width, alpha):
    live, done = [((), 0.0)], []
    while live:
        candidates = [((*seq, t), score + step_log_prob(seq, t))
                      for seq, score in live for t in range(len(TOKENS))]
        candidates.sort(key=lambda c: -c[1])
        live = []
        for seq, score in candidates[:width]:
            (done if finished(seq) else live).append((seq, score))
    return max(done, key=lambda h: normalised(h[0], h[1], alpha))


ALPHAS, WIDTHS = (0.0, 0.5, 1.0, 1.5), (1, 2, 3, 4, 36)
exact_ok, bound_ok = True, True
print(f"{'alpha':>5} {'brute force':>13}" + "".join(f"{'B=' + str(w):>12}" for w in WIDTHS))
for alpha in ALPHAS:
    best = brute_force_best(alpha)
    best_score = normalised(best, ALL[best], alpha)
    row = []
    for width in WIDTHS:
        seq, log_p = beam_search(width, alpha)
        score = normalised(seq, log_p, alpha)
        bound_ok &= score <= best_score + 1e-12 and np.isclose(log_p, ALL[seq], rtol=1e-12)
        if width == WIDTHS[-1]:
            exact_ok &= seq == best and np.isclose(score, best_score, rtol=1e-12)
        row.append(words(seq) + ("" if seq == best else " x"))
    print(f"{alpha:5.1f} {words(best):>13}" + "".join(f"{r:>12}" for r in row))
check_true("width 36: beam search returns the brute-force best with its score, every alpha", exact_ok)
check_true("every beam's answer has its true log-probability and never beats brute force", bound_ok)
check_true("alpha = 1: widths 1 and 2 miss 'c c c', width 3 finds it",
           [beam_search(w, 1.0)[0] for w in (1, 2, 3)] == [(1, 1, 1), (1, 1, 1), (2, 2, 2)])
print("x = not the brute-force best for that alpha")
