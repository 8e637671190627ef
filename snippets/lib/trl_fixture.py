"""A tiny causal language model, reward model, tokenizer, preference batch and completion group
built offline, so that the alignment cards can call Hugging Face TRL's own trainer losses
(DPOTrainer, RewardTrainer, GRPOTrainer .compute_loss) and recompute them by the card's formula.

Only the cards' trl regions import this (it needs torch, transformers and trl, which only
`make libcheck` installs). The models are random and in float64, so rewards agree with TRL's to a few
float64 ulps; TRL computes token log-probabilities in float32 whatever the model's dtype, and
float32_logp_error bounds the difference that leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets
import numpy as np
import torch
import transformers
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    LlamaConfig,
    LlamaForCausalLM,
    LlamaForSequenceClassification,
    PreTrainedTokenizerFast,
)
from trl.trainer.dpo_trainer import DataCollatorForPreference

# The trainers map their tiny datasets on construction, and GRPO's saves and loads its policy; a
# progress bar per step is noise here.
datasets.disable_progress_bars()
transformers.utils.logging.disable_progress_bar()

WORDS = ["<pad>", "<eos>", "<unk>", "q", "what", "is", "two", "plus", "four", "five", "it", "maybe",
         "the", "answer"]
# Three prompts, each with a chosen and a rejected completion of other lengths (so that summing and
# averaging over tokens differ, and padding is exercised).
PAIRS = [("what is two plus two", "four", "it is five maybe"),
         ("q two plus two", "the answer is four", "five"),
         ("what is it", "it is the answer", "maybe it is two plus five")]


def tokenizer() -> PreTrainedTokenizerFast:
    """A whitespace word-level tokenizer over WORDS, with <pad> and <eos>."""
    word_level = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", eos_token="<eos>",
                                   unk_token="<unk>")


def _config(**extra) -> LlamaConfig:
    return LlamaConfig(vocab_size=len(WORDS), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                       pad_token_id=0, eos_token_id=1, bos_token_id=None, **extra)


def causal_lm(seed: int) -> LlamaForCausalLM:
    """A random one-layer Llama over WORDS in float64; the same seed gives the same weights."""
    torch.manual_seed(seed)
    return LlamaForCausalLM(_config()).to(torch.float64)


def reward_model(seed: int) -> LlamaForSequenceClassification:
    """A random one-layer Llama with a scalar head (num_labels=1): its logit is the reward."""
    torch.manual_seed(seed)
    return LlamaForSequenceClassification(_config(num_labels=1)).to(torch.float64)


def preference_dataset() -> Dataset:
    """PAIRS as the prompt/chosen/rejected text columns the trainers are constructed with."""
    return Dataset.from_dict({"prompt": [p for p, _, _ in PAIRS], "chosen": [" " + c for _, c, _ in PAIRS],
                              "rejected": [" " + r for _, _, r in PAIRS]})


def _ids(text: str) -> list[int]:
    return [WORDS.index(w) for w in text.split()]


def preference_batch() -> dict[str, torch.Tensor]:
    """PAIRS collated by TRL's own DataCollatorForPreference: rows [chosen..., rejected...], each
    prompt + completion + <eos>, with completion_mask = 1 on the completion and its <eos>."""
    eos = WORDS.index("<eos>")
    examples = [{"prompt_ids": _ids(p), "chosen_ids": [*_ids(c), eos], "rejected_ids": [*_ids(r), eos]}
                for p, c, r in PAIRS]
    return DataCollatorForPreference(pad_token_id=0)(examples)


def completion_token_logps(model: LlamaForCausalLM, batch: dict[str, torch.Tensor]) -> tuple[np.ndarray, ...]:
    """The card's route to log pi(y_t | x, y_<t): the model's plain logits, log-softmax, the next
    token's entry; returned as (per-token log-probs, mask) of shape (rows, T - 1), mask = 1 on the
    completion's tokens (the rows are the collator's: chosen first, then rejected)."""
    with torch.no_grad():
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    logp = torch.log_softmax(logits[:, :-1], dim=-1)
    token_logp = logp.gather(-1, batch["input_ids"][:, 1:, None])[..., 0]
    mask = batch["completion_mask"][:, 1:].to(torch.float64)
    return (token_logp * mask).numpy(), mask.numpy()


def float32_logp_error(token_logp: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, a bound on |TRL's log pi(y | x) - the card's|: TRL's fused LM head computes every
    log-softmax in float32 whatever the model's dtype (trl/kernels/chunked_logprob.py), so each token's
    log-probability is off by a few float32 ulps of 1 + |log p| (the logits here are below 1 in size,
    and the log-sum-exp runs over 14 words); 8 ulps per token, summed over the row's tokens."""
    return np.sum(8 * np.finfo(np.float32).eps * (1 + np.abs(token_logp)) * mask, axis=-1)


