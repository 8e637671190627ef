"""QMIX mixing network: hypernetwork weights passed through abs make Q_tot non-decreasing in every agent's
value (finite differences over random states and inputs), so per-agent greedy actions give the joint greedy
action (brute force over all joint actions); two small networks are checked against hand-computed values."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def elu(x):
    return np.where(x > 0, x, np.expm1(x))


def qmix(q_agents, state, hyper):
    """Q_tot = W2^T elu(W1^T q + b1) + b2, with W1 = |state @ hyper_w1|, W2 = |state @ hyper_w2| (non-negative
    mixing weights), b1 = state @ hyper_b1, b2 = relu(state @ hyper_v1) @ hyper_v2 (biases unconstrained).
    q_agents: (B, n); state: (B, d). Returns (B,)."""
    n = q_agents.shape[1]
    embed = hyper["w1"].shape[1] // n
    w1 = np.abs(state @ hyper["w1"]).reshape(len(state), n, embed)
    b1 = state @ hyper["b1"]
    w2 = np.abs(state @ hyper["w2"])
    b2 = np.maximum(state @ hyper["v1"], 0.0) @ hyper["v2"]
    hidden = elu(np.einsum("bn,bne->be", q_agents, w1) + b1)
    return np.sum(hidden * w2, axis=1) + b2[:, 0]
# --- end formula ---


def random_hyper(rng, n_agents, state_dim, embed):
    """Hypernetwork weights drawn from a standard normal: half the raw mixing weights are negative."""
    return {"w1": rng.normal(size=(state_dim, n_agents * embed)), "b1": rng.normal(size=(state_dim, embed)),
            "w2": rng.normal(size=(state_dim, embed)), "v1": rng.normal(size=(state_dim, embed)),
            "v2": rng.normal(size=(embed, 1))}


rng = np.random.default_rng(0)

# 1. Hand-computed values: 2 agents, mixing embedding 1, 1-d state. Raw W1 = s (-2, 0.5), b1 = -3 s,
#    raw W2 = -1.5 s, b2 = relu(s) * 0.25.
#    s = 1:  q = (1, 2): 2*1 + 0.5*2 - 3 = 0 -> elu 0 -> Q_tot = 0.25
#            q = (0, 0): elu(-3) = e^-3 - 1 -> Q_tot = 1.5 (e^-3 - 1) + 0.25
#            q = (3, 0): 6 - 3 = 3 -> Q_tot = 1.5 * 3 + 0.25 = 4.75
#            q = (1.75, 0): 3.5 - 3 = 0.5 -> Q_tot = 1.5 * 0.5 + 0.25 = 1
#    s = -1: W1 = |(2, -0.5)|, b1 = 3, W2 = 1.5, b2 = relu(-1) * 0.25 = 0; q = (0, 0) -> 1.5 * 3 = 4.5
hand = {"w1": np.array([[-2.0, 0.5]]), "b1": np.array([[-3.0]]), "w2": np.array([[-1.5]]),
        "v1": np.array([[1.0]]), "v2": np.array([[0.25]])}
q = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 0.0], [1.75, 0.0], [0.0, 0.0]])
s = np.array([[1.0], [1.0], [1.0], [1.0], [-1.0]])
check_close("hand-computed mixer outputs (both ELU branches, both ReLU branches)", qmix(q, s, hand),
            [0.25, 1.5 * (np.exp(-3.0) - 1.0) + 0.25, 4.75, 1.0, 4.5], rtol=1e-12)
# One agent, embedding 2, s = 1: W1 = |(1, -2)| = (1, 2), b1 = (0, -1), W2 = |(0.5, -1)| = (0.5, 1),
# b2 = relu((-1, 2)) . (3, 0.25) = 0.5. q = 2: hidden = (2, 3), Q_tot = 0.5 * 2 + 1 * 3 + 0.5 = 4.5.
hand2 = {"w1": np.array([[1.0, -2.0]]), "b1": np.array([[0.0, -1.0]]), "w2": np.array([[0.5, -1.0]]),
         "v1": np.array([[-1.0, 2.0]]), "v2": np.array([[3.0], [0.25]])}
check_close("hand-computed, two hidden units: Q_tot = 4.5", qmix(np.array([[2.0]]), np.array([[1.0]]), hand2),
            [4.5], rtol=1e-12)

# 2. Monotonicity by central finite differences: 3 agents, 4-d state, embedding 8, 300 random (state, q)
#    pairs with q spread over [-10, 10] (both ELU branches); dQ_tot/dQ_i >= 0 for every agent.
hyper = random_hyper(rng, 3, 4, 8)
S = rng.normal(size=(300, 4))
Qs = rng.uniform(-10, 10, size=(300, 3))
h = 1e-5
derivs = np.stack([(qmix(Qs + h * np.eye(3)[i], S, hyper) - qmix(Qs - h * np.eye(3)[i], S, hyper)) / (2 * h)
                   for i in range(3)], axis=1)
check_true("dQ_tot/dQ_i >= 0 for all agents, states and inputs (finite differences)", derivs.min() > -1e-7,
           f"smallest derivative {derivs.min():.2e}, largest {derivs.max():.2f}")
check_true("and strictly positive somewhere for every agent", bool(np.all(derivs.max(axis=0) > 0.1)))
raw = S @ hyper["w1"]
check_true("although the hypernetwork's raw weights are negative for about half the entries",
           0.3 < np.mean(raw < 0) < 0.7, f"{np.mean(raw < 0):.2f} negative")

# 3. IGM by brute force: 3 agents with 4 actions each, 200 random states and per-agent Q tables; the
#    argmax of Q_tot over all 64 joint actions is the tuple of per-agent argmaxes.
joint = np.array(list(itertools.product(range(4), repeat=3)))
agree, nonlinear = 0, 0.0
for _ in range(200):
    tables = rng.normal(scale=3.0, size=(3, 4))
    state = np.repeat(rng.normal(size=(1, 4)), len(joint), axis=0)
    q_joint = tables[np.arange(3), joint]
    values = qmix(q_joint, state, hyper)
    agree += int(np.array_equal(joint[np.argmax(values)], tables.argmax(axis=1)))
    additive = np.linalg.lstsq(np.c_[np.ones(len(joint)), q_joint], values, rcond=None)[1]
    nonlinear = max(nonlinear, float(additive[0]) if additive.size else 0.0)
check_true("joint argmax of Q_tot over 64 joint actions = per-agent argmaxes, 200 states", agree == 200,
           f"{agree} of 200")
check_true("the mixer is not a weighted sum (residual of the best affine fit in the agents' values)",
           nonlinear > 1.0, f"largest residual sum of squares {nonlinear:.1f}")

# Figure: Q_tot as a function of agent 1's value for several values of agent 2 (one random state).
x = np.linspace(-10, 10, 201)
state = np.repeat(S[:1], len(x), axis=0)
fig, ax = figure("QMIX mixer: Q_tot is non-decreasing in each agent's value", "Q_1", "Q_tot")
for q2 in (-5.0, 0.0, 5.0):
    ax.plot(x, qmix(np.c_[x, np.full_like(x, q2), np.zeros_like(x)], state, hyper), label=f"Q_2 = {q2:g}")
ax.legend(fontsize=8)
