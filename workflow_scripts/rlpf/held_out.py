"""Evaluate one model on the held-out tasks: sample completions, build, validate and time them.

Per held-out task, `samples` completions are drawn (seeded sampling at `temperature`), measured with the
reward's Measurer (the same harness, protocol and content cache as training), and scored:

    speedup            the measured speedup when correct, else 0 (a failure counts as 0, as in the paper)
    expected_speedup   mean over tasks of the mean speedup of its samples
    expected_speedup_given_correct   the same over correct samples only (tasks without one are skipped)
    pass_at_1          mean over tasks of the fraction of correct samples (the unbiased pass@1)
    fraction_faster    mean over tasks of the fraction of samples faster than the baseline by `faster_margin`

Output: a per-sample table (parquet) and those metrics per task set (JSON).

    from Snakemake: rule rlpf_evaluate (wildcard model: base | sft | rl | dpo)
"""

import dataclasses
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from workflow_scripts.common import Progress, Provenance, read_json, seed_everything, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import describe_device, resolve_device
from workflow_scripts.common.io import atomic_path
from workflow_scripts.rlpf.reward import Measurer, RewardConfig, grade
from workflow_scripts.rlpf.tasks import task_from_dict

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class HeldOutConfig:
    """Config section `rlpf.held_out`."""

    samples: int = schema_default("rlpf.held_out.samples")  # completions per held-out task
    temperature: float = schema_default("rlpf.held_out.temperature")
    max_new_tokens: int = schema_default("rlpf.held_out.max_new_tokens")
    # "faster" means speedup > 1 + margin (timing noise is a few percent)
    faster_margin: float = schema_default("rlpf.held_out.faster_margin")

    def __post_init__(self) -> None:
        if self.samples < 1 or self.max_new_tokens < 1:
            raise ValueError(f"rlpf.held_out.samples and max_new_tokens must be >= 1, got {self.samples}, "
                             f"{self.max_new_tokens}")  # fmt: skip
        if self.temperature <= 0 or self.faster_margin < 0:
            raise ValueError("rlpf.held_out.temperature must be > 0 and faster_margin >= 0")


def generate(model_dir, prompts: list[str], cfg: HeldOutConfig, seed: int, torch_threads: int = 1,
             device="cpu") -> list[list[str]]:  # fmt: skip
    """`cfg.samples` sampled completions per prompt (new text only), sampled on `device` (a resolved torch device)."""
    import torch

    from workflow_scripts.rlpf.train import load_policy

    model, tokenizer = load_policy(model_dir, torch_threads, device)
    model.eval()
    out = []
    progress = Progress("sampled prompts", total=len(prompts), unit="prompt", logger=logger)
    for i, prompt in enumerate(prompts):
        torch.manual_seed(seed + i)  # each prompt's samples do not depend on the others
        enc = tokenizer(prompt, return_tensors="pt").to(model.device)
        with torch.no_grad():
            ids = model.generate(**enc, do_sample=True, temperature=cfg.temperature, max_new_tokens=cfg.max_new_tokens,
                                 num_return_sequences=cfg.samples, pad_token_id=tokenizer.pad_token_id,
                                 eos_token_id=tokenizer.eos_token_id)  # fmt: skip
        new = ids[:, enc["input_ids"].shape[1]:]
        out.append([tokenizer.decode(row, skip_special_tokens=True) for row in new])
        progress.advance()
    progress.finish()
    return out


def score(table: pd.DataFrame, faster_margin: float) -> dict:
    """The paper's metrics from a per-sample table (columns task_id, correct, speedup)."""
    per_task = table.assign(speedup0=table.speedup.where(table.correct, 0.0).fillna(0.0),
                            faster=table.correct & (table.speedup.fillna(0.0) > 1.0 + faster_margin))  # fmt: skip
    grouped = per_task.groupby("task_id")
    given = per_task[per_task.correct].groupby("task_id").speedup.mean()
    return {
        "tasks": int(grouped.ngroups),
        "samples": int(len(table)),
        "expected_speedup": float(grouped.speedup0.mean().mean()),
        "expected_speedup_given_correct": float(given.mean()) if len(given) else None,
        "pass_at_1": float(grouped.correct.mean().mean()),
        "fraction_faster": float(grouped.faster.mean().mean()),
    }


def main(model_name: str, *, tasks_path, model_dir, out_samples, out_metrics, held_out_cfg: dict, reward_cfg: dict,
         measure_cfg: dict, cache_dir, seed: int, torch_threads: int = 1) -> dict:  # fmt: skip
    """`reward_cfg`, `measure_cfg`: config sections rlpf.reward and measure (RewardConfig.from_config)."""
    prov = Provenance.start(step=f"rlpf.held_out.{model_name}",
                            config={"held_out": held_out_cfg, "reward": reward_cfg, "measure": measure_cfg}, seed=seed)
    seed_everything(seed)
    cfg = HeldOutConfig(**held_out_cfg)
    tasks = [t for t in (task_from_dict(r) for r in read_json(tasks_path)["tasks"]) if t.split == "held_out"]
    measurer = Measurer(RewardConfig.from_config(reward_cfg, measure_cfg, seed=seed, cache_dir=Path(cache_dir)))
    # Sampling takes the job's GPU when it has one ("auto"); the cluster profile gives this CPU-timing rule none.
    device = resolve_device("auto")
    completions = generate(model_dir, [t.prompt for t in tasks], cfg, seed, torch_threads, device)
    items = [(t, c) for t, cs in zip(tasks, completions, strict=True) for c in cs]
    rows = []
    for i, ((task, completion), m) in enumerate(zip(items, measurer.measure(items), strict=True)):
        rows.append({"model": model_name, "task_id": task.task_id, "kernel": task.kernel, "task_set": task.task_set,
                     "sample": i % cfg.samples, "completion": completion, "verdict": m.verdict,
                     "correct": m.correct, "speedup": m.speedup, "spread": m.spread,
                     "reward": grade(m, measurer.cfg)})  # fmt: skip
    table = pd.DataFrame(rows)
    metrics = {"model": model_name, "device": describe_device(device), "task_sets": {}}
    for task_set, part in table.groupby("task_set"):
        metrics["task_sets"][task_set] = score(part, cfg.faster_margin)
        logger.info("%s / %s: %s", model_name, task_set, metrics["task_sets"][task_set])
    metrics["verdicts"] = {k: int(v) for k, v in table.verdict.value_counts().items()}
    metrics["mean_reward"] = float(np.mean(table.reward))
    with atomic_path(out_samples, suffix=".parquet") as tmp:
        table.to_parquet(tmp, index=False)
    write_json(out_metrics, metrics)
    prov.finish([out_samples, out_metrics], device=metrics["device"])
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step
    from workflow_scripts.common.model_source import step_model

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    model = step_model(smk, key="rlpf model")
    main(smk.wildcards.model, tasks_path=smk.input.tasks, model_dir=model, out_samples=smk.output.samples,
         out_metrics=smk.output.metrics, held_out_cfg=smk.params.held_out, reward_cfg=smk.params.reward,
         measure_cfg=smk.params.measure, cache_dir=smk.params.cache_dir, seed=smk.params.seed,
         torch_threads=smk.params.torch_threads)  # fmt: skip
