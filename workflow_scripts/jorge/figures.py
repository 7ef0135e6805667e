"""The study's figures, like the Jorge paper's: learning curves vs epochs and vs wall-clock, factor error, step cost.

Inputs: the training results `results/jorge/<task>/<optimizer>.json`, `results/jorge/numerics.json`,
`results/jorge/step_cost.json`, `results/jorge/cost_projection.json`. Outputs (PNG, Agg backend) under
`results/jorge/figures/`: `convergence_epochs.png`, `convergence_time.png`, `factor_error.png`,
`step_cost.png`, `per_iteration_cost.png`.
Run by the `jorge_figure_<name>` rules, one per figure; every number drawn comes from those inputs.
"""

import logging
import math
from collections import defaultdict
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import ScalarFormatter  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import (  # noqa: E402
    Registry,
    draw_figure,
    legend_below,
    legend_outside,
    readable,
    save_figure,
)

logger = logging.getLogger(__name__)

COLORS = {"sgd": "tab:blue", "adamw": "tab:orange", "jorge": "tab:red", "shampoo": "tab:green"}
OPTIMIZER_NAMES = {"sgd": "SGD", "adamw": "AdamW", "jorge": "Jorge", "shampoo": "Shampoo"}


def _name(optimizer: str) -> str:
    return readable(optimizer, OPTIMIZER_NAMES)


