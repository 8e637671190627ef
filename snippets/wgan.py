"""WGAN critic objective: Kantorovich-Rubinstein dual as an LP vs scipy.stats.wasserstein_distance."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.optimize import linprog
from scipy.spatial.distance import jensenshannon
from scipy.stats import wasserstein_distance


# --- formula ---
def kr_dual(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """max over 1-Lipschitz f of mean f(x) - mean f(y), for 1-D samples.

    The critic only matters at the sample points; in 1-D, |f(u_k+1) - f(u_k)| <= u_k+1 - u_k between
    neighbouring sorted points is equivalent to the Lipschitz constraint. Returns (value, points, f).
    """
    u = np.unique(np.concatenate([x, y]))
    n = len(u)
    weight = (np.bincount(np.searchsorted(u, x), minlength=n) / len(x)
              - np.bincount(np.searchsorted(u, y), minlength=n) / len(y))
    diff = np.zeros((n - 1, n))
    diff[np.arange(n - 1), np.arange(1, n)], diff[np.arange(n - 1), np.arange(n - 1)] = 1.0, -1.0
    gaps = np.diff(u)
    # f is free: adding a constant to f does not change the objective (the weights sum to 0).
    res = linprog(-weight, A_ub=np.vstack([diff, -diff]), b_ub=np.concatenate([gaps, gaps]),
                  bounds=[(None, None)] * n, method="highs")
    return -res.fun, u, res.x
# --- end formula ---


rng = np.random.default_rng(0)
real = rng.normal(0.0, 1.0, size=150)
fake = rng.gamma(2.0, 1.0, size=120) - 1.0
w_dual, u, f = kr_dual(real, fake)
check_close("KR dual (LP over 1-Lipschitz critics) vs scipy.stats.wasserstein_distance", w_dual,
            wasserstein_distance(real, fake), rtol=1e-8)
check_true("the optimal critic is 1-Lipschitz", bool(np.all(np.abs(np.diff(f)) <= np.diff(u) + 1e-9)))
critic_real, critic_fake = np.interp(real, u, f), np.interp(fake, u, f)  # f at the sample points
check_close("the returned critic attains it: mean f(real) - mean f(fake) = W1",
            critic_real.mean() - critic_fake.mean(), wasserstein_distance(real, fake), rtol=1e-8)
some_critics = [np.tanh, np.sin, lambda t: np.abs(t - 0.3), lambda t: -t]
check_true("every other 1-Lipschitz critic gives a smaller objective",
           all(np.mean(g(real)) - np.mean(g(fake)) <= w_dual + 1e-12 for g in some_critics))
shift = 2.5
check_close("a sample set against itself shifted by c: W1 = |c|",
            kr_dual(real, real + shift)[0], shift, rtol=1e-9)

# Point masses at 0 and at theta: W1 grows linearly, JSD is stuck at log 2 (Arjovsky et al., Example 1).
thetas = np.linspace(-2, 2, 81)
w_vals = [kr_dual(np.array([0.0]), np.array([t]))[0] for t in thetas]
js_vals = [0.0 if t == 0 else jensenshannon([1, 0], [0, 1]) ** 2 for t in thetas]
fig, ax = figure("Distance between point masses at 0 and θ", "θ", "nats / distance")
ax.plot(thetas, w_vals, label="$W_1$ (KR dual)")
ax.plot(thetas, js_vals, "o", ms=3, label="$D_{JS}$")
ax.legend()
