"""A toy autoregressive policy and groups of responses sampled from it, for the GRPO-family cards.

GSPO, DAPO, Dr. GRPO and REINFORCE++ all score a group of G responses to one prompt with per-token
log-probabilities under the current, old and reference policies. This module gives them one small
language model to draw those from: a softmax over a vocabulary of V tokens (token 0 is end-of-sequence)
whose logits theta[t, prev] depend on the position t and the previous token, responses of at most
MAX_LEN tokens, per-token log-probabilities padded into (G, T) arrays with a mask, each response's
probability as a plain product of its token probabilities (an independent route to sequence ratios),
and an exact enumeration of every response with its probability, to take expectations exactly.
Nothing here computes a loss: that is the cards' job.
"""

from __future__ import annotations

import itertools

import numpy as np

V = 4          # vocabulary size; token EOS ends a response
EOS = 0
MAX_LEN = 5    # a response stops at EOS or after MAX_LEN tokens


def random_policy(rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """Logits theta[t, prev, v]: position t < MAX_LEN, previous token prev (V means start), next token v."""
    return scale * rng.normal(size=(MAX_LEN, V + 1, V))


def next_token_probs(theta: np.ndarray, t: int, prev: int) -> np.ndarray:
    z = theta[t, prev] - theta[t, prev].max()
    e = np.exp(z)
    return e / e.sum()


def sample_response(rng: np.random.Generator, theta: np.ndarray) -> list[int]:
    tokens: list[int] = []
    prev = V
    for t in range(MAX_LEN):
        tok = int(rng.choice(V, p=next_token_probs(theta, t, prev)))
        tokens.append(tok)
        if tok == EOS:
            break
        prev = tok
    return tokens


def sample_group(rng: np.random.Generator, theta: np.ndarray, G: int) -> list[list[int]]:
    return [sample_response(rng, theta) for _ in range(G)]


def token_logprobs(theta: np.ndarray, responses: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-token log-probabilities (G, MAX_LEN), 0 on padding, and the mask (1 on each response's tokens)."""
    logp = np.zeros((len(responses), MAX_LEN))
    mask = np.zeros((len(responses), MAX_LEN))
    for i, resp in enumerate(responses):
        prev = V
        for t, tok in enumerate(resp):
            logp[i, t] = np.log(next_token_probs(theta, t, prev)[tok])
            mask[i, t] = 1.0
            prev = tok
    return logp, mask


def response_prob(theta: np.ndarray, response: list[int]) -> float:
    """pi(y) as the product of its token probabilities, step by step (no logs)."""
    prob, prev = 1.0, V
    for t, tok in enumerate(response):
        prob *= next_token_probs(theta, t, prev)[tok]
        prev = tok
    return prob


def all_responses() -> list[list[int]]:
    """Every possible response: non-EOS tokens, then EOS, or MAX_LEN non-EOS tokens."""
    out: list[list[int]] = []
    for n in range(MAX_LEN):
        out += [[*body, EOS] for body in itertools.product(range(1, V), repeat=n)]
    out += [list(body) for body in itertools.product(range(1, V), repeat=MAX_LEN)]
    return out


def correct(response: list[int]) -> float:
    """A verifiable 0/1 reward: the response contains token 1 before it ends."""
    return float(1 in response)


def token_gradient(objective, logp: np.ndarray, h: float) -> np.ndarray:
    """d objective / d logp[i, t] for every token of a padded (G, T) array of log-probabilities, by
    central differences with step h: the reference the GRPO-family cards check their weights by."""
    grad = np.zeros(logp.shape)
    for i in range(logp.shape[0]):
        for t in range(logp.shape[1]):
            step = np.zeros(logp.shape)
            step[i, t] = h
            grad[i, t] = (objective(logp + step) - objective(logp - step)) / (2 * h)
    return grad
