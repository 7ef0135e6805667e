"""Tables for the report: a study's headline numbers (its summary.json, flattened) as CSV and HTML.

Every study ends in `results/<study>/summary.json`, the numbers its paper's abstract quotes. This module
turns one summary into a two-column table, one row per leaf: nested keys joined by dots
(`tasks.image.claims.jorge_epochs_not_more_than_sgd`), items of a list of records indexed
(`runs[0].backend`), a list of plain values kept on one row. The CSV keeps every value at full precision
(for a reader's own scripts); the HTML page beside it shows the same rows, numbers to 4 significant digits,
and is what Snakemake's report displays (it shows HTML results inline and offers other files only as
downloads). `write_table` is the one writer of such tables: the PCGBench tables go through it too.

    python -m workflow_scripts.common.tables results/jorge/summary.json \
        results/jorge/tables/headline_numbers.csv results/jorge/tables/headline_numbers.html --study jorge
"""

import argparse
import csv
import html
import io
import logging
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workflow_scripts.common.io import read_json, write_text
from workflow_scripts.common.logs import configure_logging, snakemake_step
from workflow_scripts.common.provenance import Provenance

logger = logging.getLogger(__name__)

SIGNIFICANT_DIGITS = 4  # of a float in the HTML page; the CSV keeps repr() precision


def flatten_summary(summary: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Rows (key, value) of every leaf of `summary`, in its key order.

    A dict's keys join with dots; a list of dicts or lists is indexed (`runs[0].backend`); a list of plain
    values stays one row (its values joined by ", "); an empty dict or list is one row with an empty value.
    """
    rows: list[tuple[str, Any]] = []
    for key, value in summary.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        rows.extend(_flatten_value(name, value))
    return rows


def _flatten_value(name: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return flatten_summary(value, name) if value else [(name, "")]
    if isinstance(value, list):
        if not value:
            return [(name, "")]
        if all(not isinstance(item, (dict, list)) for item in value):
            return [(name, ", ".join(format_value(item) for item in value))]
        rows = []
        for index, item in enumerate(value):
            rows.extend(_flatten_value(f"{name}[{index}]", item))
        return rows
    return [(name, value)]


def format_value(value: Any, significant_digits: int | None = None) -> str:
    """A cell's text: None is empty, booleans are true/false, floats to `significant_digits` (all when None)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if significant_digits is None:
            return repr(value)
        return f"{value:.{significant_digits}g}"
    return str(value)


def write_table(rows: Sequence[Sequence[Any]], columns: Sequence[str], *, csv_path: str | os.PathLike | None,
                html_path: str | os.PathLike, title: str, note: str = "") -> None:  # fmt: skip
    """Write the same rows as a CSV file (full precision; skipped when `csv_path` is None, for a table that
    is a CSV already) and a self-contained HTML page (rounded)."""
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"table {title!r}: a row has {len(row)} cells for {len(columns)} columns {list(columns)}")
    if csv_path is not None:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([format_value(cell) for cell in row] for row in rows)
        write_text(csv_path, buffer.getvalue())
    write_text(html_path, render_html(rows, columns, title=title, note=note))


def _breakable(name: str) -> str:
    """A column name, escaped, that may break after a "_" (speedup_n@k): a table of sixteen columns fits a window
    when its heads wrap, not when each is one word."""
    return html.escape(name).replace("_", "_<wbr>")


def render_html(rows: Sequence[Sequence[Any]], columns: Sequence[str], *, title: str, note: str = "") -> str:
    """A standalone HTML page holding one table (numbers right-aligned); every cell is escaped."""
    head = "".join(f"<th>{_breakable(str(column))}</th>" for column in columns)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            numeric = isinstance(cell, (int, float)) and not isinstance(cell, bool)
            text = html.escape(format_value(cell, SIGNIFICANT_DIGITS))
            cells.append(f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note_html = f"<p>{html.escape(note)}</p>\n" if note else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<style>body{font-family:sans-serif;font-size:13px;margin:1em}"
        # the table scrolls in its own box, so a table wider than the window is never cut off
        "div.scroll{overflow:auto;max-width:100%;max-height:90vh}"
        "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}"
        "th{background:#eee;position:sticky;top:0;vertical-align:bottom}"
        "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
        "</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n{note_html}"
        f'<div class="scroll"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n' + "\n".join(body)
        + "\n</tbody>\n</table></div>\n</body>\n</html>\n"
    )


def main(*, summary: str | os.PathLike, csv_path: str | os.PathLike, html_path: str | os.PathLike,
         study: str) -> list[tuple[str, Any]]:  # fmt: skip
    """Flatten one study's summary.json into its headline-numbers table (CSV and HTML)."""
    prov = Provenance.start(step="report.headline_table", config={"summary": str(summary), "study": study})
    data = read_json(summary)
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{summary}: a study summary must be a non-empty JSON object of headline numbers, "
                         f"got {type(data).__name__}; rerun the study's summary rule")  # fmt: skip
    rows = flatten_summary(data)
    write_table(rows, ["key", "value"], csv_path=csv_path, html_path=html_path,
                title=f"{study}: headline numbers", note=f"Flattened from {Path(summary).as_posix()}.")  # fmt: skip
    logger.info("%s: %d rows from %s", study, len(rows), summary)
    prov.finish([csv_path, html_path])
    return rows


if __name__ == "__main__":
    if "snakemake" in globals():
        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        main(summary=smk.input.summary, csv_path=smk.output.csv, html_path=smk.output.html, study=smk.params.study)
    else:
        parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("summary")
        parser.add_argument("csv_path")
        parser.add_argument("html_path")
        parser.add_argument("--study", required=True, help="the study's name, as in its report category")
        args = parser.parse_args()
        configure_logging()
        main(summary=args.summary, csv_path=args.csv_path, html_path=args.html_path, study=args.study)
