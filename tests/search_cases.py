"""The search ranking tables: queries people type, and what each must give.

Shared by tests/test_search.py (the engine alone, in QuickJS) and tests/test_browser.py
(the real search box in Chromium). SEARCH_CASES has one row per way of asking: a name, an
abbreviation, a synonym, a symbol typed or spelled out, a LaTeX fragment, a misspelling. The
tables after it hold the ranking itself to account: each row there fails when one part of the
ranking (IDF, the penalty for matching only some words, the result floor) is taken out.
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
    ("GQA", "grouped-query-attention"),
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
    # handbook cards: what practitioners type for each
    ("MQA", "multi-query-attention"),
    ("FlashAttention", "flashattention-online-softmax"),
    ("online softmax", "flashattention-online-softmax"),
    ("Performer", "performer-favor"),
    ("Linformer", "linformer"),
    ("causal mask", "causal-attention"),
    ("YaRN", "yarn"),
    ("NTK-aware scaling", "ntk-aware-rope-scaling"),
    ("ALiBi", "alibi"),
    ("sinusoidal positional encoding", "sinusoidal-positional-encoding"),
    ("GEGLU", "geglu"),
    ("Mish", "mish"),
    ("BatchNorm", "batchnorm"),
    ("GroupNorm", "groupnorm"),
    ("DeepNorm", "deepnorm"),
    ("DropPath", "stochastic-depth"),
    ("Glorot", "xavier-initialization"),
    ("weight tying", "tied-embeddings"),
    ("label smoothing", "label-smoothing"),
    ("focal loss", "focal-loss"),
    ("SimCLR", "nt-xent"),
    ("knowledge distillation", "knowledge-distillation"),
    ("Lion", "lion"),
    ("Adafactor", "adafactor"),
    ("top-p", "nucleus-sampling"),
    ("min_p", "min-p-sampling"),
    ("typical sampling", "typical-sampling"),
    ("beam search", "beam-search"),
    ("mirostat", "mirostat"),
    ("IPO", "ipo-loss"),
    ("SimPO", "simpo-loss"),
    ("ORPO", "orpo-loss"),
    ("KTO", "kto-loss"),
    ("RLOO", "rloo-baseline"),
    ("GAE", "gae"),
    ("QLoRA", "qlora"),
    ("DoRA", "dora"),
    ("BitFit", "bitfit"),
    ("GPTQ", "gptq"),
    ("AWQ", "awq"),
    ("SmoothQuant", "smoothquant"),
    ("NF4", "nf4-quantization"),
    ("zero point", "asymmetric-quantization"),
    ("router z-loss", "router-z-loss"),
    ("capacity factor", "expert-capacity"),
    ("WordPiece", "wordpiece"),
    ("GloVe", "glove"),
    ("ROUGE-L", "rouge-l"),
    ("BERTScore", "bertscore"),
    ("Brier", "brier-score"),
    ("conformal prediction", "conformal-prediction"),
    ("BM25F", "bm25f"),
    ("Dirichlet smoothing", "dirichlet-smoothing"),
    ("Mahalanobis", "mahalanobis-distance"),
    ("MinHash", "jaccard-similarity"),
    ("POMDP", "pomdp"),
    ("belief update", "belief-update"),
    ("Q-learning", "q-learning"),
    ("SARSA", "sarsa"),
    ("Double DQN", "double-dqn-target"),
    ("value iteration", "bellman-optimality-v"),
]

# The card a query must rank first. A rare word outweighs a common one (IDF): in "wgan loss",
# "wgan" names one card and "loss" is on dozens, some of them in their titles ("training" is in
# the title of Training FLOPs, "gradient" in that of the EBM likelihood gradient).
FIRST_CASES: list[tuple[str, str]] = [
    ("wgan loss", "wgan"),
    ("NLL gradient", "negative-log-likelihood"),
    ("BPC training", "bits-per-character"),
    ("SwiGLU training", "swiglu"),
    ("CFG loss", "classifier-free-guidance"),
]

# Queries of several words: among the first ALL_WORDS_DEPTH results, every card that matched
# all the words ranks above every card that matched only some (the partial-match penalty).
ALL_WORDS_DEPTH = 5
ALL_WORDS_FIRST: list[str] = [
    "gradient clipping norm",
    "layer norm",
    "adam memory",
    "gan loss",
    "rmsnorm layer",
]

# Queries that name one card: the list stops soon after it instead of running on through every
# page that shares a word or a near-miss spelling with the query (the result floor, which drops
# results far below the best). At most this many results.
SHORT_LISTS: list[tuple[str, int]] = [
    ("reciprocal rank fusion", 8),
    ("decoupled weight decay", 8),
    ("low-rank adaptation", 8),
    ("speculative decoding", 8),
    ("expected calibration error", 8),
    ("classifier-free guidance", 8),
    ("gradient clipping", 8),
    ("perplexity", 8),
]

# Queries that mean nothing here: no result at all.
NO_RESULTS: list[str] = ["zzzz qqqq", "qwertyuiop"]
