"""GNMT length penalty: limits, T^alpha form vs scipy gmean, ranking ties vs closed form."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import brentq
from scipy.stats import gmean

rng = np.random.default_rng(0)


# --- formula ---
def length_penalty(T: int, alpha: float) -> float:
    """GNMT: lp(T) = (5 + T)^alpha / (5 + 1)^alpha."""
    return (5 + T) ** alpha / (5 + 1) ** alpha


def gnmt_score(log_p: float, T: int, alpha: float) -> float:
    return log_p / length_penalty(T, alpha)


def simple_score(log_p: float, T: int, alpha: float) -> float:
    """The plain variant: divide by T^alpha (alpha = 1 gives the mean per-token log-prob)."""
    return log_p / T**alpha
# --- end formula ---


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


# 2b. Values worked by hand from GNMT's definition lp(Y) = (5 + |Y|)^alpha / (5 + 1)^alpha:
#     alpha = 1: (5+7)/6 = 2, (5+13)/6 = 3;  alpha = 1/2: sqrt(24/6) = 2, sqrt(48/6) = sqrt(8);
#     alpha = 2: ((5+13)/6)^2 = 9;  alpha = 1/3: (12/6)^(1/3) = 2^(1/3);  alpha = -1: 6/(5+7) = 1/2.
check_close("lp(|Y|) at hand-worked points (alpha = 1, 1/2, 2, 1/3, -1)",
            [length_penalty(7, 1.0), length_penalty(13, 1.0), length_penalty(19, 0.5),
             length_penalty(43, 0.5), length_penalty(13, 2.0), length_penalty(7, 1 / 3),
             length_penalty(7, -1.0)],
            [2.0, 3.0, 2.0, np.sqrt(8.0), 9.0, 2 ** (1 / 3), 0.5], rtol=1e-12)
check_close("GNMT score by hand: -10 / lp(7) = -5 at alpha = 1; -6 / lp(19) = -3 at alpha = 1/2",
            [gnmt_score(-10.0, 7, 1.0), gnmt_score(-6.0, 19, 0.5)], [-5.0, -3.0], rtol=1e-12)
check_close("plain form by hand: -6 / 4^(1/2) = -3, -8 / 16^(1/4) = -4, -9 / 3^2 = -1",
            [simple_score(-6.0, 4, 0.5), simple_score(-8.0, 16, 0.25), simple_score(-9.0, 3, 2.0)],
            [-3.0, -4.0, -1.0], rtol=1e-12)
# Range of alpha: lp is flat (= 1) at alpha = 0, grows with |Y| for alpha > 0 (and more steeply
# for larger alpha), shrinks for alpha < 0; the offset makes it grow more slowly than |Y|^alpha.
Ts = np.arange(1, 200)
lp_of = {a: np.array([length_penalty(int(t), a) for t in Ts]) for a in (-0.5, 0.0, 0.2, 0.6, 1.0)}
check_true("alpha range: flat at 0, increasing for alpha > 0, decreasing for alpha < 0, "
           "ordered by alpha for |Y| > 1, below |Y|^alpha",
           bool(np.all(lp_of[0.0] == 1.0) and np.all(np.diff(lp_of[0.2]) > 0)
                and np.all(np.diff(lp_of[-0.5]) < 0)
                and np.all(lp_of[0.2][1:] < lp_of[0.6][1:]) and np.all(lp_of[0.6][1:] < lp_of[1.0][1:])
                and np.all(lp_of[0.6][1:] < Ts[1:] ** 0.6)))


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

# The page's calculator is checked against length_penalty, gnmt_score and simple_score for one candidate,
# at negative, zero and positive alpha and from one token to a thousand.
import cardcalc  # noqa: E402

cardcalc.table(lambda log_p, T, alpha: {"lp": length_penalty(T, alpha), "s": gnmt_score(log_p, T, alpha),
                                        "s_plain": simple_score(log_p, T, alpha)},
               cardcalc.grid(log_p=(-0.5, -12.0, -300.0), T=(1, 7, 20, 1000), alpha=(-1, 0, 0.6, 1, 2)))

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
