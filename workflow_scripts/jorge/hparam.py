"""Grid search for SGD on a validation split; its best settings are what Jorge (and Shampoo) reuse untuned.

The Jorge paper's recipe: tune SGD well, then run Jorge with SGD's learning-rate schedule, momentum,
weight decay and batch size. Here SGD is trained on the task's training split minus a validation split
(never the test split) for `grid_epochs` epochs at every (lr, weight_decay) pair of the grid; the pair
with the best final validation metric wins (ties: the smaller learning rate, then the smaller decay).

Output: `results/jorge/<task>/sgd_grid.json` with every grid point's final metric and curve and `best`
(lr, momentum, weight_decay, lr_schedule), which `train.py` reads. Run by `rule jorge_sgd_grid`.
"""

import dataclasses
import itertools
import logging
from typing import Any

import torch

from workflow_scripts.common import Progress, Provenance, snakemake_step, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import describe_device, resolve_device
from workflow_scripts.jorge.tasks import BenchmarkTaskConfig, build_task, task_on
from workflow_scripts.jorge.train import SCHEDULES, train_run

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class GridConfig:
    """config["jorge"]["sgd_grid"]."""

    lrs: list[float]  # learning rates tried
    weight_decays: list[float]  # weight decays tried
    momentum: float = schema_default("jorge.sgd_grid.momentum")  # fixed (the paper's SGD baselines use 0.9)
    lr_schedule: str = schema_default("jorge.sgd_grid.lr_schedule")
    # epochs per grid point (short: the ranking, not the final accuracy, matters)
    grid_epochs: int = schema_default("jorge.sgd_grid.grid_epochs")

    def __post_init__(self):
        if not self.lrs or any(lr <= 0 for lr in self.lrs):
            raise ValueError(f"jorge.sgd_grid.lrs: a non-empty list of positive learning rates, got {self.lrs}")
        if not self.weight_decays or any(wd < 0 for wd in self.weight_decays):
            raise ValueError(f"jorge.sgd_grid.weight_decays: a non-empty list of values >= 0, got {self.weight_decays}")
        if not 0.0 <= self.momentum < 1.0:
            raise ValueError(f"jorge.sgd_grid.momentum: must be in [0, 1), got {self.momentum}")
        if self.lr_schedule not in SCHEDULES:
            raise ValueError(f"jorge.sgd_grid.lr_schedule: {self.lr_schedule!r} is not one of {SCHEDULES}")
        if self.grid_epochs < 1:
            raise ValueError(f"jorge.sgd_grid.grid_epochs: must be >= 1, got {self.grid_epochs}")


def grid_search(task_cfg: BenchmarkTaskConfig, grid: GridConfig, seed: int, device) -> dict[str, Any]:
    task = task_on(build_task(task_cfg, seed, validation=True), device)  # moved once, not per grid point
    points = []
    progress = Progress(f"{task_cfg.name} SGD grid points", total=len(grid.lrs) * len(grid.weight_decays),
                        unit="point", logger=logger)  # fmt: skip
    for lr, weight_decay in itertools.product(sorted(grid.lrs), sorted(grid.weight_decays)):
        hparams = {"lr": lr, "momentum": grid.momentum, "weight_decay": weight_decay, "lr_schedule": grid.lr_schedule}
        run = train_run(task, "sgd", hparams, epochs=grid.grid_epochs, batch_size=task_cfg.batch_size, seed=seed,
                        device=device)  # fmt: skip
        points.append({**hparams, "final_metric": run["final_metric"],
                       "curve": [row["metric"] for row in run["history"]]})  # fmt: skip
        logger.info("SGD lr %g weight decay %g: validation %s %.4f", lr, weight_decay, run["metric_name"],
                    run["final_metric"])  # fmt: skip
        progress.advance()
    progress.finish()
    sign = 1.0 if task_cfg.higher_is_better else -1.0
    finite = [p for p in points if p["final_metric"] == p["final_metric"]]  # NaN (diverged) never wins
    if not finite:
        raise RuntimeError(f"jorge.sgd_grid: every grid point diverged on task {task_cfg.name}; lower jorge.sgd_grid.lrs")
    best = max(finite, key=lambda p: (sign * p["final_metric"], -p["lr"], -p["weight_decay"]))
    return {
        "task": task_cfg.name,
        "metric_name": "accuracy" if task_cfg.higher_is_better else "loss",
        "grid_epochs": grid.grid_epochs,
        "batch_size": task_cfg.batch_size,
        "points": points,
        "device": describe_device(device),
        "best": {key: best[key] for key in ("lr", "momentum", "weight_decay", "lr_schedule", "final_metric")},
    }


def main(*, task_config: dict[str, Any], grid_config: dict[str, Any], task_name: str, output: str, seed: int,
         device: str, threads: int = 1) -> dict[str, Any]:  # fmt: skip
    torch.set_num_threads(threads)
    resolved = resolve_device(device, key="jorge.device")
    task_cfg = BenchmarkTaskConfig(name=task_name, **task_config)
    grid = GridConfig(**grid_config)
    prov = Provenance.start(step="jorge.sgd_grid", config={"task": task_config, "grid": grid_config, "device": device},
                            seed=seed)  # fmt: skip
    result = grid_search(task_cfg, grid, seed, resolved)
    logger.info("best SGD settings for %s: %s", task_name, result["best"])
    write_json(output, result)
    prov.finish([output], device=result["device"])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(task_config=dict(smk.params.task), grid_config=dict(smk.params.grid), task_name=smk.wildcards.task,
         output=smk.output.grid, seed=smk.params.seed, device=smk.params.device,
         threads=smk.threads)  # fmt: skip
