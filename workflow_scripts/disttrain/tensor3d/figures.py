"""The Tensor3D figures: measured vs modelled bytes per decomposition, modelled vs measured step time (the
ranking), the projection's best decompositions against Megatron, and the overlap from overdecomposition.

Inputs: results/disttrain/tensor3d/validation.json (tensor3d_bytes, tensor3d_overlap), projection.json
(tensor3d_projection, tensor3d_overlap), sensitivity.json (tensor3d_sensitivity) and summary.json (its calibrated model-vs-measured rows and Spearman rho,
tensor3d_ranking). Outputs (PNG, Agg backend) under results/disttrain/tensor3d/figures/: tensor3d_bytes.png,
tensor3d_ranking.png, tensor3d_projection.png, tensor3d_overlap.png, tensor3d_sensitivity.png.
Run by the `disttrain_figure_<name>` rules of rules/disttrain_layers.smk; tests call `main`.
"""

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import snakemake_step  # noqa: E402
from workflow_scripts.common.figures import (  # noqa: E402
    Registry,
    draw_figure,
    legend_below,
    legend_outside,
    save_figure,
)
from workflow_scripts.disttrain.sensitivity_plot import plot_sensitivity  # noqa: E402

_GRID = re.compile(r"r(\d+)c(\d+)d(\d+)x(\d+)")  # Grid.label(): rows, cols, depth, data


def grid_name(grid: str, chunks: int | None = None) -> str:
    """A decomposition in words, from its code label (Grid.label(), e.g. r8c8d2x2 with 8 chunks: "8 x 8 x 2 grid,
    2 replicas, 8 chunks")."""
    rows, cols, depth, data = _GRID.fullmatch(grid).groups()
    name = f"{rows} x {cols} x {depth} grid, {data} {'replica' if data == '1' else 'replicas'}"
    return name if chunks is None else f"{name}, {chunks} {'chunk' if chunks == 1 else 'chunks'}"


GRID_AXIS = "decomposition (rows x columns x depth grid, data-parallel replicas)"


def plot_bytes(validation: dict, path: str) -> None:
    decs = validation["decompositions"]
    labels = [grid_name(d["grid"]) for d in decs]
    measured = [sum(v["message_bytes"] for v in d["check_chunks_n"]["measured_bytes"].values()) for d in decs]
    modelled = [sum(v["message_bytes"] for v in d["check_chunks_n"]["model_bytes"].values()) for d in decs]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], measured, width=0.4, label="measured (ledger)")
    ax.bar([x + 0.2 for x in xs], modelled, width=0.4, label="model")
    ax.set_xticks(list(xs), labels, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel(GRID_AXIS)
    ax.set_ylabel("bytes per rank per step")
    matching = sum(d["check_chunks_n"]["bytes_match"] for d in decs)
    ax.set_title(f"Tensor3D communication, {validation['world_size']} processes (float64 check stack): "
                 f"{matching} of {len(decs)} match the model", fontsize=10)  # fmt: skip
    legend_outside(ax)
    save_figure(fig, path)


def plot_ranking(summary: dict, path: str) -> None:
    """One row per decomposition, ordered by measured time: the measured median (with min-max) beside the calibrated
    model's time. Where the model ranks them as measured, its marks rise with the rows too; Spearman's rho is in the
    title. (A scatter with a label at each point overlapped wherever two decompositions had close times.)"""
    rows, rho = summary["validation"]["measured_vs_model"], summary["validation"]["spearman_model_vs_measured"]
    rows = sorted(rows, key=lambda r: r["measured_time_s"])
    y = range(len(rows))
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.32 * len(rows)))
    measured = [r["measured_time_s"] * 1e3 for r in rows]
    low = [r.get("measured_time_s_min", r["measured_time_s"]) for r in rows]
    high = [r.get("measured_time_s_max", r["measured_time_s"]) for r in rows]
    spread = [[(r["measured_time_s"] - lo) * 1e3 for r, lo in zip(rows, low, strict=True)],
              [(hi - r["measured_time_s"]) * 1e3 for r, hi in zip(rows, high, strict=True)]]
    ax.errorbar(measured, y, xerr=spread, fmt="o", capsize=3, label="measured (median, min-max)")
    ax.plot([r["model_time_s"] * 1e3 for r in rows], y, "kD", ms=5, label="model (calibrated alpha-beta)")
    ax.set_yticks(list(y), [grid_name(r["grid"]) for r in rows], fontsize=8)
    ax.invert_yaxis()  # fastest measured on top
    ax.set_xscale("log")
    ax.set_xlabel("step time (ms)")
    ax.set_ylabel(GRID_AXIS.replace(" (", "\n("), fontsize=8)
    ax.set_title(f"Model vs measured step time: Spearman rank correlation {rho:.2f}", fontsize=10)
    ax.grid(axis="x", alpha=0.3, which="both")
    legend_below(fig, ax, ncol=2)
    save_figure(fig, path)


