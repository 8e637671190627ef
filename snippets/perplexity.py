"""Perplexity: checked against scipy gmean of 1/p, a uniform model, and exp of empirical cross-entropy."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.special import softmax
from scipy.stats import gmean


# --- formula ---
# few mutants: exp of the negated mean log-probability: the exp, the minus and the mean
def perplexity(token_logprobs: np.ndarray) -> float:
    """PPL = exp(-(1/T) sum_t log p_theta(x_t | x_<t)), from natural-log token probabilities."""
    return float(np.exp(-np.mean(token_logprobs)))
# --- end formula ---


V, T = 12, 5000
BOS = V  # start-of-sequence state: row V of each transition table
rng = np.random.default_rng(0)
# "Data": a random bigram process. "Model": a different bigram table p_theta(x_t | x_{t-1}).
data_table = softmax(2.0 * rng.normal(size=(V + 1, V)), axis=1)
model_table = 0.6 * data_table + 0.4 * softmax(rng.normal(size=(V + 1, V)), axis=1)
tokens = np.empty(T, dtype=int)
prev = BOS
for t in range(T):
    tokens[t] = rng.choice(V, p=data_table[prev])
    prev = tokens[t]
prefixes = np.concatenate([[BOS], tokens[:-1]])
token_probs = model_table[prefixes, tokens]
ppl = perplexity(np.log(token_probs))

check_close("exp(mean NLL) = geometric mean of 1/p (scipy gmean)", ppl, gmean(1.0 / token_probs))
check_close("base-free: 2**(mean bits) = exp(mean nats)", ppl, 2.0 ** np.mean(-np.log2(token_probs)))
uniform = np.full(T, 1.0 / V)
check_close("uniform model over V tokens has PPL = V", perplexity(np.log(uniform)), V)

# Cheatsheet form: PPL = exp(H(P_data, p_theta)), with P_data the empirical distribution of
# (prefix, next token) pairs and H the per-token cross-entropy in nats, aggregated from counts.
counts = np.zeros((V + 1, V))
np.add.at(counts, (prefixes, tokens), 1.0)
p_emp = counts / T
cross_entropy = -np.sum(p_emp[p_emp > 0] * np.log(model_table[p_emp > 0]))
check_close("per-token form = exp(H(P_data, p_theta)) over (prefix, token) pairs", ppl,
            np.exp(cross_entropy))
# --- in code: torch ---
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# torch.exp(F.cross_entropy(logits, tokens)): log of the model's probabilities serve as logits.
# A float64 mean of 5000 logs (each to a few ulps), then exp: 1e-10 as for long sums.
model_logits = torch.tensor(np.log(model_table[prefixes]))
check_close("torch.exp(F.cross_entropy(logits, x)) = PPL",
            torch.exp(F.cross_entropy(model_logits, torch.tensor(tokens))).item(), ppl, rtol=1e-10)
# With reduction="sum" the exponent is the total NLL: exp gives PPL^T (here over the first 20 tokens).
first = slice(0, 20)
check_close("pitfall: exp of a reduction='sum' loss is PPL^T, not PPL",
            torch.exp(F.cross_entropy(model_logits[first], torch.tensor(tokens[first]),
                                      reduction="sum")).item(),
            perplexity(np.log(token_probs[first])) ** 20, rtol=1e-10)
# Padding targets (ignore_index=-100) leave the mean over the real tokens only.
padded = torch.tensor(np.concatenate([tokens[first], [-100, -100]]))
padded_logits = torch.cat([model_logits[first], torch.zeros(2, V, dtype=torch.float64)])
check_close("padding marked -100 is left out of the mean: PPL of the 20 real tokens",
            torch.exp(F.cross_entropy(padded_logits, padded)).item(),
            perplexity(np.log(token_probs[first])), rtol=1e-12)
# --- end in code ---

true_ppl = perplexity(np.log(data_table[prefixes, tokens]))
check_true("the data-generating table scores lower perplexity than the model",
           true_ppl < ppl < V, f"true process {true_ppl:.3f} < model {ppl:.3f} < V = {V}")

# The page's calculator is checked against perplexity on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): T tokens sharing the total NLL equally have its mean as their loss, and
# the mean loss is log PPL; totals from 0 (PPL = 1) to e^700 on one token, near the largest double.
import cardcalc  # noqa: E402


def calculator_row(nll, T):
    ppl_row = perplexity(np.full(T, -nll / T))
    return {"PPL": ppl_row, "loss": np.log(ppl_row)}


cardcalc.table(calculator_row, cardcalc.grid(nll=(0.0, 0.5, 30.0, 700.0), T=(1, 7, 1000)))
