"""TRL's KTOTrainer built on trl_fixture's tiny offline models, with the unpaired good/bad examples of
trl_fixture.PAIRS, so that the KTO card can run the trainer's own batch (with its mismatched pairs
for the reference point) through compute_loss and recompute the loss by the card's formula.

Only the card's trl region imports this (it needs torch, transformers and trl).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trl_fixture
from datasets import Dataset


@dataclass
class KTOInputs:
    """The card's inputs for one batch of the trainer: log pi(y|x) of each example under the policy
    (causal_lm(0)) and the reference (causal_lm(1)), its label, the same for the mismatched pairs
    (each prompt with another example's completion) that give z0, and bounds on the float32 error of
    TRL's r = log pi / pi_ref per example and of its z0."""

    logp: np.ndarray
    ref_logp: np.ndarray
    desirable: np.ndarray
    kl_logp: np.ndarray
    kl_ref_logp: np.ndarray
    r_error: np.ndarray
    z0_error: float


def kto_trainer(**fields):
    """A KTOTrainer on the chosen completions (desirable) and the rejected ones (undesirable) of
    trl_fixture.PAIRS, in one batch; fields are KTOConfig's (beta, desirable_weight ...)."""
    from trl import KTOConfig, KTOTrainer

    pairs = trl_fixture.PAIRS
    completions = [" " + c for _, c, _ in pairs] + [" " + r for _, _, r in pairs]
    dataset = Dataset.from_dict({"prompt": [p for p, _, _ in pairs] * 2, "completion": completions,
                                 "label": [True] * len(pairs) + [False] * len(pairs)})
    args = trl_fixture.training_args(KTOConfig, per_device_train_batch_size=len(dataset), **fields)
    return KTOTrainer(model=trl_fixture.causal_lm(0), ref_model=trl_fixture.causal_lm(1), args=args,
                      train_dataset=dataset, processing_class=trl_fixture.tokenizer())


def card_inputs(trainer) -> tuple[dict, KTOInputs]:
    """The trainer's first batch from its own loader, and the card's inputs for it."""
    batch = next(iter(trainer.get_train_dataloader()))
    rows = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"],
            "completion_mask": batch["completion_mask"]}
    mismatched = {"input_ids": batch["KL_input_ids"], "attention_mask": batch["KL_attention_mask"],
                  "completion_mask": batch["KL_completion_mask"]}
    sums, errors = [], []
    for part in (rows, mismatched):
        for seed in (0, 1):
            token_logp, mask = trl_fixture.completion_token_logps(trl_fixture.causal_lm(seed), part)
            sums.append(token_logp.sum(axis=1))
            errors.append(trl_fixture.float32_logp_error(token_logp, mask))
    return batch, KTOInputs(sums[0], sums[1], batch["label"].numpy(), sums[2], sums[3], errors[0] + errors[1],
                            float(np.mean(errors[2] + errors[3])))
