"""Elo expected score vs a logistic of scale 400/ln 10, Bradley-Terry strengths, and the Elo-update limit."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit


# --- formula ---
def expected_score(r_a, r_b):
    """E_A = 1 / (1 + 10^((R_B - R_A) / 400))."""
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(r_b) - np.asarray(r_a)) / 400.0))


def elo_update(r_a, r_b, s_a, k_factor):
    """A's rating after a game against B with score s_a: R_A + K (S_A - E_A)."""
    return r_a + k_factor * (s_a - expected_score(r_a, r_b))
# --- end formula ---


rng = np.random.default_rng(0)
r_a = rng.uniform(800, 2800, 1000)
r_b = rng.uniform(800, 2800, 1000)

scale = 400.0 / np.log(10.0)
check_close("E_A vs logistic sigmoid of (R_A - R_B) / (400 / ln 10)", expected_score(r_a, r_b),
            expit((r_a - r_b) / scale))
check_close("E_A vs Bradley-Terry with strengths 10^(R/400)", expected_score(r_a, r_b),
            10 ** (r_a / 400) / (10 ** (r_a / 400) + 10 ** (r_b / 400)))
check_close("E_A + E_B = 1", expected_score(r_a, r_b) + expected_score(r_b, r_a), np.ones(1000))
check_close("a 400-point edge means 10:1 odds (E = 10/11)", expected_score(1900, 1500), 10 / 11)
check_close("update by hand: level players, K = 32, a win gains 16, a draw nothing, a loss costs 16",
            [elo_update(1500, 1500, s, 32) for s in (1.0, 0.5, 0.0)], [1516, 1500, 1484], rtol=1e-12)
check_close("update by hand: a 400-point favourite, K = 22, wins 22 / 11 and loses 220 / 11",
            [elo_update(1900, 1500, s, 22) for s in (1.0, 0.0)], [1902, 1880], rtol=1e-12)

# Elo's update R <- R + K (S - E) is a stochastic-gradient step on the logistic log-likelihood; its
# fixed point is where the expected score matches the true win rate. Simulate a player who wins 10
# games in 11 (10:1 odds, which the scale defines as a 400-point gap), start both players level,
# and check the learned gap.
true_gap, k_factor, games = 400.0, 4.0, 40_000
wins = rng.random(games) < 10 / 11
ra, rb, gaps = 0.0, 0.0, np.empty(games)
for t in range(games):
    ra, rb = elo_update(ra, rb, wins[t], k_factor), elo_update(rb, ra, 1.0 - wins[t], k_factor)
    gaps[t] = ra - rb
learned = gaps[games // 2:].mean()
check_close("Elo updates turn a 10/11 win rate into a 400-point gap (Monte-Carlo)", learned, true_gap,
            rtol=0.05)
check_true("stronger player rated higher after play", learned > 0, f"learned gap {learned:.1f}")
# Each game rounds each rating once, at most half an ulp of 512 (both stay within +-512 here).
check_close("the update is zero-sum: the two ratings still add up to 0 after 40,000 games", ra + rb, 0.0,
            atol=games * np.spacing(512.0), rtol=0)

diff = np.linspace(-800, 800, 401)
fig, ax = figure("Elo expected score", "rating difference  R_A − R_B", "expected score of A")
ax.plot(diff, expected_score(diff, 0.0))
for d in (100, 200, 400):
    ax.plot(d, expected_score(d, 0.0), "o", color="C1")
    ax.annotate(f"{d}: {expected_score(d, 0.0):.2f}", (d, expected_score(d, 0.0)),
                textcoords="offset points", xytext=(8, -12))
ax.axhline(0.5, color="k", lw=0.6)

# The page's calculator is checked against expected_score and elo_update on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows): A stronger, level and weaker, each result of the game.
import cardcalc  # noqa: E402

cardcalc.table(lambda R_A, R_B, S_A, K: {"E_A": float(expected_score(R_A, R_B)),
                                         "R_A_new": float(elo_update(R_A, R_B, S_A, K))},
               cardcalc.grid(R_A=(800, 1500, 2300), R_B=(1000, 1500, 2700), S_A=(0, 0.5, 1), K=(10, 32)))
