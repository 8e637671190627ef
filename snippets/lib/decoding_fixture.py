"""Shared example for the decoding cards: one next-token distribution and one tiny autoregressive model.

Every card in the "Sampling and decoding" topic reads its inputs from here, so the cards can be
compared on the same numbers. Only data, reference computations and a figure/check helper live
here; each card implements its own decoding rule in its own snippet.
"""

from __future__ import annotations

import itertools

import numpy as np
from cardcheck import check_true
from cardplot import figure
from scipy.special import log_softmax, softmax
from scipy.stats import chisquare

# ---------------------------------------------------------------------------------------------
# 1. One next-token distribution: the context "The cat sat on the", 20 candidate tokens.
#    EXPERT_LOGITS play the model being decoded; AMATEUR_LOGITS a much smaller model of the same
#    tokenizer (used by contrastive decoding), which likes generic and repeated tokens more.
# ---------------------------------------------------------------------------------------------
CONTEXT = "The cat sat on the"
TOKENS = (" mat", " floor", " couch", " bed", " sofa", " rug", " windowsill", " chair", " porch",
          " roof", " edge", " keyboard", " grass", " stairs", " table", " car", " piano", " moon",
          ",", " banana")
EXPERT_LOGITS = np.array([3.10, 2.45, 2.30, 1.95, 1.80, 1.55, 1.40, 1.05, 0.90, 0.70,
                          0.45, 0.40, 0.20, 0.05, -0.15, -0.50, -0.85, -1.70, -2.30, -3.05])
AMATEUR_LOGITS = np.array([3.40, 3.00, 1.60, 2.20, 1.20, 1.10, -0.40, 1.70, 0.10, 0.30,
                           0.90, -0.60, 0.60, 0.20, 1.30, 0.00, -1.20, -0.50, 1.00, -6.00])
V = len(TOKENS)


def next_token_probs() -> np.ndarray:
    """The expert's next-token distribution (softmax of EXPERT_LOGITS, computed by scipy)."""
    return softmax(EXPERT_LOGITS)


# ---------------------------------------------------------------------------------------------
# 2. A toy autoregressive model: 5 tokens, next-token logits depend on the previous token only
#    (row 0 is the start-of-sequence state, row 1 + v the state after token v), length 4.
#    The table is chosen so that greedy decoding, beam width 2 and the exact best sequence
#    all differ (the greedy and beam-search cards show it).
# ---------------------------------------------------------------------------------------------
TOY_TOKENS = ("a", "b", "c", "d", "e")
TOY_LOGITS = np.array([
    [-1.9, 1.9, -0.1, -1.1, -0.4],   # after <s>
    [0.5, 1.6, 0.3, -1.2, 0.8],      # after a
    [2.0, -0.5, -0.9, 1.5, 1.3],     # after b
    [-2.2, -4.1, -1.3, -0.5, 1.0],   # after c
    [3.6, -0.8, 0.7, -0.4, 1.0],     # after d
    [-0.4, -4.1, -2.0, 1.9, 0.4],    # after e
])
TOY_V = len(TOY_TOKENS)
TOY_T = 4


def toy_log_probs() -> np.ndarray:
    """log p(next token | state) for every state (rows) and token (columns), via scipy."""
    return log_softmax(TOY_LOGITS, axis=1)


def toy_all_sequences() -> tuple[np.ndarray, np.ndarray]:
    """Every length-T sequence of the toy model (V^T rows, lexicographic order) and its
    log-probability, by brute-force enumeration: the exact reference for search procedures."""
    seqs = np.array(list(itertools.product(range(TOY_V), repeat=TOY_T)))
    lp = toy_log_probs()
    states = np.concatenate([np.zeros((len(seqs), 1), dtype=int), seqs[:, :-1] + 1], axis=1)
    return seqs, lp[states, seqs].sum(axis=1)


def toy_text(seq) -> str:
    return " ".join(TOY_TOKENS[int(v)] for v in seq)


# ---------------------------------------------------------------------------------------------
# 3. Shared check and figure helpers.
# ---------------------------------------------------------------------------------------------
def subset_table(values, combine=np.add) -> np.ndarray:
    """`values` combined over every subset of the indices (sum by default, np.maximum for the
    largest), subset s given by the bits of s (bit i set = index i in the subset), the empty
    subset giving 0; 2^len(values) entries. The brute-force reference for set-selection rules."""
    out = np.zeros(1)
    for v in values:
        out = np.concatenate([out, combine(out, v)])
    return out


def check_frequencies(what: str, draws: np.ndarray, q: np.ndarray, alpha: float = 1e-3) -> None:
    """Draws must never leave the support of q, and their counts must pass a chi-square
    goodness-of-fit test against q at level alpha (scipy.stats.chisquare)."""
    counts = np.bincount(draws, minlength=len(q))
    support = q > 0
    outside = int(counts[~support].sum())
    result = chisquare(counts[support], len(draws) * q[support])
    check_true(f"{what}: no draw outside the kept set, chi-square p-value > {alpha:g}",
               outside == 0 and result.pvalue > alpha,
               f"{len(draws)} draws, {outside} outside, {int(support.sum())} kept tokens, "
               f"chi2 = {result.statistic:.1f}, p = {result.pvalue:.3f}")


def kept_tokens_figure(title: str, probs: np.ndarray, kept: np.ndarray, label: str):
    """Bar chart of the fixture distribution in vocabulary (= probability) order, kept tokens
    filled, removed tokens hollow. Returns (fig, ax) for card-specific additions."""
    fig, ax = figure(title, f'next token after "{CONTEXT}"', "probability", size=(7.0, 3.8))
    x = np.arange(len(probs))
    ax.bar(x[kept], probs[kept], color="tab:blue", label=label)
    ax.bar(x[~kept], probs[~kept], facecolor="none", edgecolor="gray", label="removed")
    ax.set_xticks(x, [t.strip() or t for t in TOKENS], rotation=60, ha="right", fontsize=8)
    ax.legend(fontsize=8)
    return fig, ax
