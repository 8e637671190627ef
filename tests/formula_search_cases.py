"""Formula fragments and the card each must rank first: the structure-aware half of search.

A query written as math (TeX, or typed like `QK^T/sqrt(d_k)`) is matched against every card's
formulas as a token sequence (docs/javascripts/search-formula.js), longest unbroken run first.
Each row is a fragment of its card's equation or cheatsheet form, written the way a reader might
type it (other spellings of the same symbols included).
Shared by tests/pages/test_search.py (QuickJS) and tests/built_site/test_search_box.py (Chromium).
"""

from __future__ import annotations

FORMULA_CASES: list[tuple[str, str]] = [
    ("\\frac{QK^\\top}{\\sqrt{d_k}}", "scaled-dot-product-attention"),
    ("QK^T/sqrt(d_k)", "scaled-dot-product-attention"),
    ("\\operatorname{softmax}(QK^{\\mathsf T}/\\sqrt{d_k})V", "scaled-dot-product-attention"),
    ("\\hat m_t = \\frac{m_t}{1-\\beta_1^t}", "adam"),
    ("\\alpha\\frac{\\hat m_t}{\\sqrt{\\hat v_t}+\\epsilon} + \\lambda\\theta_{t-1}", "adamw"),
    ("Q(s,a) + c_{puct} P(s,a)", "alphazero-puct"),
    ("A^\\pi(s,a) = Q^\\pi(s,a) - V^\\pi(s)", "advantage-function"),
    ("clip(round(x/s) + z", "affine-quantization"),
    ("m_h = 2^{-8h/H}", "alibi"),
    ("\\operatorname{Var}(q^\\top k) = d_k", "attention-score-variance"),
    ("Q^*(s,a) = \\sum_{s'} P(s'|s,a)", "bellman-optimality-q"),
    ("V^*(s) = \\max_a \\sum_{s'}", "bellman-optimality-v"),
    ("\\frac{f(t,d)(k_1+1)}{f(t,d) + k_1", "bm25"),
    ("E + \\frac{A}{N^\\alpha} + \\frac{B}{D^\\beta}", "chinchilla-scaling-law"),
    ("\\frac{a^\\top b}{\\lVert a \\rVert \\, \\lVert b \\rVert}", "cosine-similarity"),
    ("H(P, Q) = -\\sum_x P(x) \\log Q(x)", "cross-entropy"),
    ("H(P) = -\\sum_x P(x) \\log P(x)", "entropy"),
    ("\\bar\\alpha_t = \\prod_{s=1}^{t} \\alpha_s", "ddpm-alpha-bar"),
    ("-\\alpha_t (1-p_t)^\\gamma \\log p_t", "focal-loss"),
    ("\\sum_{l=0}^{\\infty} (\\gamma \\lambda)^l \\delta_{t+l}", "gae"),
    ("\\frac{r_i - mean(r)}{std(r)}", "grpo-advantage"),
    ("\\frac{\\exp(s(q,d^+)/\\tau)}{\\sum_j \\exp(s(q,d_j)/\\tau)}", "infonce"),
    ("D_{KL}(P || Q) = \\sum_x P(x) \\log \\frac{P(x)}{Q(x)}", "kl-divergence"),
    ("M_{KV} = 2 \\cdot L \\cdot H_{kv} \\cdot d_h", "kv-cache-memory"),
    ("q'_k = (1-\\epsilon)\\delta_{k,y} + \\epsilon/V", "label-smoothing"),
    ("m + \\log \\sum_i e^{z_i - m}", "log-sum-exp"),
    ("W' = W_0 + \\frac{\\alpha}{r} B A", "lora"),
    ("\\lambda \\mathrm{Sim}_1(d, q) - (1 - \\lambda) \\max", "mmr"),
    ("I(X;Y) = H(X) - H(X | Y)", "mutual-information"),
    ("\\frac{rel_i}{\\log_2(i+1)}", "ndcg"),
    ("\\frac{p-1}{m+p-1}", "pipeline-bubble"),
    ("Q(S,A) + \\alpha[R + \\gamma \\max_a Q(S',a) - Q(S,A)]", "q-learning"),
    ("\\frac{1}{k + \\operatorname{rank}_r(d)}", "reciprocal-rank-fusion"),
    ("\\gamma \\odot x / \\sqrt{\\tfrac1d \\sum_i x_i^2 + \\epsilon}", "rmsnorm"),
    ("\\theta_j = 10000^{-2j/d}", "rope"),
    ("\\delta_t = R_{t+1} + \\gamma V(S_{t+1}) - V(S_t)", "td-error"),
    ("\\exp(z_i / \\tau)", "temperature-sampling"),
    ("\\tilde\\epsilon = \\epsilon(\\varnothing) + w(\\epsilon(c) - \\epsilon(\\varnothing))",
     "classifier-free-guidance"),
]

# Fragments whose first results must not include cards that only share its words: the issue's
# example, where "frac" found fractions (pipeline bubble) and schedules.
FORMULA_NOT_IN_TOP: list[tuple[str, int, list[str]]] = [
    ("\\frac{QK^\\top}{\\sqrt{d_k}}", 5, ["pipeline-bubble", "cosine-lr-schedule"]),
    ("\\frac{QK^\\top}", 5, ["pipeline-bubble", "cosine-lr-schedule"]),
]
