"""Cost of a training iteration and of its parts vs layer size: SGD, AdamW, Jorge, Shampoo.

For each size d (a d x d weight matrix, so both factors are d x d), on `device`:
- `jorge_update_s`: one Jorge factor update (matrix products only, `optim.jorge_root_update`);
- `shampoo_update_s`: one exact inverse fourth root by eigendecomposition (`optim.exact_inverse_root`);
- `sgd_step_s`, `adamw_step_s`, `jorge_step_s`, `shampoo_step_s`: the optimizer step alone on that layer
  (preconditioner updated every step, momentum 0.9), and the ratios Jorge/SGD and Shampoo/SGD;
- `iteration_s[optimizer]`: one training iteration of a d x d linear layer on `batch_size` inputs (zero the
  gradients, forward, mean-squared loss, backward, optimizer step) with the preconditioner updated every
  `precondition_frequency` steps as the optimizer is configured (`jorge.optimizers`): each timed sample is
  a cycle of `frequency` consecutive iterations, which holds exactly one update, divided by `frequency`,
  so the update's cost is amortised as it is in training; `forward_backward_s` is the iteration without
  an optimizer step; ratios of the medians to SGD's and AdamW's;
- `flops_per_iteration[optimizer]`: the product FLOPs of one such iteration counted by FlopCounterMode on
  the real step (a cycle, divided by its length) beside `flops.py`'s formulas;
- the machine's throughputs for the cost model (`cost_model.py`): `matmul_s` (one d x d @ d x d) and
  `eigh_s` (one d x d symmetric eigendecomposition).
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
from torch import nn

from workflow_scripts.common import Provenance, seed_everything, snakemake_step, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.device import describe_device, resolve_device
from workflow_scripts.jorge import flops
from workflow_scripts.jorge.optim import (
    Jorge,
    Shampoo,
    build_optimizer,
    exact_inverse_root,
    initial_root,
    jorge_root_update,
)
from workflow_scripts.jorge.train import OPTIMIZERS, OptimizerConfig, spread

logger = logging.getLogger(__name__)

# The optimizer settings that change what a step computes; the others (learning rate, decay, ...) change
# the numbers, not the work, so the timing runs take the optimizer's defaults for them.
COST_KEYS = ("precondition_frequency", "max_precond_dim")
TIMING_HPARAMS = {"lr": 1e-3, "momentum": 0.9, "weight_decay": 0.0}


@dataclasses.dataclass(kw_only=True)
class StepCostConfig:
    """config["jorge"]["step_cost"]."""

    sizes: list[int]  # layer sizes d (d x d weights)
    repeats: int = schema_default("jorge.step_cost.repeats")  # timed calls per measurement
    warmup: int = schema_default("jorge.step_cost.warmup")  # untimed calls first (allocator, kernel caches)
    device: str = schema_default("jorge.step_cost.device")  # "cpu" or "cuda"
    batch_size: int = schema_default("jorge.step_cost.batch_size")  # inputs per iteration of the timed layer

    def __post_init__(self):
        if not self.sizes or any(d < 2 for d in self.sizes):
            raise ValueError(f"jorge.step_cost.sizes: a non-empty list of sizes >= 2, got {self.sizes}")
        if self.repeats < 3:
            raise ValueError(f"jorge.step_cost.repeats: at least 3 (a spread needs several), got {self.repeats}")
        if self.warmup < 0:
            raise ValueError(f"jorge.step_cost.warmup: must be >= 0, got {self.warmup}")
        if self.batch_size < 1:
            raise ValueError(f"jorge.step_cost.batch_size: must be >= 1, got {self.batch_size}")
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"jorge.step_cost.device: 'cpu' or 'cuda', got {self.device!r}")
        resolve_device(self.device, key="jorge.step_cost.device")  # `cuda` without a GPU: stop, naming the fix


def cost_settings(optimizers: dict[str, dict[str, int]] | None) -> dict[str, dict[str, int]]:
    """{optimizer: {precondition_frequency, max_precond_dim}} for all four optimizers: as `optimizers` (the cost
    keys of config["jorge"]["optimizers"]) sets them, else OptimizerConfig's defaults."""
    optimizers = dict(optimizers or {})
    for name, settings in optimizers.items():
        if name not in OPTIMIZERS:
            raise ValueError(f"jorge.optimizers: unknown optimizer {name!r} (known: {', '.join(OPTIMIZERS)})")
        unknown = set(settings) - set(COST_KEYS)
        if unknown:
            raise ValueError(f"jorge.optimizers.{name}: {sorted(unknown)} do not set the cost (known: {COST_KEYS})")
    defaults = {key: getattr(OptimizerConfig, key) for key in COST_KEYS}
    return {name: defaults | dict(optimizers.get(name, {})) for name in OPTIMIZERS}


