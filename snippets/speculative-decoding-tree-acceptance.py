"""Expected accepted length of a Medusa draft tree: the sum over tree nodes of the product of top-i head
accuracies, checked by exact enumeration of rank outcomes, Monte Carlo of the verification walk, the chain
case against the speculative-decoding series, and the greedy tree against the top nodes of an exhaustive
ranking."""

import itertools

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def node_probability(acc, node):
    """Probability that the path `node` = (i_1, ..., i_d) is accepted: prod_j a_j^(i_j), acc[j, i] being the
    probability that head j's top-(i+1) candidate is the verified token (independent across heads)."""
    prob = 1.0
    for depth, rank in enumerate(node):
        prob *= acc[depth, rank]
    return prob


def expected_accept_length(acc, tree):
    """E[accepted draft tokens] = sum over the tree's nodes of the node's acceptance probability."""
    return sum(node_probability(acc, node) for node in tree)


def greedy_tree(acc, size):
    """Medusa's construction: start from the top-1 of head 1, then repeatedly add the frontier node (next
    sibling or first child of a chosen node) with the largest acceptance probability."""
    depth_max, k_max = acc.shape
    tree = [(0,)]
    while len(tree) < size:
        frontier = set()
        for node in tree:
            if node[-1] + 1 < k_max:
                frontier.add((*node[:-1], node[-1] + 1))
            if len(node) < depth_max:
                frontier.add((*node, 0))
        best = max(sorted(frontier - set(tree)), key=lambda n: node_probability(acc, n))
        tree.append(best)
    return tree
# --- end formula ---


rng = np.random.default_rng(0)
# Accuracy table for 3 heads x top-3 candidates: each row is a distribution of the verified token's rank
# among the head's candidates (the rest of the mass: not in the top 3), decreasing in the rank.
acc = np.array([[0.60, 0.15, 0.07],
                [0.45, 0.15, 0.08],
                [0.35, 0.12, 0.07]])
H, K = acc.shape


def accepted(tree_set, ranks):
    """Verification walk: follow the verified token's ranks down the tree while the path stays in the tree."""
    n = 0
    while n < len(ranks) and tuple(ranks[: n + 1]) in tree_set:
        n += 1
    return n


tree = [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0), (0, 0, 1), (0, 1, 0), (2, 0)]
tree_set = set(tree)

# 1. Exact enumeration: every outcome (r_1, r_2, r_3), r_j in {0, 1, 2, miss}, with probability prod_j P(r_j),
#    weighted by the length the walk accepts. 64 terms of products of three numbers: rtol 1e-12.
p_rank = np.hstack([acc, 1 - acc.sum(axis=1, keepdims=True)])          # last column: "miss"
exact = 0.0
for ranks in itertools.product(range(K + 1), repeat=H):
    exact += np.prod([p_rank[j, r] for j, r in enumerate(ranks)]) * accepted(tree_set, ranks)
check_close("sum over nodes of prod a = E[accepted] by enumerating all rank outcomes",
            expected_accept_length(acc, tree), exact, rtol=1e-12)

# 2. Monte Carlo of the verification: draw each head's rank independently, walk the tree. 100,000 rounds;
#    tolerance 4 standard errors.
draws = np.stack([rng.choice(K + 1, 100_000, p=p_rank[j]) for j in range(H)], axis=1)
lengths = np.array([accepted(tree_set, tuple(r)) for r in draws.tolist()])
check_close("Monte Carlo mean accepted length = closed form", lengths.mean(),
            expected_accept_length(acc, tree), atol=4 * lengths.std(ddof=1) / np.sqrt(lengths.size))

# 3. A chain (top-1 of each head) with the same accuracy alpha at every depth is speculative decoding with
#    gamma drafted tokens: alpha + ... + alpha^gamma accepted, plus the target's own token gives
#    (1 - alpha^(gamma+1)) / (1 - alpha) per step.
alpha, gamma = 0.7, 5
chain_acc = np.full((gamma, 1), alpha)
chain = [(0,) * d for d in range(1, gamma + 1)]
check_close("chain: 1 + E[accepted] = (1 - alpha^(gamma+1)) / (1 - alpha)",
            1 + expected_accept_length(chain_acc, chain), (1 - alpha ** (gamma + 1)) / (1 - alpha),
            rtol=1e-12)
check_close("chain, accuracies differing by depth: E = a_1 + a_1 a_2 + a_1 a_2 a_3", expected_accept_length(
    acc[:, :1], [(0,), (0, 0), (0, 0, 0)]), 0.6 + 0.6 * 0.45 + 0.6 * 0.45 * 0.35, rtol=1e-12)