@dataclass
class PairLogps:
    """Per pair of the batch: log pi(y | x) summed over the completion's tokens, under the policy
    (causal_lm(0)) and the reference (causal_lm(1)), for the chosen (w) and the rejected (l)
    completion; each completion's token count; and a bound on the float32 error of TRL's margin
    h = (policy_w - ref_w) - (policy_l - ref_l), the sum of the four sequences' bounds."""

    policy_w: np.ndarray
    policy_l: np.ndarray
    ref_w: np.ndarray
    ref_l: np.ndarray
    len_w: np.ndarray
    len_l: np.ndarray
    margin_error: np.ndarray

    def sums(self) -> tuple[np.ndarray, ...]:
        """(policy_w, policy_l, ref_w, ref_l): the argument order of the cards' DPO and IPO losses."""
        return self.policy_w, self.policy_l, self.ref_w, self.ref_l

    def means(self) -> tuple[np.ndarray, ...]:
        """The same, each divided by its completion's token count (per-token means)."""
        lengths = (self.len_w, self.len_l, self.len_w, self.len_l)
        return tuple(logp / length for logp, length in zip(self.sums(), lengths, strict=True))


def pair_logps(batch: dict[str, torch.Tensor]) -> PairLogps:
    """The card's route to the log-probabilities DPOTrainer reads from its two models."""
    policy, mask = completion_token_logps(causal_lm(0), batch)
    ref, _ = completion_token_logps(causal_lm(1), batch)
    row_error = float32_logp_error(policy, mask) + float32_logp_error(ref, mask)
    (policy_w, policy_l), (ref_w, ref_l) = np.split(policy.sum(1), 2), np.split(ref.sum(1), 2)
    (len_w, len_l), (error_w, error_l) = np.split(mask.sum(1), 2), np.split(row_error, 2)
    return PairLogps(policy_w, policy_l, ref_w, ref_l, len_w, len_l, error_w + error_l)


def training_args(config_class, **fields):
    """A TRL config for a CPU run that writes nothing: fields are the card's settings (beta ...)."""
    # The snippet runs in a temporary working directory, and nothing trains, so nothing is written there.
    return config_class(output_dir="trl-card", report_to="none", use_cpu=True,
                        bf16=False, fp16=False, **fields)


def dpo_trainer_loss(batch: dict[str, torch.Tensor], **config) -> float:
    """DPOTrainer's own compute_loss on the batch, with causal_lm(0) as the policy and causal_lm(1)
    as the reference; config holds DPOConfig's fields (beta, loss_type, label_smoothing ...)."""
    from trl import DPOConfig, DPOTrainer

    policy = causal_lm(0)  # a fresh model per trainer: the trainer patches the model it is given
    trainer = DPOTrainer(model=policy, ref_model=causal_lm(1), args=training_args(DPOConfig, **config),
                         train_dataset=preference_dataset(), processing_class=tokenizer())
    with torch.no_grad():
        return trainer.compute_loss(policy, batch).item()


def reward_batch(margins: list[float] | None = None) -> dict[str, torch.Tensor]:
    """PAIRS as RewardTrainer's collator lays them out: rows [prompt + chosen..., prompt + rejected...],
    with a margin per pair when margins are given."""
    from trl.trainer.reward_trainer import DataCollatorForPreference as RewardCollator

    examples = [{"chosen_ids": _ids(p + " " + c), "rejected_ids": _ids(p + " " + r)} for p, c, r in PAIRS]
    for example, margin in zip(examples, margins or [], strict=False):
        example["margin"] = margin
    return RewardCollator(pad_token_id=0)(examples)


