"""ParEval's results files: real LLM outputs with ParEval's own verdict on each, read as samples of this suite.

ParEval's driver (drivers/run-all.py) writes back the generations file it was given with every output of the
execution model it ran replaced by a dict:

    {"generated_output": "<body>", "did_build": true, "are_all_valid": false, "is_source_valid": true,
     "best_sequential_runtime": 0.08, "runs": [{"did_run": true, "is_valid": false, "runtime": 0.05,
                                                "num_threads": 1}, ...], ...}

(`runs` has one entry per resource configuration, `num_threads` or `num_procs`; None when it did not build). The
released ones, pinned and checksummed, are in data/pareval_released/ (its README says what and from where).
`load_results` reads a file of either format (results, or ParEval's generations format: outputs as strings, no
verdict) plain or xz-compressed, and gives every output as a Sample of the suite's problem (pareval_format's
matching: ParEval's numbered names through pareval.yaml, translation records as translation.py reads them) with
ParEval's verdict beside it. It refuses per record, with the reason naming the file, the record and the field, and
scores the rest:
- a record missing a field (or of the wrong type), a translation record's fields wrong, or outputs that mix
  judged and raw ones: the record (`missing_field`);
- an output without one of ParEval's verdict fields (VERDICT_FIELDS), or with are_all_valid but not did_build:
  that output (`missing_field`);
- a problem this suite lacks (`no_driver`, with the closest names) or a problem_type other than its problem's;
- a name, prompt or output UTF-8 cannot encode (`malformed`): the record, or that output alone.
A record whose prompt declares another interface than its problem's is kept apart (`mismatched`: prompt_mismatch,
not built). A file inside data/pareval_released/ is checked against its SHA256SUMS before it is read.

    released = load_results(Path("data/pareval_released/translation/gpt-4_temp0.2.json.xz"))
    released.samples[0].sample, released.samples[0].pareval.category    # a Sample; "valid"
    released.refused                                                      # [Refusal(record, index, ..., reason)]
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import lzma
from pathlib import Path

from workflow_scripts.measure import PROBLEMS_ROOT, PROMPT_MISMATCH, Problem, load_suite
from workflow_scripts.pcgbench import translation
from workflow_scripts.pcgbench.pareval_format import (
    MALFORMED,
    NO_DRIVER,
    GenerationsError,
    match_generations,
    record_name,
    validate_records,
)
from workflow_scripts.pcgbench.samples import Sample

logger = logging.getLogger(__name__)

RELEASED_ROOT = PROBLEMS_ROOT.parent / "pareval_released"
CHECKSUMS = "SHA256SUMS"
MISSING_FIELD = "missing_field"
# ParEval's verdict fields that this project reads, with the types they hold (run-all.py's driver_wrapper.py).
VERDICT_FIELDS: dict[str, tuple[type, ...]] = {
    "generated_output": (str,), "did_build": (bool,), "are_all_valid": (bool,), "runs": (list, type(None)),
    "best_sequential_runtime": (int, float, type(None)),
}  # fmt: skip
# ParEval's verdict on an output, in three (the rows of agreement's confusion table).
NOT_BUILT = "did_not_build"
INVALID = "built_invalid"
VALID = "valid"
CATEGORIES = (NOT_BUILT, INVALID, VALID)


@dataclasses.dataclass(frozen=True)
class ParEvalVerdict:
    """What ParEval decided about one output (its results file's fields)."""

    did_build: bool
    are_all_valid: bool  # every run exited 0 and validated
    runs: tuple[dict, ...]  # per resource configuration: did_run, is_valid, runtime, num_threads or num_procs
    best_sequential_runtime: float | None  # its serial baseline's best time at that problem, s
    is_source_valid: bool | None = None  # ParEval's check that the body uses its model (computed, never applied)

    @property
    def category(self) -> str:
        return VALID if self.are_all_valid else INVALID if self.did_build else NOT_BUILT

    def describe(self) -> str:
        """The runs in words: which configurations did not run (exit status non-zero: a crash or ParEval's timeout;
        its logs were not released) and which ran but were invalid."""
        if not self.did_build:
            return "ParEval: did not build (its build log was not released)"

        keys = [key for key in ("num_procs", "num_threads") if any(key in r for r in self.runs)]

        def where(runs: list[dict]) -> str:
            counts = ["x".join(str(r.get(key, "?")) for key in keys) for r in runs]
            return ",".join(counts) if keys else "its one run (serial)"

        unit = {("num_procs",): "ranks ", ("num_threads",): "threads ", ("num_procs", "num_threads"): "ranks x threads "}
        unit = unit.get(tuple(keys), "")
        failed = [r for r in self.runs if not r.get("did_run")]
        invalid = [r for r in self.runs if r.get("did_run") and not r.get("is_valid")]
        parts = [f"ran at {unit}{where(list(self.runs))}"] if self.runs else ["no run recorded"]
        if failed:
            parts.append(f"did not run (exit status non-zero) at {where(failed)}")
        if invalid:
            parts.append(f"invalid at {where(invalid)}")
        if self.is_source_valid is False:
            parts.append("its own source check found no use of the model (is_source_valid false)")
        return "ParEval: " + "; ".join(parts)

    @property
    def failed_to_run(self) -> bool:
        """Some run exited non-zero (ParEval's crash or time limit)."""
        return any(not r.get("did_run") for r in self.runs)


@dataclasses.dataclass(frozen=True)
class ReleasedSample:
    record: str  # the record's name as in the file (a lone surrogate escaped)
    record_index: int  # its position in the file
    sample: Sample  # sample_index: the output's index in the record
    pareval: ParEvalVerdict | None  # None: the output came without a verdict (generations format)
    mismatch: str = ""  # why its record's prompt is another interface (prompt_mismatch: not built), else ""


@dataclasses.dataclass(frozen=True)
class Refusal:
    record: str
    record_index: int
    output_index: int | None  # None: the whole record
    status: str  # MISSING_FIELD, NO_DRIVER or MALFORMED
    reason: str  # names the file, the record, the field and what it should hold


@dataclasses.dataclass
class ReleasedResults:
    source: str
    samples: list[ReleasedSample]  # matched: scored
    mismatched: list[ReleasedSample]  # prompt_mismatch: reported, not built
    refused: list[Refusal]

    @property
    def judged(self) -> list[ReleasedSample]:
        """The samples that carry ParEval's verdict."""
        return [s for s in self.samples if s.pareval is not None]


# ---------------------------------------------------------------------------------------------------------
# Reading the file


def checksum_listing(path: Path) -> tuple[Path, str] | None:
    """(SHA256SUMS file, the path as it lists it) of the nearest folder above `path` that has one listing it."""
    path = Path(path).resolve()
    for folder in path.parents:
        sums = folder / CHECKSUMS
        if sums.is_file():
            rel = path.relative_to(folder).as_posix()
            listed = {line.split(maxsplit=1)[1].strip(): line.split()[0] for line in sums.read_text().splitlines()
                      if line.strip()}  # fmt: skip
            return (sums, listed[rel]) if rel in listed else None
    return None


def verify_checksum(path: Path) -> None:
    """Raise GenerationsError when `path` is listed in a SHA256SUMS above it with another hash (a corrupted or
    edited copy of the released data: regenerate it with benchmarks/pareval_released_data.py)."""
    listing = checksum_listing(path)
    if listing is None:
        return
    sums, want = listing
    got = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    if got != want:
        raise GenerationsError(f"{path}: SHA-256 {got} is not {want}, which {sums} lists: the file is not the one "
                               "released; restore it (git checkout) or regenerate the folder with "
                               "benchmarks/pareval_released_data.py")


def released_files(root: Path = RELEASED_ROOT, task: str | None = None) -> list[Path]:
    """The released outputs files (translation/*.json.xz, generation/*.json.xz) SHA256SUMS lists, of `task` if given."""
    names = [line.split(maxsplit=1)[1].strip() for line in (Path(root) / CHECKSUMS).read_text().splitlines() if line]
    return [Path(root) / n for n in names if n.endswith(".json.xz") and (task is None or n.startswith(task + "/"))]


def read_json(path: Path) -> object:
    """The JSON of a results file, plain or xz-compressed (.xz), after its checksum where one is listed."""
    path = Path(path)
    if not path.is_file():
        raise GenerationsError(f"{path}: no such file")
    verify_checksum(path)
    raw = path.read_bytes()
    try:
        text = (lzma.decompress(raw) if path.suffix == ".xz" else raw).decode("utf-8")
        return json.loads(text)
    except lzma.LZMAError as err:
        raise GenerationsError(f"{path}: not an xz file ({err})") from err
    except UnicodeDecodeError as err:
        raise GenerationsError(f"{path}: not UTF-8 text (byte {err.start}): {err.reason}; save it as UTF-8") from err
    except json.JSONDecodeError as err:
        raise GenerationsError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}") from err


