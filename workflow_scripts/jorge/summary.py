"""The study's headline numbers: `results/jorge/summary.json`.

Inputs: every training result `results/jorge/<task>/<optimizer>.json`, the SGD grid results
`results/jorge/<task>/sgd_grid.json`, `results/jorge/numerics.json`, `results/jorge/step_cost.json` and
`results/jorge/cost_projection.json`.

Per task and optimizer: epochs to the target, training wall-clock to the target, final and best test
metric, time per step (whole step and optimizer step: median, 25th and 75th percentile), the time per
training iteration amortised over the run (training time / steps: every preconditioner update at its
configured frequency is in it), and the divergence-handling counts. Per task, the paper's claims checked
on these numbers: does Jorge need no more epochs than SGD and Shampoo, is it faster to the target in
wall-clock, and its per-step and per-iteration cost ratios. Then the numerics findings, the
fault-injection check, the step-cost and per-iteration ratios by layer size, and the per-iteration ratios
projected to the paper's models with where Jorge's update beats Shampoo's. Every number is read from the
inputs; `claims` and `notes` say plainly where Jorge does not match Shampoo or SGD here.
Run by `rule jorge_summary`.
"""

import logging
from collections import defaultdict
from typing import Any

from workflow_scripts.common import Provenance, read_json, snakemake_step, write_json

logger = logging.getLogger(__name__)


def _optimizer_row(run: dict[str, Any]) -> dict[str, Any]:
    return {
        "epochs_to_target": run["epochs_to_target"],
        "wall_clock_to_target_s": run["wall_clock_to_target_s"],
        "final_metric": run["final_metric"],
        "best_metric": run["best_metric"],
        "step_time_s": run["step_time_s"],
        "optimizer_step_time_s": run["optimizer_step_time_s"],
        "train_time_s": run["train_time_s"],
        "iteration_time_s": run["train_time_s"] / run["steps"] if run["steps"] else None,  # amortised mean
        "epochs": len(run["history"]) - 1,
        "divergence_counts": run["divergence_counts"],
        "hparams": run["hparams"],
    }


