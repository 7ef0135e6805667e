"""Per-iteration cost of SGD, AdamW, Jorge and Shampoo projected to the paper's model sizes, and where Jorge's
matmul-only update beats Shampoo's eigendecomposition.

A machine model turns the FLOP counts of `flops.py` into time:

    iteration = forward + backward      sum over the model's products of product_s(a, b, c)
              + optimizer, every step   its products (Jorge, Shampoo: preconditioning; Shampoo: statistics)
              + optimizer update / F    the update's products and eigendecompositions, once every F steps
              + elementwise             per parameter (momentum, Adam's moments, grafting)

with F each optimizer's configured `precondition_frequency` and the sides above `max_precond_dim` left
unpreconditioned, as the optimizers do. Two machines:

- "measured": this run's own throughputs from `results/jorge/step_cost.json`: a product (a, b, c) runs at
  the measured d x d @ d x d rate of d = (abc)^(1/3), an eigendecomposition of d at the measured eigh rate
  of d (log-log interpolation between the measured sizes, the end values beyond them), elementwise work at
  the measured SGD or AdamW step time per parameter of the largest layer (Jorge and Shampoo: SGD's; their
  products are counted apart), plus a fixed cost per weight matrix and iteration (Python, autograd and the
  optimizer's loop: what a tiny layer pays beyond its arithmetic), fitted per optimizer as measured minus
  modelled time of the smallest measured layer. Beyond the largest measured size the rates are
  extrapolated (held), which every note says. The model is checked against the measured iterations of the
  other sizes (`validation`: modelled / measured time per optimizer and size). On a CPU the model runs
  low for Jorge's larger layers: its factor products meet subnormal floats, which x86 cores handle slowly
  (with `torch.set_flush_denormal(True)` a d=256 Jorge iteration took about half the time here); the
  timings keep the default, as the training runs do.
- "gpu_assumed": the rates in `jorge.projection.gpu_assumed` (product throughput and launch latency, eigh
  throughput and latency, memory bandwidth with `BYTES_PER_PARAM` per optimizer): ASSUMED, not measured;
  every number built on them says so.

Elementwise work of the forward and backward (normalisation, activations) is left out: it is the same for
every optimizer, so leaving it out raises every ratio to SGD's (an upper bound on the optimizers' overhead).

Outputs `results/jorge/cost_projection.json` (rule `jorge_cost_projection`): per model and machine the
per-iteration time of each optimizer, its ratios to SGD's, AdamW's and Shampoo's, the FLOPs (forward +
backward counted by FlopCounterMode beside the formulas; each optimizer's per iteration), and the Shampoo
frequency at which Shampoo would cost what Jorge does; per machine the layer sizes at which Jorge's update
(and a whole iteration) is cheaper than Shampoo's, and the same read off the measured rows; and `notes`,
sentences generated from those numbers.
"""


import dataclasses
import logging
import math
from typing import Any

import numpy as np
import torch

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.jorge import flops
from workflow_scripts.jorge.tasks import NGramLM

logger = logging.getLogger(__name__)

ARCHS = ("resnet50", "ngram_lm")
# fp32 bytes each optimizer's elementwise step reads and writes per parameter (GPU model only):
# SGD with momentum reads p, g, buf and writes buf, p; AdamW reads p, g, m, v and writes p, m, v;
# Jorge and Shampoo add the grafting pass (read G and the preconditioned P for their norms, write P rescaled).
BYTES_PER_PARAM = {"sgd": 20, "adamw": 28, "jorge": 32, "shampoo": 32}
MACHINES = ("measured", "gpu_assumed")


@dataclasses.dataclass(kw_only=True)
class ProjectionModelConfig:
    """One model to project to, from config["jorge"]["projection"]["models"][name]."""

    name: str
    arch: str  # "resnet50" (ImageNet) or "ngram_lm" (the study's LM at a given size)
    batch_size: int  # examples per iteration
    image_size: int = 224  # resnet50
    num_classes: int = 1000  # resnet50
    vocab_size: int = 256  # ngram_lm
    context_tokens: int = 3  # ngram_lm
    embed_dim: int = 128  # ngram_lm
    hidden_dim: int = 1024  # ngram_lm

    def __post_init__(self):
        if self.arch not in ARCHS:
            raise ValueError(f"jorge.projection.models.{self.name}.arch: {self.arch!r} is not one of {ARCHS}")
        for key in ("batch_size", "image_size", "num_classes", "vocab_size", "context_tokens", "embed_dim",
                    "hidden_dim"):  # fmt: skip
            if getattr(self, key) < 1:
                raise ValueError(f"jorge.projection.models.{self.name}.{key}: must be >= 1, got {getattr(self, key)}")

    def count(self) -> flops.ModelCount:
        if self.arch == "resnet50":
            example = torch.zeros(self.batch_size, 3, self.image_size, self.image_size)
            return flops.count_model(flops.resnet50(self.num_classes), example, torch.zeros(self.batch_size, dtype=torch.long))
        model = NGramLM(self.vocab_size, self.context_tokens, self.embed_dim, self.hidden_dim)
        example = torch.zeros(self.batch_size, self.context_tokens, dtype=torch.long)
        return flops.count_model(model, example, torch.zeros(self.batch_size, dtype=torch.long))


