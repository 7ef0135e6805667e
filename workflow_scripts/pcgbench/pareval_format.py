"""ParEval's prompt/generation file format, both ways, and the map from ParEval's problem names to the suite's.

A file is a JSON list of records, one per (problem, execution model):

    {"name": "27_reduce_average", "problem_type": "reduce", "parallelism_model": "omp", "language": "cpp",
     "prompt": "<C++ ending in the signature's {>", "outputs": ["<generated body>", ...]}

`export_prompts` writes the suite's prompts with empty `outputs` (with `numbering="pareval"` under ParEval's
numbered names, so that its tooling reads them); `load_generations` reads a file that a generator (ours or
another tool) filled in, rejecting a malformed one with the record index and the field at fault, and telling
the user what to do with a prompt file that has no outputs yet; `match_generations` pairs records with the
suite's problems. A record is not scored when
- the suite has no problem of its name: `no_driver`;
- its prompt declares another interface than the suite's problem (function signature or struct definitions):
  `prompt_mismatch`, with both declarations in the reason. A body written for another interface would be
  judged against the wrong task (or fail to build for a reason that is not its own);
- its name or prompt holds text that UTF-8 cannot encode (a lone UTF-16 surrogate, JSON's "\\ud800"):
  `malformed`, the reason naming the file, the record and the field. Such an item of `outputs` is refused
  alone (`Match.refused`): the record's other outputs are scored, under their indexes in the file.

Names: data/pcgbench/pareval.yaml maps each ParEval problem (its name without the number, e.g.
"reduce_average" of "27_reduce_average") to one problem folder here, and holds ParEval's number. A record's
numeric prefix is ignored, so files of ParEval's older numbering match too; a name without a prefix may also
be one of this suite's own folder names. Problems of the suite that ParEval lacks are listed there as extras.

Run: python -m workflow_scripts.pcgbench export-prompts OUT.json [--numbering pareval]
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import logging
import re
from pathlib import Path

import yaml

from workflow_scripts.common.c_scanner import canonical_declaration as canonical
from workflow_scripts.common.c_scanner import struct_definitions
from workflow_scripts.common.io import write_json
from workflow_scripts.measure import (
    EXECUTION_MODELS,
    MALFORMED,
    PROBLEM_TYPES,
    PROBLEMS_ROOT,
    PROMPT_MISMATCH,
    Problem,
    prompt,
)

logger = logging.getLogger(__name__)

LANGUAGE = "cpp"
FIELDS = {"name": str, "problem_type": str, "parallelism_model": str, "language": str, "prompt": str, "outputs": list}
NO_DRIVER = "no_driver"
NAMES_FILE = "pareval.yaml"
NUMBERINGS = ("suite", "pareval")
_PAREVAL_PREFIX = re.compile(r"^\d+_")


class GenerationsError(ValueError):
    """A generations (or prompt) file that cannot be evaluated as it is: the message names the file, the record
    and the field at fault, and what to do. A mistake in the user's input, not a bug of the harness: the
    command line prints it as one line (no traceback)."""


# ---------------------------------------------------------------------------------------------------------
# Names


@dataclasses.dataclass(frozen=True)
class ParEvalName:
    name: str     # ParEval's name without its number, e.g. "reduce_average"
    number: int   # ParEval's number (0-59)
    problem: str  # the suite's problem folder

    @property
    def numbered(self) -> str:
        return f"{self.number:02d}_{self.name}"


@functools.cache
def pareval_names(root: Path = PROBLEMS_ROOT) -> dict[str, ParEvalName]:
    """ParEval's problems by name (without number), from <root>/pareval.yaml; {} when the file is absent.

    A malformed map (unknown folder, a number or a folder used twice) raises ValueError naming the entry.
    """
    path = Path(root) / NAMES_FILE
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text()) or {}
    entries = raw.get("problems")
    if not isinstance(entries, dict):
        raise ValueError(f"{path}: expected a mapping 'problems: {{pareval_name: {{number, problem}}}}'")
    names, numbers, folders = {}, {}, {}
    for name, entry in entries.items():
        where = f"{path}: problems.{name}"
        if not isinstance(entry, dict) or set(entry) != {"number", "problem"}:
            raise ValueError(f"{where}: expected {{number: <int>, problem: <folder>}}")
        number, folder = entry["number"], entry["problem"]
        if not isinstance(number, int) or not 0 <= number < 100:
            raise ValueError(f"{where}.number: expected an integer 0-99, got {number!r}")
        if not (Path(root) / str(folder) / "problem.yaml").exists():
            raise ValueError(f"{where}.problem: no problem folder {folder!r} under {root}")
        for seen, value, what in ((numbers, number, "number"), (folders, folder, "problem")):
            if value in seen:
                raise ValueError(f"{where}.{what}: {value!r} is also given to {seen[value]}")
            seen[value] = name
        names[name] = ParEvalName(name=name, number=number, problem=folder)
    return names


def numbered_names(root: Path = PROBLEMS_ROOT) -> dict[str, str]:
    """ParEval's numbered name (e.g. "27_reduce_average") of every suite problem that has one, by folder."""
    return {entry.problem: entry.numbered for entry in pareval_names(root).values()}


