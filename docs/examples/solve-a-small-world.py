# %% [markdown]
# # Solve a small world
#
# This notebook solves one small Markov decision process four ways: value iteration and policy
# iteration, which plan with the known model, tabular Q-learning, which only sees sampled transitions,
# and a softmax policy gradient, which climbs the start-state value directly. The world is small enough
# that a linear program gives the exact optimum first, so every learner is graded against the true
# answer rather than against another learner. Change the slip probability, the discount or the rewards
# in the first cell and every step re-runs and re-checks itself on your version of the world (a harder
# world may need more Q-learning rounds or gradient steps before its checks pass).

# %%
import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from rl_worlds import MDPSampler, epsilon_greedy_policy, evaluate_policy, make_gridworld, solve_optimal

mdp = make_gridworld(slip=0.2, gamma=0.9, step_reward=-0.04, goal_reward=1.0, pit_reward=-1.0)
P, R, GAMMA = mdp.P, mdp.R, mdp.gamma      # P[s, a, s'], expected reward R[s, a] = sum_s' P R(s, a, s')
N_S, N_A = mdp.n_states, mdp.n_actions
S0 = 0                                     # every episode starts in the top-left cell
LIVE = np.flatnonzero(~mdp.terminal)       # non-terminal cells: the only ones where actions matter
ARROWS = np.array(list("^>v<"))            # actions 0..3 = up, right, down, left

# The exact optimum: the linear program min sum_s V(s) s.t. V(s) >= R(s, a) + gamma P(.|s, a) V, solved by
# scipy's HiGHS and polished by an exact evaluation of its greedy policy (rl_worlds.solve_optimal).
V_STAR, Q_STAR, PI_STAR = solve_optimal(mdp)
A_STAR = PI_STAR.argmax(axis=1)


def show(values, actions):
    """Print a 4 x 4 board: the value of each cell and its action (G goal, X pit)."""
    for row in range(4):
        cells = []
        for s in range(4 * row, 4 * row + 4):
            mark = ("G" if s == 15 else "X") if mdp.terminal[s] else ARROWS[actions[s]]
            cells.append(f"{values[s]:+.3f} {mark}")
        print("   ".join(cells))


print(f"{N_S} states, {N_A} actions, gamma = {GAMMA}; optimal start value V*(s0) = {V_STAR[S0]:.6f}")
show(V_STAR, A_STAR)

# %% [markdown]
# ## What the optimum means: a discounted return
#
# The [state value](../../cards/state-value-function/) $V^{\pi}(s)$ is the expected
# [discounted return](../../cards/discounted-return/) $G_0 = \sum_{k \ge 0} \gamma^k R_{k+1}$ of an episode
# that starts in $s$ and follows $\pi$. So before trusting the linear program we run its policy
# $\pi^*$ from the start cell 20,000 times and average the discounted sums of the sampled rewards.
# An episode ends when it enters the goal or a pit, so only the episodes still running take another step.
# Cutting each episode at 150 steps changes a return by at most
# $\gamma^{150} \max|R| / (1 - \gamma)$, about $10^{-6}$; the Monte Carlo mean should then sit within
# four standard errors of $V^*(s_0)$.

# %%
rng = np.random.default_rng(0)
sampler = MDPSampler(mdp, rng)
HORIZON, N_EPISODES = 150, 20_000
returns = np.zeros(N_EPISODES)                           # G_0 = sum_k gamma^k R_{k+1}, one per episode
running, s = np.arange(N_EPISODES), np.full(N_EPISODES, S0)
for k in range(HORIZON):
    r, s, ended = sampler.transitions(s, sampler.actions(PI_STAR, s))
    returns[running] += GAMMA**k * r
    running, s = running[~ended], s[~ended]
mc_mean, mc_se = returns.mean(), returns.std(ddof=1) / np.sqrt(N_EPISODES)
truncation = GAMMA ** HORIZON * np.abs(mdp.R_sas).max() / (1 - GAMMA)
print(f"Monte Carlo V*(s0) = {mc_mean:.4f} +- {mc_se:.4f} (LP: {V_STAR[S0]:.4f})")
check_close("Monte Carlo mean of discounted returns under pi* vs the LP value V*(s0)", mc_mean, V_STAR[S0],
            rtol=0, atol=4 * mc_se + truncation)

