"""MDP: trajectory probabilities from (mu, pi, P) sum to one and match sampled frequencies; state
marginals match powers of P_pi; the count estimate of P(s'|s,a) recovers the gridworld's kernel."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, MDPSampler, random_mdp, random_policy


# --- formula ---
def trajectory_probability(states, actions, mu, pi, P):
    """Pr(S_0, A_0, S_1, ..., S_T) = mu(S_0) prod_t pi(A_t|S_t) P(S_{t+1}|S_t, A_t) (Markov property)."""
    prob = mu[states[0]]
    for t in range(len(actions)):
        prob = prob * pi[states[t], actions[t]] * P[states[t], actions[t], states[t + 1]]
    return prob


def state_distribution(mu, pi, P, t):
    """Pr(S_t = s'): t steps of d(s') <- sum_s d(s) sum_a pi(a|s) P(s'|s, a)."""
    d = mu
    for _ in range(t):
        d = np.einsum("i,ij,ijk->k", d, pi, P)
    return d


def estimate_transitions(states, actions, next_states, n_states, n_actions):
    """Count estimate of P(s'|s,a) = N(s, a, s') / N(s, a) from observed transitions."""
    counts = np.zeros((n_states, n_actions, n_states))
    np.add.at(counts, (states, actions, next_states), 1.0)  # equivalent: a count's unit cancels in the ratio
    return counts / counts.sum(axis=2, keepdims=True)
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, n_states=4, n_actions=3, gamma=0.9)
mu = rng.dirichlet(np.ones(4))
pi = random_policy(mdp, rng)
nS, nA = mdp.n_states, mdp.n_actions

check_true("the kernel is a distribution over s' for every (s, a)",
           bool(np.all(mdp.P >= 0) and np.allclose(mdp.P.sum(axis=2), 1.0, rtol=0, atol=1e-12)))

# 1. Every trajectory of 3 steps (4^4 * 3^3 = 6912 of them), enumerated: the probabilities sum to one
#    and their marginal over S_3 is mu^T P_pi^3 (matrix power of the policy's transition matrix).
T = 3
probs, last = [], []
for states in itertools.product(range(nS), repeat=T + 1):
    for actions in itertools.product(range(nA), repeat=T):
        probs.append(trajectory_probability(states, actions, mu, pi, mdp.P))
        last.append(states[-1])
probs, last = np.array(probs), np.array(last)
check_close("sum over all 3-step trajectories of Pr(trajectory) = 1", probs.sum(), 1.0, rtol=1e-12)
P_pi, _ = mdp.policy_matrices(pi)
marg_enum = np.bincount(last, weights=probs, minlength=nS)
check_close("marginal of S_3 from enumeration = mu^T P_pi^3", marg_enum,
            mu @ np.linalg.matrix_power(P_pi, 3), rtol=1e-12)
for t in (1, 3, 7):
    check_close(f"state distribution after {t} steps = mu^T P_pi^{t}", state_distribution(mu, pi, mdp.P, t),
                mu @ np.linalg.matrix_power(P_pi, t), rtol=1e-12)

# 2. Monte Carlo: sample 200,000 two-step trajectories and compare the frequency of each distinct
#    trajectory with its probability (tolerance: 4 binomial standard errors per trajectory).
n = 200_000
m2 = random_mdp(rng, n_states=3, n_actions=2)
mu2, pi2 = np.array([0.5, 0.3, 0.2]), random_policy(m2, rng)
smp = MDPSampler(m2, rng)
s0 = np.searchsorted(np.cumsum(mu2), rng.random(n), side="right")
a0 = smp.actions(pi2, s0)
_, s1, _ = smp.transitions(s0, a0)
a1 = smp.actions(pi2, s1)
_, s2, _ = smp.transitions(s1, a1)
codes = np.ravel_multi_index((s0, a0, s1, a1, s2), (3, 2, 3, 2, 3))
freq = np.bincount(codes, minlength=3 * 2 * 3 * 2 * 3) / n
all_paths = itertools.product(range(3), range(2), range(3), range(2), range(3))
exact = np.array([trajectory_probability((x0, x1, x2), (u0, u1), mu2, pi2, m2.P)
                  for x0, u0, x1, u1, x2 in all_paths])
check_close("trajectory frequencies of 200k samples vs Pr(trajectory)", freq, exact, rtol=0,
            atol=4 * np.sqrt(exact.max() / n))
check_close("Pr(trajectory) of the enumerated 2-step set sums to one", exact.sum(), 1.0, rtol=1e-12)

# 3. Transition probability as a frequency: 60 transitions from every (s, a) of the gridworld, 3000
#    rounds; the count estimate recovers P(s'|s, a) within 4 binomial standard errors.
grid = GRIDWORLD
sg = MDPSampler(grid, rng)
ss, aa = np.meshgrid(np.arange(16), np.arange(4), indexing="ij")
ss, aa = np.tile(ss.ravel(), 3000), np.tile(aa.ravel(), 3000)
_, nxt, _ = sg.transitions(ss, aa)
P_hat = estimate_transitions(ss, aa, nxt, 16, 4)
check_close("gridworld: count estimate of P(s'|s,a) from 3000 draws per pair", P_hat, grid.P, rtol=0,
            atol=4 * np.sqrt(0.25 / 3000))
check_close("each estimated row sums to one", P_hat.sum(axis=2), np.ones((16, 4)), rtol=1e-12)

# 4. The Markov property: the next-state distribution does not depend on where the agent came from.
#    Along 20,000 sampled gridworld episodes, P(S_{t+1} | S_t = 10, A_t = down) estimated separately
#    for the two most common predecessors of state 10 agrees with P(. | 10, down).
pi_u = np.full((16, 4), 0.25)
St, At, _ = sg.rollouts(pi_u, 20_000, 30)
prev, cur, act, nxt = St[:, :-2].ravel(), St[:, 1:-1].ravel(), At[:, 1:].ravel(), St[:, 2:].ravel()
sel = (cur == 10) & (act == 2)
for p in np.bincount(prev[sel]).argsort()[-2:]:
    which = nxt[sel & (prev == p)]
    emp = np.bincount(which, minlength=16) / len(which)
    check_close(f"P(S' | S=10, down, previous state {p}) = P(S' | 10, down)", emp, grid.P[10, 2], rtol=0,
                atol=4 * np.sqrt(0.25 / len(which)))
