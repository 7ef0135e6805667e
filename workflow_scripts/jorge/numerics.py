"""How well Jorge's inverse-free factor tracks the exact inverse fourth root, and where it breaks down.

A stream of random gradients G (m x n, of a chosen rank: full rank is a large batch, rank 1 a single
example) drives both Jorge's factor update (float32, as in training) and the exact recurrence
L_t = b_t L_{t-1} + (1-b_t) G G^T with its inverse fourth root by eigendecomposition (float64), started
from the same L_0 = c I (see optim.initial_root). For every gradient rank and decay b, three guards:

- "none": the bare second-order series; it diverges once (1-b)/b ||X|| leaves the unit disc;
- "adapt_decay": Jorge's default, b_t raised so that (1-b_t)/b_t ||X||_F <= r_max;
- "skip_update": the factor (and the exact reference) skip an out-of-range update.

Recorded per run: the relative Frobenius error ||Lh - L^{-1/4}|| / ||L^{-1/4}|| over time, its final and
maximum value, the step at which it first exceeded `breakdown_error` (or went non-finite), the largest
series ratio (1-b)/b rho(X) met by the bare series, and the counts of adapted or skipped updates.

A fault-injection check then trains a small layer with Jorge while feeding it a non-finite gradient
and a gradient 1e6 times too large, and records that the weights stayed finite, that the non-finite
step changed nothing, and the divergence counters.

Output: `results/jorge/numerics.json`. Run by `rule jorge_numerics`.
"""

import dataclasses
import logging
import math
from typing import Any

import torch

from workflow_scripts.common import Provenance, seed_everything, snakemake_step, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.jorge.optim import Jorge, exact_inverse_root, initial_root, jorge_root_update

logger = logging.getLogger(__name__)

GUARDS = ("none", "adapt_decay", "skip_update")


@dataclasses.dataclass(kw_only=True)
class NumericsConfig:
    """config["jorge"]["numerics"]."""

    rows: int = schema_default("jorge.numerics.rows")  # m: the factor is m x m
    cols: int = schema_default("jorge.numerics.cols")  # n: columns of the gradient
    steps: int = schema_default("jorge.numerics.steps")  # factor updates per run
    decays: list[float] = schema_default("jorge.numerics.decays")
    gradient_ranks: list[int] = schema_default("jorge.numerics.gradient_ranks")
    max_series_ratio: float = schema_default("jorge.numerics.max_series_ratio")  # r_max of the guards
    # relative error that counts as "broken down"
    breakdown_error: float = schema_default("jorge.numerics.breakdown_error")
    # the stated tolerance: error bound claimed in the convergent regime
    tracking_tolerance: float = schema_default("jorge.numerics.tracking_tolerance")
    # error samples kept per run for the figure
    curve_points: int = schema_default("jorge.numerics.curve_points")

    def __post_init__(self):
        for key in ("rows", "cols", "steps", "curve_points"):
            if getattr(self, key) < 1:
                raise ValueError(f"jorge.numerics.{key}: must be >= 1, got {getattr(self, key)}")
        if not self.decays or any(not 0.0 < b < 1.0 for b in self.decays):
            raise ValueError(f"jorge.numerics.decays: a non-empty list of values in (0, 1), got {self.decays}")
        if not self.gradient_ranks or any(not 1 <= r <= min(self.rows, self.cols) for r in self.gradient_ranks):
            raise ValueError(f"jorge.numerics.gradient_ranks: values in [1, min(rows, cols)], got {self.gradient_ranks}")
        if not 0.0 < self.max_series_ratio < 1.0:
            raise ValueError(f"jorge.numerics.max_series_ratio: must be in (0, 1), got {self.max_series_ratio}")
        if self.breakdown_error <= 0 or self.tracking_tolerance <= 0:
            raise ValueError("jorge.numerics.breakdown_error and tracking_tolerance: must be > 0")


