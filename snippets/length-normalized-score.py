"""GNMT length penalty: limits, T^alpha form vs scipy gmean, ranking ties vs closed form."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq
from scipy.stats import gmean

rng = np.random.default_rng(0)


def length_penalty(T: int, alpha: float) -> float:
    """GNMT: lp(T) = (5 + T)^alpha / (5 + 1)^alpha."""
    return (5 + T) ** alpha / (5 + 1) ** alpha


def gnmt_score(log_p: float, T: int, alpha: float) -> float:
    return log_p / length_penalty(T, alpha)


def simple_score(log_p: float, T: int, alpha: float) -> float:
    """The plain variant: divide by T^alpha (alpha = 1 gives the mean per-token log-prob)."""
    return log_p / T**alpha


# Three finished beam candidates: shorter ones have less probable tokens but fewer of them.
# Totals are fixed; a Dirichlet split spreads each total unevenly over the tokens.
lengths = {"short": 4, "medium": 9, "long": 16}
totals = {"short": -4.0, "medium": -5.0, "long": -6.5}
token_log_probs = {k: totals[k] * rng.dirichlet(np.ones(T)) for k, T in lengths.items()}
log_p = {k: float(np.sum(v)) for k, v in token_log_probs.items()}

# 1. Limits: alpha = 0 leaves the raw log-likelihood, and lp(1) = 1 for every alpha.
check_close("alpha = 0 returns the raw sequence log-likelihood",
            [gnmt_score(log_p[k], lengths[k], 0.0) for k in lengths], list(totals.values()))
check_close("lp(1) = 1 for alpha in {0.2, 0.6, 1, 2}",
            [length_penalty(1, a) for a in (0.2, 0.6, 1.0, 2.0)], np.ones(4))

# 2. The simple form at alpha = 1 is the log of the geometric mean of the token probabilities.
check_close("simple form, alpha = 1: log-likelihood / T = log(geometric mean of token probs)",
            [simple_score(log_p[k], lengths[k], 1.0) for k in lengths],
            [np.log(gmean(np.exp(token_log_probs[k]))) for k in lengths])


def tie(a: str, b: str) -> tuple[float, float]:
    """alpha where candidates a and b score the same: closed form and numeric root."""
    closed = np.log(log_p[b] / log_p[a]) / np.log((5 + lengths[b]) / (5 + lengths[a]))
    root = brentq(lambda al: gnmt_score(log_p[a], lengths[a], al)
                  - gnmt_score(log_p[b], lengths[b], al), 0.0, 3.0, xtol=1e-14)
    return closed, root


# 3. Ties between neighbours, solved by hand: L_a / lp(T_a) = L_b / lp(T_b) gives
# alpha* = log(L_b / L_a) / log((5 + T_b) / (5 + T_a)). Compare with a numeric root.
(a1, r1), (a2, r2) = tie("short", "medium"), tie("medium", "long")
check_close("tie points alpha*: closed form vs brentq root of the score difference",
            [r1, r2], [a1, a2], rtol=1e-10)

# 4. Each candidate wins somewhere: raw score picks the short one, a strong penalty the long one.
probe = {0.0: "short", (a1 + a2) / 2: "medium", 1.0: "long"}
winners = {a: max(lengths, key=lambda k: gnmt_score(log_p[k], lengths[k], a)) for a in probe}
check_true("winner moves short -> medium -> long as alpha grows", winners == probe,
           ", ".join(f"alpha {a:.2f}: {w}" for a, w in winners.items()))

alphas = np.linspace(0, 1.5, 301)
fig, ax = figure("Which beam candidate wins as the length penalty grows",
                 r"length-penalty strength $\alpha$", "score  (higher wins)")
for (k, T), color in zip(lengths.items(), ("tab:red", "tab:blue", "black"), strict=True):
    ax.plot(alphas, [gnmt_score(log_p[k], T, a) for a in alphas], color=color,
            label=f"{k}: T = {T}, log p = {log_p[k]:.2f}")
    ax.plot(alphas, [simple_score(log_p[k], T, a) for a in alphas], color=color,
            linestyle=":", linewidth=1)
for a in (a1, a2):
    ax.axvline(a, color="gray", linestyle="--", linewidth=1)
ax.plot([], [], color="gray", label="solid: GNMT lp(T)")
ax.plot([], [], color="gray", linestyle=":", label=r"dotted: simple $T^\alpha$ form")
ax.legend(loc="lower right", fontsize=8)
