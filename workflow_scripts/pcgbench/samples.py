"""The samples of a generations file: every output matched to its suite problem, and which execution models
can be built and run on this machine.

    samples, unscored = load_samples(Path("generations.json"), "gpt-4", PROBLEMS_ROOT)
    skipped = toolchain_report({s.exec_model for s in samples})   # {exec_model: why}, logged

Used by the build step (pcgbench/build.py, which compiles ahead of the evaluation) and by the evaluation (evaluation.py).
"""

import dataclasses
import hashlib
import logging
from pathlib import Path

from workflow_scripts.measure import PROMPT_MISMATCH, Problem, load_suite, toolchain_status
from workflow_scripts.pcgbench import translation
from workflow_scripts.pcgbench.pareval_format import (
    MALFORMED,
    NO_DRIVER,
    GenerationsError,
    load_generations,
    match_generations,
    record_name,
)

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Sample:
    generator: str
    problem: Problem
    exec_model: str
    sample_index: int
    body: str
    source_exec_model: str | None = None  # a translation task's source model; None for a generation task

    @property
    def task(self) -> str:
        return translation.GENERATION if self.source_exec_model is None else translation.TRANSLATION

    @property
    def sample_id(self) -> str:
        """Stable across runs: what the resume log is keyed by (a translation sample's names its source model)."""
        parts = [self.generator, self.problem.name, self.exec_model, str(self.sample_index), self.body]
        if self.source_exec_model is not None:
            parts.append(self.source_exec_model)
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]

    @property
    def program_id(self) -> str:
        """Equal for samples that are the same program (what a shared run is keyed by)."""
        return hashlib.sha256("\0".join([self.problem.name, self.exec_model, self.body]).encode()).hexdigest()[:20]


@dataclasses.dataclass(frozen=True)
class Unscored:
    """A record that is reported, not scored: no problem here of its name (NO_DRIVER), or its prompt declares
    another interface than the problem of its name (PROMPT_MISMATCH; `samples` are its outputs, as samples
    of that problem, so that each gets a row with the verdict), or its name, its prompt or one of its outputs
    holds text that cannot be written (MALFORMED: one Unscored per refused output, `reason` names which)."""

    record: str  # the record's name, as in the file (a lone surrogate escaped: pareval_format.record_name)
    exec_model: str
    status: str
    reason: str
    samples: tuple[Sample, ...] = ()


def load_samples(generations_path: Path, generator: str, suite_root: Path) -> tuple[list[Sample], list[Unscored]]:
    """Every output of every matched record as a sample of its suite problem, and the records that are not
    scored (a file from another tool may hold problems this suite lacks, prompts of other interfaces, or text
    that cannot be written). A refused output leaves a gap: the others keep their indexes in the file. A
    translation record's outputs are samples of its target model that carry its source model (translation.py).

    A file of which nothing can be scored raises GenerationsError (check_something_to_score), before a
    caller has built, run or written anything."""
    records = load_generations(generations_path)
    translation.check_translation_fields(records, source=str(generations_path))
    samples, unscored = [], []
    matches = match_generations(records, load_suite(suite_root), suite_root, source=str(generations_path))
    matches = translation.mark_translation_mismatches(matches)
    for match in matches:
        name = record_name(match.record)
        if match.status in (NO_DRIVER, MALFORMED):
            unscored.append(Unscored(name, match.exec_model, match.status, match.reason))
            continue
        unscored += [Unscored(name, match.exec_model, MALFORMED, why) for _, why in match.refused]
        refused = {j for j, _ in match.refused}
        source = translation.source_exec_model(match.record)
        outputs = [Sample(generator=generator, problem=match.problem, exec_model=match.exec_model, sample_index=sample_index,
                          body=body, source_exec_model=source) for sample_index, body in enumerate(match.record["outputs"])
                   if sample_index not in refused]  # fmt: skip
        if match.status == PROMPT_MISMATCH:
            unscored.append(Unscored(name, match.exec_model, PROMPT_MISMATCH, match.reason, tuple(outputs)))
            continue
        samples += outputs
    check_something_to_score(records, samples, unscored, str(generations_path))
    return samples, unscored


def check_something_to_score(records: list[dict], samples: list[Sample], unscored: list[Unscored],
                             source: str) -> None:  # fmt: skip
    """Raise GenerationsError when not one output of the file is a sample (or a prompt_mismatch row): every
    record names a problem the suite lacks (a typo such as "reduce_averag": the reason gives the closest names),
    has no outputs (a prompt file not yet filled in), or holds text that cannot be written. Evaluating such a
    file would build nothing and end in an empty result; the message says why, per cause, and what to do."""
    if samples or any(u.samples for u in unscored):
        return
    if not records:
        raise GenerationsError(f"{source}: the file holds no records; nothing to evaluate")
    causes = []
    unknown = {u.record: u.reason for u in unscored if u.status == NO_DRIVER}  # one per name, not per model
    if unknown:
        shown = "; ".join(list(unknown.values())[:5]) + (f"; and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        causes.append(f"{len(unknown)} problem name(s) unknown ({shown}); rename the records (the suite's folder "
                      "names or ParEval's names; `export-prompts` writes every one)")
    empty = sum(1 for r in records if not r["outputs"])
    if empty:
        causes.append(f"{empty} record(s) have empty 'outputs' (a prompt file not yet filled in?); put the generated "
                      "function bodies in each record's 'outputs' first")
    malformed = [u for u in unscored if u.status == MALFORMED]
    if malformed:
        causes.append(f"{len(malformed)} record(s) or output(s) hold text UTF-8 cannot encode (first: "
                      f"{malformed[0].reason})")
    raise GenerationsError(f"{source}: nothing to evaluate: " + "; ".join(causes))


def toolchain_report(exec_models: set[str]) -> dict[str, str]:
    """{exec_model: why} for every model that cannot be built and run here; logged before any work starts."""
    unavailable = {}
    for exec_model in sorted(exec_models):
        ok, why = toolchain_status(exec_model)
        if not ok:
            unavailable[exec_model] = why
            logger.warning("execution model %s skipped: %s", exec_model, why)
    return unavailable
