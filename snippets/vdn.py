"""VDN: the team value is the sum of per-agent values, so each agent's own greedy action makes up the joint
greedy action (checked by brute force over the joint action space) and the TD target needs only per-agent
maxima; fitting the sum by its gradient reaches the least-squares additive fit (numpy lstsq)."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def q_tot(q_chosen):
    """Q_tot = sum_i Q_i(tau_i, a_i); q_chosen[..., i] is agent i's value of its own chosen action."""
    return np.sum(q_chosen, axis=-1)


def decentralised_greedy(q_tables):
    """Each agent picks argmax_a Q_i(tau_i, a) on its own."""
    return tuple(int(np.argmax(q)) for q in q_tables)


def vdn_target(r, gamma, next_q_tables, done):
    """TD target r + gamma max_{a'} Q_tot(tau', a') = r + gamma sum_i max_a Q_i(tau'_i, a)."""
    next_value = q_tot(np.array([np.max(q) for q in next_q_tables]))
    return r + gamma * (1.0 - done) * next_value
# --- end formula ---


def joint_table(q_tables):
    """Q_tot for every joint action, by enumeration."""
    sizes = [len(q) for q in q_tables]
    table = np.zeros(sizes)
    for joint in itertools.product(*[range(k) for k in sizes]):
        table[joint] = q_tot(np.array([q[a] for q, a in zip(q_tables, joint, strict=True)]))
    return table


rng = np.random.default_rng(0)

# 1. By hand: Q_1 = (1, 3), Q_2 = (-2, 0.5); joint action (1, 1) has Q_tot = 3.5, (0, 0) has -1.
check_close("Q_tot(1, 1) = 3 + 0.5 and Q_tot(0, 0) = 1 - 2", [q_tot(np.array([3.0, 0.5])),
            q_tot(np.array([1.0, -2.0]))], [3.5, -1.0], rtol=1e-12)
check_close("batch of chosen values: sums along the agent axis", q_tot(np.array([[1.0, 2.0, 4.0],
            [0.5, -1.0, 0.0]])), [7.0, -0.5], rtol=1e-12)

# 2. IGM by brute force: 3 agents with 3, 4 and 2 actions, 200 random draws; the joint argmax over all
#    24 joint actions is each agent's own argmax, and the best joint value is the sum of per-agent maxima.
ok_argmax, ok_target = True, True
for _ in range(200):
    tables = [rng.normal(size=k) for k in (3, 4, 2)]
    table = joint_table(tables)
    joint_best = np.unravel_index(np.argmax(table), table.shape)
    ok_argmax &= tuple(int(j) for j in joint_best) == decentralised_greedy(tables)
    ok_target &= bool(np.isclose(vdn_target(0.3, 0.9, tables, 0.0), 0.3 + 0.9 * table.max(), rtol=1e-12))
check_true("joint argmax over all joint actions = per-agent argmax (200 draws)", ok_argmax)
check_true("VDN target = r + gamma max over all joint actions of Q_tot (brute force)", ok_target)
check_close("terminal transition: the target is the reward", vdn_target(-1.25, 0.9, [np.ones(2)], 1.0), -1.25,
            rtol=0)
check_close("target by hand: 1 + 0.5 (3 + 0.5)", vdn_target(1.0, 0.5, [np.array([1.0, 3.0]),
            np.array([-2.0, 0.5])], 0.0), 2.75, rtol=1e-12)

# 3. Learning: gradient descent on (r - Q_tot)^2 over every joint action of a 2-agent matrix game
#    (dQ_tot/dQ_i = 1, so each agent's chosen entry moves by the shared error). It converges to the
#    least-squares additive fit (numpy.linalg.lstsq on one-hot features): exact for an additive game,
#    and for the climbing game of Claus and Boutilier (1998) the fit's greedy joint action misses the optimum.
def fit_vdn(R, steps=1500, lr=0.05):
    q1, q2 = np.zeros(R.shape[0]), np.zeros(R.shape[1])
    pairs = list(itertools.product(range(R.shape[0]), range(R.shape[1])))
    for _ in range(steps):
        g1, g2 = np.zeros_like(q1), np.zeros_like(q2)
        for a1, a2 in pairs:
            err = R[a1, a2] - q_tot(np.array([q1[a1], q2[a2]]))
            g1[a1] += err
            g2[a2] += err
        q1 += lr * g1 / len(pairs)
        q2 += lr * g2 / len(pairs)
    return q1, q2


def lstsq_additive(R):
    m, n = R.shape
    X = np.array([np.r_[np.eye(m)[i], np.eye(n)[j]] for i, j in itertools.product(range(m), range(n))])
    w = np.linalg.lstsq(X, R.ravel(), rcond=None)[0]
    return (X @ w).reshape(m, n)


additive = np.add.outer(rng.normal(size=3), rng.normal(size=3))
q1, q2 = fit_vdn(additive)
check_close("additive game: the VDN fit reproduces every joint reward", joint_table([q1, q2]), additive,
            rtol=0, atol=1e-6)
climbing = np.array([[11.0, -30.0, 0.0], [-30.0, 7.0, 6.0], [0.0, 0.0, 5.0]])
q1, q2 = fit_vdn(climbing)
check_close("climbing game: VDN fit = least-squares additive fit (lstsq)", joint_table([q1, q2]),
            lstsq_additive(climbing), rtol=0, atol=1e-6)
greedy = decentralised_greedy([q1, q2])
check_true("climbing game: the fit's greedy joint action is not the optimum (0, 0)", greedy != (0, 0),
           f"greedy {greedy}, reward {climbing[greedy]:.0f} instead of 11")

fit = joint_table([q1, q2])
fig, ax = figure("Climbing game: VDN (additive) fit, true reward in brackets", "agent 2 action",
                 "agent 1 action", size=(5.0, 4.0))
ax.grid(False)
im = ax.imshow(fit, cmap="coolwarm", vmin=-30, vmax=30)
for i, j in itertools.product(range(3), range(3)):
    ax.text(j, i, f"{fit[i, j]:.1f}\n({climbing[i, j]:.0f})", ha="center", va="center", fontsize=8)
ax.set_xticks(range(3))
ax.set_yticks(range(3))
fig.colorbar(im, ax=ax, label="Q_1 + Q_2")