def generator_name(path: Path) -> str:
    """The file's name without .json / .json.xz: the generator its samples are of (e.g. "gpt-4_temp0.2")."""
    name = Path(path).name
    for suffix in (".xz", ".json"):
        name = name.removesuffix(suffix)
    return name


# ---------------------------------------------------------------------------------------------------------
# One record


def _at(message: str, source: str, index: int) -> str:
    # pareval_format's checks number the one record they are given 0; the file's index is what a reader needs.
    return message.replace(f"{source}: record 0", f"{source}: record {index}", 1)


def _verdict(output: dict, where: str) -> tuple[ParEvalVerdict | None, str]:
    """(ParEval's verdict of a judged output, "") or (None, why it cannot be read)."""
    for field, kinds in VERDICT_FIELDS.items():
        if field not in output:
            return None, f"{where}: field '{field}' is missing (ParEval's verdict fields: {', '.join(VERDICT_FIELDS)})"
        value = output[field]
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            return None, f"{where}: field '{field}' must be {names}, got {type(value).__name__}"
    runs = output["runs"] or []
    if not all(isinstance(run, dict) for run in runs):
        return None, f"{where}: field 'runs' must be a list of objects (one per resource configuration)"
    if output["are_all_valid"] and not output["did_build"]:
        return None, f"{where}: are_all_valid is true but did_build false: not a verdict ParEval writes"
    source_valid = output.get("is_source_valid")
    return ParEvalVerdict(did_build=output["did_build"], are_all_valid=output["are_all_valid"], runs=tuple(runs),
                          best_sequential_runtime=output["best_sequential_runtime"],
                          is_source_valid=source_valid if isinstance(source_valid, bool) else None), ""  # fmt: skip


