"""Compute-optimal test-time scaling (Snell et al. 2024, Eq. 1, with the difficulty bins of Sec. 3.2):
per difficulty bin and budget, the strategy of highest expected accuracy. Checked on a simulated
population of questions by exhaustive search over every assignment of strategies to bins, against
every fixed strategy, by Monte Carlo over sampled answers, with quantile bins against scikit-learn,
and with the strategy chosen on one held-out fold and scored on the other."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def difficulty_levels(pass1, n_bins=5):
    """Sec. 3.2: quantile bins of the base model's pass@1 per question; level 0 is the easiest."""
    inner_edges = np.quantile(pass1, np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
    return n_bins - 1 - np.digitize(pass1, inner_edges)


def answer_accuracy(answers, truth):
    """E_{y ~ Target}[1{y = y*(q)}] estimated from sampled answers (last axis) per question."""
    return np.mean(answers == truth, axis=-1)


def bin_accuracy(success, levels, n_bins):
    """acc[s, b]: mean over the questions of bin b of strategy s's probability of a correct answer."""
    return np.stack([success[:, levels == b].mean(axis=1) for b in range(n_bins)], axis=1)


def compute_optimal(acc):
    """Eq. 1 with difficulty as the statistic: per bin, the strategy of highest expected accuracy."""
    return np.argmax(acc, axis=0)


def policy_accuracy(success, levels, choice):
    """Accuracy over all questions when each question runs the strategy chosen for its bin."""
    return success[choice[levels], np.arange(levels.size)].mean()


def cross_validated(observed, levels, fold, n_bins):
    """Sec. 3.2's two folds: choose per bin on one fold, score on the other, average the two."""
    scores, choices = [], []
    for k in (0, 1):
        pick = fold == k
        choice = compute_optimal(bin_accuracy(observed[:, pick], levels[pick], n_bins))
        scores.append(policy_accuracy(observed[:, ~pick], levels[~pick], choice))
        choices.append(choice)
    return np.mean(scores), choices
# --- end formula ---


# A simulated population, not the paper's data. Each question q has a single-sample success rate
# p; each strategy's success probability at a budget of N generations is a simple model with the
# paper's qualitative shape (Secs. 5-6): best-of-N weighted collects a share of pass@N; beam
# search collects more of it but over-optimizes the verifier on easy questions as N grows;
# sequential revisions repair a wrong answer with a chance that grows with p, and the final pick
# keeps most of that gain (good on easy questions); the mixed strategy runs sqrt(N) such chains of
# sqrt(N) revisions and picks across chains as best-of-N weighted does.
STRATEGIES = ["best-of-N weighted", "beam search (width sqrt N)", "sequential revisions",
              "sqrt N chains x sqrt N revisions"]
ETA_BON, ETA_BEAM, OVEROPT, REPAIR, ETA_SEQ = 0.7, 0.85, 0.8, 0.2, 0.85


def share_of_pass_at(p, n, eta):
    return p + eta * (1 - (1 - p) ** n - p)


def revisions(p, n):
    return p + ETA_SEQ * ((1 - (1 - p) * (1 - REPAIR * p) ** (n - 1)) - p)


def strategy_success(p, N):
    """Success probability of each strategy (rows) on each question (columns) at budget N."""
    root = np.sqrt(N)
    beam = share_of_pass_at(p, N, ETA_BEAM) - OVEROPT * p ** 2 * np.log2(N) / 8
    return np.clip(np.stack([share_of_pass_at(p, N, ETA_BON), beam, revisions(p, N),
                             share_of_pass_at(revisions(p, root), root, ETA_BON)]), 0.0, 1.0)


rng = np.random.default_rng(0)
B, Q = 5, 1000
p = rng.beta(0.7, 0.9, size=Q)
pass1 = rng.binomial(2048, p) / 2048  # the paper estimates pass@1 from 2048 samples per question
levels = difficulty_levels(pass1)  # five bins by default, as in the paper

# --- in code: scikit-learn ---
from scipy.sparse import issparse  # noqa: E402
from sklearn.preprocessing import KBinsDiscretizer  # noqa: E402

# The difficulty bins Q_b from scikit-learn's quantile discretizer. Its bin 0 holds the LOWEST pass@1
# (the hardest questions), the reverse of the card's levels, and by default it returns a sparse
# one-hot matrix and places the quantiles by another rule than np.quantile's linear one.
sk_bins = KBinsDiscretizer(n_bins=B, encode="ordinal", strategy="quantile", quantile_method="linear")
sk_ordinal = sk_bins.fit_transform(pass1[:, None])[:, 0].astype(int)
check_true("KBinsDiscretizer(encode='ordinal', quantile_method='linear') bins, reversed, = the card's levels",
           np.array_equal(levels, B - 1 - sk_ordinal),
           f"bin sizes {np.bincount(levels, minlength=B).tolist()}")
check_true("pitfall: its bin 0 holds the hardest questions, the card's level 0 the easiest",
           pass1[sk_ordinal == 0].max() < pass1[levels == 0].min())
one_hot = KBinsDiscretizer(n_bins=B).fit_transform(pass1[:, None])
check_true("pitfall: the default encode='onehot' returns a sparse 1000 x 5 one-hot matrix, not bin numbers",
           issparse(one_hot) and one_hot.shape == (Q, B)
           and np.array_equal(np.asarray(one_hot.argmax(axis=1)).ravel(), sk_ordinal))
default_edges = KBinsDiscretizer(n_bins=B, encode="ordinal").fit(pass1[:, None]).bin_edges_[0][1:-1]
card_edges = np.quantile(pass1, np.linspace(0.0, 1.0, B + 1)[1:-1])
check_true("pitfall: the default quantile_method='averaged_inverted_cdf' puts the edges elsewhere than "
           "np.quantile",
           not np.allclose(default_edges, card_edges, rtol=0, atol=1e-6),
           f"largest gap {np.max(np.abs(default_edges - card_edges)):.1e} (no question falls between, here)")
# --- end in code ---
check_true("level 0 holds the highest pass@1 and level 4 the lowest",
           pass1[levels == 0].min() >= pass1[levels == 1].max() and pass1[levels == 4].max()
           <= pass1[levels == 3].min() and pass1[levels == 0].mean() > 0.7 > 0.05 > pass1[levels == 4].mean())

# Eq. 1 per bin against brute force: every one of the 4^5 assignments of strategies to bins.
assignments = np.array(list(itertools.product(range(len(STRATEGIES)), repeat=B)))
budgets = 2 ** np.arange(1, 9)
oracle_curve, fixed_curves, gains = [], [], []
for N in budgets:
    success = strategy_success(p, N)
    acc = bin_accuracy(success, levels, B)
    choice = compute_optimal(acc)
    ours = policy_accuracy(success, levels, choice)
    every = success[assignments[:, levels], np.arange(Q)].mean(axis=1)  # one row per assignment
    fixed = success.mean(axis=1)
    # Inequalities below allow 1e-12: two means of the same 1000 values, summed in another order.
    check_close(f"N = {N}: bin accuracies weighted by bin sizes = each strategy's overall accuracy",
                acc @ (np.bincount(levels, minlength=B) / Q), fixed, rtol=1e-12)
    check_close(f"N = {N}: per-bin argmax = best of all {len(assignments)} assignments (exhaustive)",
                ours, every.max(), rtol=1e-12)  # the same sums, so rounding differences only
    check_true(f"N = {N}: the exhaustive maximizer is the per-bin argmax {choice.tolist()}",
               np.array_equal(assignments[np.argmax(every)], choice))
    check_true(f"N = {N}: compute-optimal >= every fixed strategy ({ours:.4f} vs {fixed.max():.4f})",
               bool(np.all(ours >= fixed - 1e-12)))
    check_true(f"N = {N}: <= the per-question optimum of Eq. 1 ({success.max(axis=0).mean():.4f})",
               ours <= success.max(axis=0).mean() + 1e-12)
    oracle_curve.append(ours)
    fixed_curves.append(fixed)
    gains.append(ours - fixed.max())
check_true("adapting per bin gains over the best fixed strategy at every budget (> 0.005 each)",
           min(gains) > 0.005, f"gains {np.round(gains, 4).tolist()}")

# The expectation in Eq. 1 by Monte Carlo: answers drawn from Target(theta, N, q), a distribution
# over 4 candidate answers with mass success on the true one and the rest spread over the others.
N, m = 16, 64
success = strategy_success(p, N)
truth = rng.integers(0, 4, size=(1, Q, 1))
wrong = (truth + rng.integers(1, 4, size=(len(STRATEGIES), Q, m))) % 4
answers = np.where(rng.random((len(STRATEGIES), Q, m)) < success[:, :, None], truth, wrong)
observed = answer_accuracy(answers, truth)
# Same questions on both sides, so only the answer draws are noise: per question, the indicators'
# sample variance over m draws, / m; summed over questions, / Q^2.
se = np.sqrt((answers == truth).var(axis=2, ddof=1).sum(axis=1) / m) / Q
check_close("E[1{y = y*}] by sampled answers = the success probability (4 standard errors)",
            observed.mean(axis=1), success.mean(axis=1), atol=4 * se.max())
hits = sum(int(a == truth[0, 7, 0]) for a in answers[2, 7])
check_true("the estimate is the share of the m answers equal to y*, per strategy and question",
           observed.shape == (len(STRATEGIES), Q) and np.isclose(observed[2, 7], hits / m))

# The deployable version: choose the strategy per bin on one half of the questions from sampled
# answers, score it on the other half. Its true accuracy cannot beat the oracle, and its measured
# accuracy lies within sampling error of it.
fold = rng.permutation(np.arange(Q) % 2)
oracle = policy_accuracy(success, levels, compute_optimal(bin_accuracy(success, levels, B)))
cv_score, cv_choices = cross_validated(observed, levels, fold, B)
# Each fold's score is a mean over the other fold's questions of their observed accuracy under the
# chosen strategy; its standard error (from those values) counts the answer draws and which half
# of the questions the fold holds, so it is conservative. The two folds' scores are averaged.
held_out = [observed[c[levels[fold != k]], fold != k] for k, c in enumerate(cv_choices)]
se_cv = np.sqrt(sum(v.var(ddof=1) / v.size for v in held_out)) / 2
check_true("the held-out choices' true accuracy <= the oracle bins' accuracy",
           all(policy_accuracy(success, levels, c) <= oracle + 1e-12 for c in cv_choices))
check_close(f"two-fold cross-validated accuracy = oracle {oracle:.4f} (4 standard errors, se {se_cv:.4f})",
            cv_score, oracle, atol=4 * se_cv)

# Why the held-out fold matters: 50 strategies that are all equally good. Choosing on the same
# questions one scores on picks the luckiest per bin and overstates accuracy by about 2.2 bin
# standard errors; choosing on the other fold is unbiased.
null_success = np.full((50, Q), 0.5)
null_observed = (rng.random((50, Q)) < null_success).astype(float)
null_cv, null_choices = cross_validated(null_observed, levels, fold, B)
se_null = null_observed.std(ddof=1) / np.sqrt(Q)  # one Bernoulli draw per question; all Q are scored
check_close("50 equal strategies: the cross-validated score is unbiased for 0.5 (4 standard errors)",
            null_cv, 0.5, atol=4 * se_null)
in_sample = policy_accuracy(null_observed, levels, compute_optimal(bin_accuracy(null_observed, levels, B)))
check_true("... while choosing and scoring on the same questions overstates it by > 4 standard errors",
           in_sample - 0.5 > 4 * se_null, f"in-sample {in_sample:.4f}, cross-validated {null_cv:.4f}")

# The same two folds by plain loops: per fold, per bin, the strategy with the most correct answers.
brute_choices, brute_scores = [], []
for k in (0, 1):
    chosen = [max(range(50), key=lambda s: sum(null_observed[s, q] for q in range(Q) if fold[q] == k
                                                and levels[q] == b)) for b in range(B)]
    held = [null_observed[chosen[levels[q]], q] for q in range(Q) if fold[q] != k]
    brute_choices.append(chosen)
    brute_scores.append(sum(held) / len(held))
check_true("the per-fold choices = a plain loop's per-bin argmax on each fold, fold 0 first",
           [c.tolist() for c in null_choices] == brute_choices and brute_choices[0] != brute_choices[1])
check_close("the cross-validated score = the mean of the two held-out scores by plain loops", null_cv,
            np.mean(brute_scores), rtol=1e-12)

fig, ax = figure("Compute-optimal test-time scaling on a simulated population",
                 "generation budget N", "expected accuracy")
fixed_curves = np.array(fixed_curves)
for s, name in enumerate(STRATEGIES):
    ax.plot(budgets, fixed_curves[:, s], marker=".", label=name)
ax.plot(budgets, oracle_curve, "k--", lw=2, label="compute-optimal per difficulty bin")
ax.set_xscale("log", base=2)
ax.legend(fontsize=8)