def problem_name(record: dict, root: Path = PROBLEMS_ROOT) -> str:
    """The suite's problem name for a record: ParEval's name (numbered or not, any numbering) through the map,
    else the name itself without a numeric prefix (the suite's own folder names)."""
    name = _PAREVAL_PREFIX.sub("", record["name"])
    entry = pareval_names(Path(root)).get(name)
    return entry.problem if entry else name


def closest_names(name: str, problems: list[Problem], root: Path = PROBLEMS_ROOT, n: int = 3) -> list[str]:
    """The names of the suite most like `name` (a record's name that matched no problem), closest first: the
    suite's folders and ParEval's names (numbered when `name` is), by difflib's ratio; [] when none is close."""
    bare = _PAREVAL_PREFIX.sub("", name)
    entries = pareval_names(Path(root))
    candidates = {p.name: p.name for p in problems}
    candidates.update({e.name: e.numbered if bare != name else e.name for e in entries.values()})
    close = difflib.get_close_matches(bare, candidates, n=n, cutoff=0.6)
    return list(dict.fromkeys(candidates[c] for c in close))


def unknown_name_reason(name: str, problems: list[Problem], root: Path = PROBLEMS_ROOT) -> str:
    """Why a record of this name is not scored, with the closest names of the suite."""
    close = closest_names(name, problems, root)
    return f"no problem {name!r} here" + (f" (closest: {', '.join(close)})" if close else "")


# ---------------------------------------------------------------------------------------------------------
# Export


def prompt_record(problem: Problem, exec_model: str, name: str | None = None) -> dict:
    # No newline after the signature's "{": ParEval's evaluator takes a prompt's last line as the signature.
    return {"name": name or problem.name, "problem_type": problem.problem_type, "parallelism_model": exec_model,
            "language": LANGUAGE, "prompt": prompt(problem, exec_model).rstrip("\n"), "outputs": []}


def export_prompts(problems: list[Problem], exec_models: list[str] | tuple[str, ...], out: Path,
                   numbering: str = "suite") -> list[dict]:  # fmt: skip
    """Write one record per (problem, exec_model) atomically to `out`, sorted by (name, model order).

    numbering "suite": records are named by the suite's folders; "pareval": by ParEval's numbered names
    ("27_reduce_average"), sorted by number, the suite's extras (no ParEval name) after them under their own.
    """
    unknown = [m for m in exec_models if m not in EXECUTION_MODELS]
    if unknown:
        raise ValueError(f"unknown execution model(s) {unknown}; expected among {list(EXECUTION_MODELS)}")
    if numbering not in NUMBERINGS:
        raise ValueError(f"unknown numbering {numbering!r}; expected one of {list(NUMBERINGS)}")
    names = {p.name: p.name for p in problems}
    if numbering == "pareval":
        names.update({folder: numbered for folder, numbered in numbered_names().items() if folder in names})
    order = sorted(problems, key=lambda p: (not _PAREVAL_PREFIX.match(names[p.name]), names[p.name]))
    records = [prompt_record(p, m, names[p.name]) for p in order for m in exec_models]
    write_json(Path(out), records)
    logger.info("wrote %d prompts (%d problems x %d models) to %s", len(records), len(problems), len(exec_models), out)
    return records


# ---------------------------------------------------------------------------------------------------------
# Import


# What each field holds, for the messages that refuse a record (the fix to make).
FIELD_HINTS = {
    "name": 'the problem, e.g. "27_reduce_average" or "reduce_average"',
    "problem_type": 'the problem\'s type, e.g. "reduce"',
    "parallelism_model": f"one of {list(EXECUTION_MODELS)}",
    "language": f'"{LANGUAGE}"',
    "prompt": "the prompt text (may be empty)",
    "outputs": 'a list of generated function bodies, e.g. "outputs": ["return 0;\\n}"]',
}
FORMAT_HINT = ("a generations file is a JSON list of records {" + ", ".join(FIELDS) + "}, one per problem and "
               "execution model (ParEval's format; `export-prompts` writes one with empty outputs)")


