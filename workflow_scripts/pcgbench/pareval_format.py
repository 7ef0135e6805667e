"""ParEval's prompt/generation file format, both ways.

A file is a JSON list of records, one per (problem, execution model):

    {"name": "reduce_average", "problem_type": "reduce", "parallelism_model": "omp", "language": "cpp",
     "prompt": "<C++ ending in the signature's {>", "outputs": ["<generated body>", ...]}

`export_prompts` writes the suite's prompts with empty `outputs`; `load_generations` reads a file that a
generator (ours or another tool) filled in, rejecting a malformed one with the record index and the field at
fault; `match_generations` pairs records with the suite's problems and reports the records it has no driver
for as `no_driver` (the rest are still scored). ParEval numbers its problems ("12_reduce_average"); a numeric
prefix in `name` is accepted and ignored.

Run: python -m workflow_scripts.pcgbench export-prompts OUT.json
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from pathlib import Path

from workflow_scripts.common.io import write_json
from workflow_scripts.pcgbench.suite import EXECUTION_MODELS, PROBLEM_TYPES, Problem, prompt

logger = logging.getLogger(__name__)

LANGUAGE = "cpp"
FIELDS = {"name": str, "problem_type": str, "parallelism_model": str, "language": str, "prompt": str, "outputs": list}
NO_DRIVER = "no_driver"
_PAREVAL_PREFIX = re.compile(r"^\d+_")


def prompt_record(problem: Problem, model: str) -> dict:
    return {"name": problem.name, "problem_type": problem.problem_type, "parallelism_model": model,
            "language": LANGUAGE, "prompt": prompt(problem, model), "outputs": []}


def export_prompts(problems: list[Problem], models: list[str] | tuple[str, ...], out: Path) -> list[dict]:
    """Write one record per (problem, model), sorted by (name, model order), atomically to `out`."""
    unknown = [m for m in models if m not in EXECUTION_MODELS]
    if unknown:
        raise ValueError(f"unknown execution model(s) {unknown}; expected among {list(EXECUTION_MODELS)}")
    records = [prompt_record(p, m) for p in sorted(problems, key=lambda p: p.name) for m in models]
    write_json(Path(out), records)
    logger.info("wrote %d prompts (%d problems x %d models) to %s", len(records), len(problems), len(models), out)
    return records


def validate_records(data: object, source: str = "generations") -> list[dict]:
    """Check the structure of a ParEval list; ValueError names the record index and field at fault."""
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a JSON list of records, got {type(data).__name__}")
    for index, record in enumerate(data):
        where = f"{source}: record {index}"
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected an object, got {type(record).__name__}")
        for field, kind in FIELDS.items():
            if field not in record:
                raise ValueError(f"{where}: field '{field}' is missing")
            if not isinstance(record[field], kind):
                raise ValueError(f"{where}: field '{field}' must be a {kind.__name__}, "
                                 f"got {type(record[field]).__name__}")
        for j, output in enumerate(record["outputs"]):
            if not isinstance(output, str):
                raise ValueError(f"{where}: field 'outputs' item {j} must be a string, got {type(output).__name__}")
        if record["parallelism_model"] not in EXECUTION_MODELS:
            raise ValueError(f"{where}: field 'parallelism_model' is {record['parallelism_model']!r}; "
                             f"expected one of {list(EXECUTION_MODELS)}")
        if record["language"] != LANGUAGE:
            raise ValueError(f"{where}: field 'language' is {record['language']!r}; only {LANGUAGE!r} is supported")
    return data


def load_generations(path: Path) -> list[dict]:
    """Read and validate a ParEval generations (or prompts) file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}") from err
    return validate_records(data, source=str(path))


def problem_name(record: dict) -> str:
    """The suite's problem name for a record (ParEval's numeric prefix removed)."""
    return _PAREVAL_PREFIX.sub("", record["name"])


@dataclasses.dataclass(frozen=True)
class Match:
    index: int          # the record's position in the file
    problem: Problem | None
    model: str
    record: dict
    status: str         # "" when matched, NO_DRIVER when the suite has no such problem


def match_generations(records: list[dict], problems: list[Problem]) -> list[Match]:
    """Pair each record with its problem; records for problems the suite lacks get status `no_driver`.

    A record whose problem_type disagrees with the suite's problem of that name is a malformed file (ValueError).
    """
    by_name = {p.name: p for p in problems}
    matches = []
    for index, record in enumerate(records):
        problem = by_name.get(problem_name(record))
        if problem is None:
            logger.warning("record %d: no driver for problem %r (%s); reported as %s", index, record["name"],
                           record["parallelism_model"], NO_DRIVER)
            matches.append(Match(index, None, record["parallelism_model"], record, NO_DRIVER))
            continue
        if record["problem_type"] != problem.problem_type:
            raise ValueError(f"record {index}: field 'problem_type' is {record['problem_type']!r} but problem "
                             f"{problem.name!r} is of type {problem.problem_type!r}")
        matches.append(Match(index, problem, record["parallelism_model"], record, ""))
    return matches


__all__ = ["FIELDS", "LANGUAGE", "NO_DRIVER", "PROBLEM_TYPES", "Match", "export_prompts", "load_generations",
           "match_generations", "problem_name", "prompt_record", "validate_records"]
