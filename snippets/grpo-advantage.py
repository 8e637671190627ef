"""GRPO advantage: vs scipy zscore, sample vs population std, binary-reward closed form, invariances."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import zscore


# --- formula ---
def grpo_advantage(rewards: np.ndarray, ddof: int = 0, eps: float = 0.0) -> np.ndarray:
    """(r_i - mean(r)) / (std(r) + eps) within each group (last axis)."""
    mean = rewards.mean(axis=-1, keepdims=True)
    std = rewards.std(axis=-1, ddof=ddof, keepdims=True)
    return (rewards - mean) / (std + eps)
# --- end formula ---


rng = np.random.default_rng(0)
G = 8
rewards = rng.normal(size=(50, G))  # 50 prompts, G sampled outputs each

check_close("population-std advantage vs scipy.stats.zscore(ddof=0)", grpo_advantage(rewards),
            zscore(rewards, axis=1, ddof=0))
check_close("sample-std (torch default, N - 1) version = population version * sqrt((G-1)/G)",
            grpo_advantage(rewards, ddof=1), grpo_advantage(rewards) * np.sqrt((G - 1) / G))
adv = grpo_advantage(rewards)
check_close("advantages sum to zero in every group", adv.sum(axis=1), np.zeros(50), atol=1e-12)
check_close("population version: sum of squares = G", (adv**2).sum(axis=1), np.full(50, float(G)))
check_close("invariant to r -> a r + b with a > 0", grpo_advantage(3.0 * rewards - 7.0), adv)

# Binary (verifiable) rewards with k correct out of G: a correct answer gets sqrt((G - k) / k)
# and a wrong one -sqrt(k / (G - k)) with the population std.
for k in (1, 4, 7):
    r = np.array([1.0] * k + [0.0] * (G - k))
    a = grpo_advantage(r)
    check_close(f"binary rewards, {k}/{G} correct: closed form",
                np.array([a[0], a[-1]]), np.array([np.sqrt((G - k) / k), -np.sqrt(k / (G - k))]))

# eps in the denominator, by hand: rewards (1, 0) have mean 1/2 and population std 1/2, so with
# eps = 0.1 the advantages are +-0.5 / 0.6 = +-5/6.
check_close("eps adds to the std: (1, 0) with eps = 0.1 gives +-5/6",
            grpo_advantage(np.array([1.0, 0.0]), eps=0.1), [5 / 6, -5 / 6], rtol=1e-12)

# All-equal group: std = 0, so implementations add eps and the group contributes no gradient.
flat = grpo_advantage(np.ones(G), ddof=1, eps=1e-4)
check_true("a group with identical rewards gets zero advantage (with eps)",
           bool(np.all(flat == 0.0)))