# %% [markdown]
# ## Value iteration
#
# The [Bellman optimality equation](../../cards/bellman-optimality-v/)
#
# $$V^*(s) = \max_{a} \sum_{s'} P(s' \mid s, a)\,\big[R(s, a, s') + \gamma\, V^*(s')\big]$$
#
# has $V^*$ as its only fixed point, and its right-hand side, read as an operator $T^*$, is a
# $\gamma$-contraction in the sup norm. Value iteration applies it over and over from $V_0 = 0$, so the error
# must shrink by at least a factor $\gamma$ on every single sweep,
# $\lVert V_{k+1} - V^* \rVert_\infty \le \gamma \lVert V_k - V^* \rVert_\infty$, and the same argument
# gives a stopping rule that needs no knowledge of $V^*$:
# $\lVert V_{k+1} - V^* \rVert_\infty \le \frac{\gamma}{1 - \gamma} \lVert V_{k+1} - V_k \rVert_\infty$.
# We stop once that bound is below $10^{-10}$ and then check both inequalities on every sweep, using the
# LP answer as $V^*$.

# %%
def bellman_optimality_backup(V):
    """(T* V)(s) = max_a sum_s' P(s'|s, a) [R(s, a, s') + gamma V(s')], with R[s, a] the expected reward."""
    return (R + GAMMA * P @ V).max(axis=1)


V = np.zeros(N_S)
vi_values = [V]
while True:
    V_next = bellman_optimality_backup(V)
    vi_values.append(V_next)
    done = GAMMA / (1 - GAMMA) * np.abs(V_next - V).max() < 1e-10
    V = V_next
    if done:
        break
vi_values = np.array(vi_values)
errors = np.abs(vi_values - V_STAR).max(axis=1)             # ||V_k - V*||, k = 0..K
steps = np.abs(np.diff(vi_values, axis=0)).max(axis=1)      # ||V_{k+1} - V_k||
print(f"{'sweep k':>8} {'V_k(s0)':>10} {'||V_k - V*||':>13} {'gamma^k ||V_0 - V*||':>21}")
for k in [0, 1, 2, 5, 10, 20, 30, len(errors) - 1]:
    print(f"{k:8d} {vi_values[k, S0]:10.6f} {errors[k]:13.3e} {GAMMA ** k * errors[0]:21.3e}")
check_true("every sweep contracts the error by gamma: ||V_{k+1} - V*|| <= gamma ||V_k - V*||",
           bool(np.all(errors[1:] <= GAMMA * errors[:-1] + 1e-15)),
           f"{len(errors) - 1} sweeps, largest ratio {np.max(errors[1:] / errors[:-1]):.4f}")
check_true("the stopping bound gamma/(1-gamma) ||V_{k+1} - V_k|| holds on every sweep",
           bool(np.all(errors[1:] <= GAMMA / (1 - GAMMA) * steps + 1e-15)))
check_close(f"value iteration after {len(errors) - 1} sweeps vs the LP optimum V*", V, V_STAR,
            rtol=0, atol=1e-10)
vi_actions = (R + GAMMA * P @ V).argmax(axis=1)
check_true("the greedy policy of the final V is pi* in every non-terminal cell",
           bool(np.array_equal(vi_actions[LIVE], A_STAR[LIVE])))

# %% [markdown]
# ## Policy iteration
#
# Policy iteration alternates two exact steps. Evaluation solves the
# [Bellman expectation equation](../../cards/bellman-expectation-equation/)
#
# $$V^\pi(s) = \sum_{a} \pi(a \mid s) \sum_{s'} P(s' \mid s, a)\,\big[R(s, a, s') + \gamma\, V^\pi(s')\big]$$
#
# which is linear, $(I - \gamma P_\pi) V^\pi = r_\pi$, so one `numpy.linalg.solve` does it. Improvement
# then acts greedily on the [action values](../../cards/action-value-function/)
# $Q^\pi(s, a) = R(s, a) + \gamma \sum_{s'} P(s' \mid s, a) V^\pi(s')$; the
# [policy improvement theorem](../../cards/policy-improvement/) promises
# $V^{\pi'} \ge V^{\pi}$ in every state, strictly somewhere until $\pi$ is optimal. We start from the poor
# policy "always go up" and check the promise at each step. The evaluation is itself checked against
# `rl_worlds.evaluate_policy`, which solves the separate $|S||A|$-sized system for $Q^\pi$ and lets us rebuild
# $V^\pi = \sum_a \pi(a \mid s) Q^\pi(s, a)$ from it.