def _not_later(a: float | None, b: float | None) -> bool | None:
    """a reached no later than b (None = never reached). None when neither reached the target."""
    if a is None and b is None:
        return None
    if a is None:
        return False
    return b is None or a <= b


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def task_claims(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    claims: dict[str, Any] = {}
    jorge = rows.get("jorge")
    if jorge is None:
        return claims
    for other in ("sgd", "shampoo", "adamw"):
        if other not in rows:
            continue
        claims[f"jorge_epochs_not_more_than_{other}"] = _not_later(jorge["epochs_to_target"], rows[other]["epochs_to_target"])
        claims[f"jorge_wall_clock_not_more_than_{other}"] = _not_later(jorge["wall_clock_to_target_s"],
                                                                       rows[other]["wall_clock_to_target_s"])  # fmt: skip
        claims[f"optimizer_step_time_ratio_jorge_over_{other}"] = _ratio(
            jorge["optimizer_step_time_s"]["median"], rows[other]["optimizer_step_time_s"]["median"])
        claims[f"step_time_ratio_jorge_over_{other}"] = _ratio(jorge["step_time_s"]["median"],
                                                               rows[other]["step_time_s"]["median"])  # fmt: skip
        claims[f"iteration_time_ratio_jorge_over_{other}"] = _ratio(jorge["iteration_time_s"],
                                                                    rows[other]["iteration_time_s"])  # fmt: skip
    return claims


def _fmt(value: float | None, unit: str = "") -> str:
    return "never" if value is None else f"{value:.3g}{unit}"


def claim_notes(tasks: dict[str, Any]) -> list[str]:
    """Plain sentences, generated from the numbers, saying where Jorge matches or does not."""
    notes = []
    for task, entry in sorted(tasks.items()):
        claims, rows = entry["claims"], entry["optimizers"]
        if "jorge" not in rows:
            continue
        for other in ("shampoo", "sgd", "adamw"):
            if other not in rows:
                continue
            for what, key, unit in (("epochs", "epochs_to_target", ""), ("wall-clock", "wall_clock_to_target_s", " s")):
                verdict = claims.get(f"jorge_{'epochs' if what == 'epochs' else 'wall_clock'}_not_more_than_{other}")
                mine, theirs = _fmt(rows["jorge"][key], unit), _fmt(rows[other][key], unit)
                if verdict is None:
                    notes.append(f"{task}: neither Jorge nor {other} reached the target")
                    break
                word = "matches or beats" if verdict else "does NOT match"
                notes.append(f"{task}: Jorge {word} {other} in {what} to target (Jorge {mine}, {other} {theirs})")
        for other in ("sgd", "adamw", "shampoo"):
            ratio = claims.get(f"optimizer_step_time_ratio_jorge_over_{other}")
            iteration = claims.get(f"iteration_time_ratio_jorge_over_{other}")
            if ratio is not None and iteration is not None:
                notes.append(f"{task}: a Jorge optimizer step costs {ratio:.2g}x {other}'s (median), a whole training "
                             f"iteration (forward, backward, step; updates amortised) {iteration:.2g}x (mean over the run)")  # fmt: skip
    return notes


def step_cost_rows(step_cost: dict[str, Any]) -> list[dict[str, Any]]:
    """Per layer size: update and step-only medians and ratios, and the per-iteration times with their spread."""
    return [{"size": row["size"], "jorge_update_s": row["jorge_update_s"]["median"],
             "shampoo_update_s": row["shampoo_update_s"]["median"],
             "shampoo_over_jorge_update": row["shampoo_over_jorge_update"],
             "jorge_over_sgd_step": row["jorge_over_sgd_step"], "shampoo_over_sgd_step": row["shampoo_over_sgd_step"],
             "forward_backward_s": row["forward_backward_s"], "iteration_s": row["iteration_s"],
             **row["iteration_ratios"]} for row in step_cost["rows"]]  # fmt: skip


def projection_summary(projection: dict[str, Any]) -> dict[str, Any]:
    """Per model and machine the projected per-iteration ratios; per machine where Jorge's update wins."""
    models = {name: {"batch_size": model["batch_size"], "parameters": model["parameters"],
                     "forward_backward_flops": model["forward_backward_flops"],
                     **{machine: {"ratios": proj["ratios"], "iteration_s": proj["iteration_s"],
                                  "shampoo_break_even_frequency": proj["shampoo_break_even_frequency"],
                                  "jorge_update_share_of_iteration": proj["jorge_update_share_of_iteration"]}
                        for machine, proj in model["machines"].items()}}
              for name, model in projection["models"].items()}  # fmt: skip
    where = {machine: {key: value for key, value in cross.items() if key.startswith("jorge_")}
             for machine, cross in projection["crossover"].items()}  # fmt: skip
    where["measured_rows"] = projection["measured_rows"]
    validation = projection["validation"]
    spread_of_model = {name: [min(row[f"{name}_modelled_over_measured"] for row in validation),
                              max(row[f"{name}_modelled_over_measured"] for row in validation)]
                       for name in ("sgd", "adamw", "jorge", "shampoo")}  # fmt: skip
    return {"optimizer_settings": projection["optimizer_settings"], "models": models, "jorge_vs_shampoo": where,
            "gpu_assumed": projection["machines"]["gpu_assumed"],
            "measured_model_over_measured_range": spread_of_model, "notes": projection["notes"]}  # fmt: skip


def summarize(runs: list[dict[str, Any]], grids: list[dict[str, Any]], numerics: dict[str, Any],
              step_cost: dict[str, Any], projection: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    by_task: dict[str, dict[str, Any]] = defaultdict(dict)
    meta: dict[str, dict[str, Any]] = {}
    for run in runs:
        by_task[run["task"]][run["optimizer"]] = _optimizer_row(run)
        meta[run["task"]] = {"metric_name": run["metric_name"], "target_metric": run["target_metric"],
                             "optimum_loss": run["optimum_loss"], "batch_size": run["batch_size"]}  # fmt: skip
    best_sgd = {grid["task"]: grid["best"] for grid in grids}
    tasks = {
        task: meta[task] | {"sgd_grid_best": best_sgd.get(task), "optimizers": rows, "claims": task_claims(rows)}
        for task, rows in sorted(by_task.items())
    }
    divergence_totals: dict[str, int] = defaultdict(int)
    for entry in tasks.values():
        for rows in entry["optimizers"].values():
            for key, count in rows["divergence_counts"].items():
                divergence_totals[key] += count
    findings = numerics["findings"]
    cost = projection_summary(projection)
    summary = {
        "tasks": tasks,
        "notes": claim_notes(tasks) + cost["notes"],
        "divergence_handling": {"training_totals": dict(divergence_totals),
                                "fault_injection": numerics["fault_injection"]},  # fmt: skip
        "numerics": {
            "bare_series_breakdowns": findings["bare_series_breakdowns"],
            "bare_breakdowns_with_exact_ratio_below_one": findings["bare_breakdowns_with_exact_ratio_below_one"],
            "convergent_regime_max_error": findings["convergent_regime_max_error"],
            "convergent_regime_within_tolerance": findings["convergent_regime_within_tolerance"],
            "tracking_tolerance": findings["tracking_tolerance"],
            "adapt_decay_max_error": findings["adapt_decay_max_error"],
            "adapt_decay_breakdowns": findings["adapt_decay_breakdowns"],
        },
        "step_cost": {"device": step_cost["device"], "threads": step_cost["threads"],
                      "batch_size": step_cost["batch_size"], "optimizer_settings": step_cost["optimizer_settings"],
                      "by_size": step_cost_rows(step_cost)},  # fmt: skip
        "cost_projection": cost,
        "timing_note": "wall-clock numbers are measured in the same run for all optimizers, one timing job at a time",
    }
    for note in summary["notes"]:
        logger.info("%s", note)
    return summary


def main(*, runs: list[str], grids: list[str], numerics: str, step_cost: str, cost_projection: str,
         output: str) -> dict[str, Any]:  # fmt: skip
    prov = Provenance.start(step="jorge.summary", config={"runs": list(runs), "grids": list(grids)})
    summary = summarize([read_json(p) for p in runs], [read_json(p) for p in grids], read_json(numerics),
                        read_json(step_cost), read_json(cost_projection))  # fmt: skip
    write_json(output, summary)
    prov.finish([output])
    return summary


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(runs=list(smk.input.runs), grids=list(smk.input.grids), numerics=smk.input.numerics,
         step_cost=smk.input.step_cost, cost_projection=smk.input.cost_projection,
         output=smk.output.summary)  # fmt: skip