def rewards(model: LlamaForSequenceClassification, batch: dict[str, torch.Tensor]) -> tuple[np.ndarray, ...]:
    """r(x, y_w) and r(x, y_l) for each pair: the scalar head's logit at each row's last token."""
    with torch.no_grad():
        scores = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, 0]
    return tuple(np.split(scores.numpy(), 2))


def reward_trainer_loss(batch: dict[str, torch.Tensor], **config) -> float:
    """RewardTrainer's own compute_loss on the batch, with reward_model(0); config holds
    RewardConfig's fields (center_rewards_coefficient ...)."""
    from trl import RewardConfig, RewardTrainer

    model = reward_model(0)
    trainer = RewardTrainer(model=model, args=training_args(RewardConfig, **config),
                            train_dataset=preference_dataset(), processing_class=tokenizer())
    with torch.no_grad():
        return trainer.compute_loss(model, dict(batch)).item()


# G = 4 completions of one prompt for the GRPO family, 6, 3, 5 and 2 tokens long with their <eos>.
GROUP_PROMPT = "what is two plus two"
GROUP = ["maybe the answer is four", "is four", "the answer is five", "four"]


def completion_group() -> dict[str, torch.Tensor]:
    """GROUP as GRPOTrainer's compute_loss reads a batch: the prompt repeated G times and the
    completions (each ending in <eos>) right-padded, completion_mask = 1 on their tokens."""
    eos = WORDS.index("<eos>")
    completions = [[*_ids(c), eos] for c in GROUP]
    width = max(map(len, completions))
    ids = torch.tensor([c + [0] * (width - len(c)) for c in completions])
    mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in completions])
    prompt = torch.tensor([_ids(GROUP_PROMPT)] * len(GROUP))
    return {"prompt_ids": prompt, "prompt_mask": torch.ones_like(prompt), "completion_ids": ids,
            "completion_mask": mask}


def group_token_logps(model: LlamaForCausalLM, group: dict[str, torch.Tensor]) -> tuple[np.ndarray, ...]:
    """The card's route to log pi(o_t | q, o_<t) on each completion's tokens, (G, T), with its mask."""
    prompt_mask, completion_mask = group["prompt_mask"], group["completion_mask"]
    batch = {"input_ids": torch.cat([group["prompt_ids"], group["completion_ids"]], dim=1),
             "attention_mask": torch.cat([prompt_mask, completion_mask], dim=1),
             "completion_mask": torch.cat([torch.zeros_like(prompt_mask), completion_mask], dim=1)}
    token_logp, mask = completion_token_logps(model, batch)
    width = group["completion_ids"].shape[1]
    return token_logp[:, -width:], mask[:, -width:]


def grpo_trainer_loss(inputs: dict[str, torch.Tensor], **config) -> float:
    """GRPOTrainer's own compute_loss on a completion group with causal_lm(0) as the policy; inputs
    add the advantages and the old (and reference) per-token log-probs to completion_group()'s
    tensors; config holds GRPOConfig's fields (loss_type, beta, epsilon, max_completion_length ...)."""
    from trl import GRPOConfig, GRPOTrainer

    size = len(GROUP)
    args = training_args(GRPOConfig, per_device_train_batch_size=size, num_generations=size, **config)
    # With beta > 0 the trainer loads its reference model from the policy's own path, so the policy is
    # saved (into the working directory) and loaded from there; compute_loss reads the reference
    # log-probs from the inputs all the same.
    causal_lm(0).save_pretrained("trl-policy")
    policy = LlamaForCausalLM.from_pretrained("trl-policy", dtype=torch.float64)
    trainer = GRPOTrainer(model=policy, reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
                          args=args, train_dataset=Dataset.from_dict({"prompt": [GROUP_PROMPT] * size}),
                          processing_class=tokenizer())
    # In eval mode the loss is not divided by the gradient-accumulation steps of a training run.
    trainer.model.eval()
    with torch.no_grad():
        return trainer.compute_loss(trainer.model, inputs).item()