# %%
def evaluate(pi):
    """V^pi from the linear Bellman system (I - gamma P_pi) V = r_pi."""
    P_pi = np.einsum("sa,sat->st", pi, P)     # P_pi[s, s'] = sum_a pi(a|s) P(s'|s, a)
    r_pi = np.sum(pi * R, axis=1)
    return np.linalg.solve(np.eye(N_S) - GAMMA * P_pi, r_pi)


def improve(V):
    """The greedy policy on Q^pi(s, a) = R(s, a) + gamma sum_s' P(s'|s, a) V(s'), as a one-hot array."""
    return np.eye(N_A)[(R + GAMMA * P @ V).argmax(axis=1)]


pi = np.eye(N_A)[np.zeros(N_S, dtype=int)]    # always "up"
_, Q_ref = evaluate_policy(mdp, pi)
check_close("V^pi by our linear solve vs sum_a pi Q^pi from the separate Q system", evaluate(pi),
            np.sum(pi * Q_ref, axis=1), rtol=0, atol=1e-12)
pi_values = []
while True:
    V_pi = evaluate(pi)
    pi_values.append(V_pi)
    pi_next = improve(V_pi)
    if np.array_equal(pi_next, pi):
        break
    pi = pi_next
pi_values = np.array(pi_values)
for k, values in enumerate(pi_values):
    print(f"policy {k}: V(s0) = {values[S0]:+.6f}, gap to V* up to {np.abs(values - V_STAR).max():.4f}")
gains = np.diff(pi_values, axis=0)
check_true("each improvement step raises V in every state and strictly in some state",
           bool(np.all(gains >= -1e-12) and np.all(gains.max(axis=1) > 1e-6)),
           f"{len(gains)} improvements, smallest per-step largest gain {gains.max(axis=1).min():.4f}")
check_true("policy iteration stops at pi* (every non-terminal cell)",
           bool(np.array_equal(pi.argmax(axis=1)[LIVE], A_STAR[LIVE])))
check_close("the value of the final policy vs the LP optimum V*", pi_values[-1], V_STAR, rtol=0, atol=1e-12)

# %% [markdown]
# ## Exploring with epsilon-greedy
#
# Q-learning will not be given the model, only transitions, and it needs a behaviour policy that keeps
# trying every action. The [epsilon-greedy](../../cards/epsilon-greedy/) rule takes the currently best
# action but with probability $\epsilon$ draws uniformly from all $|\mathcal{A}|$ actions instead:
#
# $$\pi(a \mid s) = \frac{\epsilon}{|\mathcal{A}|} + (1 - \epsilon)\,
# \mathbf{1}\big[a = \operatorname*{argmax}_{a'} Q(s, a')\big]$$
#
# so the greedy action gets $1 - \epsilon + \epsilon / |\mathcal{A}|$, not $1 - \epsilon$. We write the rule
# out and compare it with the helper's version on a random table, and compare the sampler's action
# frequencies with the probabilities.

# %%
EPSILON = 0.5


def epsilon_greedy(Q, epsilon):
    pi = np.full(Q.shape, epsilon / Q.shape[1])
    pi[np.arange(Q.shape[0]), Q.argmax(axis=1)] += 1 - epsilon
    return pi


Q_test = np.random.default_rng(1).normal(size=(N_S, N_A))
pi_eps = epsilon_greedy(Q_test, EPSILON)
check_close("our epsilon-greedy table vs rl_worlds.epsilon_greedy_policy", pi_eps,
            epsilon_greedy_policy(Q_test, EPSILON), rtol=0, atol=1e-15)
drawn = sampler.actions(pi_eps, np.full(100_000, 3))
freq = np.bincount(drawn, minlength=N_A) / drawn.size
print(f"state 3: probabilities {np.round(pi_eps[3], 3)}, sampled frequencies {np.round(freq, 3)}")
check_close("sampled action frequencies vs the epsilon-greedy probabilities (state 3, 100k draws)", freq,
            pi_eps[3], rtol=0, atol=4 * np.sqrt(0.25 / drawn.size))

