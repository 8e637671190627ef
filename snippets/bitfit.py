"""BitFit: the bias parameters of BERT, enumerated module by module, against the closed-form count and the
published total parameter counts of BERT-base and BERT-large; the 0.08% of the paper; a bias-only update."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def bert_parameters(vocab, d, layers, d_ff, max_pos=512, types=2):
    """Name -> shape of every parameter of a BERT encoder with its pooler (Hugging Face naming)."""
    params = {"emb.word.weight": (vocab, d), "emb.position.weight": (max_pos, d),
              "emb.token_type.weight": (types, d), "emb.ln.weight": (d,), "emb.ln.bias": (d,)}
    for i in range(layers):
        for m in ("query", "key", "value", "attn_out"):
            params[f"l{i}.{m}.weight"] = (d, d)
            params[f"l{i}.{m}.bias"] = (d,)
        params[f"l{i}.attn_ln.weight"] = (d,)
        params[f"l{i}.attn_ln.bias"] = (d,)
        params[f"l{i}.intermediate.weight"] = (d_ff, d)
        params[f"l{i}.intermediate.bias"] = (d_ff,)
        params[f"l{i}.output.weight"] = (d, d_ff)
        params[f"l{i}.output.bias"] = (d,)
        params[f"l{i}.out_ln.weight"] = (d,)
        params[f"l{i}.out_ln.bias"] = (d,)
    params["pooler.weight"] = (d, d)
    params["pooler.bias"] = (d,)
    return params


def bitfit_trainable(params, which=("bias",)):
    """BitFit keeps only the bias terms trainable (optionally a subset, by name suffix)."""
    return {name: shape for name, shape in params.items() if name.endswith(which)}


def count(params):
    return sum(int(np.prod(shape)) for shape in params.values())
# --- end formula ---


base = bert_parameters(30522, 768, 12, 3072)
large = bert_parameters(30522, 1024, 24, 4096)

# 1. Totals against the parameter counts that sum(p.numel()) gives for bert-base-uncased and
#    bert-large-uncased (BertModel with pooler).
check_true("BERT-base total = 109,482,240", count(base) == 109_482_240, f"{count(base):,}")
check_true("BERT-large total = 335,141,888", count(large) == 335_141_888, f"{count(large):,}")

# 2. Bias count in closed form: per layer 4 d (Q, K, V, attention output) + d_ff + d (feed-forward)
#    + 2 d (two LayerNorm biases), plus the embedding LayerNorm bias and the pooler bias.
for name, p, d, L, dff in (("base", base, 768, 12, 3072), ("large", large, 1024, 24, 4096)):
    closed = L * (4 * d + dff + d + 2 * d) + 2 * d
    check_true(f"BERT-{name}: enumerated biases = L (7 d + d_ff) + 2 d = {closed:,}",
               count(bitfit_trainable(p)) == closed, f"{count(bitfit_trainable(p)):,}")

# 3. The share the paper reports: about 0.08% of BERT-large's parameters are biases.
check_close("BERT-large bias share ~ 0.08%", 100 * count(bitfit_trainable(large)) / count(large), 0.08,
            atol=0.005)
# The paper's smaller variant trains only the query bias and the feed-forward intermediate bias:
# 24 (1024 + 4096) = 122,880 values for BERT-large, about 0.04%.
sub = bitfit_trainable(large, which=("query.bias", "intermediate.bias"))
check_true("query + intermediate biases only: 122,880 (about 0.04%)",
           count(sub) == 122_880 and abs(100 * count(sub) / count(large) - 0.037) < 0.001)

# 4. What a bias-only update does: for a frozen linear layer y = W x + b and a loss L(y), the
#    gradient with respect to b is the sum over the batch of dL/dy, so BitFit shifts each output
#    unit by a learned constant. Finite differences on a squared loss.
rng = np.random.default_rng(0)
W, b = rng.normal(size=(5, 8)), rng.normal(size=5)
X, Y = rng.normal(size=(20, 8)), rng.normal(size=(20, 5))


def loss(bias):
    return 0.5 * np.sum((X @ W.T + bias - Y) ** 2)


h = 1e-6
fd = np.array([(loss(b + h * e) - loss(b - h * e)) / (2 * h) for e in np.eye(5)])
check_close("dL/db = sum over the batch of dL/dy", fd, (X @ W.T + b - Y).sum(axis=0), rtol=1e-6)
b_star = (Y - X @ W.T).mean(axis=0)
check_close("optimal bias alone = mean residual (least squares on a constant feature)", b_star,
            np.linalg.lstsq(np.ones((20, 1)), Y - X @ W.T, rcond=None)[0][0], rtol=1e-10)

# --- in code: transformers ---
import torch  # noqa: E402
import transformers as hf  # noqa: E402


def named_sizes(model):
    """Each parameter's name and number of values; the model lives on the meta device (shapes only)."""
    return {name: p.numel() for name, p in model.named_parameters()}


# transformers' own BertModel (pooler included), built on the meta device: shapes without memory.
# Counts are integers, compared exactly.
with torch.device("meta"):
    hf_base = named_sizes(hf.BertModel(hf.BertConfig()))
    large_config = hf.BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                 intermediate_size=4096)
    hf_large = named_sizes(hf.BertModel(large_config))
    hf_classifier = named_sizes(hf.BertForSequenceClassification(hf.BertConfig(num_labels=3)))
    hf_llama = named_sizes(hf.LlamaForCausalLM(hf.LlamaConfig()))
for name, sizes, card in (("BERT-base", hf_base, base), ("BERT-large", hf_large, large)):
    check_true(f"transformers' BertModel ({name}): all parameters and those named *bias = the card's counts",
               (sum(sizes.values()), sum(v for n, v in sizes.items() if n.endswith("bias")))
               == (count(card), count(bitfit_trainable(card))),
               f"{sum(sizes.values()):,} and {sum(v for n, v in sizes.items() if n.endswith('bias')):,}")
# With a 3-way head, '*bias' finds the encoder's biases and the head's 3, but not its 768 x 3 weight.
selected = sum(v for n, v in hf_classifier.items() if n.endswith("bias"))
check_true("pitfall: selecting '*bias' leaves the head's weight (theta_head) frozen",
           selected == count(bitfit_trainable(base)) + 3 and hf_classifier["classifier.weight"] == 768 * 3,
           f"{selected:,} selected = {count(bitfit_trainable(base)):,} + 3; classifier.weight "
           f"({hf_classifier['classifier.weight']:,}) left out")
llama_biases = sum(v for n, v in hf_llama.items() if n.endswith("bias"))
check_true("pitfall: LlamaConfig's defaults (attention_bias=False, mlp_bias=False, RMSNorm) leave no bias",
           llama_biases == 0, f"{llama_biases} bias values among {sum(hf_llama.values()):,}")
# --- end in code ---