@dataclasses.dataclass(kw_only=True)
class GPUAssumedConfig:
    """config["jorge"]["projection"]["gpu_assumed"]: rates ASSUMED for a GPU, not measured here."""

    matmul_flop_per_s: float = schema_default("jorge.projection.gpu_assumed.matmul_flop_per_s")
    matmul_latency_s: float = schema_default("jorge.projection.gpu_assumed.matmul_latency_s")
    eigh_flop_per_s: float = schema_default("jorge.projection.gpu_assumed.eigh_flop_per_s")  # nominal 9 d^3 FLOPs
    eigh_latency_s: float = schema_default("jorge.projection.gpu_assumed.eigh_latency_s")
    memory_bytes_per_s: float = schema_default("jorge.projection.gpu_assumed.memory_bytes_per_s")
    label: str = schema_default("jorge.projection.gpu_assumed.label")  # what the rates stand for

    def __post_init__(self):
        for key in ("matmul_flop_per_s", "eigh_flop_per_s", "memory_bytes_per_s"):
            if getattr(self, key) <= 0:
                raise ValueError(f"jorge.projection.gpu_assumed.{key}: must be > 0, got {getattr(self, key)}")
        for key in ("matmul_latency_s", "eigh_latency_s"):
            if getattr(self, key) < 0:
                raise ValueError(f"jorge.projection.gpu_assumed.{key}: must be >= 0, got {getattr(self, key)}")

    def product_s(self, product: flops.Product) -> float:
        return self.matmul_latency_s + flops.product_flops([product]) / self.matmul_flop_per_s

    def eigh_s(self, d: int) -> float:
        return self.eigh_latency_s + flops.EIGH_FLOPS_PER_D3 * d**3 / self.eigh_flop_per_s

    def elementwise_s(self, optimizer: str, parameters: int) -> float:
        return BYTES_PER_PARAM[optimizer] * parameters / self.memory_bytes_per_s

    def overhead_s(self, optimizer: str) -> float:
        return 0.0  # the launch latencies stand for it

    def describe(self) -> dict[str, Any]:
        return {"kind": "assumed", **dataclasses.asdict(self), "bytes_per_param": BYTES_PER_PARAM}


class MeasuredMachine:
    """This run's throughputs, read from step_cost.json's rows."""

    def __init__(self, step_cost: dict[str, Any]):
        rows = sorted(step_cost["rows"], key=lambda row: row["size"])
        self.sizes = np.array([row["size"] for row in rows], dtype=float)
        self.matmul_rate = np.array([2 * row["size"] ** 3 / row["matmul_s"]["median"] for row in rows])
        self.eigh_rate = np.array([flops.EIGH_FLOPS_PER_D3 * row["size"] ** 3 / row["eigh_s"]["median"] for row in rows])
        largest = rows[-1]
        per_param = {name: largest[f"{name}_step_s"]["median"] / largest["size"] ** 2 for name in ("sgd", "adamw")}
        self.elementwise_per_param_s = per_param | {"jorge": per_param["sgd"], "shampoo": per_param["sgd"]}
        self.device, self.threads = step_cost["device"], step_cost["threads"]
        self.overhead_per_weight_s = {name: 0.0 for name in flops.OPTIMIZERS}
        smallest, tokens = rows[0], step_cost["batch_size"]
        modelled = project_model(self, benchmark_layer(smallest["size"], tokens), step_cost["optimizer_settings"])
        self.overhead_per_weight_s = {name: max(0.0, smallest["iteration_s"][name]["median"] - modelled["iteration_s"][name])
                                      for name in flops.OPTIMIZERS}  # fmt: skip

    def _rate(self, rates: np.ndarray, d: float) -> float:
        # log-log interpolation; np.interp holds the end values beyond the measured sizes
        return float(np.exp(np.interp(math.log(max(d, 1.0)), np.log(self.sizes), np.log(rates))))

    def product_s(self, product: flops.Product) -> float:
        return flops.product_flops([product]) / self._rate(self.matmul_rate, flops.geometric_size(product))

    def eigh_s(self, d: int) -> float:
        return flops.EIGH_FLOPS_PER_D3 * d**3 / self._rate(self.eigh_rate, d)

    def elementwise_s(self, optimizer: str, parameters: int) -> float:
        return self.elementwise_per_param_s[optimizer] * parameters

    def overhead_s(self, optimizer: str) -> float:
        return self.overhead_per_weight_s[optimizer]

    def describe(self) -> dict[str, Any]:
        return {"kind": "measured", "device": self.device, "threads": self.threads,
                "sizes": self.sizes.astype(int).tolist(), "matmul_flop_per_s": self.matmul_rate.tolist(),
                "eigh_flop_per_s": self.eigh_rate.tolist(), "elementwise_per_param_s": self.elementwise_per_param_s,
                "overhead_per_weight_s": self.overhead_per_weight_s}  # fmt: skip