# %% [markdown]
# ## Q-learning from sampled transitions
#
# The [Q-learning](../../cards/q-learning/) update moves the value of the pair just tried along its
# [TD error](../../cards/td-error/):
#
# $$Q(S_t, A_t) \leftarrow Q(S_t, A_t)
# + \alpha\,\big[R_{t+1} + \gamma \max_{a} Q(S_{t+1}, a) - Q(S_t, A_t)\big]$$
#
# Its target is a one-sample estimate of the right-hand side of the
# [Bellman optimality equation for $Q^*$](../../cards/bellman-optimality-q/), so it learns $Q^*$ whatever the
# behaviour policy is. To collect millions of samples cheaply, 2,000 agents act in parallel under
# epsilon-greedy ($\epsilon = 0.5$) on one shared table, each restarting in a random non-terminal cell after
# it falls into the goal or a pit. In one round the transitions that hit the same pair $(s, a)$ are merged:
# the pair moves by their mean TD error with step $\min(1, k\,c / (c + n))$, where $k$ is how many
# arrived this round and $n$ how many so far. That is the sum of $k$ simultaneous updates at the decaying
# step $c / (c + n)$, $c = 5$, capped so the pair never moves past its mean target. The optimal actions
# of cells 1 and 7 beat the runner-up by only 0.006 and 0.008 in $Q^*$, so recovering $\pi^*$ exactly needs
# those entries right to a few thousandths; we check that, and we check the exact value of the learned
# greedy policy, which is what using the table would earn.

# %%
N_AGENTS, ROUNDS, C_STEP = 2000, 3000, 5.0
Q = np.zeros((N_S, N_A))
n_seen = np.zeros((N_S, N_A))
s = rng.choice(LIVE, N_AGENTS)
ql_rounds, ql_estimate, ql_greedy_value = [], [], []
for t in range(1, ROUNDS + 1):
    a = sampler.actions(epsilon_greedy(Q, EPSILON), s)
    r, s_next, terminal = sampler.transitions(s, a)
    td = r + GAMMA * np.where(terminal, 0.0, Q[s_next].max(axis=1)) - Q[s, a]
    pair = s * N_A + a
    k = np.bincount(pair, minlength=N_S * N_A).reshape(N_S, N_A)
    td_sum = np.bincount(pair, weights=td, minlength=N_S * N_A).reshape(N_S, N_A)
    n_seen += k
    Q += np.minimum(1.0, k * C_STEP / (C_STEP + n_seen)) * td_sum / np.maximum(k, 1)
    s = np.where(terminal, rng.choice(LIVE, N_AGENTS), s_next)
    if t in (1, 2, 5) or t % 25 == 0:
        ql_rounds.append(t)
        ql_estimate.append(Q[S0].max())
        ql_greedy_value.append(evaluate(np.eye(N_A)[Q.argmax(axis=1)])[S0])

ql_actions = Q.argmax(axis=1)
V_learned = evaluate(np.eye(N_A)[ql_actions])
print(f"{int(n_seen.sum()):,} transitions; fewest for one live pair: {int(n_seen[LIVE].min()):,}")
print(f"max_a Q(s0, a) = {Q[S0].max():.5f}, V*(s0) = {V_STAR[S0]:.5f}; "
      f"largest |Q - Q*| in live cells {np.abs(Q - Q_STAR)[LIVE].max():.4f}")
show(Q.max(axis=1), ql_actions)
check_true("the greedy policy of the learned Q is pi* in every non-terminal cell",
           bool(np.array_equal(ql_actions[LIVE], A_STAR[LIVE])))
check_close("exact value of the learned greedy policy vs V* (every state)", V_learned, V_STAR,
            rtol=0, atol=1e-3)
check_close("learned Q vs Q* from the LP, non-terminal cells", Q[LIVE], Q_STAR[LIVE], rtol=0, atol=0.02)