def time_call(fn: Callable[[], Any], *, repeats: int, warmup: int, device: str, per_call: int = 1) -> dict[str, float]:
    """Median and interquartile range of `fn`'s time over `repeats` calls, each divided by `per_call`."""
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) / per_call)
    return spread(times)


def step_time(optimizer_cls, size: int, cfg: StepCostConfig, generator: torch.Generator, **kwargs) -> dict[str, float]:
    weight = torch.nn.Parameter(torch.randn(size, size, device=cfg.device))
    grad = torch.randn(size, size, generator=generator).to(cfg.device) / size
    optimizer = optimizer_cls([weight], lr=1e-3, **kwargs)

    def one_step():
        weight.grad = grad
        optimizer.step()

    return time_call(one_step, repeats=cfg.repeats, warmup=cfg.warmup, device=cfg.device)


def training_cycle(name: str, size: int, cfg: StepCostConfig, settings: dict[str, dict[str, int]],
                   generator: torch.Generator) -> tuple[Callable, int]:  # fmt: skip
    """(a function running `frequency` training iterations of a d x d linear layer, frequency).

    name "none" runs the iterations without an optimizer step (forward + backward alone)."""
    layer = nn.Linear(size, size, bias=False).to(cfg.device)
    inputs = torch.randn(cfg.batch_size, size, generator=generator).to(cfg.device)  # (B, d)
    targets = torch.randn(cfg.batch_size, size, generator=generator).to(cfg.device)  # (B, d)
    optimizer = None
    frequency = 1
    if name != "none":
        frequency = settings[name]["precondition_frequency"] if name in flops.SECOND_ORDER else 1
        optimizer = build_optimizer(name, layer.parameters(), TIMING_HPARAMS | settings[name])

    def cycle():
        for _ in range(frequency):
            layer.zero_grad(set_to_none=True)
            loss = nn.functional.mse_loss(layer(inputs), targets)
            loss.backward()
            if optimizer is not None:
                optimizer.step()

    return cycle, frequency


def iteration_cost(size: int, cfg: StepCostConfig, settings: dict[str, dict[str, int]],
                   generator: torch.Generator) -> dict[str, Any]:  # fmt: skip
    """Per-iteration time (amortised over the update frequency) and FLOPs of each optimizer on a d x d layer."""
    times, counted, analytic, frequencies = {}, {}, {}, {}
    for name in ("none", *OPTIMIZERS):
        cycle, frequency = training_cycle(name, size, cfg, settings, generator)
        cycle()  # the first update creates the factors (Jorge's start scale, Shampoo's statistics): not counted
        counted[name] = flops.counted_flops(cycle) / frequency
        times[name] = time_call(cycle, repeats=cfg.repeats, warmup=cfg.warmup, device=cfg.device, per_call=frequency)
        layer_flops = flops.product_flops(flops.layer_products(size, size, cfg.batch_size, input_grad=False))
        if name != "none":
            layer_flops += flops.optimizer_flops_per_iteration(name, size, size, frequency=frequency,
                                                               max_precond_dim=settings[name]["max_precond_dim"])  # fmt: skip
            frequencies[name] = frequency
        analytic[name] = layer_flops
    iteration = {name: times[name] for name in OPTIMIZERS}
    ratios = {f"{a}_over_{b}_iteration": iteration[a]["median"] / iteration[b]["median"]
              for a in ("jorge", "shampoo", "adamw") for b in ("sgd", "adamw", "shampoo") if a != b}  # fmt: skip
    return {
        "forward_backward_s": times["none"],
        "iteration_s": iteration,
        "precondition_frequency": frequencies,
        "iteration_ratios": ratios,
        "flops_per_iteration": {name: {"counted": counted[name], "formula": analytic[name]} for name in counted},
    }


