"""Train one task with one optimizer and record its learning curve and step times.

Inputs: the task's config, the optimizer's config, and (for optimizers that take SGD's hyperparameters)
the SGD grid-search result `results/jorge/<task>/sgd_grid.json`. Output:
`results/jorge/<task>/<optimizer>.json`: per epoch the eval metric and loss and the cumulative training
wall-clock (forward, backward and step; evaluation excluded), per step the optimizer-step and
whole-step times (median and interquartile range), epochs and wall-clock to the target, the
hyperparameters actually used, the optimizer's divergence-handling counts, and the device it trained on
(config `jorge.device`: auto, cpu, cuda, cuda:N; the model and the data live there, and on a GPU every
timed interval ends with a synchronisation, so the times are the GPU's work, not its queueing).

Snakemake runs it through `rule jorge_train` (one job per task and optimizer, `timing_slot=1`).
Tests and other steps call `main(...)` or `train_run(...)` directly.
"""

import dataclasses
import logging
import math
import time
from typing import Any

import numpy as np
import torch
from torch import nn

from workflow_scripts.common import Provenance, read_json, seed_everything, snakemake_step, write_json
from workflow_scripts.common.device import describe_device, resolve_device, synchronize
from workflow_scripts.common.progress import Progress
from workflow_scripts.jorge.optim import Jorge, Shampoo, build_optimizer
from workflow_scripts.jorge.tasks import BenchmarkTaskConfig, Task, build_task, evaluate, metric_of, task_on

logger = logging.getLogger(__name__)

OPTIMIZERS = ("sgd", "adamw", "jorge", "shampoo")
SCHEDULES = ("cosine", "constant")
# What a tuned SGD run hands to the optimizers that transfer its settings.
TRANSFERRED_KEYS = ("lr", "momentum", "weight_decay", "lr_schedule")
# The settings each optimizer actually reads (recorded with its results; the others would only confuse).
RELEVANT_KEYS = {
    "sgd": ("lr", "momentum", "weight_decay", "lr_schedule"),
    "adamw": ("lr", "weight_decay", "lr_schedule", "betas"),
    "jorge": ("lr", "momentum", "weight_decay", "lr_schedule", "decay", "precondition_frequency", "series_guard",
              "max_series_ratio", "max_precond_dim"),
    "shampoo": ("lr", "momentum", "weight_decay", "lr_schedule", "decay", "precondition_frequency", "eps",
                "max_precond_dim"),
}  # fmt: skip


@dataclasses.dataclass(kw_only=True)
class OptimizerConfig:
    """One optimizer's settings, from config["jorge"]["optimizers"][name]."""

    name: str
    transfer_from_sgd: bool  # take lr, momentum, weight decay and schedule from the SGD grid search
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 0.0
    lr_schedule: str = "cosine"  # "cosine" (to zero over the run) or "constant"
    betas: tuple[float, float] = (0.9, 0.999)  # adamw
    decay: float = 0.95  # jorge, shampoo: decay b of the factor statistics
    precondition_frequency: int = 1  # jorge, shampoo: steps between factor/root updates
    series_guard: str = "adapt_decay"  # jorge
    max_series_ratio: float = 0.5  # jorge
    eps: float = 1e-6  # shampoo: added to the statistics' eigenvalues
    max_precond_dim: int = 1024  # jorge, shampoo

    def __post_init__(self):
        if self.name not in OPTIMIZERS:
            raise ValueError(f"jorge.optimizers: unknown optimizer {self.name!r} (known: {', '.join(OPTIMIZERS)})")
        if self.lr_schedule not in SCHEDULES:
            raise ValueError(f"jorge.optimizers.{self.name}.lr_schedule: {self.lr_schedule!r} is not one of {SCHEDULES}")
        if self.lr <= 0:
            raise ValueError(f"jorge.optimizers.{self.name}.lr: must be > 0, got {self.lr}")
        if self.transfer_from_sgd and self.name == "adamw":
            raise ValueError("jorge.optimizers.adamw.transfer_from_sgd: AdamW's step is not SGD's; set it false")
        self.betas = tuple(self.betas)

    def hparams(self, sgd_best: dict[str, Any] | None) -> dict[str, Any]:
        """The hyperparameters this run uses: its own, with SGD's tuned ones on top when transferring."""
        hparams = {key: getattr(self, key) for key in RELEVANT_KEYS[self.name]}
        if self.transfer_from_sgd:
            if sgd_best is None:
                raise ValueError(f"jorge.optimizers.{self.name}: transfer_from_sgd needs the SGD grid result")
            hparams.update({key: sgd_best[key] for key in TRANSFERRED_KEYS})
        return hparams


def learning_rate(base_lr: float, schedule: str, step: int, total_steps: int) -> float:
    if schedule == "constant":
        return base_lr
    return 0.5 * base_lr * (1.0 + math.cos(math.pi * step / total_steps))


def spread(values: list[float]) -> dict[str, float]:
    """Median and interquartile range (timings are kept with their spread, never a lone mean)."""
    if not values:
        return {"median": float("nan"), "p25": float("nan"), "p75": float("nan"), "n": 0}
    q25, q50, q75 = np.percentile(values, [25, 50, 75])
    return {"median": float(q50), "p25": float(q25), "p75": float(q75), "n": len(values)}


