"""A card's frozen weight W0 as one torch layer, adapted by Hugging Face PEFT's own get_peft_model,
so that the adapter cards' peft regions run the library's layers on the card's matrices; and a
card's frozen network as a causal LM for PEFT's prompt-learning methods.

Only the cards' peft regions import this (it needs torch and peft, which only `make libcheck`
installs). Everything is float64 unless asked otherwise, so that the library and the card's numpy
agree to rounding.
"""

from __future__ import annotations

import numpy as np
import torch
from peft import get_peft_model
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.pytorch_utils import Conv1D

# The adapted layer's name, for a config's target_modules.
TARGET = "proj"


def frozen_linear(W: np.ndarray, bias: np.ndarray | None = None, dtype=torch.float64) -> torch.nn.Linear:
    """A torch.nn.Linear whose weight is W as it is, output x input; a bias only when one is given."""
    d, k = W.shape
    layer = torch.nn.Linear(k, d, bias=bias is not None, dtype=dtype)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(W))
        if bias is not None:
            layer.bias.copy_(torch.from_numpy(bias))
    return layer


class OneLinear(torch.nn.Module):
    """y = W0 x as a torch.nn.Linear named `proj`: its weight is W0 as it is, d x k (output x input),
    the layout of the cards; a bias only when one is given."""

    def __init__(self, W0: np.ndarray, bias: np.ndarray | None = None, dtype=torch.float64) -> None:
        super().__init__()
        self.proj = frozen_linear(W0, bias, dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x)


class OneConv1D(OneLinear):
    """The same y = W0 x as transformers' Conv1D (GPT-2's projections), which stores its weight
    transposed: W0^T, k x d (input x output), with a zero bias."""

    def __init__(self, W0: np.ndarray, bias: np.ndarray | None = None, dtype=torch.float64) -> None:
        torch.nn.Module.__init__(self)
        d, _ = W0.shape
        self.proj = Conv1D(d, W0.shape[1]).to(dtype)
        with torch.no_grad():
            self.proj.weight.copy_(torch.from_numpy(W0.T))
            self.proj.bias.copy_(torch.from_numpy(np.zeros(d) if bias is None else bias))


def adapt(W0: np.ndarray, config, bias: np.ndarray | None = None, base: type = OneLinear,
          dtype=torch.float64):
    """get_peft_model over base(W0) (config's target_modules must name TARGET): the model, left in
    the training mode a new module starts in, and its adapted layer."""
    model = get_peft_model(base(W0, bias, dtype), config)
    return model, model.base_model.model.proj


def load_factors(layer, A: np.ndarray, B: np.ndarray, adapter: str = "default") -> None:
    """Put the card's A (r x k) and B (d x r) into the layer's lora_A and lora_B, as training would."""
    with torch.no_grad():
        layer.lora_A[adapter].weight.copy_(torch.from_numpy(A))
        layer.lora_B[adapter].weight.copy_(torch.from_numpy(B))


def run(model, X: np.ndarray) -> np.ndarray:
    """The model's output on the rows of X (in the dtype of the model's weights), as float64 numpy."""
    dtype = next(model.parameters()).dtype
    with torch.no_grad():
        return model(torch.from_numpy(X).to(dtype)).double().numpy()


def weight(tensor: torch.Tensor) -> np.ndarray:
    """A parameter's value as float64 numpy."""
    return tensor.detach().double().numpy().copy()


class FrozenLM(PreTrainedModel, GenerationMixin):
    """A card's frozen network as a transformers causal LM, for PEFT's prompt-learning methods: it
    embeds token ids with the card's E (or takes the inputs_embeds that PEFT builds) and returns as
    its logits what the card's `network(embeds, past_key_values, attention_mask)` makes of them
    (embeddings batch-first, a transformers cache or None, the mask PEFT passed). It records what
    PEFT gave it in `seen`."""

    config_class = PretrainedConfig

    def __init__(self, E: np.ndarray, network, heads: int = 1) -> None:
        vocab, width = E.shape
        super().__init__(PretrainedConfig(vocab_size=vocab, hidden_size=width, num_hidden_layers=1,
                                          num_attention_heads=heads))
        self.embed = torch.nn.Embedding.from_pretrained(torch.from_numpy(E))
        self.network = network
        self.seen: dict = {}
        self.post_init()

    def get_input_embeddings(self) -> torch.nn.Embedding:
        return self.embed

    def forward(self, input_ids=None, inputs_embeds=None, attention_mask=None, labels=None,
                past_key_values=None, **kwargs):
        embeds = self.embed(input_ids) if inputs_embeds is None else inputs_embeds
        self.seen = {"inputs_embeds": embeds, "attention_mask": attention_mask, "labels": labels,
                     "past_key_values": past_key_values}
        with torch.no_grad():
            logits = self.network(embeds.detach(), past_key_values, attention_mask)
        return CausalLMOutputWithPast(logits=torch.as_tensor(logits))
