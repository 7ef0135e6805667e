"""PCGBench figures, after the paper's: pass@1 per generator and execution model; speedup_n@1 and
efficiency_n@1 per problem type (n = the largest resource count evaluated); a heat map of pass@1 over
(generator, execution model) x problem type; the verdict mix per generator and execution model; and, for the
translation task, generation pass@1 beside translation pass@1 per target model (is translating working code
easier than writing it from a description?).

Inputs: each generator's metrics.json (the translation figure: its generation and translation results.parquet,
results/pcgbench/<generator>/ and results/pcgbench/translation/<generator>/).
Outputs: one PNG per entry of FIGURES under results/pcgbench/figures/ (`pass_at_1.png`, `speedup_by_type.png`,
`pass_at_1_heatmap.png`, `verdicts.png`, `translation_vs_generation.png`). Every number drawn is read from the metrics
files. Run by the `pcgbench_figure_<name>` rules, one per figure (deleting one figure redraws only it), or call
`main(figure=..., output=..., metrics_paths=[...])` (the translation figure: `results_paths=[...],
translation_results_paths=[...]`) from Python.
"""


import logging
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from workflow_scripts.common.figures import (  # noqa: E402
    EXECUTION_MODEL_NAMES,
    GENERATOR_NAMES,
    VERDICT_COLOURS,
    VERDICT_NAMES,
    Registry,
    draw_figure,
    readable,
    save_figure,
)
from workflow_scripts.measure import VERDICTS  # noqa: E402
from workflow_scripts.pcgbench.metrics import translation_versus_generation  # noqa: E402
from workflow_scripts.pcgbench.translation import PAIR_NAMES, parse_pair  # noqa: E402

logger = logging.getLogger(__name__)

EXEC_MODEL_ORDER = ("serial", "omp", "mpi", "mpi+omp", "kokkos", "cuda", "hip")
# Problem types in words (ParEval's twelve; a type not listed shows its name with spaces).
PROBLEM_TYPE_NAMES = {"dense_la": "dense linear algebra", "sparse_la": "sparse linear algebra", "fft": "FFT"}


def _series(generator: str, exec_model: str | None = None) -> str:
    """A generator (and execution model) in words: "HPC-Coder, OpenMP"."""
    name = readable(generator, GENERATOR_NAMES)
    return name if exec_model is None else f"{name}, {readable(exec_model, EXECUTION_MODEL_NAMES)}"


def _types(types: list[str]) -> list[str]:
    return [readable(t, PROBLEM_TYPE_NAMES) for t in types]


def _largest_n(values: dict, prefix: str) -> tuple[int, float] | None:
    """(n, value) of the metric `<prefix>_<n>@1` with the largest n present."""
    found = [(int(key[len(prefix) + 1:-2]), value) for key, value in values.items()
             if key.startswith(prefix + "_") and key.endswith("@1") and key[len(prefix) + 1:-2].isdigit()]
    return max(found) if found else None


def pass_at_1_figure(metrics: dict[str, dict], path: Path) -> None:
    generators = list(metrics)
    exec_models = [m for m in EXEC_MODEL_ORDER if any(m in metrics[g]["by_model"].get(g, {}) for g in generators)]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(exec_models), 3.6))
    width = 0.8 / max(1, len(generators))
    for i, generator in enumerate(generators):
        by_exec_model = metrics[generator]["by_model"].get(generator, {})
        x = np.arange(len(exec_models)) + i * width
        ax.bar(x, [by_exec_model.get(m, {}).get("build@1", np.nan) for m in exec_models], width, color="none",
               edgecolor=f"C{i}", hatch="//", label=f"{_series(generator)} build@1")  # fmt: skip
        ax.bar(x, [by_exec_model.get(m, {}).get("pass@1", np.nan) for m in exec_models], width, color=f"C{i}",
               label=f"{_series(generator)} pass@1")  # fmt: skip
    ax.set_xticks(np.arange(len(exec_models)) + width * (len(generators) - 1) / 2,
                  [readable(m, EXECUTION_MODEL_NAMES) for m in exec_models])  # fmt: skip
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("pass@1 (filled), build@1 (hatched)")
    ax.set_title("PCGBench: pass@1 per generator and execution model")
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(fig, path)


