"""POMDP belief update: Bayes' rule by enumeration of the joint Pr(s, s', o), the tiger problem's exact
posteriors, filtering over a history vs enumeration of all hidden paths, and rejection sampling."""

import itertools

import numpy as np
from cardcheck import check_close
from cardplot import figure
from rl_worlds import TIGER, random_pomdp


# --- formula ---
def belief_update(b, a, o, T, obs_model):
    """b'(s') = eta O(o|s', a) sum_s T(s'|s, a) b(s), with T[s, a, s'] and obs_model[s', a, o];
    eta = 1 / Pr(o | b, a) normalizes b' to a distribution."""
    predicted = b @ T[:, a, :]
    unnormalized = obs_model[:, a, o] * predicted
    return unnormalized / np.sum(unnormalized)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Bayes by enumeration on a dense random POMDP (3 states, 2 actions, 3 observations): the joint
#    Pr(s, s', o | b, a) = b(s) T(s'|s,a) O(o|s',a) is tabulated entry by entry (TabularPOMDP.joint);
#    the posterior over s' given o is the joint summed over s, divided by Pr(o).
pomdp = random_pomdp(rng, n_states=3, n_actions=2, n_observations=3)
b = rng.dirichlet(np.ones(3))
for a, o in itertools.product(range(2), range(3)):
    joint = pomdp.joint(b, a)
    posterior = joint[:, :, o].sum(axis=0) / joint[:, :, o].sum()
    check_close(f"random POMDP, a={a}, o={o}: update vs Bayes on the enumerated joint",
                belief_update(b, a, o, pomdp.T, pomdp.O), posterior, rtol=1e-12)

# 2. Filtering a whole history equals the posterior over the last hidden state computed by summing
#    the probability of every hidden path s_0..s_4 (3^5 = 243 paths) consistent with the observations.
actions, observations = [1, 0, 0, 1], [2, 0, 1, 1]
bt = b.copy()
for a, o in zip(actions, observations, strict=True):
    bt = belief_update(bt, a, o, pomdp.T, pomdp.O)
path_post = np.zeros(3)
for path in itertools.product(range(3), repeat=5):
    p = b[path[0]]
    for t, (a, o) in enumerate(zip(actions, observations, strict=True)):
        p *= pomdp.T[path[t], a, path[t + 1]] * pomdp.O[path[t + 1], a, o]
    path_post[path[-1]] += p
check_close("4-step filtering vs enumeration of all 243 hidden paths", bt, path_post / path_post.sum(),
            rtol=1e-12)

# 3. Rejection sampling: draw s ~ b, s' ~ T(.|s, a), o ~ O(.|s', a) 400,000 times, keep the draws with
#    the observed o; the frequencies of s' estimate b'. Tolerance 4 binomial standard errors.
n, a, o = 400_000, 1, 2
s = np.searchsorted(np.cumsum(b), rng.random(n), side="right")
s2 = (rng.random(n)[:, None] > np.cumsum(pomdp.T[s, a], axis=1)).sum(axis=1)
obs = (rng.random(n)[:, None] > np.cumsum(pomdp.O[s2, a], axis=1)).sum(axis=1)
kept = s2[obs == o]
freq = np.bincount(kept, minlength=3) / len(kept)
check_close(f"rejection sampling ({len(kept)} accepted draws) vs the update", belief_update(b, a, o, pomdp.T,
            pomdp.O), freq, rtol=0, atol=4 * np.sqrt(0.25 / len(kept)))

# 4. The tiger problem (listening is 85% accurate): exact posteriors.
tiger = TIGER
b0 = tiger.b0
LISTEN, OPEN_LEFT, HEAR_LEFT, HEAR_RIGHT = 0, 1, 0, 1
b1 = belief_update(b0, LISTEN, HEAR_LEFT, tiger.T, tiger.O)
check_close("tiger: one hear-left from (1/2, 1/2) gives (0.85, 0.15)", b1, [0.85, 0.15], rtol=1e-12)
b2 = belief_update(b1, LISTEN, HEAR_LEFT, tiger.T, tiger.O)
check_close("tiger: two hear-left give 0.85^2 / (0.85^2 + 0.15^2)", b2[0], 0.85**2 / (0.85**2 + 0.15**2),
            rtol=1e-12)
check_close("tiger: hear-left then hear-right cancel",
            belief_update(b1, LISTEN, HEAR_RIGHT, tiger.T, tiger.O), [0.5, 0.5], rtol=1e-12)
check_close("tiger: opening a door resets the belief to (1/2, 1/2)",
            belief_update(b2, OPEN_LEFT, HEAR_RIGHT, tiger.T, tiger.O), [0.5, 0.5], rtol=1e-12)

# Figure: P(tiger-left) along a sequence of listening results.
heard = [HEAR_LEFT, HEAR_LEFT, HEAR_RIGHT, HEAR_LEFT, HEAR_LEFT, HEAR_LEFT, HEAR_RIGHT, HEAR_RIGHT]
trace, bb = [b0[0]], b0
for h in heard:
    bb = belief_update(bb, LISTEN, h, tiger.T, tiger.O)
    trace.append(bb[0])
fig, ax = figure("Tiger problem: belief after each listen (85% accurate)", "number of listens",
                 "P(tiger behind left door)")
ax.step(range(len(trace)), trace, where="post", marker="o")
for k, h in enumerate(heard, start=1):
    ax.annotate("L" if h == HEAR_LEFT else "R", (k, trace[k]), textcoords="offset points", xytext=(0, 6),
                ha="center")
ax.set_ylim(0, 1.05)