def _by_task(runs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped = defaultdict(list)
    for run in runs:
        grouped[run["task"]].append(run)
    return dict(grouped)


NEAR_MISS = 0.01  # a best metric within 1% of the target that does not reach it decides "never reached" verdicts


def _mark_near_misses(ax, task_runs: list[dict[str, Any]], x_key: str) -> None:
    """Ring and label a run's best point when it misses the target by less than NEAR_MISS (relative): at the
    figure's scale such a curve seems to touch the target line, while the claims count it as never reaching it."""
    target, lower_is_better = task_runs[0]["target_metric"], task_runs[0]["metric_name"] == "loss"
    for run in task_runs:
        points = [(row[x_key], row["metric"]) for row in run["history"] if math.isfinite(row["metric"])]
        if not points:
            continue
        x, best = (min if lower_is_better else max)(points, key=lambda point: point[1])
        missed_by = best - target if lower_is_better else target - best
        if 0 < missed_by <= NEAR_MISS * abs(target):
            ax.plot([x], [best], marker="o", markersize=11, markerfacecolor="none", color="red")
            ax.annotate(f"{_name(run['optimizer'])} best {best:.5g}: misses {target:g} by {missed_by:.2g}", (x, best),
                        xytext=(6, -22 if not lower_is_better else 12), textcoords="offset points", ha="left",
                        fontsize=7, color="red")  # fmt: skip


def plot_convergence(runs: list[dict[str, Any]], path: str, x_key: str, x_label: str) -> None:
    tasks = _by_task(runs)
    fig, axes = plt.subplots(1, len(tasks), figsize=(5 * len(tasks), 3.8), squeeze=False)
    for ax, (task, task_runs) in zip(axes[0], sorted(tasks.items()), strict=True):
        for run in sorted(task_runs, key=lambda r: r["optimizer"]):
            xs = [row[x_key] for row in run["history"]]
            ys = [row["metric"] for row in run["history"]]
            ax.plot(xs, ys, marker=".", color=COLORS.get(run["optimizer"]), label=_name(run["optimizer"]))
        first = task_runs[0]
        ax.axhline(first["target_metric"], color="gray", linestyle=":", label="target")
        _mark_near_misses(ax, task_runs, x_key)
        if first.get("optimum_loss") is not None:
            ax.axhline(first["optimum_loss"], color="black", linestyle="--", linewidth=0.8, label="optimum")
        ax.set_title(task.replace("_", " "))  # the task's name in jorge.tasks
        ax.set_xlabel(x_label)
        ax.set_ylabel(f"test {first['metric_name']}")
        if first["metric_name"] == "loss":
            finite = [row["metric"] for r in task_runs for row in r["history"][1:] if math.isfinite(row["metric"])]
            if finite:  # the untrained loss would squash the interesting part
                ax.set_ylim(min(finite + [first["optimum_loss"] or min(finite)]) * 0.97, max(finite) * 1.03)
        else:
            ax.set_ylim(max(0.0, first["target_metric"] - 0.3), 1.0)
        ax.grid(alpha=0.3)
    legend_below(fig, axes[0, 0], ncol=6)
    fig.tight_layout()
    save_figure(fig, path)


def plot_factor_error(numerics: dict[str, Any], path: str) -> None:
    ranks = sorted({run["gradient_rank"] for run in numerics["runs"]}, reverse=True)
    decays = sorted({run["decay"] for run in numerics["runs"]})
    cmap = plt.get_cmap("viridis")
    fig, axes = plt.subplots(1, len(ranks), figsize=(5.5 * len(ranks), 4), squeeze=False)
    for ax, rank in zip(axes[0], ranks, strict=True):
        for i, decay in enumerate(decays):
            color = cmap(i / max(1, len(decays) - 1))
            for run in numerics["runs"]:
                if run["gradient_rank"] != rank or run["decay"] != decay or run["guard"] == "skip_update":
                    continue
                ys = [y if y is not None and math.isfinite(y) else math.nan for y in run["curve"]]
                style = "-" if run["guard"] == "adapt_decay" else "--"
                label = f"decay b={decay}, " + ("adapted" if run["guard"] == "adapt_decay" else "bare")
                ax.plot(run["curve_steps"], ys, style, color=color, label=label)
        ax.axhline(numerics["findings"]["tracking_tolerance"], color="gray", linestyle=":", label="tolerance")
        ax.set_yscale("log")
        ax.set_ylim(1e-8, 1e2)
        ax.set_title(f"gradient rank {rank}")
        ax.set_xlabel("factor update")
        ax.set_ylabel("relative error vs exact inverse 4th root")
        ax.grid(alpha=0.3)
    legend_outside(axes[0, -1], fontsize=7)  # the same series in every panel
    save_figure(fig, path)


def _over_layer_size(ax, xlabel: str, ylabel: str, legend_fontsize: float | None = None) -> None:
    """A panel of times, or time ratios, against the layer size d: both spread over orders of magnitude."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(ScalarFormatter())  # d = 64, not 2^6
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _legend_under(ax, legend_fontsize)
    ax.grid(alpha=0.3)


def _legend_under(ax, fontsize: float | None) -> None:
    """The panel's legend under its x label, off the curves (save_figure's tight box keeps it in the image)."""
    ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)


def plot_step_cost(step_cost: dict[str, Any], path: str) -> None:
    rows = step_cost["rows"]
    sizes = [row["size"] for row in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for key, label, color in (("jorge_update_s", "Jorge (products)", COLORS["jorge"]),
                              ("shampoo_update_s", "Shampoo (eigh)", COLORS["shampoo"])):  # fmt: skip
        med = [row[key]["median"] for row in rows]
        lo = [row[key]["p25"] for row in rows]
        hi = [row[key]["p75"] for row in rows]
        left.plot(sizes, med, marker="o", color=color, label=label)
        left.fill_between(sizes, lo, hi, color=color, alpha=0.2)
    _over_layer_size(left, "factor size d (d x d)", "one preconditioner update (s)")
    right.plot(sizes, [row["jorge_over_sgd_step"] for row in rows], marker="o", color=COLORS["jorge"], label="Jorge / SGD")
    right.plot(sizes, [row["shampoo_over_sgd_step"] for row in rows], marker="o", color=COLORS["shampoo"],
               label="Shampoo / SGD")  # fmt: skip
    _over_layer_size(right, "layer size d (d x d weight)", "optimizer step time / SGD's")
    fig.suptitle(f"device {step_cost['device']}, {step_cost['threads']} thread(s)")
    fig.tight_layout()  # the right panel's y label clear of the left panel
    save_figure(fig, path)


def plot_per_iteration_cost(step_cost: dict[str, Any], projection: dict[str, Any], path: str) -> None:
    rows = sorted(step_cost["rows"], key=lambda row: row["size"])
    sizes = [row["size"] for row in rows]
    fig, (measured, projected, crossing) = plt.subplots(1, 3, figsize=(16, 4.2))
    # (a) measured: whole iteration (solid, interquartile band) and optimizer step alone (dashed), over SGD's
    for name in ("adamw", "jorge", "shampoo"):
        sgd = [row["iteration_s"]["sgd"]["median"] for row in rows]
        med = [row["iteration_s"][name]["median"] / base for row, base in zip(rows, sgd, strict=True)]
        lo = [row["iteration_s"][name]["p25"] / base for row, base in zip(rows, sgd, strict=True)]
        hi = [row["iteration_s"][name]["p75"] / base for row, base in zip(rows, sgd, strict=True)]
        measured.plot(sizes, med, marker="o", color=COLORS[name], label=f"{_name(name)}: iteration")
        measured.fill_between(sizes, lo, hi, color=COLORS[name], alpha=0.2)
        step = [row[f"{name}_step_s"]["median"] / row["sgd_step_s"]["median"] for row in rows]
        measured.plot(sizes, step, linestyle="--", color=COLORS[name], label=f"{_name(name)}: optimizer step only")
    measured.axhline(1.0, color="gray", linewidth=0.8)
    measured.set_title(f"measured, {step_cost['device']}, {step_cost['threads']} thread(s)")
    _over_layer_size(measured, f"layer size d (d x d, batch {step_cost['batch_size']})", "time / SGD's (measured)",
                     legend_fontsize=7)  # fmt: skip
    # (b) projected per-iteration ratio to SGD for each paper model, measured rates vs assumed GPU rates
    models = list(projection["models"])
    names = ("adamw", "jorge", "shampoo")
    width = 0.8 / (2 * len(names))
    for m_index, machine in enumerate(("measured", "gpu_assumed")):
        for o_index, name in enumerate(names):
            xs = [i + (m_index * len(names) + o_index - len(names) + 0.5) * width for i in range(len(models))]
            ys = [projection["models"][model]["machines"][machine]["ratios"][f"{name}_over_sgd"] for model in models]
            projected.bar(xs, ys, width, color=COLORS[name], hatch=None if machine == "measured" else "//",
                          edgecolor="black", linewidth=0.5,
                          label=f"{_name(name)}, {'measured rates' if machine == 'measured' else 'GPU, ASSUMED rates'}")  # fmt: skip
    projected.axhline(1.0, color="gray", linewidth=0.8)
    projected.set_xticks(range(len(models)), [f"{m}\n(batch {projection['models'][m]['batch_size']})" for m in models])
    projected.set_yscale("log")
    projected.set_ylabel("projected iteration time / SGD's")
    settings = projection["optimizer_settings"]
    projected.set_title(f"projected (Jorge every {settings['jorge']['precondition_frequency']}, "
                        f"Shampoo every {settings['shampoo']['precondition_frequency']} step(s))")  # fmt: skip
    _legend_under(projected, 6)
    projected.grid(alpha=0.3, axis="y")
    # (c) one factor's new root: Jorge's five products vs Shampoo's eigendecomposition, modelled and measured
    for machine, style in (("measured", "-"), ("gpu_assumed", ":")):
        cross = projection["crossover"][machine]["rows"]
        xs = [row["size"] for row in cross]
        tag = "measured rates" if machine == "measured" else "GPU, ASSUMED"
        crossing.plot(xs, [row["jorge_update_s"] for row in cross], style, color=COLORS["jorge"], label=f"Jorge, {tag}")
        crossing.plot(xs, [row["shampoo_update_s"] for row in cross], style, color=COLORS["shampoo"],
                      label=f"Shampoo, {tag}")  # fmt: skip
    crossing.scatter(sizes, [row["jorge_update_s"]["median"] for row in rows], color=COLORS["jorge"], marker="o",
                     label="Jorge, measured")  # fmt: skip
    crossing.scatter(sizes, [row["shampoo_update_s"]["median"] for row in rows], color=COLORS["shampoo"],
                     marker="s", label="Shampoo, measured")  # fmt: skip
    crossing.axvline(max(sizes), color="gray", linestyle="--", linewidth=0.8)
    crossing.set_title("Jorge's products vs Shampoo's eigh")
    _over_layer_size(crossing, "factor size d (d x d)", "one factor's new root (s)", legend_fontsize=6)
    save_figure(fig, path)


# Figure name -> (what it is drawn from, how). One Snakemake rule per figure, each reading only its own inputs,
# so a changed optimizer setting redraws the convergence figures and nothing else.
FIGURES: Registry = {
    "convergence_epochs": (("runs",), lambda runs, path: plot_convergence(runs, path, "epoch", "epoch")),
    "convergence_time": (("runs",), lambda runs, path: plot_convergence(runs, path, "train_time_s",
                                                                          "training wall-clock (s)")),
    "factor_error": (("numerics",), plot_factor_error),
    "step_cost": (("step_cost",), plot_step_cost),
    "per_iteration_cost": (("step_cost", "cost_projection"), plot_per_iteration_cost),
}


def main(*, figure: str, output: str, runs: list[str] | None = None, numerics: str | None = None,
         step_cost: str | None = None, cost_projection: str | None = None,
         caption: str | None = None) -> None:  # fmt: skip
    draw_figure("jorge", FIGURES, figure, output, {"runs": runs, "numerics": numerics, "step_cost": step_cost,
                                                   "cost_projection": cost_projection}, caption=caption)  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, runs=list(smk.input.get("runs", [])) or None,
         numerics=smk.input.get("numerics"), step_cost=smk.input.get("step_cost"),
         cost_projection=smk.input.get("cost_projection"), caption=smk.input.caption)  # fmt: skip