def track_factor(gradients: list[torch.Tensor], *, decay: float, guard: str, max_series_ratio: float,
                 breakdown_error: float) -> dict[str, Any]:  # fmt: skip
    """Run Jorge's left-factor update over `gradients` (float64 tensors) next to the exact recurrence."""
    m = gradients[0].shape[0]
    eye = torch.eye(m, dtype=torch.float64)
    first_gram = gradients[0] @ gradients[0].T
    root = initial_root(first_gram.float(), 0.0)  # Jorge's factor, float32 as in training
    exact_stat = torch.linalg.matrix_norm(first_gram) * eye  # L_0 = c I, same c
    errors, max_ratio, adapted, skipped, breakdown_step, ratio_above_one_step = [], 0.0, 0, 0, None, None
    max_exact_ratio = 0.0
    for step, grad in enumerate(gradients, start=1):
        gram = grad @ grad.T
        # The ratio the exact statistics would give, (1-b)/b rho(L_{t-1}^{-1} G G^T): whether the series
        # is in its convergent range at all, independent of the approximation's own error.
        exact_rho = torch.linalg.eigvals(torch.linalg.solve(exact_stat, gram)).abs().max().item()
        max_exact_ratio = max(max_exact_ratio, (1 - decay) / decay * exact_rho)
        if guard == "none":
            # The bare series: r_max = inf never triggers the guard.
            x = torch.linalg.matrix_power(root.double(), 4) @ gram
            rho = torch.linalg.eigvals(x).abs().max().item() if torch.isfinite(x).all() else math.inf
            max_ratio = max(max_ratio, (1 - decay) / decay * rho)
            if ratio_above_one_step is None and (1 - decay) / decay * rho >= 1.0:
                ratio_above_one_step = step
            new_root, used_decay, event = jorge_root_update(root, gram.float(), decay=decay,
                                                            series_guard="adapt_decay", max_series_ratio=math.inf)  # fmt: skip
            # jorge_root_update refuses non-finite results; the bare series keeps them, to show the breakdown.
            if event == "nonfinite":
                new_root = torch.full_like(root, math.nan)
        else:
            new_root, used_decay, event = jorge_root_update(root, gram.float(), decay=decay, series_guard=guard,
                                                            max_series_ratio=max_series_ratio)  # fmt: skip
        adapted += event == "adapted"
        skipped += event == "skipped"
        if event != "skipped":
            exact_stat = used_decay * exact_stat + (1 - used_decay) * gram
        root = new_root
        exact_root = exact_inverse_root(exact_stat, 0.0)
        error = (torch.linalg.matrix_norm(root.double() - exact_root) / torch.linalg.matrix_norm(exact_root)).item()
        error = error if math.isfinite(error) else math.inf
        errors.append(error)
        if breakdown_step is None and error > breakdown_error:
            breakdown_step = step
        if not math.isfinite(error):
            errors.extend([math.inf] * (len(gradients) - step))
            break
    return {"decay": decay, "guard": guard, "errors": errors, "final_error": errors[-1], "max_error": max(errors),
            "breakdown_step": breakdown_step, "max_series_ratio_bare": max_ratio if guard == "none" else None,
            "series_left_unit_disc_step": ratio_above_one_step, "max_exact_series_ratio": max_exact_ratio,
            "adapted_updates": adapted, "skipped_updates": skipped}  # fmt: skip


def gradient_stream(rows: int, cols: int, rank: int, steps: int, generator: torch.Generator) -> list[torch.Tensor]:
    """G_t = W Z_t / sqrt(cols): a fixed m x rank mixing W, fresh Gaussian Z_t; rank-`rank` gradients."""
    mixing = torch.randn(rows, rank, generator=generator, dtype=torch.float64)
    return [mixing @ torch.randn(rank, cols, generator=generator, dtype=torch.float64) / cols**0.5
            for _ in range(steps)]  # fmt: skip