def validate_records(data: object, source: str = "generations") -> list[dict]:
    """Check the structure of a ParEval list; GenerationsError names the record index, the field at fault and
    what it should hold."""
    if not isinstance(data, list):
        raise GenerationsError(f"{source}: expected a JSON list of records, got {type(data).__name__}: "
                               f"{FORMAT_HINT}")
    if data and all(isinstance(r, dict) and "prompt" in r and "outputs" not in r for r in data):
        raise GenerationsError(f"{source}: this is a prompt file (no record has 'outputs'), not generations. Generate "
                               "completions for its prompts first (ParEval's generate scripts, or this workflow's "
                               "generation step), then evaluate the file they write: python -m "
                               "workflow_scripts.pcgbench evaluate GENERATIONS.json --out DIR")
    for index, record in enumerate(data):
        where = f"{source}: record {index}"
        if not isinstance(record, dict):
            raise GenerationsError(f"{where}: expected an object, got {type(record).__name__}: {FORMAT_HINT}")
        for field, kind in FIELDS.items():
            if field not in record:
                raise GenerationsError(f"{where}: field '{field}' is missing; it holds {FIELD_HINTS[field]}")
            if not isinstance(record[field], kind):
                raise GenerationsError(f"{where}: field '{field}' must be a {kind.__name__}, got "
                                       f"{type(record[field]).__name__}; it holds {FIELD_HINTS[field]}")
        for j, output in enumerate(record["outputs"]):
            if not isinstance(output, str):
                raise GenerationsError(f"{where}: field 'outputs' item {j} must be a string, got "
                                       f"{type(output).__name__}; 'outputs' holds {FIELD_HINTS['outputs']}")
        if record["parallelism_model"] not in EXECUTION_MODELS:
            raise GenerationsError(f"{where}: field 'parallelism_model' is {record['parallelism_model']!r}; "
                                   f"expected one of {list(EXECUTION_MODELS)}")
        if record["language"] != LANGUAGE:
            raise GenerationsError(f"{where}: field 'language' is {record['language']!r}; only {LANGUAGE!r} is "
                                   "supported")
    return data