def plot_projection(projection: dict, path: str) -> None:
    fig, ax = plt.subplots(figsize=(8, 4))
    top = projection["decompositions_ranked"][:12]
    bars = top + ([projection["best_megatron"]] if projection["best_megatron"] else [])
    names = [grid_name(r["grid"], r["chunks"]) + (" (Megatron-LM)" if r["megatron"] else "") for r in bars]
    ax.barh(names, [r["compute_s"] for r in bars], label="compute")
    ax.barh(names, [r["exposed_comm_s"] for r in bars], left=[r["compute_s"] for r in bars],
            label="exposed communication")  # fmt: skip
    ax.invert_yaxis()
    ax.set_xlabel("modelled step time (s)")
    ax.set_ylabel("decomposition (rows x columns x depth grid,\ndata-parallel replicas, batch chunks)", fontsize=8)
    reduction = projection["time_reduction_vs_megatron"]
    ax.set_title(f"{projection['parameters'] / 1e9:.1f}B CNN on {projection['devices']} devices: best 3D vs "
                 f"Megatron {100 * reduction:.0f}% less time (paper ~{100 * projection['paper_time_reduction']:.0f}%)",
                 fontsize=9)  # fmt: skip
    legend_below(fig, ax, ncol=2)
    save_figure(fig, path)


def plot_overlap(validation: dict, projection: dict, path: str) -> None:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    curve = projection["overlap_curve"]
    ax1.plot([p["chunks"] for p in curve], [p["time_s"] for p in curve], marker="o")
    ax1.set_xscale("log", base=2)
    ax1.set_xticks([p["chunks"] for p in curve], [str(p["chunks"]) for p in curve])  # 8, not 2^3
    ax1.set_xlabel("batch chunks (overdecomposition)")
    ax1.set_ylabel("modelled step time (s)")
    ax1.set_title(f"projection, {grid_name(projection['best']['grid'])}", fontsize=9)
    points = validation["overlap"]["points"]
    ax2.errorbar([p["chunks"] for p in points], [p["step_time_s_median"] * 1e3 for p in points],
                 yerr=[[(p["step_time_s_median"] - p["step_time_s_min"]) * 1e3 for p in points],
                       [(p["step_time_s_max"] - p["step_time_s_median"]) * 1e3 for p in points]],
                 marker="o", capsize=3)  # fmt: skip
    ax2.set_xscale("log", base=2)
    ax2.set_xticks([p["chunks"] for p in points], [str(p["chunks"]) for p in points])
    ax2.set_xlabel("batch chunks (overdecomposition)")
    ax2.set_ylabel("measured step time (ms)")
    ax2.set_title(f"measured, {grid_name(validation['overlap']['grid'])}\non {validation['world_size']} CPU processes",
                  fontsize=9)  # fmt: skip
    save_figure(fig, path)


def plot_time_reduction_sensitivity(sensitivity: dict, path: str) -> None:
    plot_sensitivity(sensitivity, path, titles={"time_reduction_vs_megatron": "time reduction vs Megatron-LM"},
                     scales={"time_reduction_vs_megatron": 100}, units={"time_reduction_vs_megatron": "%"})  # fmt: skip


# Figure name -> (the inputs it is drawn from, in the order the function takes them). One Snakemake rule per figure.
FIGURES: Registry = {
    "tensor3d_bytes": (("validation",), plot_bytes),
    "tensor3d_ranking": (("summary",), plot_ranking),
    "tensor3d_projection": (("projection",), plot_projection),
    "tensor3d_overlap": (("validation", "projection"), plot_overlap),
    "tensor3d_sensitivity": (("sensitivity",), plot_time_reduction_sensitivity),
}


def main(*, figure: str, output: str, validation: str | None = None, projection: str | None = None,
         summary: str | None = None, sensitivity: str | None = None, caption: str | None = None) -> None:  # fmt: skip
    draw_figure("disttrain/tensor3d", FIGURES, figure, output,
                {"validation": validation, "projection": projection, "summary": summary,
                 "sensitivity": sensitivity}, caption=caption)  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, validation=smk.input.get("validation"),
         projection=smk.input.get("projection"), summary=smk.input.get("summary"),
         sensitivity=smk.input.get("sensitivity"), caption=smk.input.caption)  # fmt: skip