# 4. The greedy tree of each size is the set of the highest-probability nodes (every node's parent and
#    previous sibling are at least as likely, so the top-s nodes form a valid tree): rank all 39 nodes
#    by brute force, independently of the greedy frontier.
all_nodes = [n for d in range(1, H + 1) for n in itertools.product(range(K), repeat=d)]
probs = sorted((float(np.prod([acc[j, r] for j, r in enumerate(n)])) for n in all_nodes), reverse=True)
gains, valid, top = [], [], []
for size in range(1, 16):
    g = greedy_tree(acc, size)
    valid.append(all((len(n) == 1 or n[:-1] in g) and (n[-1] == 0 or (*n[:-1], n[-1] - 1) in g) for n in g)
                 and len(set(g)) == size)
    gains.append(expected_accept_length(acc, g))
    top.append(sum(probs[:size]))
check_true("greedy trees of 1..15 nodes are valid (each node's parent and previous sibling are in it)",
           all(valid))
check_close("greedy tree of s nodes = sum of the s most likely nodes, s = 1..15", gains, top, rtol=1e-12)

# --- in code: torch ---
import torch  # noqa: E402
from torch.nn.utils.rnn import pad_sequence  # noqa: E402

# Medusa verifies the tree as its root-to-leaf paths, one row per path and one column per head: the mask is
# 1 where the path's depth-k candidate is the verified token, cumprod zeroes everything after the first
# rejection, the row sum is the path's accepted length and the step keeps the longest path. Here a candidate
# is named by its rank i_k and the verified token by its rank r_k (K: not among the candidates); the
# (K+1)^H = 64 outcomes r form one batch, each weighted by prod_k P(r_k), so the weighted sum is exact.
leaves = [n for n in tree if not any(len(m) > len(n) and m[: len(n)] == n for m in tree)]
outcomes = torch.cartesian_prod(*[torch.arange(K + 1)] * H)                      # (64, H)
outcome_prob = torch.tensor(p_rank)[torch.arange(H), outcomes].prod(dim=1)       # (64,)


def expected_best_path_length(paths, prefix_only=True):
    """Medusa's score of each path (cumprod of its match mask, summed), best path per outcome, averaged."""
    accept_mask = (paths[None, :, :] == outcomes[:, None, :]).int()              # (outcome, path, depth)
    per_path = torch.cumprod(accept_mask, dim=-1) if prefix_only else accept_mask
    return (outcome_prob * per_path.sum(dim=-1).amax(dim=-1)).sum().item()


# 64 weighted terms, each a product of three float64 numbers: a few ulps each, so rtol 1e-12.
paths = pad_sequence([torch.tensor(n) for n in leaves], batch_first=True, padding_value=-1)
check_close("E over outcomes of cumprod(accept_mask).sum(dim=1).max() = sum over nodes of prod a",
            expected_best_path_length(paths), expected_accept_length(acc, tree), rtol=1e-12)
# pad_sequence pads with 0 by default, and 0 is a real rank (token): a leaf (1, 0) padded to (1, 0, 0) also
# accepts when the next head's top candidate is verified, as if the node (1, 0, 0) were in the tree.
phantoms = [(*n, *(0,) * (d - len(n))) for n in leaves for d in range(len(n) + 1, H + 1)]
check_close("pitfall: pad_sequence's default padding_value=0 scores the short paths' top-1 continuations "
            f"{phantoms} as tree nodes", expected_best_path_length(
                pad_sequence([torch.tensor(n) for n in leaves], batch_first=True)),
            expected_accept_length(acc, tree + phantoms), rtol=1e-12)
# Without cumprod the row sum counts matches after a rejection, which verification never keeps.
no_prefix = expected_best_path_length(paths, prefix_only=False)
check_true("pitfall: accept_mask.sum(dim=1) without cumprod overcounts E[accepted]",
           no_prefix > expected_accept_length(acc, tree) + 0.01,
           f"{no_prefix:.4f} against {expected_accept_length(acc, tree):.4f}")
# --- end in code ---

fig, ax = figure("Medusa tree: expected accepted tokens against tree size", "nodes in the draft tree",
                 "expected accepted draft tokens")
ax.plot(range(1, 16), gains, "o-", label="greedy tree (= best tree)")
ax.axhline(expected_accept_length(acc[:, :1], [(0,), (0, 0), (0, 0, 0)]), ls="--", color="gray",
           label="top-1 chain of 3")
ax.legend()