def benchmark_layer(d: int, tokens: int, input_grad: bool = False) -> flops.ModelCount:
    """The d x d linear layer of step_cost.py's timed iterations, as a model count."""
    products = flops.layer_products(d, d, tokens, input_grad=input_grad)
    return flops.ModelCount(forward_backward_flops=flops.product_flops(products),
                            analytic_flops=flops.product_flops(products), products=products, weights=[(d, d)],
                            parameters=d * d)  # fmt: skip


def optimizer_cost(machine, name: str, weights: list[tuple[int, int]], parameters: int,
                   settings: dict[str, int]) -> dict[str, float]:  # fmt: skip
    """Seconds per iteration of optimizer `name` on these weights: every-step products, the amortised update
    (products and eigendecompositions over `precondition_frequency`), and the elementwise step."""
    frequency = settings["precondition_frequency"] if name in flops.SECOND_ORDER else 1
    every_s = update_s = eigh_s = opt_flops = 0.0
    for m, n in weights:
        every, update, eighs = flops.iteration_products(name, m, n, frequency=frequency,
                                                        max_precond_dim=settings["max_precond_dim"])  # fmt: skip
        every_s += sum(machine.product_s(p) for p in every)
        update_s += sum(machine.product_s(p) for p in update)
        eigh_s += sum(machine.eigh_s(d) for d in eighs)
        opt_flops += flops.product_flops(every) + flops.product_flops(update) / frequency
    return {"every_step_s": every_s, "update_s": update_s + eigh_s, "update_eigh_s": eigh_s, "frequency": frequency,
            "elementwise_s": machine.elementwise_s(name, parameters), "flops_per_iteration": opt_flops}  # fmt: skip


def project_model(machine, count: flops.ModelCount, settings: dict[str, dict[str, int]]) -> dict[str, Any]:
    forward_backward_s = sum(machine.product_s(p) for p in count.products)
    per_optimizer, times = {}, {}
    for name in flops.OPTIMIZERS:
        cost = optimizer_cost(machine, name, count.weights, count.parameters, settings[name])
        cost["overhead_s"] = machine.overhead_s(name) * len(count.weights)
        times[name] = (forward_backward_s + cost["every_step_s"] + cost["update_s"] / cost["frequency"]
                       + cost["elementwise_s"] + cost["overhead_s"])  # fmt: skip
        per_optimizer[name] = cost | {"iteration_s": times[name]}
    ratios = {f"{a}_over_{b}": times[a] / times[b] for a in ("jorge", "shampoo", "adamw")
              for b in ("sgd", "adamw", "shampoo") if a != b}  # fmt: skip
    # The Shampoo update frequency at which its amortised iteration costs what Jorge's does (None: Shampoo's
    # iteration is no dearer than Jorge's even updating every step, or dearer even with no updates at all).
    jorge, shampoo = per_optimizer["jorge"], per_optimizer["shampoo"]
    shampoo_fixed = times["shampoo"] - shampoo["update_s"] / shampoo["frequency"]
    margin = times["jorge"] - shampoo_fixed
    break_even = shampoo["update_s"] / margin if margin > 0 and shampoo["update_s"] / margin >= 1 else None
    return {"forward_backward_s": forward_backward_s, "optimizers": per_optimizer, "iteration_s": times,
            "ratios": ratios, "shampoo_break_even_frequency": break_even,
            "jorge_update_share_of_iteration": jorge["update_s"] / jorge["frequency"] / times["jorge"]}  # fmt: skip


