"""Cost of one preconditioner update and of one optimizer step, vs layer size: Jorge, Shampoo, SGD.

For each size d (a d x d weight matrix, so both factors are d x d):
- `jorge_update_s`: one Jorge factor update (matrix products only, `optim.jorge_root_update`);
- `shampoo_update_s`: one exact inverse fourth root by eigendecomposition (`optim.exact_inverse_root`);
- `sgd_step_s`, `jorge_step_s`, `shampoo_step_s`: a whole optimizer step on that layer (preconditioner
  updated every step, momentum 0.9), and the ratios Jorge/SGD and Shampoo/SGD.
Every timing is repeated (`repeats`) after `warmup` calls; the median and interquartile range are kept.
On CUDA the device is synchronised around each timed call.

Output: `results/jorge/step_cost.json` (rule `jorge_step_cost`, `timing_slot=1`);
`benchmarks/jorge_step_cost.py` prints the same table from the command line.
"""

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

import torch

from workflow_scripts.common import Provenance, configure_logging, seed_everything, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import describe_device, resolve_device
from workflow_scripts.jorge.optim import Jorge, Shampoo, exact_inverse_root, initial_root, jorge_root_update
from workflow_scripts.jorge.train import spread

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class StepCostConfig:
    """config["jorge"]["step_cost"]."""

    sizes: list[int]  # layer sizes d (d x d weights)
    repeats: int = schema_default("jorge.step_cost.repeats")  # timed calls per measurement
    warmup: int = schema_default("jorge.step_cost.warmup")  # untimed calls first (allocator, kernel caches)
    device: str = schema_default("jorge.step_cost.device")  # "cpu" or "cuda"

    def __post_init__(self):
        if not self.sizes or any(d < 2 for d in self.sizes):
            raise ValueError(f"jorge.step_cost.sizes: a non-empty list of sizes >= 2, got {self.sizes}")
        if self.repeats < 3:
            raise ValueError(f"jorge.step_cost.repeats: at least 3 (a spread needs several), got {self.repeats}")
        if self.warmup < 0:
            raise ValueError(f"jorge.step_cost.warmup: must be >= 0, got {self.warmup}")
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"jorge.step_cost.device: 'cpu' or 'cuda', got {self.device!r}")
        resolve_device(self.device, key="jorge.step_cost.device")  # `cuda` without a GPU: stop, naming the fix


def time_call(fn: Callable[[], Any], *, repeats: int, warmup: int, device: str) -> dict[str, float]:
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return spread(times)


def step_time(optimizer_cls, size: int, cfg: StepCostConfig, generator: torch.Generator) -> dict[str, float]:
    weight = torch.nn.Parameter(torch.randn(size, size, device=cfg.device))
    grad = torch.randn(size, size, generator=generator).to(cfg.device) / size
    optimizer = optimizer_cls([weight], lr=1e-3, momentum=0.9)

    def one_step():
        weight.grad = grad
        optimizer.step()

    return time_call(one_step, repeats=cfg.repeats, warmup=cfg.warmup, device=cfg.device)


def measure(cfg: StepCostConfig, seed: int) -> list[dict[str, Any]]:
    seed_everything(seed)
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for size in cfg.sizes:
        grad = torch.randn(size, size, generator=generator).to(cfg.device) / size
        gram = grad @ grad.T
        root = initial_root(gram, 1e-12)
        jorge = time_call(lambda root=root, gram=gram: jorge_root_update(root, gram, decay=0.95, series_guard="adapt_decay",
                                                                         max_series_ratio=0.5),
                          repeats=cfg.repeats, warmup=cfg.warmup, device=cfg.device)  # fmt: skip
        stat = gram + 1e-3 * torch.eye(size, device=cfg.device)
        shampoo = time_call(lambda stat=stat: exact_inverse_root(stat, 1e-6), repeats=cfg.repeats, warmup=cfg.warmup,
                            device=cfg.device)  # fmt: skip
        sgd_step = step_time(torch.optim.SGD, size, cfg, generator)
        jorge_step = step_time(Jorge, size, cfg, generator)
        shampoo_step = step_time(Shampoo, size, cfg, generator)
        row = {
            "size": size,
            "jorge_update_s": jorge,
            "shampoo_update_s": shampoo,
            "shampoo_over_jorge_update": shampoo["median"] / jorge["median"],
            "sgd_step_s": sgd_step,
            "jorge_step_s": jorge_step,
            "shampoo_step_s": shampoo_step,
            "jorge_over_sgd_step": jorge_step["median"] / sgd_step["median"],
            "shampoo_over_sgd_step": shampoo_step["median"] / sgd_step["median"],
        }
        logger.info("d=%d: update Jorge %.3g s, Shampoo %.3g s; step ratio Jorge/SGD %.1f, Shampoo/SGD %.1f",
                    size, jorge["median"], shampoo["median"], row["jorge_over_sgd_step"],
                    row["shampoo_over_sgd_step"])  # fmt: skip
        rows.append(row)
    return rows


def main(*, step_cost_config: dict[str, Any], output: str, seed: int, threads: int = 1) -> dict[str, Any]:
    torch.set_num_threads(threads)
    cfg = StepCostConfig(**step_cost_config)
    prov = Provenance.start(step="jorge.step_cost", config=step_cost_config, seed=seed)
    result = {"device": describe_device(cfg.device), "threads": threads, "rows": measure(cfg, seed)}
    write_json(output, result)
    prov.finish([output], device=result["device"])
    return result


if __name__ == "__main__":
    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(step_cost_config=dict(smk.params.step_cost), output=smk.output.step_cost, seed=smk.params.seed,
         threads=smk.threads)  # fmt: skip
