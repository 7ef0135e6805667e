"""A study's headline numbers: the few numbers `data/headlines.yaml` names, read from its summary.json, with the
paper's number beside each where `data/claims.yaml` has one, its one-line finding and its paper.

Writes, for one study (<results>: the config's results folder):
  <results>/<study>/tables/headline_numbers.csv    the rows at full precision
  <results>/<study>/tables/headline_numbers.html   the same as a page of the report (the study's category)
  <results>/<study>/tables/front_page.html         the finding, paper, rows, claims tally and the one or two
                                                   figures that carry the finding (inline, as data URIs) as a
                                                   fragment of the report's front page (rules/captions/workflow.rst
                                                   includes it)
The study's whole summary, flattened, stays a download (`tables/summary_flat.csv`, workflow_scripts/common/tables.py).

    python -m workflow_scripts.claims.headline monitoring    # from the workflow folder, after `snakemake monitoring`
    python -m workflow_scripts.claims.headline monitoring --results results-paper    # a paper run's
"""

import argparse
import base64
import csv
import dataclasses
import html
import io
import json
import logging
import os
import string
import struct
from pathlib import Path
from typing import Any

import yaml

from workflow_scripts.claims import build
from workflow_scripts.claims.build import Claim, ClaimsError, Row, ValueSpec, fmt, tally
from workflow_scripts.claims.papers import Paper, load_papers, paper_of
from workflow_scripts.common import Provenance, configure_logging, read_json, snakemake_step, write_text
from workflow_scripts.common.config import schema_defaults

logger = logging.getLogger(__name__)

COLUMNS = ["number", "this_run", "paper", "paper_source", "verdict", "read_from"]
MIN_NUMBERS, MAX_NUMBERS = 3, 6  # rows of a headline, not the summary
MAX_FIGURES = 2  # the figures that carry the finding; the others stay in the study's category


@dataclasses.dataclass(kw_only=True, frozen=True)
class Number:
    """One row of the headline table. A claim gives one row per number it has, each under that number's own label
    from the claims file (`part`: "measured" or "projection"), so a label never sits beside another number."""

    name: str  # what the finding's {name} refers to: a value's name, or <claim id>.measured / .projection
    label: str
    claim: Claim | None  # a claims-table row: the paper's number beside this run's
    part: str | None  # the claim's number shown: "measured" or "projection"
    value: ValueSpec | None  # a number of the summary with no paper number


@dataclasses.dataclass(kw_only=True, frozen=True)
class Headline:
    study: str
    finding: str
    numbers: tuple[Number, ...]
    figures: tuple[str, ...]  # the figures (results/<study>/figures/<name>.png) the front page shows


PARTS = ("measured", "projection")


def _claim_numbers(claim: Claim, show: Any, where: str) -> list[Number]:
    """The rows of a claim: its measured number and its projection, each under its own label; `show` keeps one."""
    present = [part for part in PARTS if getattr(claim, part) is not None]
    if show is not None and show not in present:
        raise ClaimsError(f"{where}.show: {show!r} is not one of the claim's numbers {present}")
    if show is not None and show != claim.basis:
        raise ClaimsError(f"{where}.show: {show!r} leaves out the {claim.basis} number that the verdict judges")
    if unlabelled := [part for part in present if not getattr(claim, f"{part}_label")]:
        raise ClaimsError(f"{where}: claim {claim.id!r} has no {unlabelled[0]}_label in the claims file; a headline "
                          "shows a number under its own label only")  # fmt: skip
    return [Number(name=f"{claim.id}.{part}", label=getattr(claim, f"{part}_label"), claim=claim, part=part, value=None)
            for part in present if show in (None, part)]  # fmt: skip


def finding_names(finding: str) -> list[str]:
    """The {names} a finding fills in (a name may hold a dot: <claim id>.projection)."""
    return [field for _, field, _, _ in string.Formatter().parse(finding) if field is not None]


class _FlatNames(string.Formatter):
    """str.format with dotted names looked up whole ({claim.projection}), not as attributes."""

    def get_field(self, field_name: str, args: Any, kwargs: dict[str, Any]) -> tuple[Any, str]:
        return kwargs[field_name], field_name