def speedup_by_type_figure(metrics: dict[str, dict], path: Path) -> None:
    bars = []  # (label, problem type -> (n, speedup), problem type -> (n, efficiency))
    types: set[str] = set()
    for generator, data in metrics.items():
        for exec_model in EXEC_MODEL_ORDER:
            per_type = data["by_model_and_type"].get(generator, {}).get(exec_model)
            if not per_type:
                continue
            speedups = {t: _largest_n(v, "speedup") for t, v in per_type.items()}
            efficiencies = {t: _largest_n(v, "efficiency") for t, v in per_type.items()}
            bars.append((_series(generator, exec_model), speedups, efficiencies))
            types.update(per_type)
    types_sorted = sorted(types)
    fig, axes = plt.subplots(2, 1, figsize=(2 + 1.2 * len(types_sorted), 6.4), sharex=True)
    width = 0.8 / max(1, len(bars))
    # One colour per bar series (tab10 repeats after ten); a score of 0 (ran, no speedup) gets a dash at zero,
    # a problem type a series did not run an "x", so neither looks like the other or like a missing bar.
    colours = plt.get_cmap("tab10" if len(bars) <= 10 else "tab20")(np.arange(len(bars)) % 20)
    for i, (label, speedups, efficiencies) in enumerate(bars):
        x = np.arange(len(types_sorted)) + i * width
        for ax, values in ((axes[0], speedups), (axes[1], efficiencies)):
            heights = np.array([values[t][1] if values.get(t) else np.nan for t in types_sorted], dtype=float)
            ax.bar(x, heights, width, label=label, color=colours[i])
            ax.scatter(x[heights == 0], np.zeros(int((heights == 0).sum())), marker="_", s=120, color=colours[i],
                       linewidths=2.5, zorder=3)  # fmt: skip
            ax.scatter(x[np.isnan(heights)], np.zeros(int(np.isnan(heights).sum())), marker="x", s=14,
                       color="0.55", linewidths=0.8, zorder=3)  # fmt: skip
    axes[0].scatter([], [], marker="_", s=120, color="k", linewidths=2.5, label="score 0 (ran)")
    axes[0].scatter([], [], marker="x", s=14, color="0.55", label="not run")
    axes[0].axhline(1.0, color="k", lw=0.6, ls=":")
    axes[0].set_ylabel("speedup_n@1")
    axes[1].set_ylabel("efficiency_n@1")
    axes[1].set_xticks(np.arange(len(types_sorted)) + width * (len(bars) - 1) / 2, _types(types_sorted),
                       rotation=30, ha="right")  # fmt: skip
    axes[0].set_title("speedup_n@1 and efficiency_n@1 per problem type (n = largest resource count run)")
    axes[0].legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(fig, path)


def heatmap_figure(metrics: dict[str, dict], path: Path) -> None:
    rows, grid = [], {}
    types: set[str] = set()
    for generator, data in metrics.items():
        for exec_model in EXEC_MODEL_ORDER:
            per_type = data["by_model_and_type"].get(generator, {}).get(exec_model)
            if per_type:
                rows.append(_series(generator, exec_model))
                grid[rows[-1]] = {t: v.get("pass@1", np.nan) for t, v in per_type.items()}
                types.update(per_type)
    cols = sorted(types)
    values = np.array([[grid[r].get(c, np.nan) for c in cols] for r in rows], dtype=float)
    fig, ax = plt.subplots(figsize=(2.5 + 0.9 * len(cols), 1.2 + 0.35 * len(rows)))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(cols)), _types(cols), rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for (r, c), v in np.ndenumerate(values):
        if np.isfinite(v):
            ax.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
    fig.colorbar(image, ax=ax, label="pass@1")
    ax.set_title("pass@1 per generator and execution model (rows) and problem type (columns)")
    save_figure(fig, path)


