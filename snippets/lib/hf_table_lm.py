"""A table as a Hugging Face causal language model, so that the decoding cards can run
transformers' own `generate()` (greedy, beam search, sampling) on the toy model of decoding_fixture;
and the distribution a single logits processor leaves.

Only the cards' transformers regions import this (it needs torch and transformers, which only
`make libcheck` installs). Token ids 0..V-1 are the table's tokens; id V is the start token.
"""

from __future__ import annotations

import numpy as np
import torch
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast

# A logit low enough that the start token never wins, yet finite, so that softmax stays exact.
NEVER = -1e9


class TableLM(PreTrainedModel, GenerationMixin):
    """Next-token logits that depend on the previous token only: row 0 of `logits` after the start
    token, row 1 + v after token v (decoding_fixture.TOY_LOGITS has that layout)."""

    config_class = PretrainedConfig

    def __init__(self, logits: np.ndarray) -> None:
        vocab = logits.shape[1]
        # One "layer" for the key-value cache that assisted generation insists on; the table needs none.
        super().__init__(PretrainedConfig(vocab_size=vocab + 1, bos_token_id=vocab, pad_token_id=vocab,
                                          eos_token_id=None, num_hidden_layers=1))
        table = torch.full((logits.shape[0], vocab + 1), NEVER, dtype=torch.float64)
        table[:, :vocab] = torch.tensor(logits, dtype=torch.float64)
        # generate() finds the model's device from its parameters, so the table must be one.
        self.table = torch.nn.Parameter(table, requires_grad=False)
        self.post_init()

    def forward(self, input_ids: torch.LongTensor, **kwargs) -> CausalLMOutputWithPast:
        # The start token (id V) maps to row 0, token v to row 1 + v. The cache is handed back untouched.
        return CausalLMOutputWithPast(logits=self.table[(input_ids + 1) % self.config.vocab_size],
                                      cache=kwargs.get("cache"))

    def start(self, batch: int = 1) -> torch.LongTensor:
        """A prompt of the start token alone, `batch` times."""
        return torch.full((batch, 1), self.config.bos_token_id, dtype=torch.long)


def sampled_distribution(model: TableLM, **settings) -> np.ndarray:
    """The distribution that one step of `generate(do_sample=True, **settings)` samples from after
    the start token: the softmax of its processed scores, over the table's tokens. generate() works
    on float32 logits, so the result is good to float32 rounding only."""
    out = model.generate(model.start(), do_sample=True, max_new_tokens=1, use_cache=False,
                         output_scores=True, return_dict_in_generate=True, **settings)
    return torch.softmax(out.scores[0][0, :-1].double(), dim=-1).numpy()


def processed_probs(processor, logits: np.ndarray) -> np.ndarray:
    """The distribution after one logits processor (a warper such as TopPLogitsWarper) on a single
    float64 logit vector: the softmax of its output, so dropped tokens get probability 0."""
    scores = processor(None, torch.tensor(logits, dtype=torch.float64)[None, :])
    return torch.softmax(scores, dim=-1)[0].numpy()