def load_headlines(path: str | os.PathLike, study: str, claims: list[Claim], summary: str) -> Headline:
    """The study's entry of the headlines file, its claims resolved; a problem names the study and the field."""
    data = yaml.safe_load(open(path, encoding="utf-8"))
    entry = (data or {}).get("studies", {}).get(study)
    where = f"{path}: studies.{study}"
    if not isinstance(entry, dict) or not isinstance(entry.get("finding"), str) or not isinstance(entry.get("numbers"), list):
        raise ClaimsError(f"{where}: expected `finding` (a sentence) and `numbers` (a list); add the study's entry")
    unknown = set(entry) - {"finding", "numbers", "figures"}
    if unknown:
        raise ClaimsError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: finding, numbers, figures")
    figures = entry.get("figures") or []
    if not isinstance(figures, list) or len(figures) > MAX_FIGURES or not all(isinstance(f, str) for f in figures):
        raise ClaimsError(f"{where}.figures: name the figures that carry the finding, at most {MAX_FIGURES} "
                          "(results/<study>/figures/<name>.png)")  # fmt: skip
    by_id = {claim.id: claim for claim in claims}
    numbers = []
    for i, number in enumerate(entry["numbers"]):
        if isinstance(number, dict) and "claim" in number:
            if set(number) - {"claim", "show"}:
                raise ClaimsError(f"{where}.numbers[{i}]: a claim's row takes `claim` and `show` only; its labels are "
                                  "the claim's measured_label and projection_label (data/claims.yaml)")  # fmt: skip
            claim = by_id.get(number["claim"])
            if claim is None or claim.study != study:
                raise ClaimsError(f"{where}.numbers[{i}]: no claim {number['claim']!r} of study {study!r} in the "
                                  "claims file")  # fmt: skip
            numbers += _claim_numbers(claim, number.get("show"), f"{where}.numbers[{i}]")
        else:
            if not isinstance(number, dict) or not {"name", "label", "key"} <= set(number):
                raise ClaimsError(f"{where}.numbers[{i}]: give `claim`, or `name`, `label` and `key`")
            spec = build.value_spec({k: number[k] for k in ("key", "reduce") if k in number}, summary, f"{where}.numbers[{i}]")
            numbers.append(Number(name=str(number["name"]), label=str(number["label"]), claim=None, part=None, value=spec))
    if not MIN_NUMBERS <= len(numbers) <= MAX_NUMBERS:
        raise ClaimsError(f"{where}.numbers: {len(numbers)} numbers; a headline has {MIN_NUMBERS}-{MAX_NUMBERS}")
    finding = " ".join(entry["finding"].split())
    names = {number.name for number in numbers}
    if unnamed := [name for name in finding_names(finding) if name not in names]:
        raise ClaimsError(f"{where}.finding names {unnamed}, which are none of its numbers {sorted(names)}")
    return Headline(study=study, finding=finding, numbers=tuple(numbers), figures=tuple(figures))


def front_page_figures(path: str | os.PathLike, study: str, drawn: list[str]) -> list[str]:
    """Of the figures a config draws for the study (`drawn`, paths ending <name>.png), those its headline entry
    names, in the entry's order (rules/report.smk gives them to the headline rule). A named figure the config
    does not draw (a part it leaves out) is left out."""
    entry = ((yaml.safe_load(open(path, encoding="utf-8")) or {}).get("studies") or {}).get(study) or {}
    by_name = {Path(figure).stem: figure for figure in drawn}
    return [by_name[name] for name in entry.get("figures") or [] if name in by_name]


NOT_MEASURED = "not measured by this run"


def judge_present(claims: list[Claim], summaries: dict[str, Any]) -> tuple[list[Row], dict[str, str]]:
    """(the rows of the claims this run's summary has the numbers for, {claim id: why not} for the others): a
    config that leaves part of a study out (one task of two) still gets its headline, the rest marked."""
    rows, absent = [], {}
    for claim in claims:
        try:
            rows += build.build_rows([claim], summaries)
        except build.MissingKey as err:
            absent[claim.id] = str(err)
    return rows, absent


