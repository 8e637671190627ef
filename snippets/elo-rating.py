"""Elo expected score vs a logistic of scale 400/ln 10, Bradley-Terry strengths, and the Elo-update limit."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit


# --- formula ---
def expected_score(r_a, r_b):
    """E_A = 1 / (1 + 10^((R_B - R_A) / 400))."""
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(r_b) - np.asarray(r_a)) / 400.0))
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

# Elo's update R <- R + K (S - E) is a stochastic-gradient step on the logistic log-likelihood; its
# fixed point is where the expected score matches the true win rate. Simulate a player who wins 10
# games in 11 (10:1 odds, which the scale defines as a 400-point gap), start both players level,
# and check the learned gap.
true_gap, k_factor, games = 400.0, 4.0, 40_000
wins = rng.random(games) < 10 / 11
ra, rb, gaps = 0.0, 0.0, np.empty(games)
for t in range(games):
    e = expected_score(ra, rb)
    ra += k_factor * (wins[t] - e)
    rb -= k_factor * (wins[t] - e)
    gaps[t] = ra - rb
learned = gaps[games // 2:].mean()
check_close("Elo updates turn a 10/11 win rate into a 400-point gap (Monte-Carlo)", learned, true_gap,
            rtol=0.05)
check_true("stronger player rated higher after play", learned > 0, f"learned gap {learned:.1f}")

diff = np.linspace(-800, 800, 401)
fig, ax = figure("Elo expected score", "rating difference  R_A − R_B", "expected score of A")
ax.plot(diff, expected_score(diff, 0.0))
for d in (100, 200, 400):
    ax.plot(d, expected_score(d, 0.0), "o", color="C1")
    ax.annotate(f"{d}: {expected_score(d, 0.0):.2f}", (d, expected_score(d, 0.0)),
                textcoords="offset points", xytext=(8, -12))
ax.axhline(0.5, color="k", lw=0.6)
