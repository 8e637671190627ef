"""KL-regularized optimum: closed form vs scipy maximizer, value beta log Z, and J = beta log Z - beta KL."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax


# --- formula ---
def optimal_policy(ref: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    """pi*(y) = pi_ref(y) exp(r(y) / beta) / Z, computed in log space."""
    return softmax(np.log(ref) + r / beta)


def objective(pi: np.ndarray, ref: np.ndarray, r: np.ndarray, beta: float) -> float:
    """E_{y~pi}[r(y)] - beta * KL(pi || pi_ref) for one prompt."""
    return float(pi @ r - beta * np.sum(pi * np.log(pi / ref)))
# --- end formula ---


rng = np.random.default_rng(0)
n_actions, beta = 6, 0.5
ref = rng.dirichlet(np.ones(n_actions))
r = rng.normal(size=n_actions)
pi_star = optimal_policy(ref, r, beta)

# 1. brute-force: maximize the objective over all policies (softmax-parameterized) with BFGS.
res = minimize(lambda z: -objective(softmax(z), ref, r, beta), np.zeros(n_actions),
               method="BFGS", options={"gtol": 1e-10})
check_close("closed form vs scipy.optimize maximizer", pi_star, softmax(res.x), atol=1e-5)

# 2. the optimal value is beta * log Z, with Z = sum_y pi_ref(y) exp(r(y)/beta).
log_z = logsumexp(np.log(ref) + r / beta)
check_close("J(pi*) = beta log Z", objective(pi_star, ref, r, beta), beta * log_z)

# 3. for any policy, J(pi) = beta log Z - beta KL(pi || pi*): pi* is the unique maximizer.
others = rng.dirichlet(np.ones(n_actions), size=200)
gaps = [beta * log_z - objective(p, ref, r, beta) for p in others]
kls = [beta * np.sum(p * np.log(p / pi_star)) for p in others]
check_close("suboptimality of random policies = beta KL(pi || pi*)", gaps, kls)
check_true("every random policy scores below pi*", min(gaps) > 0, f"smallest gap {min(gaps):.2e}")

# 4. limits: large beta returns the reference, small beta puts all mass on the best action.
check_close("beta -> infinity gives pi_ref", optimal_policy(ref, r, 1e6), ref, atol=1e-5)
check_true("beta -> 0 gives the argmax of r",
           optimal_policy(ref, r, 1e-3)[np.argmax(r)] > 1 - 1e-9)

fig, ax = figure("Optimal KL-regularized policy", "action (sorted by reward)", "probability")
order = np.argsort(r)
ax.plot(np.arange(n_actions), ref[order], "k--o", label=r"$\pi_{ref}$")
for b in (2.0, 0.5, 0.1):
    ax.plot(np.arange(n_actions), optimal_policy(ref, r, b)[order], "-o", label=f"β = {b}")
ax.legend()