def headline_rows(headline: Headline, summaries: dict[str, Any], claim_rows: dict[str, Row],
                  absent: dict[str, str] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """One row per number: its label, this run's value of that same number, and, on the row of the number a claim's
    verdict judges (its basis), the paper's number and the verdict."""
    rows = []
    for number in headline.numbers:
        claim = number.claim
        if claim is not None and claim.id in (absent or {}):
            rows.append({"number": number.label, "this_run": None, "paper": "", "paper_source": claim.paper_source,
                         "verdict": NOT_MEASURED, "read_from": absent[claim.id], "name": number.name})  # fmt: skip
        elif claim is not None:
            row = claim_rows[claim.id]
            cells = row.as_csv()
            judged = number.part == claim.basis
            rows.append({"number": number.label, "this_run": getattr(row, number.part),
                         "paper": cells["paper"] if judged else "", "paper_source": cells["paper_source"] if judged else "",
                         "verdict": row.verdict if judged else "", "read_from": cells[f"{number.part}_from"],
                         "name": number.name})  # fmt: skip
        else:
            try:
                value, verdict = build.read_value(number.value, summaries, f"headline {headline.study}"), ""
            except build.MissingKey:
                value, verdict = None, NOT_MEASURED
            rows.append({"number": number.label, "this_run": value, "paper": "", "paper_source": "", "verdict": verdict,
                         "read_from": number.value.describe(), "name": number.name})  # fmt: skip
    return rows


def _table_html(rows: list[dict[str, Any]]) -> str:
    body = "".join(
        f"<tr><td>{html.escape(row['number'])}</td><td class=\"num\" title=\"{html.escape(row['read_from'])}\">"
        f"{html.escape(fmt(row['this_run']))}</td><td class=\"num\" title=\"{html.escape(row['paper_source'])}\">"
        f"{html.escape(row['paper'] or '-')}</td><td>{html.escape(row['verdict'])}</td></tr>"
        for row in rows
    )
    return ('<table class="headline"><thead><tr><th>headline number</th><th>this run</th><th>paper</th>'
            f"<th>verdict</th></tr></thead><tbody>{body}</tbody></table>\n")  # fmt: skip


def _png_width_and_description(data: bytes, path: str | os.PathLike) -> tuple[int, str]:
    """A PNG's width in pixels and its Description text (a tEXt or uncompressed iTXt chunk; "" if none), read from
    its chunks (https://www.w3.org/TR/png/#5Chunk-layout): length, type, data, CRC."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ClaimsError(f"{path} is not a PNG; the front page shows the study's PNG figures")
    width_px, description, at = struct.unpack(">I", data[16:20])[0], "", 8
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"tEXt" and chunk.startswith(b"Description\0"):
            description = chunk.split(b"\0", 1)[1].decode("latin-1")
        elif kind == b"iTXt" and chunk.startswith(b"Description\0\0"):  # compression flag 0: plain UTF-8
            # then the compression method (1 byte), a language tag and a translated keyword (each ended by \0)
            description = chunk[len(b"Description") + 3:].split(b"\0", 2)[2].decode("utf-8")
        at += 12 + length
    return width_px, description


def figure_html(path: str | os.PathLike) -> str:
    """A figure inline, as a data URI (the report is one file), at most its drawn width. Its caption is drawn in
    the PNG under the plot (workflow_scripts/common/figures.py) and kept in its Description, the image's alt text."""
    data = Path(path).read_bytes()
    width_px, caption = _png_width_and_description(data, path)
    uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    # The report's own link to a result (its key is the path as the rule names it): the full caption and details.
    details = html.escape(f"javascript:app.showResultInfo({json.dumps(str(path))})")
    return (f'<figure class="front"><img src="{uri}" alt="{html.escape(caption)}" '
            f'style="width:100%;max-width:{width_px}px;height:auto"><figcaption><a href="{details}">'
            f"{html.escape(Path(path).name)}</a>: its full caption, and the study's other figures in its category "
            "(menu on the left)</figcaption></figure>\n")  # fmt: skip


def front_page_html(headline: Headline, rows: list[dict[str, Any]], paper: Paper | None, claim_rows: list[Row],
                    figures: list[str] | tuple[str, ...] = ()) -> str:  # fmt: skip
    """The study's part of the report's front page: finding, paper, headline numbers, its claims' tally, and the
    figures that carry its finding."""
    finding = _FlatNames().format(headline.finding, **{row["name"]: fmt(row["this_run"]) for row in rows})
    cited = f"Paper: {paper.html()}." if paper else "Reproduces no paper: this project's own plumbing."
    counted = f" Its {html.escape(tally(claim_rows))}." if claim_rows else ""
    return (f'<p class="finding"><strong>{html.escape(finding)}</strong></p>\n<p class="paper">{cited}{counted} '
            "Hover a number for the summary key it was read from, a paper number for where the paper states it."
            f"</p>\n{_table_html(rows)}" + "".join(figure_html(path) for path in figures))  # fmt: skip


def main(*, study: str, summary: str, headlines_file: str, claims_file: str, papers_file: str, output_csv: str,
         output_html: str, output_front: str, figures: list[str] | tuple[str, ...] = (),
         results: str = schema_defaults("")["results"]) -> list[dict[str, Any]]:  # fmt: skip
    """The study's tables from its `summary` (in the results folder `results`, named as the claims file names it);
    `figures` (front_page_figures) are shown on its part of the front page."""
    prov = Provenance.start(step=f"{study} headline", config={"headlines_file": headlines_file, "study": study})
    claims = build.load_claims(claims_file)
    name = build.claims_name(summary, results)  # results/<study>/summary.json, as data/claims.yaml reads it
    headline = load_headlines(headlines_file, study, claims, name)
    summaries = {name: read_json(summary)}
    study_claims = [claim for claim in claims if claim.study == study]
    claim_rows, absent = judge_present(study_claims, summaries)
    for claim_id, why in absent.items():
        logger.warning("claim %s: %s by this run (%s)", claim_id, NOT_MEASURED, why)
    rows = headline_rows(headline, summaries, {row.claim.id: row for row in claim_rows}, absent)
    paper = paper_of(load_papers(papers_file), study, papers_file)

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({**row, "this_run": "" if row["this_run"] is None else repr(row["this_run"])} for row in rows)
    write_text(output_csv, buffer.getvalue())
    write_text(output_front, front_page_html(headline, rows, paper, claim_rows, figures))
    # The category's page beside the figures: the rows without the figures (each is a report item there).
    front = front_page_html(headline, rows, paper, claim_rows)
    write_text(output_html, (
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(study)}: headline "
        "numbers</title><style>body{font-family:sans-serif;font-size:13px;margin:1em}table{border-collapse:collapse}"
        "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}td.num{text-align:right}"
        f"</style></head><body>\n<h1>{html.escape(study)}: headline numbers</h1>\n{front}"
        "<p>The whole summary, flattened: <code>summary_flat.csv</code> (a download in this category). The "
        "claims of every study: the Claims page.</p>\n</body></html>\n"))  # fmt: skip
    for row in rows:
        logger.info("%s: %s (paper %s) %s", row["number"], fmt(row["this_run"]), row["paper"] or "-", row["verdict"])
    prov.finish([output_csv, output_html, output_front])
    return rows