# %% [markdown]
# ## A softmax policy gradient with exact gradients
#
# Last, a policy with one logit per cell and action,
# $\pi_\theta(a \mid s) = \operatorname{softmax}(\theta_s)_a$
# (the [softmax](../../cards/softmax/) over the cell's four logits), and the objective
# $J(\theta) = V^{\pi_\theta}(s_0)$. The [policy gradient theorem](../../cards/policy-gradient-theorem/)
# gives its gradient without differentiating the state distribution:
#
# $$\nabla_\theta J(\theta) = \sum_{s} d^{\pi}(s) \sum_{a} \pi_\theta(a \mid s)\, Q^{\pi}(s, a)\,
# \nabla_\theta \log \pi_\theta(a \mid s), \qquad d^{\pi}(s) = \sum_{t=0}^{\infty} \gamma^t \Pr(s_t = s)$$
#
# Everything on the right is exact here: the discounted occupancy solves
# $(I - \gamma P_\pi)^\top d = \mu$ with $\mu$ the start distribution, $Q^\pi$ comes from the evaluation
# above, and the softmax score is $\partial \log \pi_\theta(a \mid s) / \partial \theta_{s,b} =
# \mathbf{1}[a = b] - \pi_\theta(b \mid s)$. Before following the gradient we compare it, once, with central
# finite differences of the exactly evaluated $J$ at random logits.

