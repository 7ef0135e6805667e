"""Figures of the re-scoring of ParEval's released outputs: PCGBench's pass@1 against ParEval's per (model,
execution model, problem type), with the diagonal; and the causes of the disagreements with ParEval, stacked, per
model and execution model.

Inputs: results/pcgbench/pareval_released/by_problem_type.json and causes.json (pareval_table.py).
Outputs: results/pcgbench/pareval_released/figures/pass_at_1_vs_pareval.png and disagreement_causes.png. Every number
drawn is read from those files. Run by the rules pcgbench_pareval_released_figure_<name>, or call
`main(figure=..., output=..., source=...)`.
"""

import logging
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from workflow_scripts.common.figures import (  # noqa: E402
    EXECUTION_MODEL_NAMES,
    Registry,
    draw_figure,
    legend_outside,
    readable,
    save_figure,
)
from workflow_scripts.pcgbench.agreement import CAUSES  # noqa: E402

logger = logging.getLogger(__name__)

MARKERS = {"serial": "o", "omp": "s", "mpi": "^", "mpi+omp": "D", "kokkos": "v"}
# The causes in words, in the order stacked (agreement.CAUSES: their families).
CAUSE_NAMES = {"race_detected": "data race (stricter)", "no_parallelism": "no parallelism (stricter)",
               "tampering": "tampering (stricter)", "resource_overuse": "resource overuse (stricter)",
               "answer_check": "another check of the answer", "time_limit": "time or resource limit",
               "pareval_run_failed": "ParEval's run failed", "build_environment": "build environment",
               "prompt_mismatch": "interface (prompt mismatch)", "memory_error": "memory corrupted (undefined behaviour)",
               "unexplained": "unexplained"}  # fmt: skip
CAUSE_COLOURS = {"race_detected": "tab:pink", "no_parallelism": "tab:olive", "tampering": "black",
                 "resource_overuse": "tab:cyan", "answer_check": "tab:orange", "time_limit": "tab:purple",
                 "pareval_run_failed": "tab:brown", "build_environment": "tab:gray", "prompt_mismatch": "lightgray",
                 "memory_error": "tab:green", "unexplained": "tab:red"}  # fmt: skip
assert set(CAUSE_NAMES) == set(CAUSES), "every cause agreement.py gives has a name and a colour here"


def _cell(entry: dict) -> str:
    """A language model, task and execution model in words: "GPT-4, translation, OpenMP"."""
    return f"{entry['language_model']}, {entry['task']}, {readable(entry['model'], EXECUTION_MODEL_NAMES)}"


def pass_at_1_figure(by_type: list[dict], path: Path) -> None:
    """Two panels, one point per (language model, execution model, task, problem type): PCGBench's pass@1 against
    ParEval's verdicts on the same samples (left) and against ParEval's published value over every output (right);
    the diagonal is agreement. Point size grows with the samples scored."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharey=True)
    language_models = sorted({row["model"] for row in by_type})
    colours = {language_model: plt.get_cmap("tab10")(i % 10) for i, language_model in enumerate(language_models)}
    for ax, against, label in ((axes[0], "pareval_pass@1", "ParEval's verdicts on the same samples"),
                               (axes[1], "published_pass@1", "ParEval's published value (every output)")):  # fmt: skip
        ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", zorder=0)
        for row in by_type:
            if row[against] is None or row["pcgbench_pass@1"] is None:
                continue
            ax.scatter(row[against], row["pcgbench_pass@1"], s=20 + 8 * row["samples"],
                       marker=MARKERS.get(row["execution_model"], "o"), color=colours[row["model"]], alpha=0.7,
                       edgecolor="black" if row["task"] == "translation" else "none")  # fmt: skip
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-0.05, 1.05)
        ax.set_aspect("equal")
        ax.set_xlabel(f"pass@1, {label}")
    axes[0].set_ylabel("pass@1, PCGBench's verdicts")
    handles = [plt.Line2D([], [], ls="", marker="o", color=colours[m], label=m) for m in language_models]
    handles += [plt.Line2D([], [], ls="", marker=MARKERS[m], color="0.3", label=readable(m, EXECUTION_MODEL_NAMES))
                for m in MARKERS if any(row["execution_model"] == m for row in by_type)]  # fmt: skip
    handles += [plt.Line2D([], [], ls="", marker="o", color="white", markeredgecolor="black",
                           label="translation (outlined)")]  # fmt: skip
    legend_outside(axes[1], handles=handles, fontsize=7)
    fig.suptitle("pass@1 per language model, execution model and problem type: PCGBench against ParEval")
    save_figure(fig, path)


def causes_figure(causes: dict, path: Path) -> None:
    """One bar per (language model, task, execution model): its disagreements with ParEval stacked by cause, the
    samples scored written beside the bar (a cell with no disagreement shows an empty bar and its n)."""
    names = {(s["task"], s["generator"], s["model"]): s for s in causes["samples"]}
    cells = sorted(names, key=lambda k: (k[1], k[0], list(MARKERS).index(k[2]) if k[2] in MARKERS else 9))
    counts = {(c["task"], c["generator"], c["model"], c["cause"]): c["count"] for c in causes["causes"]}
    present = [cause for cause in CAUSE_NAMES if any(key[3] == cause for key in counts)]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(cells) + 1.5))
    y = np.arange(len(cells))
    left = np.zeros(len(cells))
    for cause in present:
        widths = np.array([counts.get((*cell, cause), 0) for cell in cells], dtype=float)
        ax.barh(y, widths, left=left, color=CAUSE_COLOURS[cause], label=CAUSE_NAMES[cause])
        left += widths
    for i, cell in enumerate(cells):
        ax.text(left[i] + 0.1, y[i], f"{int(left[i])} of {names[cell]['n']} samples", va="center", fontsize=7)
    labels = [_cell(names[cell]) for cell in cells]
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("samples where PCGBench's verdict differs from ParEval's, by cause")
    ax.set_xlim(0, max(1.0, float(left.max()) * 1.4))
    if present:
        legend_outside(ax, fontsize=7)
    ax.set_title("Why PCGBench and ParEval disagree, per language model, task and execution model")
    save_figure(fig, path)


# Figure name -> (its input, how it is drawn). One Snakemake rule per figure (rules/pcgbench.smk).
FIGURES: Registry = {
    "pass_at_1_vs_pareval": (("source",), pass_at_1_figure),
    "disagreement_causes": (("source",), causes_figure),
}


def main(*, figure: str, output: str | Path, source: str | Path, caption: str | Path | None = None) -> None:
    """Draw one figure from the table's by_problem_type.json or causes.json."""
    draw_figure("pcgbench/pareval_released", FIGURES, figure, Path(output), {"source": source}, caption=caption)


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(figure=smk.params.figure, output=smk.output.figure, source=smk.input.source, caption=smk.input.caption)
