"""TD3 target: clipped double-Q minimum at a smoothed target action. Hand-worked cases hit every branch
(noise inside / above / below the clip, action beyond either bound, either critic the smaller, terminal);
the expectation over the clipped noise matches scipy quadrature; the min of two unbiased noisy critics
is biased down by sigma / sqrt(pi), the known mean of the minimum of two normals."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.integrate import quad
from scipy.stats import norm


# --- formula ---
def td3_target(r, done, s_next, z, actor_targ, q1_targ, q2_targ, gamma, sigma=0.2, c=0.5, max_action=1.0):
    """y = r + gamma (1 - done) min_i Q'_i(s', a~), a~ = clip(mu'(s') + clip(sigma z, -c, c), -max, max);
    z are standard-normal draws (one per action component)."""
    eps = np.clip(sigma * z, -c, c)
    a_next = np.clip(actor_targ(s_next) + eps, -max_action, max_action)
    q_min = np.minimum(q1_targ(s_next, a_next), q2_targ(s_next, a_next))
    return r + gamma * (1.0 - done) * q_min
# --- end formula ---


rng = np.random.default_rng(0)

# 1. Worked cases with the paper's constants (sigma = 0.2, c = 0.5), actions in [-1, 1], gamma = 0.5,
#    r = 1. Target actor mu'(s') = s'; critic 1 is Q'_1(s', a) = a, critic 2 is Q'_2(s', a) = 0.5 - a.
actor = lambda s: s  # noqa: E731
q1 = lambda s, a: a  # noqa: E731
q2 = lambda s, a: 0.5 - a  # noqa: E731
cases = [  # (s', z, done, expected y, what it exercises), worked by hand
    (0.2, 1.0, 0.0, 1.05, "noise 0.2 inside the clip; a~ = 0.4, Q'_2 = 0.1 is the smaller"),
    (0.2, 5.0, 0.0, 0.90, "noise 1.0 clipped to +0.5; a~ = 0.7, min = -0.2"),
    (0.2, -5.0, 0.0, 0.85, "noise -1.0 clipped to -0.5; a~ = -0.3, Q'_1 = -0.3 is the smaller"),
    (0.9, 2.0, 0.0, 0.75, "a~ = 1.3 clipped to the upper bound 1; min = -0.5"),
    (-0.9, -2.0, 0.0, 0.50, "a~ = -1.3 clipped to the lower bound -1; min = -1"),
    (0.2, 1.0, 1.0, 1.00, "terminal transition: y = r"),
]
for s2, z, done, want, what in cases:
    got = td3_target(1.0, done, np.array([s2]), np.array([z]), actor, q1, q2, 0.5)
    check_close(what, got, [want], rtol=1e-12)

# 2. Expectation over the smoothing noise, for one s' and a curved pair of critics: Monte Carlo with the
#    formula vs quadrature of the clipped normal (density on (-c, c) plus point masses Phi(-c/sigma) at
#    each clip value); the inner clip is the only thing that produces the point masses.
qa = lambda s, a: np.sin(3 * a) + s  # noqa: E731
qb = lambda s, a: 0.8 - a ** 2  # noqa: E731
s_next, gamma, sig, c = 0.35, 0.99, 0.2, 0.5
z = rng.standard_normal(200_000)
y_mc = td3_target(0.0, 0.0, np.full(z.shape, s_next), z, actor, qa, qb, gamma)


def y_of_eps(e):
    a = min(max(s_next + e, -1.0), 1.0)
    return gamma * min(np.sin(3 * a) + s_next, 0.8 - a * a)


inner = quad(lambda e: y_of_eps(e) * norm.pdf(e, scale=sig), -c, c, points=[0.0], limit=200)[0]
expected = inner + norm.cdf(-c / sig) * (y_of_eps(-c) + y_of_eps(c))
se = y_mc.std() / np.sqrt(z.size)
check_close("E over clipped noise: Monte Carlo vs quadrature (4 standard errors)", y_mc.mean(), expected,
            rtol=0, atol=4 * se)
check_true("the noise is really clipped: a~ stays within 0.5 of mu'(s')",
           np.isclose(td3_target(0.0, 0.0, np.array([s_next]), np.array([40.0]), actor, q1, q1, 1.0)[0],
                      s_next + 0.5, rtol=1e-12), "z = 40 gives a~ = s' + c")

# 3. Why the minimum: two critics equal to the true value plus independent N(0, s^2) errors. The min is
#    biased down by s / sqrt(pi) (mean of the smaller of two i.i.d. normals), never up.
true_q, s_err = 2.0, 0.3
e1, e2 = rng.normal(0.0, s_err, size=(2, 200_000))
noisy1 = lambda s, a: true_q + e1  # noqa: E731
noisy2 = lambda s, a: true_q + e2  # noqa: E731
y_noisy = td3_target(0.0, 0.0, np.zeros(e1.size), np.zeros(e1.size), actor, noisy1, noisy2, 1.0)
check_close("E[min(Q+e1, Q+e2)] = Q - s/sqrt(pi)", y_noisy.mean(), true_q - s_err / np.sqrt(np.pi),
            rtol=0, atol=4 * y_noisy.std() / np.sqrt(e1.size))

# Figure: the distribution of the smoothed target action around mu'(s') = 0.35 (point masses at +-c).
fig, ax = figure("TD3 target policy smoothing: a~ = mu'(s') + clip(0.2 z, -0.5, 0.5)", "target action a~",
                 "density")
a_t = np.clip(s_next + np.clip(sig * z, -c, c), -1, 1)
ax.hist(a_t, bins=120, density=True)
ax.axvline(s_next, color="k", lw=0.6, ls="--")