# %%
def softmax_policy(theta):
    z = np.exp(theta - theta.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def policy_gradient(theta):
    """(dJ/dtheta, J) for J(theta) = V^{pi_theta}(s0), by the policy gradient theorem."""
    pi = softmax_policy(theta)
    V = evaluate(pi)
    Q = R + GAMMA * P @ V
    P_pi = np.einsum("sa,sat->st", pi, P)
    d = np.linalg.solve((np.eye(N_S) - GAMMA * P_pi).T, mdp.start)   # discounted occupancy d^pi
    score = np.eye(N_A)[None, :, :] - pi[:, None, :]                  # score[s, a, b]
    return np.einsum("s,sa,sa,sab->sb", d, pi, Q, score), V[S0]


def start_value(theta):
    return evaluate(softmax_policy(theta))[S0]


theta_test = np.random.default_rng(2).normal(size=(N_S, N_A))
grad, _ = policy_gradient(theta_test)
h = 1e-6
grad_fd = np.zeros_like(theta_test)
for i in range(N_S):
    for j in range(N_A):
        e = np.zeros_like(theta_test)
        e[i, j] = h
        grad_fd[i, j] = (start_value(theta_test + e) - start_value(theta_test - e)) / (2 * h)
print(f"gradient norm at random logits {np.linalg.norm(grad):.4f}")
check_close("policy gradient theorem vs central finite differences of J (64 logits)", grad, grad_fd,
            rtol=1e-6, atol=1e-9)

# %% [markdown]
# Now plain gradient ascent from uniform logits, $\theta \leftarrow \theta + \eta \nabla_\theta J$ with
# $\eta = 50$. The value should rise on every step. It will not quite reach $V^*(s_0)$: tabular softmax
# gradients vanish as a policy turns deterministic, and cells whose two best actions are almost tied can
# settle on the wrong one, from which escape is very slow. The
# [advantage](../../cards/advantage-function/) of the optimal policy accounts for whatever gap remains.
# By the performance difference lemma
#
# $$V^{\pi}(s_0) - V^*(s_0) = \sum_{s} d^{\pi}(s) \sum_{a} \pi(a \mid s)\, A^{*}(s, a), \qquad
# A^*(s, a) = Q^*(s, a) - V^*(s) \le 0$$
#
# so every state the policy visits pays for the probability it puts on actions worse than optimal. We check
# that this sum reproduces the gap, and that the only cells where the learned policy's most likely action
# is not $\pi^*$ are near-ties.

# %%
ETA, PG_STEPS = 50.0, 5000
theta = np.zeros((N_S, N_A))
pg_values = []
for _ in range(PG_STEPS):
    grad, J = policy_gradient(theta)
    pg_values.append(J)
    theta += ETA * grad
pg_values = np.array(pg_values)
pi_pg = softmax_policy(theta)
for it in [0, 1, 10, 100, 1000, PG_STEPS - 1]:
    print(f"step {it:5d}: J = {pg_values[it]:+.6f}, gap to V*(s0) = {V_STAR[S0] - pg_values[it]:.6f}")
check_true("J(theta) never decreases along the ascent", bool(np.all(np.diff(pg_values) >= -1e-12)))
check_true("after 5000 steps J is within 0.005 of V*(s0)", V_STAR[S0] - pg_values[-1] < 0.005,
           f"gap {V_STAR[S0] - pg_values[-1]:.5f}")
P_pg = np.einsum("sa,sat->st", pi_pg, P)
d_pg = np.linalg.solve((np.eye(N_S) - GAMMA * P_pg).T, mdp.start)
A_star = Q_STAR - V_STAR[:, None]
check_close("performance difference: sum_s d(s) sum_a pi A* vs V^pi(s0) - V*(s0)",
            np.sum(d_pg[:, None] * pi_pg * A_star), evaluate(pi_pg)[S0] - V_STAR[S0], rtol=1e-9, atol=1e-13)
ranked = np.sort(Q_STAR, axis=1)
margin = ranked[:, -1] - ranked[:, -2]          # how much the best action beats the runner-up in Q*
wrong = LIVE[pi_pg.argmax(axis=1)[LIVE] != A_STAR[LIVE]]
print(f"cells where the policy's likeliest action is not pi*: {wrong.tolist()}, "
      f"their Q* margins {np.round(margin[wrong], 4).tolist()}")
check_true("the likeliest action at the start cell is pi*(s0)", pi_pg[S0].argmax() == A_STAR[S0])
check_true("every cell that disagrees with pi* is a near-tie (Q* margin < 0.01)",
           bool(np.all(margin[wrong] < 0.01)))

# %% [markdown]
# ## Four learning curves
#
# The first figure puts the start-cell value of each method on one logarithmic iteration axis, with the
# exact optimum as a dashed line. For value iteration the curve is the iterate $V_k(s_0)$, for policy
# iteration the exact value of each successive policy, for Q-learning both the table's own estimate
# $\max_a Q(s_0, a)$ and the exact value of its greedy policy, and for the policy gradient $J(\theta)$. The
# second figure shows the distance $|V(s_0) - V^*(s_0)|$ on a log scale, where the last digits become
# visible (a distance of exactly zero is not drawn). Here the two planners get there in a few dozen cheap
# sweeps or three improvement steps; Q-learning needs millions of transitions because it has to discover
# the model; the gradient method keeps a small residual gap.

# %%
curves = {
    "value iteration, V_k(s0)": (np.arange(1, len(vi_values) + 1), vi_values[:, S0], "-"),
    "policy iteration, V(s0) of policy k": (np.arange(1, len(pi_values) + 1), pi_values[:, S0], "o-"),
    "Q-learning, table estimate max_a Q(s0, a)": (np.array(ql_rounds), np.array(ql_estimate), "-"),
    "Q-learning, exact value of its greedy policy": (np.array(ql_rounds), np.array(ql_greedy_value), ":"),
    "policy gradient, J(theta)": (np.arange(1, PG_STEPS + 1), pg_values, "-"),
}
XLABEL = "iteration: sweep, policy, round or step (from 1, log scale)"
fig, ax = figure("Start-cell value while solving the 4 x 4 gridworld", XLABEL, "value of the start cell")
for label, (x, y, style) in curves.items():
    ax.plot(x, y, style, label=label)
ax.axhline(V_STAR[S0], color="k", ls="--", lw=1, label=r"$V^*(s_0)$ from the LP")
ax.set_xscale("log")
ax.legend(fontsize=7, loc="lower right")

fig2, ax2 = figure("Distance to the optimal start-cell value", XLABEL, r"$|V(s_0) - V^*(s_0)|$")
for label, (x, y, style) in curves.items():
    gap = np.abs(y - V_STAR[S0])
    ax2.plot(x, np.where(gap > 0, gap, np.nan), style, label=label)
ax2.set_xscale("log")
ax2.set_yscale("log")
ax2.legend(fontsize=7, loc="lower right")

for label, (x, y, _) in curves.items():
    print(f"{label:45s} at iteration {x[-1]:5d}: {y[-1]:+.6f}, V*(s0) minus it {V_STAR[S0] - y[-1]:+.2e}")
check_true("no policy's exact value ends above V*(s0) (up to rounding)",
           all(y[-1] <= V_STAR[S0] + 1e-9 for label, (x, y, _) in curves.items() if "estimate" not in label))