def measure(cfg: StepCostConfig, seed: int, settings: dict[str, dict[str, int]] | None = None) -> list[dict[str, Any]]:
    """The rows of step_cost.json; `settings` as `cost_settings` returns them (default: every optimizer's defaults)."""
    settings = settings or cost_settings(None)
    seed_everything(seed)
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for size in cfg.sizes:
        grad = torch.randn(size, size, generator=generator).to(cfg.device) / size
        gram = grad @ grad.T
        root = initial_root(gram, 1e-12)
        timed = dict(repeats=cfg.repeats, warmup=cfg.warmup, device=cfg.device)
        jorge = time_call(lambda root=root, gram=gram: jorge_root_update(root, gram, decay=0.95, series_guard="adapt_decay",
                                                                         max_series_ratio=0.5), **timed)  # fmt: skip
        stat = gram + 1e-3 * torch.eye(size, device=cfg.device)
        shampoo = time_call(lambda stat=stat: exact_inverse_root(stat, 1e-6), **timed)
        matmul = time_call(lambda stat=stat: stat @ stat, **timed)
        eigh = time_call(lambda stat=stat: torch.linalg.eigh(stat), **timed)
        sgd_step = step_time(torch.optim.SGD, size, cfg, generator, momentum=0.9)
        adamw_step = step_time(torch.optim.AdamW, size, cfg, generator)
        jorge_step = step_time(Jorge, size, cfg, generator, momentum=0.9)
        shampoo_step = step_time(Shampoo, size, cfg, generator, momentum=0.9)
        row = {
            "size": size,
            "jorge_update_s": jorge,
            "shampoo_update_s": shampoo,
            "shampoo_over_jorge_update": shampoo["median"] / jorge["median"],
            "matmul_s": matmul,
            "eigh_s": eigh,
            "sgd_step_s": sgd_step,
            "adamw_step_s": adamw_step,
            "jorge_step_s": jorge_step,
            "shampoo_step_s": shampoo_step,
            "jorge_over_sgd_step": jorge_step["median"] / sgd_step["median"],
            "shampoo_over_sgd_step": shampoo_step["median"] / sgd_step["median"],
            **iteration_cost(size, cfg, settings, generator),
        }
        logger.info("d=%d: update Jorge %.3g s, Shampoo %.3g s; step ratio Jorge/SGD %.1f, Shampoo/SGD %.1f; "
                    "iteration ratio Jorge/SGD %.2f, Shampoo/SGD %.2f, Jorge/Shampoo %.2f", size, jorge["median"],
                    shampoo["median"], row["jorge_over_sgd_step"], row["shampoo_over_sgd_step"],
                    row["iteration_ratios"]["jorge_over_sgd_iteration"],
                    row["iteration_ratios"]["shampoo_over_sgd_iteration"],
                    row["iteration_ratios"]["jorge_over_shampoo_iteration"])  # fmt: skip
        rows.append(row)
    return rows


def main(*, step_cost_config: dict[str, Any], output: str, seed: int, threads: int = 1,
         optimizers: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:  # fmt: skip
    torch.set_num_threads(threads)
    cfg = StepCostConfig(**step_cost_config)
    settings = cost_settings(optimizers)
    prov = Provenance.start(step="jorge.step_cost", config=step_cost_config | {"optimizers": settings}, seed=seed)
    result = {"device": describe_device(cfg.device), "threads": threads, "batch_size": cfg.batch_size,
              "optimizer_settings": settings, "rows": measure(cfg, seed, settings)}  # fmt: skip
    write_json(output, result)
    prov.finish([output], device=result["device"])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(step_cost_config=dict(smk.params.step_cost), output=smk.output.step_cost, seed=smk.params.seed,
         threads=smk.threads, optimizers=dict(smk.params.optimizers))  # fmt: skip
