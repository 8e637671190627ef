"""RLHF objective: exact enumeration vs Monte-Carlo penalized reward; sequence KL vs summed token KLs."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import log_softmax

rng = np.random.default_rng(0)
n_prompts, V, T, beta = 3, 3, 3, 0.2
prompt_dist = np.array([0.5, 0.3, 0.2])


def random_policy(scale: float) -> list[np.ndarray]:
    """Autoregressive policy: at step t, log-probs of the next token for each prompt and prefix."""
    return [log_softmax(scale * rng.normal(size=(n_prompts, V**t, V)), axis=-1) for t in range(T)]


policy, reference = random_policy(1.5), random_policy(1.0)
all_y = np.array(np.unravel_index(np.arange(V**T), (V,) * T)).T  # the V**T responses, one per row
reward = rng.normal(size=(n_prompts, V**T))  # r_phi(x, y) for every prompt and response


# --- formula ---
def seq_logp(pol: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log pi(y | x) = sum_t log pi(y_t | x, y_<t), for arrays of prompts x and responses y."""
    total, prefix = np.zeros(len(x)), np.zeros(len(x), dtype=int)
    for t in range(T):
        total += pol[t][x, prefix, y[:, t]]
        prefix = prefix * V + y[:, t]
    return total


def objective_exact(pol: list[np.ndarray], ref: list[np.ndarray]) -> float:
    """E_x [ E_{y~pi}[r(x,y)] - beta * KL(pi(.|x) || ref(.|x)) ], by enumerating every response."""
    value = 0.0
    for x in range(n_prompts):
        xs = np.full(len(all_y), x)
        logp, logq = seq_logp(pol, xs, all_y), seq_logp(ref, xs, all_y)
        p = np.exp(logp)
        value += prompt_dist[x] * (p @ reward[x] - beta * p @ (logp - logq))
    return float(value)
# --- end formula ---


# Route 1: sample x ~ D and y ~ pi autoregressively, score each sample with the penalized reward
# r(x, y) - beta * log(pi(y|x) / pi_ref(y|x))  (the per-sample form used by Ziegler et al.).
n = 300_000
x = rng.choice(n_prompts, size=n, p=prompt_dist)
y, prefix = np.zeros((n, T), dtype=int), np.zeros(n, dtype=int)
for t in range(T):
    cdf = np.cumsum(np.exp(policy[t][x, prefix]), axis=1)
    y[:, t] = np.minimum((rng.random(n)[:, None] > cdf).sum(axis=1), V - 1)
    prefix = prefix * V + y[:, t]
y_index = np.ravel_multi_index(y.T, (V,) * T)
penalized = reward[x, y_index] - beta * (seq_logp(policy, x, y) - seq_logp(reference, x, y))
std_err = penalized.std() / np.sqrt(n)
check_close("exact objective vs Monte-Carlo mean of the penalized reward (4 standard errors)",
            objective_exact(policy, reference), penalized.mean(), atol=4 * std_err)

# Route 2: the sequence-level KL equals the expected sum of per-token KLs along the policy's own
# prefixes (chain rule), which is how token-level KL penalties add up to the sequence penalty.
x0 = np.zeros(len(all_y), dtype=int)
p_seq = np.exp(seq_logp(policy, x0, all_y))
kl_seq = p_seq @ (seq_logp(policy, x0, all_y) - seq_logp(reference, x0, all_y))
kl_tokens, prefix_prob = 0.0, np.ones(1)
for t in range(T):
    logp_t, logq_t = policy[t][0], reference[t][0]  # shape (V**t prefixes, V next tokens)
    token_kl = np.sum(np.exp(logp_t) * (logp_t - logq_t), axis=1)
    kl_tokens += prefix_prob @ token_kl
    prefix_prob = (prefix_prob[:, None] * np.exp(logp_t)).reshape(-1)
check_close("sequence KL vs expected sum of per-token KLs", kl_seq, kl_tokens)

# Route 3: the penalty only subtracts: against itself as reference a policy scores its plain
# expected reward, and against any other reference it scores less.
check_true("the penalty term is non-negative (objective <= expected reward)",
           objective_exact(policy, reference) <= objective_exact(policy, policy) + 1e-12)
