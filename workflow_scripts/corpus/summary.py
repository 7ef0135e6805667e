"""Corpus figure and summary: files and lines by language and by parallel model.

Input: the statistics JSON written by `build.py`.
Outputs: `results/corpus/figures/corpus_composition.png` and `results/corpus/summary.json` (the
headline numbers: sources fetched and failed, files, lines, bytes, duplicates removed, split sizes).

Run: `snakemake corpus` (rules/corpus.smk), or call `main(...)` from Python.
"""


import logging
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from workflow_scripts.common import Provenance, read_json, write_json  # noqa: E402
from workflow_scripts.common.figures import EXECUTION_MODEL_NAMES, readable, save_figure  # noqa: E402

logger = logging.getLogger(__name__)


# Names the figure shows for build.py's languages and the scanner's parallel models ("none": plain serial code).
LANGUAGE_NAMES = {"c": "C", "cpp": "C++", "cuda": "CUDA", "fortran": "Fortran"}
MODEL_NAMES = EXECUTION_MODEL_NAMES | {"pthreads": "Pthreads", "sycl": "SYCL", "none": "none (serial)"}


def plot_composition(stats: dict[str, Any], figure_path: str | Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for column, (key, title, words) in enumerate((("by_language", "language", LANGUAGE_NAMES),
                                                  ("by_parallel_model", "parallel model", MODEL_NAMES))):  # fmt: skip
        groups = stats[key]
        names = sorted(groups, key=lambda name: -groups[name]["files"])
        for row, measure in enumerate(("files", "lines")):
            ax = axes[row][column]
            values = [groups[name][measure] for name in names]
            bars = ax.bar([readable(name, words) for name in names], values,
                          color="tab:blue" if row == 0 else "tab:orange")  # fmt: skip
            ax.bar_label(bars, labels=[f"{v:,}" for v in values], fontsize=8)
            ax.set_ylabel(measure)
            ax.set_title(f"{measure} by {title}")
            ax.tick_params(axis="x", rotation=30)
    fig.suptitle(f"HPC code corpus: {stats['files']:,} files, {stats['lines']:,} lines "
                 f"from {len(stats['by_repository'])} repositories (a file can use several models)")  # fmt: skip
    fig.tight_layout()
    save_figure(fig, figure_path)


def main(stats_path: str | Path, summary_path: str | Path, figure_path: str | Path, seed: int,
         caption: str | Path | None = None) -> dict[str, Any]:  # fmt: skip
    prov = Provenance.start(step="corpus.summary", config={"stats": str(stats_path)}, seed=seed)
    stats = read_json(stats_path)
    plot_composition(stats, figure_path)
    if caption:  # the report's caption file: its first sentence drawn under the figure
        from workflow_scripts.common.figures import add_caption, caption_text

        add_caption(figure_path, caption_text(caption))
    summary = {
        "sources_ok": [s["name"] for s in stats["sources"] if s["status"] == "ok"],
        "sources_failed": {s["name"]: s["error"] for s in stats["sources"] if s["status"] != "ok"},
        "sources": stats["sources"],
        "files": stats["files"],
        "lines": stats["lines"],
        "bytes": stats["bytes"],
        "dropped": stats["dropped"],
        "splits": stats["splits"],
        "files_by_language": {k: v["files"] for k, v in stats["by_language"].items()},
        "files_by_parallel_model": {k: v["files"] for k, v in stats["by_parallel_model"].items()},
    }
    write_json(summary_path, summary)
    prov.finish([summary_path, figure_path])
    logger.info("corpus: %d files, %d lines from %s", summary["files"], summary["lines"], ", ".join(summary["sources_ok"]))
    return summary


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.stats, smk.output.summary, smk.output.figure, smk.params.seed, smk.input.caption)
