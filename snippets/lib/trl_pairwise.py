"""TRL's reference-free preference trainers (CPOTrainer, which runs SimPO, and ORPOTrainer, both in
trl.experimental) built on trl_fixture's tiny offline model, so that the SimPO and ORPO cards can
call their loss methods (cpo_loss, odds_ratio_loss) on the card's own log-probabilities.

Only the cards' trl regions import this (it needs torch, transformers and trl).
"""

from __future__ import annotations

import trl_fixture


def _built(trainer_class, config_class, **fields):
    # remove_unused_columns=False: the trainers' collator needs every column, and says so otherwise.
    args = trl_fixture.training_args(config_class, remove_unused_columns=False, **fields)
    dataset, tokenizer = trl_fixture.preference_dataset(), trl_fixture.tokenizer()
    return trainer_class(model=trl_fixture.causal_lm(0), args=args, train_dataset=dataset,
                         processing_class=tokenizer)


def cpo_trainer(**fields):
    """A CPOTrainer; fields are CPOConfig's (loss_type, beta, simpo_gamma, label_smoothing ...)."""
    from trl.experimental.cpo import CPOConfig, CPOTrainer

    return _built(CPOTrainer, CPOConfig, **fields)


def orpo_trainer(**fields):
    """An ORPOTrainer; fields are ORPOConfig's (beta, the card's lambda ...)."""
    from trl.experimental.orpo import ORPOConfig, ORPOTrainer

    return _built(ORPOTrainer, ORPOConfig, **fields)
