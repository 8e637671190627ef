"""The search ranking table: queries people type, and the card each must find in the top 3.

Shared by tests/test_search.py (the engine alone, in QuickJS) and tests/test_browser.py
(the real search box in Chromium). One row per way of asking: a name, an abbreviation,
a synonym, a symbol typed or spelled out, a LaTeX fragment, a misspelling.
"""

from __future__ import annotations

SEARCH_CASES: list[tuple[str, str]] = [
    # names
    ("KL divergence", "kl-divergence"),
    ("entropy", "entropy"),
    ("softmax", "softmax"),
    ("cross entropy", "cross-entropy"),
    ("perplexity", "perplexity"),
    ("reciprocal rank fusion", "reciprocal-rank-fusion"),
    ("rotary position embedding", "rope"),
    ("mutual information", "mutual-information"),
    ("classifier-free guidance", "classifier-free-guidance"),
    ("speculative decoding", "speculative-decoding-expected-tokens"),
    ("pipeline bubble", "pipeline-bubble"),
    ("KV cache", "kv-cache-memory"),
    ("multi-head attention", "multi-head-attention"),
    ("log-sum-exp", "log-sum-exp"),
    ("cosine similarity", "cosine-similarity"),
    # abbreviations
    ("KL", "kl-divergence"),
    ("RRF", "reciprocal-rank-fusion"),
    ("PPO", "ppo-clip"),
    ("GQA", "kv-cache-memory"),
    ("DPO", "dpo-loss"),
    ("BM25", "bm25"),
    ("nDCG", "ndcg"),
    ("MFU", "model-flops-utilization"),
    ("ELBO", "vae-elbo"),
    ("ECE", "expected-calibration-error"),
    ("JSD", "jensen-shannon-divergence"),
    ("CFG", "classifier-free-guidance"),
    ("LoRA", "lora"),
    ("RoPE", "rope"),
    ("GRPO", "grpo-advantage"),
    ("pass@k", "pass-at-k"),
    # synonyms and other spellings of a name
    ("relative entropy", "kl-divergence"),
    ("Kullback-Leibler", "kl-divergence"),
    ("Okapi", "bm25"),
    ("low-rank adaptation", "lora"),
    ("decoupled weight decay", "adamw"),
    ("Kaiming initialization", "he-initialization"),
    ("logsumexp", "log-sum-exp"),
    ("Jensen–Shannon", "jensen-shannon-divergence"),
    # symbols, typed or spelled out
    ("d_k", "scaled-dot-product-attention"),
    ("sqrt(d_k)", "scaled-dot-product-attention"),
    ("\\sqrt{d_k}", "scaled-dot-product-attention"),
    ("D_KL", "kl-divergence"),
    ("H(P, Q)", "cross-entropy"),
    ("ᾱ_t", "ddpm-alpha-bar"),
    ("alpha bar", "ddpm-alpha-bar"),
    # β alone is the KL weight of RLHF and DPO here; several cards define it, this one first.
    ("β", "dpo-implied-reward"),
    ("beta", "dpo-implied-reward"),
    ("β_t", "ddpm-forward-step"),
    ("beta_t", "ddpm-forward-step"),
    ("β_2", "adam"),
    ("6ND", "training-flops"),
    # LaTeX fragments
    ("\\frac{QK^\\top}", "scaled-dot-product-attention"),
    ("QK^T", "scaled-dot-product-attention"),
    ("\\bar\\alpha_t", "ddpm-alpha-bar"),
    ("\\mathrm{KL}", "kl-divergence"),
    # misspellings
    ("perplexaty", "perplexity"),
    ("entorpy", "entropy"),
    ("attension", "scaled-dot-product-attention"),
    ("Kulback-Leibler", "kl-divergence"),
    ("reparametrization trick", "reparameterization-trick"),
    ("chinchila", "chinchilla-scaling-law"),
]
