"""A study's headline numbers: the few numbers `data/headlines.yaml` names, read from its summary.json, with the
paper's number beside each where `data/claims.yaml` has one, its one-line finding and its paper.

Writes, for one study (<results>: the config's results folder):
  <results>/<study>/tables/headline_numbers.csv    the rows at full precision
  <results>/<study>/tables/headline_numbers.html   the same as a page of the report (the study's category)
  <results>/<study>/tables/front_page.html         the finding, paper, rows and claims tally as a fragment of the
                                                   report's front page (rules/captions/workflow.rst includes it)
The study's whole summary, flattened, stays a download (`tables/summary_flat.csv`, workflow_scripts/common/tables.py).

    python -m workflow_scripts.claims.headline monitoring    # from the workflow folder, after `snakemake monitoring`
    python -m workflow_scripts.claims.headline monitoring --results results-paper    # a paper run's
"""

import argparse
import csv
import dataclasses
import html
import io
import logging
import os
from typing import Any

import yaml

from workflow_scripts.claims import build
from workflow_scripts.claims.build import Claim, ClaimsError, Row, ValueSpec, fmt, tally
from workflow_scripts.claims.papers import Paper, load_papers, paper_of
from workflow_scripts.common import Provenance, configure_logging, read_json, snakemake_step, write_text
from workflow_scripts.common.config import schema_defaults

logger = logging.getLogger(__name__)

COLUMNS = ["number", "this_run", "paper", "paper_source", "verdict", "read_from"]
MIN_NUMBERS, MAX_NUMBERS = 3, 6  # a headline, not the summary


@dataclasses.dataclass(kw_only=True, frozen=True)
class Number:
    name: str  # what the finding's {name} refers to
    label: str
    claim: Claim | None  # a claims-table row: the paper's number beside this run's
    value: ValueSpec | None  # a number of the summary with no paper number


@dataclasses.dataclass(kw_only=True, frozen=True)
class Headline:
    study: str
    finding: str
    numbers: tuple[Number, ...]


def load_headlines(path: str | os.PathLike, study: str, claims: list[Claim], summary: str) -> Headline:
    """The study's entry of the headlines file, its claims resolved; a problem names the study and the field."""
    data = yaml.safe_load(open(path, encoding="utf-8"))
    entry = (data or {}).get("studies", {}).get(study)
    where = f"{path}: studies.{study}"
    if not isinstance(entry, dict) or not isinstance(entry.get("finding"), str) or not isinstance(entry.get("numbers"), list):
        raise ClaimsError(f"{where}: expected `finding` (a sentence) and `numbers` (a list); add the study's entry")
    if not MIN_NUMBERS <= len(entry["numbers"]) <= MAX_NUMBERS:
        raise ClaimsError(f"{where}.numbers: {len(entry['numbers'])} numbers; a headline has {MIN_NUMBERS}-{MAX_NUMBERS}")
    by_id = {claim.id: claim for claim in claims}
    numbers = []
    for i, number in enumerate(entry["numbers"]):
        if "claim" in number:
            claim = by_id.get(number["claim"])
            if claim is None or claim.study != study:
                raise ClaimsError(f"{where}.numbers[{i}]: no claim {number['claim']!r} of study {study!r} in the "
                                  "claims file")  # fmt: skip
            label = number.get("label") or claim.measured_label or claim.claim
            numbers.append(Number(name=claim.id, label=str(label), claim=claim, value=None))
        else:
            if not {"name", "label", "key"} <= set(number):
                raise ClaimsError(f"{where}.numbers[{i}]: give `claim`, or `name`, `label` and `key`")
            spec = build.value_spec({k: number[k] for k in ("key", "reduce") if k in number}, summary, f"{where}.numbers[{i}]")
            numbers.append(Number(name=str(number["name"]), label=str(number["label"]), claim=None, value=spec))
    finding = " ".join(entry["finding"].split())
    try:
        finding.format(**{number.name: "" for number in numbers})
    except (KeyError, IndexError) as err:
        raise ClaimsError(f"{where}.finding names {err}, which is none of its numbers") from None
    return Headline(study=study, finding=finding, numbers=tuple(numbers))


def _claim_value(row: Row) -> Any:
    """The number a claim's verdict judges: the paper-scale projection where the claim is about it."""
    return row.projection if row.claim.basis == "projection" else row.measured


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
    rows = []
    for number in headline.numbers:
        if number.claim is not None and number.claim.id in (absent or {}):
            rows.append({"number": number.label, "this_run": None, "paper": "", "paper_source": number.claim.paper_source,
                         "verdict": NOT_MEASURED, "read_from": absent[number.claim.id], "name": number.name})  # fmt: skip
        elif number.claim is not None:
            row = claim_rows[number.claim.id]
            cells = row.as_csv()
            basis = "projection to the paper's scale: " if number.claim.basis == "projection" else ""
            rows.append({"number": basis + number.label, "this_run": _claim_value(row), "paper": cells["paper"],
                         "paper_source": cells["paper_source"], "verdict": row.verdict,
                         "read_from": cells["projection_from" if basis else "measured_from"], "name": number.name})  # fmt: skip
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


def front_page_html(headline: Headline, rows: list[dict[str, Any]], paper: Paper | None, claim_rows: list[Row]) -> str:
    """The study's part of the report's front page: finding, paper, headline numbers, its claims' tally."""
    finding = headline.finding.format(**{row["name"]: fmt(row["this_run"]) for row in rows})
    cited = f"Paper: {paper.html()}." if paper else "Reproduces no paper: this project's own plumbing."
    counted = f" Its {html.escape(tally(claim_rows))}." if claim_rows else ""
    return (f'<p class="finding"><strong>{html.escape(finding)}</strong></p>\n<p class="paper">{cited}{counted} '
            "Hover a number for the summary key it was read from, a paper number for where the paper states it."
            f"</p>\n{_table_html(rows)}")  # fmt: skip


def main(*, study: str, summary: str, headlines_file: str, claims_file: str, papers_file: str, output_csv: str,
         output_html: str, output_front: str, results: str = schema_defaults("")["results"]) -> list[dict[str, Any]]:  # fmt: skip
    """The study's tables from its `summary` (in the results folder `results`, named as the claims file names it)."""
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
    front = front_page_html(headline, rows, paper, claim_rows)
    write_text(output_front, front)
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
             output_html=smk.output.html, output_front=smk.output.front, results=smk.config["results"])  # fmt: skip
    else:
        parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        parser.add_argument("study", help="a registered study, as in <results>/<study>/ (e.g. disttrain/moe)")
        parser.add_argument("--results", default=schema_defaults("")["results"],
                            help="the results folder (a config's `results`)")
        args = parser.parse_args()
        configure_logging()
        tables = f"{args.results}/{args.study}/tables"
        main(study=args.study, summary=f"{args.results}/{args.study}/summary.json", headlines_file="data/headlines.yaml",
             claims_file="data/claims.yaml", papers_file="data/papers.yaml", output_csv=f"{tables}/headline_numbers.csv",
             output_html=f"{tables}/headline_numbers.html", output_front=f"{tables}/front_page.html",
             results=args.results)  # fmt: skip
