"""The PCGBench tables of the report: metrics per model and execution model, and the reference speedups.

Inputs and outputs (rules pcgbench_metrics_table and pcgbench_reference_speedups_table):
    results/pcgbench/<generator>/metrics.json    (evaluation.py's metrics; `by_model` -> model -> execution
                                                  model -> pass@k, build@k, speedup_n@k, efficiency_n@k, ...)
      -> results/pcgbench/tables/metrics.csv, .html    one row per (generator, model, execution model)
    results/pcgbench/reference_speedups.csv      (reference_speedups.py)
      -> results/pcgbench/tables/reference_speedups.html   the same rows, for the report to display
                                                  (the CSV itself is a report item too, to download)

Both are written by workflow_scripts.common.tables.write_table (full precision in CSV, rounded in HTML).

    python -m workflow_scripts.pcgbench.tables metrics results/pcgbench/*/metrics.json \
        --csv metrics.csv --html metrics.html
"""

import argparse
import csv
import logging
import os
from pathlib import Path
from typing import Any

from workflow_scripts.common.io import read_json
from workflow_scripts.common.logs import configure_logging, snakemake_step
from workflow_scripts.common.provenance import Provenance
from workflow_scripts.common.tables import write_table

logger = logging.getLogger(__name__)

# The paper's metrics first, in its order; any other metric a metrics.json carries follows, sorted.
LEADING_METRICS = ("pass@", "build@", "speedup_", "efficiency_", "expected_speedup")
COUNT_COLUMNS = ("prompts", "samples", "min_samples_per_prompt")


def _metric_order(name: str) -> tuple[int, str, int]:
    """The paper's metrics first; within a metric, k in numeric order (pass@1, pass@5, pass@10)."""
    stem, _, k = name.rpartition("@")
    by_k = (stem, int(k)) if stem and k.isdigit() else (name, 0)
    for rank, prefix in enumerate(LEADING_METRICS):
        if name.startswith(prefix):
            return rank, *by_k
    return len(LEADING_METRICS), *by_k


def metrics_rows(metrics_by_generator: dict[str, dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Columns and rows (generator, model, execution model, metrics..., counts) of every generator's metrics.

    A metric a row lacks (a k beyond the samples it had) is an empty cell, never a zero.
    """
    entries = []
    for generator, metrics in metrics_by_generator.items():
        by_language_model = metrics.get("by_model") if isinstance(metrics, dict) else None
        if not isinstance(by_language_model, dict):
            raise ValueError(f"PCGBench metrics of generator {generator!r} have no `by_model` object; "
                             "rerun its pcgbench evaluate/metrics rule")  # fmt: skip
        for language_model, by_execution_model in by_language_model.items():
            for execution_model, values in by_execution_model.items():
                entries.append((generator, language_model, execution_model, values))
    metric_names = sorted({name for *_, values in entries for name in values if name not in COUNT_COLUMNS},
                          key=_metric_order)  # fmt: skip
    counts = [name for name in COUNT_COLUMNS if any(name in values for *_, values in entries)]
    columns = ["generator", "model", "execution_model", *metric_names, *counts]
    rows = [[generator, language_model, execution_model, *(values.get(name) for name in metric_names + counts)]
            for generator, language_model, execution_model, values in sorted(entries, key=lambda e: e[:3])]  # fmt: skip
    return columns, rows


def metrics_table(*, metrics: list[str | os.PathLike], csv_path: str | os.PathLike,
                  html_path: str | os.PathLike) -> list[list[Any]]:  # fmt: skip
    """The metrics table of every generator whose metrics.json is given (its folder names the generator)."""
    prov = Provenance.start(step="pcgbench.metrics_table", config={"metrics": [str(p) for p in metrics]})
    by_generator = {Path(path).parent.name: read_json(path) for path in metrics}
    columns, rows = metrics_rows(by_generator)
    write_table(rows, columns, csv_path=csv_path, html_path=html_path,
                title="PCGBench: metrics per model and execution model",
                note="Expected metrics over the prompts of each (model, execution model); an empty cell is a "
                     "metric the samples cannot estimate (k above the samples per prompt).")  # fmt: skip
    logger.info("PCGBench metrics table: %d rows, %d columns", len(rows), len(columns))
    prov.finish([csv_path, html_path])
    return rows


def reference_speedups_table(*, table: str | os.PathLike, html_path: str | os.PathLike) -> list[list[Any]]:
    """The reference-speedup CSV as an HTML table for the report (rows unchanged, numbers read as numbers)."""
    prov = Provenance.start(step="pcgbench.reference_speedups_table", config={"table": str(table)})
    with open(table, newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    if not records or not records[0]:
        raise ValueError(f"{table}: empty reference-speedup table; rerun rule pcgbench_reference_speedups")
    columns, rows = records[0], [[_number_or_text(cell) for cell in row] for row in records[1:]]
    write_table(rows, columns, csv_path=None, html_path=html_path,
                title="PCGBench: speedups of the reference solutions",
                note="Each reference solution built, validated and timed against the serial baseline in the "
                     "same run, call for call; speedup is the median of the repetitions.")  # fmt: skip
    logger.info("PCGBench reference-speedup table: %d rows", len(rows))
    prov.finish([html_path])
    return rows


def _number_or_text(cell: str) -> Any:
    """A CSV cell as int or float when it is one (so the HTML rounds and right-aligns it), else the text."""
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            pass
    return cell


if __name__ == "__main__":
    if "snakemake" in globals():
        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        if smk.params.table == "metrics":
            metrics_table(metrics=list(smk.input.metrics), csv_path=smk.output.csv, html_path=smk.output.html)
        else:
            reference_speedups_table(table=smk.input.table, html_path=smk.output.html)
    else:
        parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("table", choices=["metrics", "reference_speedups"])
        parser.add_argument("inputs", nargs="+", help="metrics.json files, or the one reference_speedups.csv")
        parser.add_argument("--csv", help="the metrics table's CSV (the reference speedups are a CSV already)")
        parser.add_argument("--html", required=True)
        args = parser.parse_args()
        configure_logging()
        if args.table == "metrics":
            metrics_table(metrics=args.inputs, csv_path=args.csv, html_path=args.html)
        else:
            reference_speedups_table(table=args.inputs[0], html_path=args.html)