def crossover(machine, sizes: list[int], tokens: int, settings: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Jorge vs Shampoo on a d x d layer at each size: one factor's new root (Jorge: five products; Shampoo: an
    eigendecomposition and one product; both start from the same gram), and a whole iteration at the
    configured frequencies. Every size is preconditioned here (`max_precond_dim` lifted): the question is
    which algorithm is cheaper, not which sides a config leaves out."""
    unlimited = {name: value | {"max_precond_dim": max(sizes)} for name, value in settings.items()}
    rows = []
    for d in sizes:
        jorge_update = sum(machine.product_s(p) for p in [(d, d, d)] * 5)
        shampoo_update = machine.eigh_s(d) + machine.product_s((d, d, d))
        iteration = project_model(machine, benchmark_layer(d, tokens, input_grad=True), unlimited)["iteration_s"]
        rows.append({"size": d, "jorge_update_s": jorge_update, "shampoo_update_s": shampoo_update,
                     "jorge_iteration_s": iteration["jorge"], "shampoo_iteration_s": iteration["shampoo"],
                     "sgd_iteration_s": iteration["sgd"], "jorge_over_sgd_iteration": iteration["jorge"] / iteration["sgd"],
                     "jorge_over_adamw_iteration": iteration["jorge"] / iteration["adamw"]})  # fmt: skip
    return {"tokens": tokens, "rows": rows, **wins(rows, "jorge_update_s", "shampoo_update_s", "update"),
            **wins(rows, "jorge_iteration_s", "shampoo_iteration_s", "iteration")}  # fmt: skip


def wins(rows: list[dict[str, Any]], jorge_key: str, shampoo_key: str, what: str) -> dict[str, Any]:
    """The sizes at which Jorge is cheaper, and the smallest size from which it stays cheaper (None: never)."""
    faster = [row["size"] for row in rows if row[jorge_key] < row[shampoo_key]]
    from_size = None
    for row in reversed(rows):
        if row[jorge_key] >= row[shampoo_key]:
            break
        from_size = row["size"]
    return {f"jorge_{what}_faster_at": faster, f"jorge_{what}_faster_from": from_size}


def validate(machine: MeasuredMachine, step_cost: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured machine model against the iterations it was not fitted to: modelled / measured time."""
    settings, tokens = step_cost["optimizer_settings"], step_cost["batch_size"]
    out = []
    for row in step_cost["rows"]:
        d = row["size"]
        modelled = project_model(machine, benchmark_layer(d, tokens), settings)["iteration_s"]
        out.append({"size": d} | {f"{name}_modelled_over_measured": modelled[name] / row["iteration_s"][name]["median"]
                                  for name in flops.OPTIMIZERS})  # fmt: skip
    return out


def _sizes(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes)) if sizes else "none"


def notes(result: dict[str, Any]) -> list[str]:
    """Sentences generated from the projection's numbers."""
    out = []
    measured_sizes = result["machines"]["measured"]["sizes"]
    for machine in MACHINES:
        tag = (f"measured rates (d <= {max(measured_sizes)} measured, larger d extrapolated)" if machine == "measured"
               else f"ASSUMED GPU rates ({result['machines']['gpu_assumed']['label']})")  # fmt: skip
        cross = result["crossover"][machine]
        out.append(f"{tag}: one Jorge factor update is cheaper than Shampoo's eigendecomposition at d = "
                   f"{_sizes(cross['jorge_update_faster_at'])} (of {_sizes([r['size'] for r in cross['rows']])}); "
                   f"a whole iteration of a d x d layer at the configured frequencies at d = "
                   f"{_sizes(cross['jorge_iteration_faster_at'])}")  # fmt: skip
        for name, model in result["models"].items():
            proj = model["machines"][machine]
            ratios, frequency = proj["ratios"], proj["optimizers"]["shampoo"]["frequency"]
            break_even = proj["shampoo_break_even_frequency"]
            out.append(f"{tag}, {name} (batch {model['batch_size']}): a Jorge iteration costs {ratios['jorge_over_sgd']:.3g}x "
                       f"SGD's, {ratios['jorge_over_adamw']:.3g}x AdamW's and {ratios['jorge_over_shampoo']:.3g}x "
                       f"Shampoo's (Shampoo updating every {frequency} step(s), Jorge every "
                       f"{proj['optimizers']['jorge']['frequency']}); "
                       + (f"Shampoo costs less than Jorge per iteration once it updates less often than every "
                          f"{break_even:.3g} steps" if break_even else "Shampoo costs less than Jorge per iteration "
                          "even updating every step" if ratios["jorge_over_shampoo"] >= 1 else
                          "Shampoo costs more than Jorge per iteration even with no updates"))  # fmt: skip
    measured = result["measured_rows"]
    out.append(f"measured directly: Jorge's update is cheaper than Shampoo's at d = {_sizes(measured['jorge_update_faster_at'])}, "
               f"a Jorge iteration cheaper than Shampoo's at d = {_sizes(measured['jorge_iteration_faster_at'])}")  # fmt: skip
    return out