def load_generations(path: Path) -> list[dict]:
    """Read and validate a ParEval generations (or prompts) file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise GenerationsError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}; "
                               f"{FORMAT_HINT}") from err
    except UnicodeDecodeError as err:  # else the error names neither the file nor where in it
        raise GenerationsError(f"{path}: not UTF-8 text (byte {err.start}): {err.reason}; save it as UTF-8") from err
    except FileNotFoundError as err:
        raise GenerationsError(f"{path}: no such file") from err
    except OSError as err:  # a folder, a file one may not read, ...
        raise GenerationsError(f"{path}: cannot be read ({err.strerror or err})") from err
    return validate_records(data, source=str(path))


def unencodable(text: str) -> str:
    """"" when `text` can be written as UTF-8, else why not.

    JSON may escape a lone UTF-16 surrogate ("\\ud800"), and Python's json module reads it into a str that no
    file, hash or parquet column takes: its first write (the sample's id, its source file, samples.jsonl)
    raised UnicodeEncodeError and stopped the whole evaluation. NUL and other control characters encode, and
    the compiler judges them like any other text of a body.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"holds a lone UTF-16 surrogate ({text[err.start]!r} at offset {err.start}), which UTF-8 cannot encode"
    return ""


def record_name(record: dict) -> str:
    """The record's name as it can be written and printed: a lone surrogate escaped ("\\ud800", as in JSON)."""
    return record["name"].encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------------------------------------------------
# A record's prompt against the suite's interface


def declared_interface(prompt_text: str) -> tuple[str, dict[str, str]]:
    """(signature, {struct name: canonical body}) a prompt declares: its last line without the "{" (how
    ParEval's evaluator reads it) and every struct definition before it."""
    lines = prompt_text.rstrip().splitlines()
    signature = lines[-1].rstrip().removesuffix("{") if lines else ""
    structs = {name: canonical(body) for name, body in struct_definitions(prompt_text)}
    return canonical(signature), structs


def interface_mismatch(record_prompt: str, problem: Problem, exec_model: str) -> str:
    """"" when the prompt declares the problem's interface for `exec_model` (or declares nothing to check), else
    why not, quoting both declarations."""
    if not record_prompt.strip():
        return ""
    signature, structs = declared_interface(record_prompt)
    want_signature = canonical(problem.signature(exec_model))
    want_structs = {name: canonical(body) for name, body in struct_definitions(problem.types_for(exec_model))}
    if signature != want_signature:
        return (f"the record's prompt declares `{signature}`, but {problem.name} ({exec_model}) is "
                f"`{want_signature}`")
    for name in sorted(set(structs) | set(want_structs)):
        if structs.get(name) != want_structs.get(name):
            theirs = f"struct {name} {{{structs[name]}}}" if name in structs else "no struct " + name
            ours = f"struct {name} {{{want_structs[name]}}}" if name in want_structs else "no struct " + name
            return f"the record's prompt declares `{theirs}`, but {problem.name} ({exec_model}) has `{ours}`"
    return ""


@dataclasses.dataclass(frozen=True)
class Match:
    index: int          # the record's position in the file
    problem: Problem | None
    exec_model: str
    record: dict
    status: str         # "" when matched, else NO_DRIVER, PROMPT_MISMATCH or MALFORMED
    reason: str = ""    # why, when not matched
    refused: tuple[tuple[int, str], ...] = ()  # (index in `outputs`, why) of outputs not scored (MALFORMED)


def match_generations(records: list[dict], problems: list[Problem], root: Path = PROBLEMS_ROOT,
                      source: str = "generations") -> list[Match]:  # fmt: skip
    """Pair each record with its problem. Records for problems the suite lacks get status `no_driver`, records
    whose prompt declares another interface `prompt_mismatch` (problem set: the one its name names), records
    whose name or prompt UTF-8 cannot encode `malformed`; a matched record's outputs that UTF-8 cannot encode
    are listed in `refused`. Reasons of `malformed` name `source` (the file), the record and the field.

    A record whose problem_type disagrees with the suite's problem of that name is a malformed file (ValueError):
    the file is not what it claims to be. A text that cannot be written is one record's or one output's fault
    (a generator's bug), and the rest of the file is still scored.
    """
    by_name = {p.name: p for p in problems}
    matches = []
    for index, record in enumerate(records):
        exec_model = record["parallelism_model"]
        where = f"{source}: record {index} ({record['name']!r})"
        bad = next((f"{where}: field '{field}' {why}" for field in ("name", "prompt")
                    if (why := unencodable(record[field]))), "")  # fmt: skip
        if bad:
            logger.warning("%s; reported as %s", bad, MALFORMED)
            matches.append(Match(index, None, exec_model, record, MALFORMED, bad))
            continue
        problem = by_name.get(problem_name(record, root))
        if problem is None:
            logger.warning("record %d: no driver for problem %r (%s); reported as %s", index, record["name"], exec_model,
                           NO_DRIVER)
            why = unknown_name_reason(record["name"], problems, root)
            matches.append(Match(index, None, exec_model, record, NO_DRIVER, why))
            continue
        if record["problem_type"] != problem.problem_type:
            raise GenerationsError(f"{source}: record {index}: field 'problem_type' is {record['problem_type']!r} but problem "
                             f"{problem.name!r} is of type {problem.problem_type!r}: the record names another problem than its type "
                f"says; correct its 'name' or its 'problem_type'")
        why = interface_mismatch(record["prompt"], problem, exec_model)
        if why:
            logger.warning("record %d (%s, %s): %s; reported as %s", index, record["name"], exec_model, why,
                           PROMPT_MISMATCH)
        refused = tuple((j, f"{where}: field 'outputs' item {j} {reason}")
                        for j, output in enumerate(record["outputs"]) if (reason := unencodable(output)))  # fmt: skip
        for _, reason in refused:
            logger.warning("%s; reported as %s", reason, MALFORMED)
        matches.append(Match(index, problem, exec_model, record, PROMPT_MISMATCH if why else "", why, refused))
    return matches


__all__ = ["FIELDS", "FIELD_HINTS", "FORMAT_HINT", "LANGUAGE", "MALFORMED", "NO_DRIVER", "NUMBERINGS", "PROBLEM_TYPES",
           "PROMPT_MISMATCH", "GenerationsError", "Match", "ParEvalName", "canonical", "closest_names",
           "declared_interface", "export_prompts", "interface_mismatch", "load_generations", "match_generations",
           "pareval_names", "problem_name", "prompt_record", "record_name", "unencodable",
           "unknown_name_reason", "validate_records"]