def read_record(record: object, index: int, problems: list[Problem], generator: str, source: str,
                root: Path) -> tuple[list[ReleasedSample], list[ReleasedSample], list[Refusal]]:  # fmt: skip
    """(samples, prompt_mismatch samples, refusals) of one record of a results or generations file."""
    name = record_name(record) if isinstance(record, dict) and isinstance(record.get("name"), str) else "?"
    where = f"{source}: record {index}" + (f" ({name!r})" if name != "?" else "")

    def refuse(status: str, reason: str, output: int | None = None) -> Refusal:
        logger.warning("%s; refused (%s)", reason, status)
        return Refusal(name, index, output, status, reason)

    outputs = record.get("outputs") if isinstance(record, dict) else None
    if isinstance(outputs, list) and any(isinstance(o, dict) for o in outputs):
        if not all(isinstance(o, dict) for o in outputs):
            return [], [], [refuse(MISSING_FIELD, f"{where}: field 'outputs' mixes ParEval's judged outputs (objects) "
                                                  "and raw ones (strings); a results file judges all of a record's")]
        verdicts, refused = [], []
        for j, output in enumerate(outputs):
            verdict, why = _verdict(output, f"{where}: field 'outputs' item {j}")
            verdicts.append(verdict)
            if verdict is None:
                refused.append(refuse(MISSING_FIELD, why, j))
        # The generations record this is: refused outputs stand as "" so that the others keep their indexes.
        record = {**record, "outputs": [o["generated_output"] if v else "" for o, v in zip(outputs, verdicts, strict=True)]}
    else:
        verdicts, refused = [None] * len(outputs if isinstance(outputs, list) else []), []
    try:
        validate_records([record], source)
        translation.check_translation_fields([record], source)
        [match] = translation.mark_translation_mismatches(match_generations([record], problems, root, source))
    except GenerationsError as err:
        return [], [], [refuse(MISSING_FIELD, _at(str(err), source, index))]
    if match.status == NO_DRIVER:
        return [], [], [refuse(NO_DRIVER, f"{where}: {match.reason}")]
    if match.status == MALFORMED:
        return [], [], [refuse(MALFORMED, _at(match.reason, source, index))]
    refused += [refuse(MALFORMED, _at(why, source, index), j) for j, why in match.refused]
    skip = {r.output_index for r in refused}
    source_exec_model = translation.source_exec_model(match.record)
    samples = [ReleasedSample(name, index, Sample(generator=generator, problem=match.problem, exec_model=match.exec_model,
                                                  sample_index=j, body=body, source_exec_model=source_exec_model),
                              verdicts[j], match.reason if match.status == PROMPT_MISMATCH else "")
               for j, body in enumerate(record["outputs"]) if j not in skip]  # fmt: skip
    if match.status == PROMPT_MISMATCH:
        return [], samples, refused
    return samples, [], refused


def load_results(path: Path, generator: str | None = None, root: Path = PROBLEMS_ROOT) -> ReleasedResults:
    """Every output of a ParEval results (or generations) file as a sample of the suite, with ParEval's verdict
    where the file has one; records and outputs that cannot be scored are refused one by one (the module
    docstring). A file that is not a JSON list, or of which nothing can be scored, raises GenerationsError."""
    path, source = Path(path), str(path)
    data = read_json(path)
    if not isinstance(data, list):
        raise GenerationsError(f"{source}: expected a JSON list of records (ParEval's results or generations format), "
                               f"got {type(data).__name__}")
    problems = load_suite(root)
    released = ReleasedResults(source, [], [], [])
    for index, record in enumerate(data):
        samples, mismatched, refused = read_record(record, index, problems, generator or generator_name(path), source,
                                                   root)  # fmt: skip
        released.samples += samples
        released.mismatched += mismatched
        released.refused += refused
    if not released.samples and not released.mismatched:
        shown = "; ".join(r.reason for r in released.refused[:3])
        raise GenerationsError(f"{source}: nothing to score: {len(data)} records, every one refused" +
                               (f" (first: {shown})" if shown else ""))  # fmt: skip
    logger.info("%s: %d samples (%d with ParEval's verdict), %d prompt_mismatch, %d refused", source,
                len(released.samples), len(released.judged), len(released.mismatched), len(released.refused))
    return released


__all__ = ["CATEGORIES", "CHECKSUMS", "INVALID", "MISSING_FIELD", "NOT_BUILT", "RELEASED_ROOT", "VALID",
           "VERDICT_FIELDS", "ParEvalVerdict", "Refusal", "ReleasedResults", "ReleasedSample", "generator_name",
           "load_results", "read_json", "read_record", "released_files", "verify_checksum"]