def fault_injection(seed: int) -> dict[str, Any]:
    """Feed Jorge a NaN gradient and a huge one; check the weights stay finite and the NaN step is a no-op."""
    seed_everything(seed)
    layer = torch.nn.Linear(8, 4)
    optimizer = Jorge(layer.parameters(), lr=0.05, momentum=0.9, decay=0.95)
    x, y = torch.randn(64, 8), torch.randn(64, 4)
    nonfinite_step_changed_weights = False
    for step in range(30):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(layer(x), y).backward()
        if step == 10:
            layer.weight.grad[0, 0] = math.nan
            before = [p.detach().clone() for p in layer.parameters()]
        if step == 20:
            layer.weight.grad.mul_(1e6)  # pushes the series far outside its range
        optimizer.step()
        if step == 10:
            nonfinite_step_changed_weights = any(not torch.equal(a, p) for a, p in zip(before, layer.parameters(), strict=True))
    return {
        "weights_finite": all(bool(torch.isfinite(p).all()) for p in layer.parameters()),
        "nonfinite_step_changed_weights": nonfinite_step_changed_weights,
        "divergence_counts": optimizer.divergence_counts(),
    }


def run_numerics(cfg: NumericsConfig, seed: int) -> dict[str, Any]:
    generator = torch.Generator().manual_seed(seed)
    runs = []
    for rank in cfg.gradient_ranks:
        gradients = gradient_stream(cfg.rows, cfg.cols, rank, cfg.steps, generator)
        for decay in cfg.decays:
            for guard in GUARDS:
                run = track_factor(gradients, decay=decay, guard=guard, max_series_ratio=cfg.max_series_ratio,
                                   breakdown_error=cfg.breakdown_error)  # fmt: skip
                run["gradient_rank"] = rank
                stride = max(1, len(run["errors"]) // cfg.curve_points)
                run["curve_steps"] = list(range(1, len(run["errors"]) + 1, stride))
                run["curve"] = run.pop("errors")[::stride]
                runs.append(run)
                logger.info("rank %d decay %.3f guard %-11s final error %.3g max %.3g breakdown at %s",
                            rank, decay, guard, run["final_error"], run["max_error"], run["breakdown_step"])  # fmt: skip
    bare = [r for r in runs if r["guard"] == "none"]
    adapted = [r for r in runs if r["guard"] == "adapt_decay"]
    findings = {
        # For each bare-series breakdown: when the series ratio (1-b)/b rho(X) first reached 1, and when
        # the error then passed `breakdown_error`.
        "bare_series_breakdowns": [{"gradient_rank": r["gradient_rank"], "decay": r["decay"], "step": r["breakdown_step"],
                                    "series_left_unit_disc_step": r["series_left_unit_disc_step"],
                                    "max_exact_series_ratio": r["max_exact_series_ratio"]}
                                   for r in bare if r["breakdown_step"] is not None],  # fmt: skip
        # Runs whose bare series never left the unit disc: the "convergent regime".
        "convergent_regime_max_error": max((r["max_error"] for r in bare if r["max_series_ratio_bare"] < 1.0),
                                           default=None),  # fmt: skip
        # Breakdowns although the exact statistics kept the series ratio below 1: the recursion's own error
        # feedback (Lh is no longer symmetric or commuting with G G^T), not the series' radius, broke them.
        "bare_breakdowns_with_exact_ratio_below_one": sum(
            r["breakdown_step"] is not None and r["max_exact_series_ratio"] < 1.0 for r in bare),
        "adapt_decay_max_error": max(r["max_error"] for r in adapted),
        "adapt_decay_breakdowns": sum(r["breakdown_step"] is not None for r in adapted),
        "tracking_tolerance": cfg.tracking_tolerance,
    }
    findings["convergent_regime_within_tolerance"] = (
        findings["convergent_regime_max_error"] is not None
        and findings["convergent_regime_max_error"] <= cfg.tracking_tolerance
    )
    return {"config": dataclasses.asdict(cfg), "runs": runs, "findings": findings, "fault_injection": fault_injection(seed)}


def main(*, numerics_config: dict[str, Any], output: str, seed: int, threads: int = 1) -> dict[str, Any]:
    torch.set_num_threads(threads)
    cfg = NumericsConfig(**numerics_config)
    prov = Provenance.start(step="jorge.numerics", config=numerics_config, seed=seed)
    result = run_numerics(cfg, seed)
    logger.info("findings: %s", result["findings"])
    logger.info("fault injection: %s", result["fault_injection"])
    write_json(output, result)
    prov.finish([output])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(numerics_config=dict(smk.params.numerics), output=smk.output.numerics, seed=smk.params.seed,
         threads=smk.threads)  # fmt: skip