if __name__ == "__main__":
    if "snakemake" in globals():
        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        main(study=smk.params.study, summary=smk.input.summary, headlines_file=smk.input.headlines,
             claims_file=smk.input.claims, papers_file=smk.input.papers, output_csv=smk.output.csv,
             output_html=smk.output.html, output_front=smk.output.front, figures=list(smk.input.figures),
             results=smk.config["results"])  # fmt: skip
    else:
        parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        parser.add_argument("study", help="a registered study, as in <results>/<study>/ (e.g. disttrain/moe)")
        parser.add_argument("--results", default=schema_defaults("")["results"],
                            help="the results folder (a config's `results`)")
        args = parser.parse_args()
        configure_logging()
        tables = f"{args.results}/{args.study}/tables"
        drawn = sorted(str(path) for path in Path(args.results, args.study, "figures").glob("*.png"))
        main(study=args.study, summary=f"{args.results}/{args.study}/summary.json", headlines_file="data/headlines.yaml",
             claims_file="data/claims.yaml", papers_file="data/papers.yaml", output_csv=f"{tables}/headline_numbers.csv",
             output_html=f"{tables}/headline_numbers.html", output_front=f"{tables}/front_page.html",
             figures=front_page_figures("data/headlines.yaml", args.study, drawn), results=args.results)  # fmt: skip
