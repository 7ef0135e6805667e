"""The claims table: one row per headline claim of the ten studies, `<results>/claims.csv` and `<results>/claims.html`
(<results>: the config's results folder; `results` by default, `results-paper` for config/paper.yaml).

Inputs: `data/claims.yaml` (where each number is read and how each claim is judged; never a measured number),
`data/papers.yaml` (the paper each study reproduces) and the studies' `<results>/<study>/summary.json` files,
which the claims file names `results/<study>/summary.json` whatever the folder (`claims_name`).
Each row holds the paper's number (with its paper and where in it the number stands), the number this run measured, the paper-scale projection where a study makes one, a verdict
(reproduced / partly / not / not testable here) and a one-sentence reason, all computed from the summaries.

History: every run's verdicts are kept in `<results>/claims_history.csv`, one row per claim and per set of
summaries (keyed by a hash of the summaries' bytes, so rebuilding the table from the same summaries adds
nothing). A claim whose verdict varied over the recorded runs says how often it held.

Also written: `<results>/claims_tally.html`, the tally of verdicts as an HTML fragment that the report's front
page shows (rules/captions/workflow.rst).

    snakemake claims                                       # what rules/claims.smk runs
    python -m workflow_scripts.claims.build --workdir .   # the same by hand, from <workdir>/results/
    python -m workflow_scripts.claims.build --results results-paper   # a paper run's

A missing summary or key stops with the file, the key and the claim that wanted it.
"""

import argparse
import csv
import dataclasses
import datetime as dt
import hashlib
import html
import io
import logging
import math
import operator
import os
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from workflow_scripts.claims.papers import Paper, load_papers, paper_of
from workflow_scripts.common import Provenance, configure_logging, read_json, snakemake_step, write_text
from workflow_scripts.common.config import CONFIG_RESULTS, schema_defaults

logger = logging.getLogger(__name__)

REPRODUCED, PARTLY, NOT, NOT_TESTABLE = "reproduced", "partly", "not", "not testable here"
HELD = (REPRODUCED, PARTLY)  # a run in which the claim "held": its direction at least
COLUMNS = ["study", "claim_id", "claim", "paper", "paper_cited", "paper_source", "measured", "measured_what", "projection",
           "projection_what", "verdict", "reason", "history", "measured_from", "projection_from"]  # fmt: skip
HISTORY_COLUMNS = ["summaries_sha256", "recorded_utc", "claim_id", "verdict", "measured", "projection"]
REDUCERS = {"min", "max", "sum", "mean", "len", "all", "any"}
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
NEEDS = {"<": "below", "<=": "at most", ">": "above", ">=": "at least", "==": "exactly"}  # a reason in words
CHECK_OPS = set(OPS) | {"true", "startswith"}


class ClaimsError(ValueError):
    """A claims file that does not say what it must, or a summary that lacks what a claim reads."""


class MissingKey(ClaimsError):
    """A summary lacks the key a claim reads: a typo in the claims file, or a run whose config left that part out
    (the claims table stops on it; a study's headline shows the number as not measured by this run)."""


# ---- the claims file ------------------------------------------------------------------------------------------


@dataclasses.dataclass(kw_only=True, frozen=True)
class ValueSpec:
    """Where one number is read: a key path in a summary, optionally folded, divided, complemented."""

    summary: str
    key: str  # "/"-separated; "*" takes every entry of a dict or list
    reduce: str | None = None  # one of REDUCERS
    divide_by: "ValueSpec | None" = None
    complement: bool = False  # 1 - value

    def describe(self) -> str:
        text = f"{self.summary}:{self.key}" + (f" ({self.reduce})" if self.reduce else "")
        if self.divide_by:
            text += f" / {self.divide_by.describe()}"
        return f"1 - ({text})" if self.complement else text

    def summaries(self) -> set[str]:
        return {self.summary} | (self.divide_by.summaries() if self.divide_by else set())


@dataclasses.dataclass(kw_only=True, frozen=True)
class Check:
    label: str
    value: ValueSpec
    op: str  # one of CHECK_OPS
    than: ValueSpec | float | str | None = None


@dataclasses.dataclass(kw_only=True, frozen=True)
class PaperRatio:
    direction: str  # "higher": value / paper; "lower": paper / value
    reproduced: float  # ratio at or above which the claim is reproduced
    partly: float  # ratio at or above which it is partly reproduced


