"""Off-policy evaluation by importance sampling: on a small random MDP, exact enumeration of every length-3
trajectory shows E_mu[rho G] = V^pi (truncated value by matrix powers) and E_mu[rho] = 1; enumerating every
pair of trajectories shows ordinary IS stays unbiased at N = 2 while weighted IS does not (at N = 1 it
estimates V^mu); with 200,000 sampled trajectories both estimates agree with V^pi (consistency)."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from offline_rl_fixture import enumerate_trajectories
from rl_worlds import MDPSampler, random_mdp, random_policy


# --- formula ---
def trajectory_ratio(pi, mu, states, actions):
    """rho = prod_t pi(a_t | s_t) / mu(a_t | s_t) for trajectories in rows (states has one more column)."""
    s = states[..., :-1]
    return np.prod(pi[s, actions] / mu[s, actions], axis=-1)


def discounted_return(rewards, gamma):
    """G = sum_t gamma^t r_t along the last axis."""
    return rewards @ gamma ** np.arange(rewards.shape[-1])


def is_estimate(rho, G):
    """Ordinary importance sampling: mean_i rho_i G_i (over the last axis)."""
    return np.mean(rho * G, axis=-1)


def wis_estimate(rho, G):
    """Weighted importance sampling: sum_i rho_i G_i / sum_i rho_i (over the last axis)."""
    return np.sum(rho * G, axis=-1) / np.sum(rho, axis=-1)
# --- end formula ---


rng = np.random.default_rng(0)
mdp = random_mdp(rng, n_states=3, n_actions=2, gamma=0.9)
mu = random_policy(mdp, rng)
pi = random_policy(mdp, rng)
H, x0 = 3, 0


def truncated_value(policy):
    """sum_{t < H} gamma^t Pr-weighted expected reward from x0 under policy (matrix powers)."""
    P_pi, r_pi = mdp.policy_matrices(policy)
    d, v = np.eye(3)[x0], 0.0
    for t in range(H):
        v += mdp.gamma ** t * d @ r_pi
        d = d @ P_pi
    return v


V_pi, V_mu = truncated_value(pi), truncated_value(mu)

# 1. Exact enumeration of all (2 x 3)^3 = 216 trajectories from x0 under mu.
X, Aa, Rr, prob = enumerate_trajectories(mdp, mu, x0, H)
rho = trajectory_ratio(pi, mu, X, Aa)
G = discounted_return(Rr, mdp.gamma)
check_close("E_mu[rho] = 1", prob @ rho, 1.0, rtol=1e-12)
check_close("E_mu[rho G] = V^pi exactly (ordinary IS is unbiased)", prob @ (rho * G), V_pi, rtol=1e-12)
check_close("rho reweights trajectory probabilities: mu-probability times rho = pi-probability", prob * rho,
            enumerate_trajectories(mdp, pi, x0, H)[3], rtol=1e-12)
check_true("the two policies really differ in value", abs(V_pi - V_mu) > 0.05,
           f"V^pi = {V_pi:.4f}, V^mu = {V_mu:.4f}")

check_close("one trajectory: G = 1 + 0.5 * 2 + 0.25 * 3",
            discounted_return(np.array([1.0, 2.0, 3.0]), 0.5), 2.75, rtol=1e-12)

# 2. Finite samples, exactly: all ordered pairs of trajectories (N = 2), and N = 1.
i, j = np.meshgrid(np.arange(len(G)), np.arange(len(G)), indexing="ij")
pair_p = (prob[i] * prob[j]).ravel()
pair_rho = np.stack([rho[i].ravel(), rho[j].ravel()], axis=1)
pair_G = np.stack([G[i].ravel(), G[j].ravel()], axis=1)
check_close("N = 2: E[IS] = V^pi", pair_p @ is_estimate(pair_rho, pair_G), V_pi, rtol=1e-12)
bias2 = pair_p @ wis_estimate(pair_rho, pair_G) - V_pi
check_true("N = 2: WIS is biased", abs(bias2) > 1e-3, f"E[WIS_2] - V^pi = {bias2:.4f}")
check_close("N = 1: WIS reduces to G, so E[WIS_1] = V^mu",
            prob @ wis_estimate(rho[:, None], G[:, None]), V_mu,
            rtol=1e-12)

# 3. Consistency with many sampled trajectories; WIS is a convex combination of the returns.
S_, A_, R_ = MDPSampler(mdp, rng).rollouts(mu, 200_000, H, s0=x0)
rho_s, G_s = trajectory_ratio(pi, mu, S_, A_), discounted_return(R_, mdp.gamma)
se = np.std(rho_s * G_s) / np.sqrt(len(G_s))
check_close("IS on 200,000 trajectories vs V^pi (4 standard errors)", is_estimate(rho_s, G_s), V_pi, rtol=0,
            atol=4 * se)
check_close("WIS on 200,000 trajectories vs V^pi (consistent; 4 IS standard errors)",
            wis_estimate(rho_s, G_s),
            V_pi, rtol=0, atol=4 * se)
w = wis_estimate(rho_s[:50], G_s[:50])
check_true("WIS stays within [min G, max G]", G_s[:50].min() <= w <= G_s[:50].max(), f"{w:.3f}")

# Figure: the two estimators on growing samples.
fig, ax = figure("Off-policy evaluation on a 3-state MDP (horizon 3)", "number of trajectories N",
                 "estimate of V^pi")
Ns = np.unique(np.geomspace(2, 5000, 40).astype(int))
ax.semilogx(Ns, [is_estimate(rho_s[:n], G_s[:n]) for n in Ns], label="ordinary IS")
ax.semilogx(Ns, [wis_estimate(rho_s[:n], G_s[:n]) for n in Ns], label="weighted IS")
ax.axhline(V_pi, color="k", lw=0.6, ls="--", label="V^pi")
ax.legend()