def project(step_cost: dict[str, Any], models: dict[str, dict[str, Any]], gpu: dict[str, Any],
            crossover_sizes: list[int]) -> dict[str, Any]:  # fmt: skip
    settings = step_cost["optimizer_settings"]
    machines = {"measured": MeasuredMachine(step_cost), "gpu_assumed": GPUAssumedConfig(**gpu)}
    result: dict[str, Any] = {"optimizer_settings": settings,
                              "machines": {name: m.describe() for name, m in machines.items()}, "models": {}}  # fmt: skip
    for name, spec in models.items():
        shape = ProjectionModelConfig(name=name, **spec)
        count = shape.count()
        logger.info("%s: forward + backward %.4g FLOPs counted, %.4g by formula; %d weight matrices, largest side %d",
                    name, count.forward_backward_flops, count.analytic_flops, len(count.weights),
                    max(max(w) for w in count.weights))  # fmt: skip
        result["models"][name] = {
            "arch": shape.arch, "batch_size": shape.batch_size, "parameters": count.parameters,
            "weight_shapes": [list(w) for w in count.weights],
            "forward_backward_flops": {"counted": count.forward_backward_flops, "formula": count.analytic_flops},
            "machines": {mname: project_model(machine, count, settings) for mname, machine in machines.items()},
        }  # fmt: skip
    result["crossover"] = {mname: crossover(machine, crossover_sizes, step_cost["batch_size"], settings)
                           for mname, machine in machines.items()}  # fmt: skip
    measured_rows = [{"size": row["size"], "jorge_update_s": row["jorge_update_s"]["median"],
                      "shampoo_update_s": row["shampoo_update_s"]["median"],
                      "jorge_iteration_s": row["iteration_s"]["jorge"]["median"],
                      "shampoo_iteration_s": row["iteration_s"]["shampoo"]["median"]} for row in step_cost["rows"]]  # fmt: skip
    result["measured_rows"] = {**wins(measured_rows, "jorge_update_s", "shampoo_update_s", "update"),
                               **wins(measured_rows, "jorge_iteration_s", "shampoo_iteration_s", "iteration")}  # fmt: skip
    result["validation"] = validate(machines["measured"], step_cost)
    result["notes"] = notes(result)
    for note in result["notes"]:
        logger.info("%s", note)
    return result


@dataclasses.dataclass(kw_only=True)
class ProjectionConfig:
    """config["jorge"]["projection"]."""

    models: dict[str, dict[str, Any]] = schema_default("jorge.projection.models")  # name -> ProjectionModelConfig fields
    gpu_assumed: dict[str, Any] = dataclasses.field(default_factory=dict)  # GPUAssumedConfig fields
    crossover_sizes: list[int] = schema_default("jorge.projection.crossover_sizes")  # d of the d x d layers compared

    def __post_init__(self):
        if not self.models:
            raise ValueError("jorge.projection.models: name at least one model to project to (arch: resnet50 or ngram_lm)")
        if not self.crossover_sizes or any(d < 2 for d in self.crossover_sizes):
            raise ValueError(f"jorge.projection.crossover_sizes: sizes >= 2, got {self.crossover_sizes}")
        self.crossover_sizes = sorted(self.crossover_sizes)


def main(*, step_cost: str, projection_config: dict[str, Any], output: str) -> dict[str, Any]:
    cfg = ProjectionConfig(**projection_config)
    prov = Provenance.start(step="jorge.cost_projection", config=dataclasses.asdict(cfg) | {"step_cost": str(step_cost)})
    result = project(read_json(step_cost), cfg.models, cfg.gpu_assumed, cfg.crossover_sizes)
    write_json(output, result)
    prov.finish([output])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(step_cost=smk.input.step_cost, projection_config=dict(smk.params.projection), output=smk.output.projection)