def train_run(task: Task, optimizer_name: str, hparams: dict[str, Any], *, epochs: int, batch_size: int,
              seed: int, device, max_steps: int | None = None) -> dict[str, Any]:  # fmt: skip
    """Train a fresh model on `device` (a resolved torch device); evaluate after every epoch. Returns the
    learning curve and timings."""
    seed_everything(seed)
    task = task_on(task, device)
    model = task.make_model().to(device)
    optimizer = build_optimizer(optimizer_name, model.parameters(), hparams)
    generator = torch.Generator().manual_seed(seed)
    n = len(task.x_train)
    steps_per_epoch = math.ceil(n / batch_size)
    total_steps = epochs * steps_per_epoch if max_steps is None else min(max_steps, epochs * steps_per_epoch)
    loss_fn = nn.CrossEntropyLoss()
    initial = evaluate(model, task)
    history = [{"epoch": 0, "train_time_s": 0.0, "metric": metric_of(task, initial), **initial}]
    step_times, opt_step_times, train_time_s, step = [], [], 0.0, 0
    nonfinite_losses = 0
    # Wall time of the whole run (evaluations included); lines are logged outside the timed window.
    progress = Progress(f"{task.config.name} {optimizer_name} steps", total=total_steps, unit="step", logger=logger)
    for epoch in range(1, epochs + 1):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, batch_size):
            if step >= total_steps:
                break
            lr = learning_rate(hparams["lr"], hparams["lr_schedule"], step, total_steps)
            for group in optimizer.param_groups:
                group["lr"] = lr
            idx = order[start : start + batch_size].to(device)
            synchronize(device)
            t0 = time.perf_counter()
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(task.x_train[idx]), task.y_train[idx])
            loss.backward()
            synchronize(device)
            t1 = time.perf_counter()
            optimizer.step()
            synchronize(device)
            t2 = time.perf_counter()
            nonfinite_losses += int(not torch.isfinite(loss))
            step_times.append(t2 - t0)
            opt_step_times.append(t2 - t1)
            train_time_s += t2 - t0
            step += 1
            progress.advance(note=f"epoch {epoch}")
        evaluation = evaluate(model, task)
        history.append({"epoch": epoch, "train_time_s": train_time_s, "metric": metric_of(task, evaluation),
                        **evaluation})  # fmt: skip
        logger.info("%s %s epoch %d: loss %.4f accuracy %.4f (%.2f s training)", task.config.name,
                    optimizer_name, epoch, evaluation["loss"], evaluation["accuracy"], train_time_s)  # fmt: skip
        if step >= total_steps:
            break
    progress.finish()
    reached = next((row for row in history if task.reached(row["metric"])), None)
    counts = optimizer.divergence_counts() if isinstance(optimizer, (Jorge, Shampoo)) else {}
    return {
        "optimizer": optimizer_name,
        "task": task.config.name,
        "metric_name": "accuracy" if task.config.higher_is_better else "loss",
        "target_metric": task.target_metric,
        "optimum_loss": task.optimum_loss,
        "history": history,
        "final_metric": history[-1]["metric"],
        "best_metric": (max if task.config.higher_is_better else min)(row["metric"] for row in history),
        "epochs_to_target": reached["epoch"] if reached else None,
        "wall_clock_to_target_s": reached["train_time_s"] if reached else None,
        "steps": step,
        "steps_per_epoch": steps_per_epoch,
        "step_time_s": spread(step_times),
        "optimizer_step_time_s": spread(opt_step_times),
        "train_time_s": train_time_s,
        "divergence_counts": counts | {"nonfinite_losses": nonfinite_losses},
        "hparams": hparams,
        "batch_size": batch_size,
        "device": describe_device(device),
    }


def main(*, task_config: dict[str, Any], optimizer_config: dict[str, Any], optimizer_name: str, task_name: str,
         sgd_grid: str | None, output: str, seed: int, device: str, threads: int = 1) -> dict[str, Any]:  # fmt: skip
    torch.set_num_threads(threads)
    resolved = resolve_device(device, key="jorge.device")
    task_cfg = BenchmarkTaskConfig(name=task_name, **task_config)
    opt_cfg = OptimizerConfig(name=optimizer_name, **optimizer_config)
    sgd_best = read_json(sgd_grid)["best"] if sgd_grid else None
    hparams = opt_cfg.hparams(sgd_best)
    logger.info("training %s with %s, hyperparameters %s", task_name, optimizer_name, hparams)
    prov = Provenance.start(step="jorge.train",
                            config={"task": task_config, "optimizer": optimizer_config, "hparams": hparams,
                                    "device": device}, seed=seed)  # fmt: skip
    task = build_task(task_cfg, seed, validation=False)
    result = train_run(task, optimizer_name, hparams, epochs=task_cfg.epochs, batch_size=task_cfg.batch_size,
                       seed=seed, device=resolved)  # fmt: skip
    result["threads"] = threads
    write_json(output, result)
    prov.finish([output], device=result["device"])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(task_config=dict(smk.params.task), optimizer_config=dict(smk.params.optimizer),
         optimizer_name=smk.wildcards.optimizer, task_name=smk.wildcards.task,
         sgd_grid=smk.input.get("sgd_grid") or None, output=smk.output.result, seed=smk.params.seed,
         device=smk.params.device, threads=smk.threads)  # fmt: skip