@dataclasses.dataclass(kw_only=True, frozen=True)
class Claim:
    id: str
    study: str
    claim: str
    paper_value: ValueSpec | float | None
    paper_formula: str | None
    paper_source: str
    measured: ValueSpec | None  # None: the tiny run measures nothing for this claim (a projection-only claim)
    measured_label: str  # what the measured number is, in words
    projection: ValueSpec | None
    projection_label: str  # what the projection is, in words: a label names one number, never the other
    basis: str  # "measured" or "projection": the value paper_ratio judges
    extra: dict[str, ValueSpec]
    checks: tuple[Check, ...]
    testable_if: tuple[Check, ...]  # when one fails, the claim is not testable in this run (not_testable says why)
    some_checks: str  # verdict when some checks hold and some do not: "not" or "partly"
    paper_ratio: PaperRatio | None
    not_testable: str | None
    context: str | None

    def summaries(self) -> set[str]:
        specs = [self.measured, self.projection, self.paper_value, *self.extra.values()]
        for check in (*self.checks, *self.testable_if):
            specs += [check.value, check.than]
        return set().union(*(spec.summaries() for spec in specs if isinstance(spec, ValueSpec)))


def _fields(entry: Any, allowed: set[str], required: set[str], where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ClaimsError(f"{where}: expected a mapping, got {entry!r}")
    unknown = set(entry) - allowed
    if unknown:
        raise ClaimsError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    missing = required - set(entry)
    if missing:
        raise ClaimsError(f"{where}: missing field(s) {sorted(missing)}")
    return entry


def value_spec(entry: Any, default_summary: str | None, where: str) -> ValueSpec:
    entry = _fields(entry, {"summary", "key", "reduce", "divide_by", "complement"}, {"key"}, where)
    summary = entry.get("summary", default_summary)
    if not summary:
        raise ClaimsError(f"{where}: no `summary` here and no claim-level `summary` to default to")
    if entry.get("reduce") is not None and entry["reduce"] not in REDUCERS:
        raise ClaimsError(f"{where}.reduce: {entry['reduce']!r} is not one of {sorted(REDUCERS)}")
    divide_by = entry.get("divide_by")
    return ValueSpec(summary=str(summary), key=str(entry["key"]), reduce=entry.get("reduce"),
                     divide_by=value_spec(divide_by, summary, f"{where}.divide_by") if divide_by else None,
                     complement=bool(entry.get("complement", False)))  # fmt: skip


def _operand(entry: Any, default_summary: str, where: str) -> ValueSpec | float | str | None:
    return value_spec(entry, default_summary, where) if isinstance(entry, dict) else entry


def _claim(entry: Any, index: int) -> Claim:
    where = f"claim {entry['id']!r}" if isinstance(entry, dict) and "id" in entry else f"claims[{index}]"
    entry = _fields(entry, {"id", "study", "claim", "paper", "summary", "measured", "measured_label", "projection",
                            "projection_label", "basis", "extra", "verdict"},
                    {"id", "study", "claim", "paper", "verdict"}, where)  # fmt: skip
    where = f"claim {entry['id']!r}"
    summary = entry.get("summary")
    paper = _fields(entry["paper"], {"value", "formula", "source"}, {"source"}, f"{where}.paper")
    verdict = _fields(entry["verdict"], {"checks", "some_checks", "paper_ratio", "not_testable", "testable_if",
                                         "context"}, set(), f"{where}.verdict")  # fmt: skip

    def checks_of(field: str) -> tuple[Check, ...]:
        checks = []
        for i, check in enumerate(verdict.get(field) or []):
            check_where = f"{where}.verdict.{field}[{i}]"
            check = _fields(check, {"label", "value", "op", "than"}, {"label", "value", "op"}, check_where)
            if check["op"] not in CHECK_OPS:
                raise ClaimsError(f"{check_where}.op: {check['op']!r} is not one of {sorted(CHECK_OPS)}")
            if check["op"] != "true" and "than" not in check:
                raise ClaimsError(f"{check_where}: op {check['op']!r} needs `than` (a constant or a value)")
            checks.append(Check(label=check["label"], op=check["op"],
                                value=value_spec(check["value"], summary, f"{check_where}.value"),
                                than=_operand(check.get("than"), summary, f"{check_where}.than")))  # fmt: skip
        return tuple(checks)

    checks, testable_if = checks_of("checks"), checks_of("testable_if")
    if testable_if and not verdict.get("not_testable"):
        raise ClaimsError(f"{where}.verdict.testable_if: give `not_testable`, the sentence for when it fails")
    ratio = None
    if "paper_ratio" in verdict:
        raw = _fields(verdict["paper_ratio"], {"direction", "reproduced", "partly"}, {"direction", "reproduced", "partly"},
                      f"{where}.verdict.paper_ratio")  # fmt: skip
        if raw["direction"] not in ("higher", "lower"):
            raise ClaimsError(f"{where}.verdict.paper_ratio.direction: {raw['direction']!r} is not 'higher' or 'lower'")
        if not 0 <= raw["partly"] <= raw["reproduced"]:
            raise ClaimsError(f"{where}.verdict.paper_ratio: need 0 <= partly <= reproduced, got {raw}")
        ratio = PaperRatio(direction=raw["direction"], reproduced=float(raw["reproduced"]), partly=float(raw["partly"]))
        if paper.get("value") is None:
            raise ClaimsError(f"{where}: verdict.paper_ratio needs a paper.value to compare with")
    if not (ratio or checks or verdict.get("not_testable")):
        raise ClaimsError(f"{where}.verdict: give checks, paper_ratio or not_testable")
    if testable_if and not (ratio or checks):
        raise ClaimsError(f"{where}.verdict: testable_if needs checks or paper_ratio to judge the claim when it holds")
    some_checks = verdict.get("some_checks", NOT)
    if some_checks not in (NOT, PARTLY):
        raise ClaimsError(f"{where}.verdict.some_checks: {some_checks!r} is not 'not' or 'partly'")
    basis = entry.get("basis", "measured")
    if basis not in ("measured", "projection") or (basis == "projection" and "projection" not in entry):
        raise ClaimsError(f"{where}.basis: {basis!r} must be 'measured', or 'projection' with a `projection` value")
    if basis == "measured" and "measured" not in entry and (ratio or verdict.get("not_testable")):
        raise ClaimsError(f"{where}: no `measured` value for the verdict to use; add one or set basis: projection")
    if entry.get("projection") and not entry.get("projection_label"):  # a number is shown under its own label only
        raise ClaimsError(f"{where}: `projection` needs `projection_label`, what the projected number is in words")
    return Claim(
        id=str(entry["id"]), study=str(entry["study"]), claim=" ".join(str(entry["claim"]).split()),
        paper_value=_operand(paper.get("value"), summary, f"{where}.paper.value"),
        paper_formula=paper.get("formula"), paper_source=str(paper["source"]),
        measured=value_spec(entry["measured"], summary, f"{where}.measured") if entry.get("measured") else None,
        measured_label=str(entry.get("measured_label", "")),
        projection=value_spec(entry["projection"], summary, f"{where}.projection") if entry.get("projection") else None,
        projection_label=str(entry.get("projection_label", "")),
        basis=basis,
        extra={name: value_spec(spec, summary, f"{where}.extra.{name}") for name, spec in (entry.get("extra") or {}).items()},
        checks=checks, testable_if=testable_if, some_checks=some_checks, paper_ratio=ratio,
        not_testable=" ".join(verdict["not_testable"].split()) if verdict.get("not_testable") else None,
        context=verdict.get("context"),
    )  # fmt: skip


def load_claims(path: str | Path) -> list[Claim]:
    """Read and check the claims file; every problem names the claim and the field."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ClaimsError(f"{path}: not valid YAML: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list) or not data["claims"]:
        raise ClaimsError(f"{path}: expected a top-level `claims:` list with at least one claim")
    claims = [_claim(entry, i) for i, entry in enumerate(data["claims"])]
    seen = Counter(claim.id for claim in claims)
    if duplicated := sorted(name for name, count in seen.items() if count > 1):
        raise ClaimsError(f"{path}: claim ids used more than once: {duplicated}")
    return claims


def claims_name(path: str | Path, results: str | Path) -> str:
    """A summary in the results folder `results` as the claims file names it: results/<study>/summary.json
    (a config path, config.place_results), so one claims file serves every config's folder."""
    return f"{CONFIG_RESULTS}/{Path(path).relative_to(results).as_posix()}"


def summaries_named(claims: list[Claim]) -> list[str]:
    """Every summary file some claim reads (the rule's input must cover them)."""
    return sorted(set().union(*(claim.summaries() for claim in claims)))


# ---- reading numbers ------------------------------------------------------------------------------------------


def _walk(node: Any, parts: list[str], done: list[str], spec: ValueSpec, claim_id: str) -> Any:
    if not parts:
        return node
    part, rest = parts[0], parts[1:]
    if part == "*":
        if isinstance(node, dict):
            return [_walk(v, rest, [*done, str(k)], spec, claim_id) for k, v in node.items()]
        if isinstance(node, list):
            return [_walk(v, rest, [*done, str(i)], spec, claim_id) for i, v in enumerate(node)]
    elif isinstance(node, dict):
        # Some summaries' keys hold a "/" themselves ("loao/gbm"): the longest run of parts that is a key wins.
        for cut in range(len(parts), 0, -1):
            joined = "/".join(parts[:cut])
            if joined in node:
                return _walk(node[joined], parts[cut:], [*done, joined], spec, claim_id)
    elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
        return _walk(node[int(part)], rest, [*done, part], spec, claim_id)
    at = "/".join(done) or "the top level"
    has = sorted(map(str, node))[:20] if isinstance(node, dict) else (f"a list of {len(node)}" if isinstance(node, list) else repr(node))
    raise MissingKey(f"{spec.summary} has no key {spec.key!r} (claim {claim_id!r}): nothing at {part!r} under "
                      f"{at}, which holds {has}; fix the key in data/claims.yaml or rerun the study that writes it")  # fmt: skip


def _reduce(values: Any, how: str | None, spec: ValueSpec, claim_id: str) -> Any:
    if how is None:
        if isinstance(values, list) and "*" in spec.key.split("/"):
            raise ClaimsError(f"claim {claim_id!r}: {spec.describe()} gives several values; add a `reduce`")
        return values
    items = list(values.values()) if isinstance(values, dict) else values
    if not isinstance(items, list):
        raise ClaimsError(f"claim {claim_id!r}: reduce {how!r} needs a list or mapping at {spec.describe()}, got {values!r}")
    if how == "len":
        return len(items)
    if how in ("all", "any"):
        return (all if how == "all" else any)(item is True for item in items)
    if any(item is None for item in items):
        return None  # a value the study could not compute (a target never reached): the claim says so
    if not items or not all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in items):
        raise ClaimsError(f"claim {claim_id!r}: reduce {how!r} needs numbers at {spec.describe()}, got {items!r}")
    return {"min": min, "max": max, "sum": sum, "mean": lambda xs: sum(xs) / len(xs)}[how](items)


