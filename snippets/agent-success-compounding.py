"""Chain success p^k vs Monte-Carlo episodes, the binomial pmf, unequal reliabilities, a correlated case."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.stats import binom


# --- formula ---
# few mutants: p ** k, or the product of the p_i: a power, a product and the test between them
def chain_success(p, k=None) -> float:
    """P(all steps succeed) for independent steps: p**k, or prod(p_i) for a list of reliabilities."""
    if k is not None:
        return float(p) ** k
    return float(np.prod(p))
# --- end formula ---


rng = np.random.default_rng(0)
episodes = 400_000

# Simulate episodes of k = 20 independent steps at p = 0.95; an episode counts only if every step succeeds.
p, k = 0.95, 20
steps = rng.random((episodes, k)) < p
mc = steps.all(axis=1).mean()
se = np.sqrt(mc * (1 - mc) / episodes)
check_close("p^k vs Monte-Carlo fraction of all-success episodes", chain_success(p, k), mc, atol=4 * se,
            rtol=0)
check_close("p^k vs binomial pmf P(k successes out of k)", chain_success(p, k), binom.pmf(k, k, p))

# Unequal reliabilities multiply the same way.
p_i = rng.uniform(0.85, 0.999, 12)
mc_het = (rng.random((episodes, 12)) < p_i).all(axis=1).mean()
check_close("prod p_i vs Monte-Carlo with unequal step reliabilities", chain_success(p_i), mc_het,
            atol=4 * np.sqrt(mc_het * (1 - mc_het) / episodes), rtol=0)

# The product needs independence. If failures share a cause (here: half the tasks are "hard" with
# per-step reliability 0.9, half "easy" with 1.0, so the average p is still 0.95), the chain success
# is 0.5 * 0.9^20 + 0.5 = 0.561, far above 0.95^20 = 0.358.
hard = rng.random(episodes) < 0.5
p_task = np.where(hard, 0.9, 1.0)
corr = (rng.random((episodes, k)) < p_task[:, None]).all(axis=1).mean()
check_close("correlated case matches its mixture 0.5 * 0.9^20 + 0.5", corr, 0.5 * 0.9**k + 0.5, rtol=0.01)
check_true("with correlated failures p^k is not the chain success", corr - chain_success(p, k) > 0.1,
           f"{corr:.3f} vs p^k = {chain_success(p, k):.3f}")

ks = np.arange(1, 101)
fig, ax = figure("Success of a k-step chain with independent steps", "number of steps k",
                 "P(all steps succeed)")
for prob in (0.9, 0.95, 0.98, 0.99):
    ax.plot(ks, prob ** ks, label=f"p = {prob}")
ax.axhline(0.5, color="k", lw=0.6, ls="--")
ax.set_ylim(0, 1)
ax.legend()

# The page's calculator is checked against chain_success on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): certain and impossible steps, no steps at all, short and long chains.
import cardcalc  # noqa: E402

cardcalc.table(lambda p, k: chain_success(p, k),
               cardcalc.grid(p=(0.0, 0.5, 0.95, 0.99, 1.0), k=(0, 1, 20, 100, 5000)))
