"""The samples of a generations file: every output matched to its suite problem, and which execution models
can be built and run on this machine.

    samples, no_driver = load_samples(Path("generations.json"), "gpt-4", suite.DATA_ROOT)
    skipped = toolchain_report({s.model for s in samples})   # {model: why}, logged

Used by the build step (build.py, which compiles ahead of the evaluation) and by the evaluation (evaluate.py).
"""

import dataclasses
import hashlib
import logging
from pathlib import Path

from workflow_scripts.pcgbench import suite
from workflow_scripts.pcgbench.pareval_format import NO_DRIVER, load_generations, match_generations

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Sample:
    generator: str
    problem: suite.Problem
    model: str
    sample_index: int
    body: str

    @property
    def sample_id(self) -> str:
        """Stable across runs: what the resume log is keyed by."""
        text = "\0".join([self.generator, self.problem.name, self.model, str(self.sample_index), self.body])
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    @property
    def program_id(self) -> str:
        """Equal for samples that are the same program (what a shared run is keyed by)."""
        return hashlib.sha256("\0".join([self.problem.name, self.model, self.body]).encode()).hexdigest()[:20]


def load_samples(generations_path: Path, generator: str, suite_root: Path) -> tuple[list[Sample], list[str]]:
    """Every output of every record matched to its suite problem, and the records the suite has no driver for
    (reported, not scored: a file from another tool may hold problems this suite lacks)."""
    records = load_generations(generations_path)
    samples, no_driver = [], []
    for match in match_generations(records, suite.load_suite(suite_root)):
        if match.status == NO_DRIVER:
            no_driver.append(f"{match.record['name']}/{match.model}")
            continue
        for sample_index, body in enumerate(match.record["outputs"]):
            samples.append(Sample(generator=generator, problem=match.problem, model=match.model,
                                  sample_index=sample_index, body=body))  # fmt: skip
    return samples, no_driver


def toolchain_report(models: set[str]) -> dict[str, str]:
    """{model: why} for every model that cannot be built and run here; logged before any work starts."""
    unavailable = {}
    for model in sorted(models):
        ok, why = suite.toolchain_status(model)
        if not ok:
            unavailable[model] = why
            logger.warning("execution model %s skipped: %s", model, why)
    return unavailable
