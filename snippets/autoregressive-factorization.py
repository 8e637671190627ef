"""Autoregressive factorization: product of conditionals vs an explicit joint, by full enumeration."""

import itertools

import numpy as np
from cardcheck import check_close, check_true

rng = np.random.default_rng(0)
V, T = 3, 4  # vocabulary size, sequence length: V**T = 81 sequences, small enough to enumerate


# --- formula ---
def conditionals_from_joint(joint: np.ndarray) -> list[np.ndarray]:
    """p(x_t | x_<t) for t = 1..T, read off a joint table of shape (V,)*T by marginalizing."""
    n = joint.ndim
    # p(x_{1:t}) / p(x_{1:t-1}): sum the joint over the positions after t, and after t - 1.
    return [joint.sum(axis=tuple(range(t, n))) / joint.sum(axis=tuple(range(t - 1, n)))[..., None]
            for t in range(1, n + 1)]


def sequence_probability(conds: list[np.ndarray], x: tuple[int, ...]) -> float:
    """prod_t p(x_t | x_<t): the autoregressive factorization."""
    prob = 1.0
    for t in range(len(x)):
        prob *= conds[t][x[: t + 1]]
    return prob
# --- end formula ---


# 1. Any joint distribution over T positions factorizes exactly, with no approximation.
joint = rng.dirichlet(np.ones(V**T)).reshape((V,) * T)
conds = conditionals_from_joint(joint)
all_seqs = list(itertools.product(range(V), repeat=T))
product = np.array([sequence_probability(conds, x) for x in all_seqs])
check_close("product of conditionals = joint, all 81 sequences", product,
            np.array([joint[x] for x in all_seqs]))
check_true("one conditional per position, each of shape (V,)*t and normalized over x_t",
           len(conds) == T and all(c.shape == (V,) * (t + 1) and np.allclose(c.sum(axis=-1), 1.0)
                                   for t, c in enumerate(conds)),
           f"{len(conds)} conditionals for T = {T}")

# The order is a convention: factorizing right-to-left gives the same joint.
reversed_conds = conditionals_from_joint(joint.transpose(tuple(range(T))[::-1]))
right_to_left = np.array([sequence_probability(reversed_conds, x[::-1]) for x in all_seqs])
check_close("right-to-left factorization gives the same joint", right_to_left, product)

# 2. A model that only defines conditionals (one softmax per prefix) is normalized automatically.
model = {prefix: rng.dirichlet(np.ones(V))
         for t in range(T) for prefix in itertools.product(range(V), repeat=t)}


def model_probability(x: tuple[int, ...]) -> float:
    return float(np.prod([model[x[:t]][x[t]] for t in range(len(x))]))


check_close("conditionals-only model sums to 1 over all V^T sequences",
            sum(model_probability(x) for x in all_seqs), 1.0)

# 3. Variable lengths need an end-of-sequence token. Token 0 plays EOS here; at the maximum
# length EOS is forced. Summing over every terminated sequence of every length gives 1.
EOS = 0


def terminated_sequences(max_len: int):
    for length in range(1, max_len + 1):
        for body in itertools.product(range(1, V), repeat=length - 1):
            yield (*body, EOS)


def with_eos_probability(x: tuple[int, ...]) -> float:
    prob = 1.0
    for t in range(len(x)):
        dist = model[x[:t]] if t < T - 1 else np.eye(V)[EOS]  # force EOS at the last slot
        prob *= dist[x[t]]
    return prob


check_close("with EOS: probabilities over all lengths 1..T sum to 1",
            sum(with_eos_probability(x) for x in terminated_sequences(T)), 1.0)
no_eos_total = sum(model_probability(x)
                   for length in range(1, T + 1)
                   for x in itertools.product(range(V), repeat=length))
check_true("without EOS, summing over lengths 1..T double-counts (total = T, not 1)",
           abs(no_eos_total - T) < 1e-9, f"total = {no_eos_total:.6f}")
