"""DPO implied reward: round trip r -> pi* -> r, log Z cancelling in Bradley–Terry, shift invariance."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import expit, logsumexp, softmax


# --- formula ---
def implied_reward(pi: np.ndarray, ref: np.ndarray, beta: float, log_z: float = 0.0) -> np.ndarray:
    """r(x, y) = beta * log(pi(y|x) / pi_ref(y|x)) + beta * log Z(x), for one prompt."""
    return beta * np.log(pi / ref) + beta * log_z
# --- end formula ---


rng = np.random.default_rng(0)
n_responses, beta = 8, 0.3
ref = rng.dirichlet(np.ones(n_responses))
r = rng.normal(size=n_responses)

# Independent route: the optimal policy built the other way, pi* = pi_ref exp(r/beta) / Z.
log_z = logsumexp(np.log(ref) + r / beta)
pi_star = ref * np.exp(r / beta - log_z)
check_close("pi* sums to 1", pi_star.sum(), 1.0)
check_close("round trip: implied reward of pi* (with beta log Z) recovers r",
            implied_reward(pi_star, ref, beta, log_z), r)

# Without the intractable log Z the implied reward is off by one constant per prompt ...
offset = implied_reward(pi_star, ref, beta) - r
check_close("dropping beta log Z shifts every response by the same constant",
            offset, np.full(n_responses, -beta * log_z))
# ... which Bradley–Terry never sees: pairwise preference probabilities are unchanged.
i, j = np.triu_indices(n_responses, 1)
r_hat = implied_reward(pi_star, ref, beta)
check_close("Bradley–Terry probabilities from the log-ratio reward vs from r",
            expit(r_hat[i] - r_hat[j]), expit(r[i] - r[j]))

# Rewards that differ by a prompt-only function f(x) are equivalent: same optimal policy.
check_close("r and r + f(x) give the same optimal policy",
            softmax(np.log(ref) + (r + 5.0) / beta), pi_star)
check_true("the implied reward ranks responses exactly as r does",
           bool(np.array_equal(np.argsort(r_hat), np.argsort(r))))

# The page's calculator is checked against implied_reward on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): tiny and certain probabilities, ratios above and below 1.
import cardcalc  # noqa: E402

cardcalc.table(lambda pi, ref, beta, logZ: {"r_hat": float(implied_reward(pi, ref, beta)),
                                             "r": float(implied_reward(pi, ref, beta, logZ))},
               cardcalc.grid(pi=(1e-30, 0.01, 0.5, 1.0), ref=(1e-20, 0.01, 0.3), beta=(0.1, 1.0),
                             logZ=(-2.0, 0.0, 3.0)))
