"""DDPG critic loss on a linear-quadratic problem with a linear actor, where Q^mu is known in closed form:
with the true Q as target critic the expected target equals Q (Bellman consistency, Gauss-Hermite
quadrature over the noise), the expected loss equals the target's analytic conditional variance, and
minimizing the loss over a quadratic critic (scipy BFGS) recovers Q^mu exactly; terminal transitions do not
bootstrap; the soft target update is the exponential moving average of scipy.signal.lfilter."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import K_LQ, LQ
from scipy.optimize import minimize
from scipy.signal import lfilter


# --- formula ---
def ddpg_target(r, s_next, done, gamma, q_targ, mu_targ):
    """y = r + gamma (1 - done) Q'(s', mu'(s'))."""
    return r + gamma * (1.0 - done) * q_targ(s_next, mu_targ(s_next))


def critic_loss(q_sa, y, weights):
    """L = E[(Q(s, a) - y)^2], the average taken with sample weights (all ones for a plain minibatch)."""
    return np.sum(weights * (q_sa - y) ** 2) / np.sum(weights)


def soft_update(target_params, online_params, tau=0.001):
    """theta' <- tau theta + (1 - tau) theta'."""
    return tau * online_params + (1.0 - tau) * target_params
# --- end formula ---


rng = np.random.default_rng(0)
K = K_LQ
P, c = LQ.value_params(K)
true_q = lambda s, a: LQ.q_value(K, s, a)  # noqa: E731
actor = lambda s: s @ K.T  # noqa: E731

# Transitions: 40 (s, a) pairs, each expanded over the 25 Gauss-Hermite nodes of the noise w, so that
# weighted averages are exact expectations over s' = A s + B a + w.
n_sa = 40
s = rng.normal(size=(n_sa, 2))
a = rng.normal(size=(n_sa, 2))
w_nodes, w_wts = LQ.noise_nodes()
m = s @ LQ.A.T + a @ LQ.B.T
S_rep, A_rep = np.repeat(s, len(w_wts), axis=0), np.repeat(a, len(w_wts), axis=0)
S_next = (m[:, None, :] + w_nodes[None, :, :]).reshape(-1, 2)
wts = np.tile(w_wts, n_sa)
r = -np.einsum("ni,ij,nj->n", S_rep, LQ.C, S_rep) - np.einsum("ni,ij,nj->n", A_rep, LQ.D, A_rep)

# 1. Bellman consistency: with the true Q^mu as target critic, E[y | s, a] = Q^mu(s, a) for every pair.
y = ddpg_target(r, S_next, np.zeros(len(r)), LQ.gamma, true_q, actor)
Ey = (wts * y).reshape(n_sa, -1).sum(axis=1)
check_close("E_w[y | s, a] = Q^mu(s, a) (true critic as target)", Ey, true_q(s, a), rtol=1e-10)

# 2. At Q = Q^mu the expected loss is the conditional variance of the target, known analytically:
#    Var[gamma V(m + w)] = gamma^2 (2 tr(PWPW) + 4 m^T P W P m) for V(x) = -x^T P x - c.
var_y = LQ.gamma ** 2 * (2 * np.trace(P @ LQ.W @ P @ LQ.W) + 4 * np.einsum("ni,ij,nj->n", m, P @ LQ.W @ P, m))
check_close("expected loss at Q^mu = mean conditional variance of y",
            critic_loss(true_q(S_rep, A_rep), y, wts),
            var_y.mean(), rtol=1e-10)


# 3. Minimize the loss over a quadratic critic Q_phi(s, a) = phi . features(z), z = (s, a), with the true Q
#    as the (fixed) target: the minimizer is Q^mu itself.
def features(S, Aa):
    z = np.concatenate([S, Aa], axis=1)
    iu = np.triu_indices(4)
    return np.concatenate([(z[:, :, None] * z[:, None, :])[:, iu[0], iu[1]], np.ones((len(z), 1))], axis=1)


Phi = features(S_rep, A_rep)
res = minimize(lambda phi: critic_loss(Phi @ phi, y, wts), np.zeros(Phi.shape[1]), method="BFGS",
               options={"gtol": 1e-12, "maxiter": 5000})
probe_s, probe_a = rng.normal(size=(10, 2)), rng.normal(size=(10, 2))
check_close("argmin of the critic loss reproduces Q^mu at new state-action pairs",
            features(probe_s, probe_a) @ res.x,
            true_q(probe_s, probe_a), rtol=1e-5, atol=1e-6)

# 4. Terminal transitions: y = r whatever the target critic says; and worked numbers with a constant critic.
check_close("done = 1: no bootstrap", ddpg_target(np.array([0.3, -2.0]), S_next[:2], np.ones(2), 0.99, true_q,
                                                  actor), [0.3, -2.0], rtol=1e-12)
check_close("worked: r = 1, gamma = 0.9, Q' = 5 -> y = 5.5",
            ddpg_target(np.array([1.0]), np.zeros((1, 2)), np.zeros(1), 0.9,
                        lambda s_, a_: np.full(len(s_), 5.0),
                        actor), [5.5], rtol=1e-12)
check_close("worked: unweighted loss of residuals (1, -3) = 5", critic_loss(np.array([2.0, -1.0]),
                                                                           np.array([1.0, 2.0]), np.ones(2)),
            5.0, rtol=1e-12)

# 5. Soft target updates with tau = 0.001 (the paper's value) are an exponential moving average of the online
#    parameters: compare 3000 steps with scipy.signal.lfilter.
online = np.cumsum(rng.normal(size=3000)) * 0.01
targ, trace = 0.5, []
for x in online:
    targ = soft_update(targ, x)
    trace.append(targ)
ema = lfilter([0.001], [1.0, -0.999], online, zi=[0.999 * 0.5])[0]
check_close("soft update = EMA with tau = 0.001 (scipy lfilter)", trace, ema, rtol=1e-10)
check_true("the target lags: one update moves it by tau = 0.001 of the gap (half-life about 693 updates)",
           abs(soft_update(np.zeros(1), np.ones(1))[0] - 0.001) < 1e-15)

fig, ax = figure("DDPG target network: soft update with tau = 0.001", "update step", "parameter value")
ax.plot(online, label="online parameter")
ax.plot(trace, label="target parameter")
ax.legend()
