"""The performance (reward) model: learn from measured pairs which of two completions runs faster.

A scalar head on the HPC-Coder model (GPT2ForSequenceClassification, one label) trained with TRL's
RewardTrainer on (prompt, chosen, rejected) pairs of measured candidates of the training kernels (the same
pairs as DPO: chosen's measured reward beats rejected's by at least `min_reward_gap`). Its pairwise ranking
accuracy is measured on pairs built the same way from candidates of the held-out kernels, which it never
saw (the paper's reward model ranked 93% of its held-out pairs correctly). Accuracy on the training pairs
is reported beside it, and the share of held-out pairs a constant "the serial one is faster" rule gets
right, so the number can be read against a trivial baseline.

Output: metrics JSON (accuracy, pairs, training loss). The model itself is not used as a reward here.

    from Snakemake: rule rlpf_reward_model
"""

import dataclasses
import logging
import os
import shutil

import pandas as pd

from workflow_scripts.common import Provenance, read_json, seed_everything, write_json
from workflow_scripts.rlpf.task import SERIAL_LINE, task_from_dict
from workflow_scripts.rlpf.train import dpo_rows

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class RewardModelConfig:
    """Config section `rlpf.reward_model`."""

    max_steps: int = 60
    learning_rate: float = 1e-3
    per_device_batch_size: int = 8
    min_reward_gap: float = 0.05

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.per_device_batch_size < 1:
            raise ValueError("rlpf.reward_model.max_steps and per_device_batch_size must be >= 1")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"rlpf.reward_model.learning_rate must be in (0, 1), got {self.learning_rate}")


def pairs_for(tasks, candidates: pd.DataFrame, split: str, gap: float) -> list[dict]:
    """DPO-style pairs of the tasks of one split (dpo_rows only takes training tasks; relabel for held-out)."""
    relabelled = [dataclasses.replace(t, split="train" if t.split == split else "other") for t in tasks]
    return dpo_rows(relabelled, candidates, gap)


def pair_accuracy(model, tokenizer, pairs: list[dict]) -> float | None:
    import torch

    if not pairs:
        return None
    model.eval()
    right = 0
    with torch.no_grad():
        for p in pairs:
            enc = tokenizer([p["prompt"] + p["chosen"], p["prompt"] + p["rejected"]], return_tensors="pt",
                            padding=True)  # fmt: skip
            scores = model(**enc).logits[:, 0]
            right += int(scores[0] > scores[1])
    return right / len(pairs)


def main(*, tasks_path, train_candidates, held_out_candidates, model_dir, out_metrics, cfg: dict, seed: int) -> dict:
    from datasets import Dataset
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from trl import RewardConfig as TRLRewardConfig
    from trl import RewardTrainer

    prov = Provenance.start(step="rlpf.reward_model", config=cfg, seed=seed)
    rm_cfg = RewardModelConfig(**cfg)
    seed_everything(seed)
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    train_pairs = pairs_for(tasks, pd.read_parquet(train_candidates), "train", rm_cfg.min_reward_gap)
    test_pairs = pairs_for(tasks, pd.read_parquet(held_out_candidates), "held_out", rm_cfg.min_reward_gap)
    logger.info("reward model: %d training pairs, %d held-out pairs", len(train_pairs), len(test_pairs))
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    tokenizer.padding_side = "right"  # GPT-2's sequence head reads the last non-pad token
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir), num_labels=1, dtype="float32")
    model.config.pad_token_id = tokenizer.pad_token_id
    args = TRLRewardConfig(output_dir=str(out_metrics) + ".work", max_steps=rm_cfg.max_steps,
                           learning_rate=rm_cfg.learning_rate, per_device_train_batch_size=rm_cfg.per_device_batch_size,
                           logging_steps=5, use_cpu=True, bf16=False, report_to="none", save_strategy="no", seed=seed,
                           max_length=model.config.n_positions, disable_tqdm=True)  # fmt: skip
    trainer = RewardTrainer(model=model, args=args, train_dataset=Dataset.from_list(
        [{k: p[k] for k in ("prompt", "chosen", "rejected")} for p in train_pairs]), processing_class=tokenizer)
    trainer.train()
    serial_first = [p for p in test_pairs if p["chosen"].strip() == SERIAL_LINE or p["rejected"].strip() == SERIAL_LINE]
    metrics = {
        "train_pairs": len(train_pairs),
        "held_out_pairs": len(test_pairs),
        "train_accuracy": pair_accuracy(trainer.model, tokenizer, train_pairs),
        "held_out_accuracy": pair_accuracy(trainer.model, tokenizer, test_pairs),
        # The trivial rule "the all-serial completion wins" on the held-out pairs that contain one.
        "held_out_serial_rule_accuracy": (sum(p["chosen"].strip() == SERIAL_LINE for p in serial_first)
                                          / len(serial_first)) if serial_first else None,  # fmt: skip
        "loss": [h["loss"] for h in trainer.state.log_history if "loss" in h],
    }
    logger.info("reward model: held-out pairwise accuracy %s (train %s)", metrics["held_out_accuracy"],
                metrics["train_accuracy"])  # fmt: skip
    shutil.rmtree(args.output_dir, ignore_errors=True)
    write_json(out_metrics, metrics)
    prov.finish([out_metrics])
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(tasks_path=smk.input.tasks, train_candidates=smk.input.candidates,
         held_out_candidates=smk.input.held_out_candidates, model_dir=smk.input.model, out_metrics=smk.output.metrics,
         cfg=smk.params.reward_model, seed=smk.params.seed)  # fmt: skip