def verdicts_figure(metrics: dict[str, dict], path: Path) -> None:
    """How each generator's samples ended, per execution model: a bar of verdict shares (the verdict mix)."""
    bars = []  # (generator/model, {verdict: samples})
    for generator, data in metrics.items():
        per_exec_model = data.get("verdicts_by_model", {}).get(generator, {})
        bars += [(_series(generator, exec_model), per_exec_model[exec_model]) for exec_model in EXEC_MODEL_ORDER if exec_model in per_exec_model]
    verdicts = [v for v in VERDICTS if any(v in counts for _, counts in bars)]
    fig, ax = plt.subplots(figsize=(2.5 + 0.6 * len(bars), 4.2))
    bottom = np.zeros(len(bars))
    for i, verdict in enumerate(verdicts):
        shares = np.array([counts.get(verdict, 0) / sum(counts.values()) for _, counts in bars])
        ax.bar(range(len(bars)), shares, bottom=bottom, color=VERDICT_COLOURS.get(verdict, f"C{i % 10}"),
               label=readable(verdict, VERDICT_NAMES))  # fmt: skip
        bottom += shares
    for x, (_, counts) in enumerate(bars):
        ax.text(x, 1.01, str(sum(counts.values())), ha="center", va="bottom", fontsize=7)  # samples in the bar
    ax.set_xticks(range(len(bars)), [label for label, _ in bars], rotation=40, ha="right")
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("share of samples")
    ax.set_title("verdict mix per generator and execution model (samples above each bar)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(fig, path)


def translation_figure(results: dict[str, pd.DataFrame], translation_results: dict[str, pd.DataFrame],
                       path: Path) -> None:  # fmt: skip
    """Per translation pair (its target model), each generator's pass@1 writing the target model from the description
    (hatched) beside its translation pass@1 (filled), both over the problems with samples of both tasks
    (metrics.translation_versus_generation). A score of 0 gets a dash at zero, a cell not evaluated an x."""
    cells = {g: translation_versus_generation(results.get(g, frame.iloc[:0]), frame).get(g, {})
             for g, frame in translation_results.items()}  # fmt: skip
    generators = [g for g, by_pair in cells.items() if by_pair]
    pairs = [p for p in PAIR_NAMES if any(p in by_pair for by_pair in cells.values())]
    fig, ax = plt.subplots(figsize=(2.4 + 1.1 * len(pairs) * max(1, len(generators)) / 2, 3.8))
    width = 0.8 / max(1, 2 * len(generators))
    for i, generator in enumerate(generators):
        written = dict(color="none", edgecolor=f"C{i}", hatch="//", label=f"{_series(generator)}, written")
        translated = dict(color=f"C{i}", label=f"{_series(generator)}, translated")
        for offset, column, style in ((0, "generation_pass@1", written), (1, "translation_pass@1", translated)):
            x = np.arange(len(pairs)) + (2 * i + offset) * width
            values = [cells[generator].get(p, {}).get(column) for p in pairs]
            heights = np.array([np.nan if v is None else v for v in values], dtype=float)
            ax.bar(x, heights, width, **style)
            ax.scatter(x[heights == 0], np.zeros(int((heights == 0).sum())), marker="_", s=90, color=f"C{i}",
                       linewidths=2.5, zorder=3)  # fmt: skip
            ax.scatter(x[np.isnan(heights)], np.zeros(int(np.isnan(heights).sum())), marker="x", s=14, color="0.55",
                       linewidths=0.8, zorder=3)  # fmt: skip
    ax.scatter([], [], marker="_", s=90, color="k", linewidths=2.5, label="pass@1 0")
    ax.scatter([], [], marker="x", s=14, color="0.55", label="not evaluated")
    labels = [f"{readable(parse_pair(p)[1], EXECUTION_MODEL_NAMES)}\n(from {readable(parse_pair(p)[0], EXECUTION_MODEL_NAMES)})"
              for p in pairs]  # fmt: skip
    ax.set_xticks(np.arange(len(pairs)) + width * (2 * len(generators) - 1) / 2, labels)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("pass@1 (same problems in both tasks)")
    ax.set_title("pass@1 per target model: written from its description (hatched) or translated (filled)")
    ax.legend(fontsize=7, ncol=1, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    save_figure(fig, path)


# Figure name -> (inputs, how it is drawn from {generator: metrics}). One Snakemake rule per figure
# (rules/pcgbench.smk).
FIGURES: Registry = {
    "pass_at_1": (("metrics",), pass_at_1_figure),
    "speedup_by_type": (("metrics",), speedup_by_type_figure),
    "pass_at_1_heatmap": (("metrics",), heatmap_figure),
    "verdicts": (("metrics",), verdicts_figure),
    "translation_vs_generation": (("results", "translation_results"), translation_figure),
}


def main(*, figure: str, output: str | Path, metrics_paths: list[str | Path] = (), caption: str | Path | None = None,
         results_paths: list[str | Path] = (), translation_results_paths: list[str | Path] = ()) -> None:  # fmt: skip
    """Draw one figure from the generators' metrics.json files (or, for the translation figure, their generation and
    translation results.parquet files)."""
    def by_generator(paths):  # generator name = its folder
        return {Path(p).parent.name: p for p in paths}

    inputs = {"metrics": by_generator(metrics_paths), "results": by_generator(results_paths),
              "translation_results": by_generator(translation_results_paths)}  # fmt: skip
    draw_figure("pcgbench", FIGURES, figure, Path(output), inputs, caption=caption)


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, metrics_paths=list(smk.input.get("metrics") or []),
         caption=smk.input.caption, results_paths=list(smk.input.get("results") or []),
         translation_results_paths=list(smk.input.get("translation_results") or []))
