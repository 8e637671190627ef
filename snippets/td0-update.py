"""TD(0): the expected update is alpha times the Bellman residual; online TD(0) on the gridworld converges
to V^pi from the linear solve; batch TD(0) converges to the certainty-equivalence value of the data."""

import numpy as np
from cardcheck import check_close, check_true
from rl_worlds import GRIDWORLD, MDPSampler, evaluate_policy, random_mdp, random_policy


# --- formula ---
def td0_increment(V, s, r, s_next, done, alpha, gamma):
    """alpha [r + gamma V(s') - V(s)], with V(s') = 0 when s' is terminal (scalars or arrays)."""
    target = r + gamma * np.where(done, 0.0, V[s_next])
    return alpha * (target - V[s])


def td0_update(V, s, r, s_next, done, alpha, gamma):
    """In place: V(s) <- V(s) + alpha [r + gamma V(s') - V(s)]."""
    V[s] += td0_increment(V, s, r, s_next, done, alpha, gamma)
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Expected update, exactly: averaging the increment over (a, s') with weights pi(a|s) P(s'|s, a)
#    gives alpha (r_pi + gamma P_pi V - V)(s), the step of iterative policy evaluation scaled by alpha.
mdp = random_mdp(rng, n_states=5, n_actions=3, gamma=0.9)
pol = random_policy(mdp, rng)
P_pi, r_pi = mdp.policy_matrices(pol)
U = rng.normal(size=5)
s_i, a_i, s2_i = np.meshgrid(np.arange(5), np.arange(3), np.arange(5), indexing="ij")
inc = td0_increment(U, s_i, mdp.R_sas, s2_i, np.zeros(s2_i.shape, dtype=bool), 0.3, mdp.gamma)
check_close("E[TD(0) increment | s] = alpha (r_pi + gamma P_pi V - V)",
            (pol[:, :, None] * mdp.P * inc).sum(axis=(1, 2)), 0.3 * (r_pi + mdp.gamma * P_pi @ U - U),
            rtol=1e-12)
V1 = U.copy()
td0_update(V1, 2, 1.5, 4, False, 0.3, mdp.gamma)
check_close("one in-place update changes only V(s) and lands 30% of the way to the target",
            V1, np.r_[U[:2], 0.7 * U[2] + 0.3 * (1.5 + mdp.gamma * U[4]), U[3:]], rtol=1e-12)
V2 = U.copy()
td0_update(V2, 2, 1.5, 4, True, 1.0, mdp.gamma)
check_close("alpha = 1 at a terminal transition sets V(s) to the reward", V2[2], 1.5, rtol=1e-12)

# 2. Online TD(0) along gridworld episodes under the uniform random policy (episodes start in random
#    non-terminal cells), step size alpha = n(s)^-0.7 for the n-th visit of s (Robbins-Monro
#    conditions hold). After 6000 episodes every state is within 0.03 of V^pi.
grid = GRIDWORLD
pi_u = np.full((16, 4), 0.25)
V_true, _ = evaluate_policy(grid, pi_u)
sampler = MDPSampler(grid, rng)
V = np.zeros(16)
visits = np.zeros(16)
nonterminal = np.flatnonzero(~grid.terminal)
for _ in range(6000):
    ep = sampler.episode(pi_u, s0=int(rng.choice(nonterminal)))
    for t in range(len(ep.actions)):
        s, s2 = ep.states[t], ep.states[t + 1]
        visits[s] += 1
        td0_update(V, s, ep.rewards[t], s2, grid.terminal[s2], visits[s] ** -0.7, grid.gamma)
err = np.abs(V - V_true).max()
check_close("online TD(0), 6000 episodes: V within 0.03 of V^pi (linear solve)", V, V_true, rtol=0, atol=0.03)
check_true("terminal values never updated", bool(np.all(V[grid.terminal] == 0.0)))

# 3. Batch TD(0) (Sutton and Barto, Sec. 6.3): on a fixed set of 25 episodes, sweep all transitions,
#    sum the increments per state (alpha = 0.5 / visits), apply, repeat. The limit is the value of the
#    maximum-likelihood model of the data, V = r_hat + gamma P_hat V (certainty equivalence), solved here
#    with numpy.linalg.solve from transition counts. It differs from the batch Monte Carlo average.
eps = [sampler.episode(pi_u, s0=int(rng.choice(nonterminal))) for _ in range(25)]
S = np.concatenate([e.states[:-1] for e in eps])
S2 = np.concatenate([e.states[1:] for e in eps])
Rw = np.concatenate([e.rewards for e in eps])
n_s = np.bincount(S, minlength=16).astype(float)
seen = np.flatnonzero(n_s > 0)
P_hat = np.zeros((16, 16))
np.add.at(P_hat, (S, S2), 1.0)
P_hat[seen] /= n_s[seen, None]
r_hat = np.bincount(S, weights=Rw, minlength=16) / np.maximum(n_s, 1)
P_hat[:, grid.terminal] = 0.0  # terminal successors contribute no future value
V_ce = np.zeros(16)
V_ce[seen] = np.linalg.solve(np.eye(len(seen)) - grid.gamma * P_hat[np.ix_(seen, seen)], r_hat[seen])
V_b = np.zeros(16)
alpha_b = 0.5 / np.maximum(n_s, 1)[S]
for _ in range(1500):
    V_b += np.bincount(S, weights=td0_increment(V_b, S, Rw, S2, grid.terminal[S2], alpha_b, grid.gamma),
                       minlength=16)
check_close(f"batch TD(0) on {len(S)} transitions = certainty-equivalence value", V_b, V_ce, rtol=1e-9,
            atol=1e-12)
G_first = []
for e in eps:  # batch Monte Carlo: average return from the first state of each episode
    G_first.append((e.rewards * grid.gamma ** np.arange(len(e.rewards))).sum())
mc_start = np.bincount([e.states[0] for e in eps], weights=G_first, minlength=16)
cnt_start = np.bincount([e.states[0] for e in eps], minlength=16)
gap = np.abs(mc_start[cnt_start > 0] / cnt_start[cnt_start > 0] - V_b[cnt_start > 0]).max()
check_true("batch TD and batch Monte Carlo give different answers on the same data", gap > 1e-3,
           f"largest difference {gap:.3f}")

# The page's calculator is checked against td0_increment and td0_update on this grid (cardcalc; the build
# runs the card's JavaScript on the same rows): one transition from state 0 to state 1, values of both
# signs, gamma and alpha from 0 to 1 (alpha = 1 jumps to the target). The TD error is the increment at
# alpha = 1.
import cardcalc  # noqa: E402


def td0_row(V_s, R, gamma, V_next, alpha):
    V = np.array([V_s, V_next])
    delta = td0_increment(V, 0, R, 1, False, 1.0, gamma)
    td0_update(V, 0, R, 1, False, alpha, gamma)
    return {"delta": delta, "V_new": V[0]}


cardcalc.table(td0_row, cardcalc.grid(V_s=(-2.0, 0.0, 4.5), R=(-1.0, 2.5), gamma=(0.0, 0.9, 1.0),
                                      V_next=(-3.0, 7.25), alpha=(0.0, 0.1, 1.0)))
