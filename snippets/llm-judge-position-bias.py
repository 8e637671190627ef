"""Position consistency and first-position bias of a pairwise LLM judge, checked against the exact rates of
a simulated judge with a known position bonus (all nine verdict pairs enumerated, read by which answer won)
and by Monte Carlo."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.special import expit

FIRST, TIE, SECOND = 1, 0, -1   # a verdict names a position: the answer shown first, a tie, or the second


# --- formula ---
def position_rates(v_ab, v_ba):
    """Shares of pairs that are consistent, biased toward the first position, biased toward the second,
    and errors, from the verdicts with the answers in one order (v_ab) and swapped (v_ba).

    The lean v_ab + v_ba counts first-position picks minus second-position picks: 0 when the same
    answer (or a tie) came out both times, positive when the judge leaned to the first slot."""
    v_ab, v_ba = np.asarray(v_ab, float), np.asarray(v_ba, float)
    error = np.isnan(v_ab) | np.isnan(v_ba)
    total = v_ab + v_ba
    lean = np.where(error, 0.0, total)  # equivalent: every share below masks out the errors anyway
    consistent = (lean == 0) & ~error
    first = (lean > 0) & ~error
    second = (lean < 0) & ~error
    return np.mean(consistent), np.mean(first), np.mean(second), np.mean(error)
# --- end formula ---


def judge_probs(gap, bonus, tie_band):
    """A judge with a known position bias: it sees (quality of first - quality of second) + bonus + logistic
    noise and says first above tie_band, second below -tie_band, tie in between. Returns P(first), P(tie),
    P(second) for each gap."""
    p_first = expit(gap + bonus - tie_band)
    p_second = expit(-(gap + bonus) - tie_band)
    return p_first, 1.0 - p_first - p_second, p_second


def exact_rates(gaps, bonus, tie_band):
    """Expected shares by enumerating the nine verdict pairs, each read by *which answer* won in each
    order (A is shown first in order 1 and second in order 2), with the paper's definitions: consistent if
    the same answer won both times or both were ties; otherwise biased toward the position chosen more."""
    pa = judge_probs(gaps, bonus, tie_band)       # A first: first = A wins
    pb = judge_probs(-gaps, bonus, tie_band)      # B first: first = B wins
    winners_1 = {"A": pa[0], "tie": pa[1], "B": pa[2]}
    winners_2 = {"B": pb[0], "tie": pb[1], "A": pb[2]}
    first_slot = {("A", 1): 1, ("B", 2): 1, ("B", 1): -1, ("A", 2): -1}   # +1 when the winner sat first
    rates = np.zeros(3)
    for w1, p1 in winners_1.items():
        for w2, p2 in winners_2.items():
            p = np.mean(p1 * p2)
            if w1 == w2:
                rates[0] += p
            elif first_slot.get((w1, 1), 0) + first_slot.get((w2, 2), 0) > 0:
                rates[1] += p
            else:
                rates[2] += p
    return rates


def simulate(gaps, bonus, tie_band, rng):
    """Draw the two verdicts of each pair from the judge; positions as in the formula's convention."""
    out = []
    for sign in (1.0, -1.0):                        # order 1: A first; order 2: B first
        pf, pt, _ = judge_probs(sign * gaps, bonus, tie_band)
        u = rng.random(len(gaps))
        out.append(np.where(u < pf, FIRST, np.where(u < pf + pt, TIE, SECOND)))
    return out


rng = np.random.default_rng(0)
n = 40_000
gaps = rng.normal(0.0, 0.8, n)                      # similar answers, as in the paper's test
for bonus, tie_band in [(1.2, 0.4), (0.0, 0.6), (-0.7, 0.2), (2.5, 0.0)]:
    v1, v2 = simulate(gaps, bonus, tie_band, rng)
    got = np.array(position_rates(v1, v2)[:3])
    want = exact_rates(gaps, bonus, tie_band)
    se = np.sqrt(want * (1 - want) / n)            # binomial standard error of each share
    check_close(f"consistent / first / second shares vs exact rates of the judge (bonus {bonus}, "
                f"4 standard errors)", (got - want) / se, np.zeros(3), rtol=0, atol=4.0)
    check_close(f"the three shares sum to 1 with no errors (bonus {bonus})", got.sum(), 1.0, rtol=1e-12)
    check_true(f"the bias points the way of the bonus (bonus {bonus})",
               np.sign(got[1] - got[2]) == np.sign(bonus) or bonus == 0,
               f"first {got[1]:.3f}, second {got[2]:.3f}")

# Limits: a judge that always picks the first slot is never consistent; a noiseless unbiased judge always is.
always_first = np.full(50, FIRST)
check_close("always-first judge: consistency 0, first-bias 1", position_rates(always_first, always_first)[:2],
            [0.0, 1.0], rtol=0, atol=0)
truth = np.sign(rng.normal(size=50))
check_close("a judge that follows quality alone is fully consistent", position_rates(truth, -truth)[0], 1.0,
            rtol=0)
check_close("both ties count as consistent", position_rates([TIE], [TIE])[0], 1.0, rtol=0)
check_close("first then tie leans to the first slot", position_rates([FIRST, TIE], [TIE, FIRST])[1], 1.0,
            rtol=0)
check_close("second then tie leans to the second slot", position_rates([SECOND, TIE], [TIE, SECOND])[2], 1.0,
            rtol=0)
# Errors (unparseable output) are their own column: Table 2's four columns add to 100%.
v_err = np.array([FIRST, np.nan, SECOND, TIE, FIRST])
w_err = np.array([SECOND, FIRST, SECOND, np.nan, FIRST])
check_close("consistent / first / second / error with unparseable verdicts", position_rates(v_err, w_err),
            [0.2, 0.2, 0.2, 0.4], rtol=1e-12)

bonuses = np.linspace(-3, 3, 61)
fig, ax = figure("A judge with a position bonus", "bonus for the first slot (log-odds)", "share of pairs")
curves = np.array([exact_rates(gaps[:4000], b, 0.4) for b in bonuses])
for k, label in enumerate(["consistent", "biased toward first", "biased toward second"]):
    ax.plot(bonuses, curves[:, k], label=label)
ax.legend()
