"""TRL's SFTTrainer built on trl_fixture's tiny offline model and its prompt/completion pairs, so
that the SFT card can run the trainer's own data preparation and compute_loss and recompute the
loss by the card's formula.

Only the card's trl region imports this (it needs torch, transformers and trl).
"""

from __future__ import annotations

import numpy as np
import torch
import trl_fixture
from datasets import Dataset


def sft_trainer(**fields):
    """An SFTTrainer on trl_fixture.causal_lm(0) and the prompt/completion pairs (the chosen
    completions of trl_fixture.PAIRS); fields are SFTConfig's (completion_only_loss ...)."""
    from trl import SFTConfig, SFTTrainer

    dataset = Dataset.from_dict({"prompt": [p for p, _, _ in trl_fixture.PAIRS],
                                 "completion": [" " + c for _, c, _ in trl_fixture.PAIRS]})
    args = trl_fixture.training_args(SFTConfig, per_device_train_batch_size=len(dataset), **fields)
    return SFTTrainer(model=trl_fixture.causal_lm(0), args=args, train_dataset=dataset,
                      processing_class=trl_fixture.tokenizer())


def prompt_lengths(input_ids: torch.Tensor) -> np.ndarray:
    """Each row's prompt length, found from the text: the row's tokens start with one of the PAIRS'
    prompts (the trainer's loader shuffles the rows)."""
    prompts = [trl_fixture.tokenizer()(p)["input_ids"] for p, _, _ in trl_fixture.PAIRS]
    return np.array([next(len(p) for p in prompts if row[:len(p)] == p) for row in input_ids.tolist()])


def card_inputs(trainer) -> tuple[dict[str, torch.Tensor], tuple[np.ndarray, ...]]:
    """The trainer's first batch from its own loader, and the card's inputs for the same rows: the
    model's plain float64 logits, the token ids, each row's prompt length and sequence length."""
    batch = next(iter(trainer.get_train_dataloader()))
    ids, attention = batch["input_ids"], batch["attention_mask"]
    with torch.no_grad():
        logits = trainer.model(input_ids=ids, attention_mask=attention).logits.numpy()
    return batch, (logits, ids.numpy(), prompt_lengths(ids), attention.sum(dim=1).numpy())