def read_value(spec: ValueSpec, summaries: dict[str, Any], claim_id: str) -> Any:
    if spec.summary not in summaries:
        raise ClaimsError(f"claim {claim_id!r} reads {spec.summary}, which is not among the summaries given "
                          f"({sorted(summaries)}); add it to the claims rule's input or fix the path")  # fmt: skip
    value = _reduce(_walk(summaries[spec.summary], spec.key.split("/"), [], spec, claim_id), spec.reduce, spec, claim_id)
    if spec.divide_by is not None:
        divisor = read_value(spec.divide_by, summaries, claim_id)
        value = None if value is None or not divisor else value / divisor
    if spec.complement and value is not None:
        value = 1 - value
    return value


def _operand_value(operand: ValueSpec | float | str | None, summaries: dict[str, Any], claim_id: str) -> Any:
    return read_value(operand, summaries, claim_id) if isinstance(operand, ValueSpec) else operand


# ---- judging --------------------------------------------------------------------------------------------------


def fmt(value: Any) -> str:
    """Numbers as a person reads them: 3 significant digits, integers whole, booleans as yes/no."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e15):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.3g}" if math.isfinite(value) else str(value)
    return str(value)


def _check(check: Check, summaries: dict[str, Any], claim_id: str) -> tuple[bool, str]:
    """(whether the check holds, its label with, for a comparison that fails, the number and what it needed:
    "RL above the base model (0.8; needs above 0.9)")."""
    value = read_value(check.value, summaries, claim_id)
    than = _operand_value(check.than, summaries, claim_id)
    if check.op == "true":
        return value is True, check.label
    if check.op == "startswith":
        held = isinstance(value, str) and value.startswith(str(than))
        return held, check.label if held else f"{check.label} ({value})"
    held = value is not None and than is not None and OPS[check.op](value, than)
    if held:
        return held, check.label
    return held, f"{check.label} ({fmt(value)}; needs {NEEDS[check.op]} {fmt(than)})"


@dataclasses.dataclass(kw_only=True)
class Row:
    claim: Claim
    paper: Any
    measured: Any
    projection: Any
    verdict: str
    reason: str
    history: str = ""
    cited: Paper | None = None  # the paper of the claim's study (data/papers.yaml)

    def as_csv(self) -> dict[str, str]:
        c = self.claim
        paper = "" if self.paper is None else fmt(self.paper) + (f" ({c.paper_formula})" if c.paper_formula else "")
        return {
            "study": c.study,
            "claim_id": c.id,
            "claim": c.claim,
            "paper": paper,
            "paper_cited": self.cited.text() if self.cited else "",
            "paper_source": c.paper_source,
            "measured": fmt(self.measured) if c.measured else "",
            "measured_what": c.measured_label,
            "projection": fmt(self.projection) if c.projection else "",
            "projection_what": c.projection_label,
            "verdict": self.verdict,
            "reason": self.reason,
            "history": self.history,
            "measured_from": c.measured.describe() if c.measured else "",
            "projection_from": c.projection.describe() if c.projection else "",
        }


def judge(claim: Claim, summaries: dict[str, Any]) -> Row:
    """The row of one claim: its numbers read from the summaries, its verdict and reason computed from them."""
    measured = read_value(claim.measured, summaries, claim.id) if claim.measured else None
    projection = read_value(claim.projection, summaries, claim.id) if claim.projection else None
    paper = _operand_value(claim.paper_value, summaries, claim.id)
    names = {"measured": fmt(measured), "projection": fmt(projection), "paper": fmt(paper)}
    names |= {name: fmt(read_value(spec, summaries, claim.id)) for name, spec in claim.extra.items()}

    def fill(text: str) -> str:
        try:
            return text.format(**names)
        except KeyError as err:
            raise ClaimsError(f"claim {claim.id!r}: the text {text!r} names {err}, which is not measured, "
                              f"projection, paper or one of `extra` {sorted(claim.extra)}") from err  # fmt: skip

    def row(verdict: str, parts: list[str]) -> Row:
        if claim.context:
            parts = [*parts, fill(claim.context)]
        reason = "; ".join(part for part in parts if part).rstrip(".")  # a context may end with its own period
        return Row(claim=claim, paper=paper, measured=measured, projection=projection, verdict=verdict,
                   reason=reason[:1].upper() + reason[1:] + ".")  # fmt: skip

    if claim.not_testable:  # its sentence is the reason: the failed scale checks would only repeat it
        scale = [_check(check, summaries, claim.id) for check in claim.testable_if]
        if not scale or not all(ok for ok, _ in scale):
            why = fill(claim.not_testable)
            return Row(claim=claim, paper=paper, measured=measured, projection=projection, verdict=NOT_TESTABLE,
                       reason=why[:1].upper() + why[1:] + ".")  # fmt: skip
    results = [_check(check, summaries, claim.id) for check in claim.checks]
    held = [text for ok, text in results if ok]
    failed = [text for ok, text in results if not ok]
    if failed:
        verdict = NOT if not held else claim.some_checks
        return row(verdict, [f"{len(held)} of {len(results)} checks hold, not: {'; '.join(failed)}"])
    if claim.paper_ratio is None:  # the checks are the claim: say which held
        return row(REPRODUCED, held)
    # beside the size, the checks are counted, not listed (data/claims.yaml names them)
    checks_held = f"its {len(held)} check{'s' if len(held) != 1 else ''} hold{'' if len(held) != 1 else 's'}" if held else ""
    value = projection if claim.basis == "projection" else measured
    basis = "projection" if claim.basis == "projection" else "measured"
    ratio_spec = claim.paper_ratio
    if value is None or not isinstance(value, (int, float)) or isinstance(value, bool):
        return row(NOT, [f"the {basis} value is {fmt(value)}, nothing to compare with the paper's {fmt(paper)}", *held])
    if ratio_spec.direction == "higher":
        ratio = value / paper if paper else math.inf
        size = f"{basis} {fmt(value)} is {ratio:.0%} of the paper's {fmt(paper)}"
    else:
        ratio = paper / value if value else math.inf
        size = f"{basis} {fmt(value)} against the paper's {fmt(paper)} ({ratio:.0%} of the paper's effect, lower is better)"
    if ratio >= ratio_spec.reproduced:
        return row(REPRODUCED, [size, checks_held])
    if ratio >= ratio_spec.partly:
        return row(PARTLY, [size, checks_held])
    if held:  # the direction holds in this run, the size does not
        return row(PARTLY, [f"{checks_held}, but {size}"])
    return row(NOT, [size])


# ---- history --------------------------------------------------------------------------------------------------


def summaries_sha256(paths: list[str | Path]) -> str:
    """One hash of the summaries' names and bytes: the same summaries give the same key, any change a new one."""
    digest = hashlib.sha256()
    for path in sorted(str(p) for p in paths):
        digest.update(path.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


# A claim renamed since runs were recorded keeps its history: old rows are read under the new id.
RENAMED_CLAIMS = {"rlpf_openmp_speedup": "rlpf_omp_speedup",  # RLPF's task set is "omp", as PCGBench names it
                  # the tests are no longer in a folder of that name, and "harness" now names no one thing
                  "pcgbench_harness_verdicts": "pcgbench_self_test_verdicts"}


def read_history(path: str | Path) -> list[dict[str, str]]:
    path = Path(path)
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != HISTORY_COLUMNS:
            raise ClaimsError(f"{path}: columns {reader.fieldnames} are not {HISTORY_COLUMNS}; move the file aside "
                              "(the next run starts a new history)")  # fmt: skip
        return [entry | {"claim_id": RENAMED_CLAIMS.get(entry["claim_id"], entry["claim_id"])} for entry in reader]


def record_history(history: list[dict[str, str]], rows: list[Row], run_key: str) -> list[dict[str, str]]:
    """The history with this run's verdicts: added if these summaries are new, replaced (same key, re-judged by the
    current claims file) if they were recorded before, so one set of summaries counts once."""
    recorded = next((entry["recorded_utc"] for entry in history if entry["summaries_sha256"] == run_key), None)
    recorded = recorded or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    kept = [entry for entry in history if entry["summaries_sha256"] != run_key]
    return kept + [{"summaries_sha256": run_key, "recorded_utc": recorded, "claim_id": row.claim.id,
                    "verdict": row.verdict, "measured": fmt(row.measured) if row.claim.measured else "",
                    "projection": fmt(row.projection) if row.claim.projection else ""} for row in rows]  # fmt: skip


FIRST_RUN = "first recorded run"  # a history of one run: the claims page leaves it out


def history_note(history: list[dict[str, str]], claim_id: str) -> str:
    verdicts = [entry["verdict"] for entry in history if entry["claim_id"] == claim_id]
    runs = len(verdicts)
    if runs <= 1:
        return FIRST_RUN if runs else ""
    counts = Counter(verdicts)
    if len(counts) == 1:
        return f"same verdict in all {runs} recorded runs"
    held = sum(counts[v] for v in HELD)
    spread = ", ".join(f"{v} {counts[v]}" for v in (REPRODUCED, PARTLY, NOT, NOT_TESTABLE) if counts[v])
    return f"held in {held} of {runs} recorded runs ({spread})"


# ---- writing --------------------------------------------------------------------------------------------------


def to_csv(rows: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(row.as_csv() for row in rows)
    return out.getvalue()


def _history_csv(history: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=HISTORY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(history)
    return out.getvalue()


_COLOURS = {REPRODUCED: "#d4edda", PARTLY: "#fff3cd", NOT: "#f8d7da", NOT_TESTABLE: "#e2e3e5"}


def tally(rows: list[Row]) -> str:
    """'27 claims: 9 reproduced, 10 partly, 6 not, 2 not testable here' (verdicts that occur, in this order)."""
    counts = Counter(row.verdict for row in rows)
    named = ", ".join(f"{counts[v]} {v}" for v in (REPRODUCED, PARTLY, NOT, NOT_TESTABLE) if counts[v])
    return f"{len(rows)} claim{'s' if len(rows) != 1 else ''}: {named}"


def tally_html(rows: list[Row]) -> str:
    """The tally as a fragment of the report's front page, linking the Claims page (a category of the report)."""
    return (f'<p class="claims-tally"><strong>{html.escape(tally(rows))}</strong>, each judged from this run\'s '
            "summaries against its paper's number: see the "
            "<a href=\"javascript:app.showCategory('Claims')\">Claims</a> page (menu on the left).</p>\n")  # fmt: skip


def to_html(rows: list[Row]) -> str:
    """The table as a page of the Snakemake report (which shows HTML inline, a CSV only as a download): one row per
    claim, a heading row per study with its paper, the papers' sources as footnotes (and on hover), so that a row
    is a line or two; the history column only where some claim has more than one recorded run."""
    with_history = any(row.history not in ("", FIRST_RUN) for row in rows)
    shown = ["claim", "paper", "this run", "verdict", "reason"] + (["history"] if with_history else [])
    head = "".join(f"<th>{name}</th>" for name in shown)
    # shares of the width: the claim and the reason read on a line or two; the numbers' notes wrap under them
    widths = [28, 7, 20, 8, 37 - 10 * with_history] + ([10] if with_history else [])
    columns = "".join(f'<col style="width:{share}%">' for share in widths)
    body, sources = [], []
    study = None
    for row in rows:
        cells = row.as_csv()
        if row.claim.study != study:
            study = row.claim.study
            cited = (f' <span class="cite">{html.escape(row.cited.short())}, <a href="{html.escape(row.cited.url)}" '
                     f'target="_blank">{html.escape(row.cited.title)}</a></span>' if row.cited else "")  # fmt: skip
            body.append(f'<tr class="study"><th colspan="{len(shown)}">{html.escape(study)}{cited}</th></tr>')
        sources.append(cells["paper_source"])
        mark = len(sources)
        paper = (f'<td><span class="tip" title="{html.escape(cells["paper_source"])}">{html.escape(cells["paper"] or "-")}'
                 f'</span> <a class="fn" href="#source-{mark}">[{mark}]</a></td>')  # fmt: skip
        numbers = "<br>".join(  # this run's number, then the projection, each over its own label
            f'<span class="tip" title="{html.escape(cells[f"{part}_from"])}">{html.escape(cells[part])}</span> '
            f"<small>{html.escape(cells[f'{part}_what'])}</small>"
            for part in ("measured", "projection") if cells[part])  # fmt: skip
        tds = [f'<td title="{html.escape(cells["claim_id"])}">{html.escape(cells["claim"])}</td>', paper,
               f"<td>{numbers}</td>", f'<td class="verdict">{html.escape(row.verdict)}</td>', f"<td>{html.escape(row.reason)}</td>"]
        if with_history:
            tds.append(f"<td>{html.escape('' if row.history == FIRST_RUN else row.history)}</td>")
        body.append(f'<tr style="background:{_COLOURS[row.verdict]}">{"".join(tds)}</tr>')
    notes = "".join(f'<li id="source-{i}">{html.escape(source)}</li>' for i, source in enumerate(sources, 1))
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Claims</title><style>"
        "body{font-family:sans-serif;font-size:13px;margin:0.5em}"
        # the table scrolls in its own box: a narrow window never clips the page
        ".scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;width:100%;min-width:70em}"
        "td,th{border:1px solid #999;padding:3px 6px;vertical-align:top;text-align:left}"
        "tr.study th{background:#f4f4f4;font-size:14px}span.cite{font-weight:normal;font-size:12px;margin-left:1em}"
        "td.verdict{white-space:nowrap}small{color:#444}"
        "span.tip{text-decoration:underline dotted;cursor:help}a.fn{font-size:11px;text-decoration:none}"
        "ol.sources{font-size:12px;color:#333}</style></head><body>\n"
        f"<h2>Which of the papers' claims this run reproduces</h2>\n<p>{html.escape(tally(rows))}. "
        "Every number is read from a study's summary (hover it for the key); the verdict rules are in "
        "data/claims.yaml, the papers in data/papers.yaml. <em>partly</em>: the direction holds at this scale, "
        "the size does not reach the paper's; <em>not testable here</em>: this run's configuration cannot test it. "
        "Hover a paper's number, or follow its mark, for where the paper states it."
        + (" <em>history</em>: how often a claim held (reproduced or partly) over the recorded runs." if with_history
           else "") + "</p>\n"
        f'<div class="scroll"><table><colgroup>{columns}</colgroup><tr>{head}</tr>\n' + "\n".join(body)
        + "\n</table></div>\n"
        f'<h3>Where each paper states its number</h3>\n<ol class="sources">{notes}</ol>\n</body></html>\n'
    )


def build_rows(claims: list[Claim], summaries: dict[str, Any],
               papers: dict[str, Paper | None] | None = None, papers_file: str = "data/papers.yaml") -> list[Row]:  # fmt: skip
    """One judged row per claim; with `papers` (load_papers), each row cites its study's paper."""
    rows = [judge(claim, summaries) for claim in claims]
    for row in rows:
        row.cited = paper_of(papers, row.claim.study, papers_file) if papers is not None else None
    return rows


def main(*, claims_file: str, papers_file: str, summaries: list[str], output_csv: str, output_html: str,
         output_tally: str, history: str, results: str = schema_defaults("")["results"]) -> list[Row]:  # fmt: skip
    """Build the table from the summaries (in the results folder `results`), record this run in the history, write
    CSV, HTML and the tally."""
    prov = Provenance.start(step="claims", config={"claims_file": claims_file, "papers_file": papers_file,
                                                   "summaries": sorted(summaries)})  # fmt: skip
    claims = load_claims(claims_file)
    papers = load_papers(papers_file)
    named = {claims_name(path, results): path for path in summaries}
    missing = [name for name in summaries_named(claims) if name not in named]
    if missing:
        raise ClaimsError(f"{claims_file} reads {missing}, which the claims rule does not take as input; register "
                          "the study's summary (rules/common.smk register_study) or fix the path")  # fmt: skip
    for path in summaries:
        if not Path(path).is_file():
            raise ClaimsError(f"summary {path} does not exist; run the study that writes it (snakemake <study>)")
    loaded = {name: read_json(path) for name, path in named.items()}
    rows = build_rows(claims, loaded, papers, papers_file)
    run_key = summaries_sha256(summaries)
    past = read_history(history)
    updated = record_history(past, rows, run_key)
    for row in rows:
        row.history = history_note(updated, row.claim.id)
        logger.info("%s: %s. %s %s", row.claim.id, row.verdict, row.reason, row.history)
    write_text(history, _history_csv(updated))
    write_text(output_csv, to_csv(rows))
    write_text(output_html, to_html(rows))
    write_text(output_tally, tally_html(rows))
    prov.finish([output_csv, output_html, output_tally], summaries_sha256=run_key)
    return rows


if __name__ == "__main__":
    if "snakemake" in globals():
        smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
        main(claims_file=smk.input.claims, papers_file=smk.input.papers, summaries=list(smk.input.summaries),
             output_csv=smk.output.csv, output_html=smk.output.html, output_tally=smk.output.tally,
             history=smk.params.history, results=smk.config["results"])  # fmt: skip
    else:
        parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        parser.add_argument("--claims", default="data/claims.yaml")
        parser.add_argument("--papers", default="data/papers.yaml")
        parser.add_argument("--workdir", default=".", help="the workflow folder")
        parser.add_argument("--results", default=schema_defaults("")["results"],
                            help="the results folder in it that holds the summaries (a config's `results`)")
        args = parser.parse_args()
        configure_logging()
        claims_file, papers_file = str(Path(args.claims).resolve()), str(Path(args.papers).resolve())
        os.chdir(args.workdir)
        folder = Path(args.results)
        main(claims_file=claims_file, papers_file=papers_file,
             summaries=sorted(str(p) for p in folder.glob("**/summary.json")),
             output_csv=str(folder / "claims.csv"), output_html=str(folder / "claims.html"),
             output_tally=str(folder / "claims_tally.html"),
             history=str(folder / "claims_history.csv"), results=args.results)  # fmt: skip
