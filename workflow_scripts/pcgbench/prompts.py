"""Select the configured subset of the suite and write its prompts (ParEval format, empty outputs).

Input: the problem set (data/pcgbench). Output: results/pcgbench/prompts.json, one record per
(problem, execution model). The selection is `all`, `one_per_type` (the first problem by name of each
problem type present) or an explicit list of problem names.

Run from Snakemake (rule pcgbench_prompts) or:
    python -m workflow_scripts.pcgbench export-prompts OUT.json --models serial,omp --problems reduce_average
"""


import logging
from pathlib import Path

from workflow_scripts.common import Provenance
from workflow_scripts.pcgbench import suite
from workflow_scripts.pcgbench.pareval_format import export_prompts

logger = logging.getLogger(__name__)


def select_problems(problems: list[suite.Problem], selection: str | list[str]) -> list[suite.Problem]:
    """The problems named by `selection` ("all", "one_per_type" or a list of names), sorted by name."""
    if selection == "all":
        return list(problems)
    if selection == "one_per_type":
        first: dict[str, suite.Problem] = {}
        for problem in sorted(problems, key=lambda p: p.name):
            first.setdefault(problem.problem_type, problem)
        return sorted(first.values(), key=lambda p: p.name)
    if isinstance(selection, str):
        raise ValueError(f"pcgbench.problems must be 'all', 'one_per_type' or a list of names, got {selection!r}")
    by_name = {p.name: p for p in problems}
    unknown = sorted(set(selection) - set(by_name))
    if unknown:
        raise ValueError(f"pcgbench.problems: unknown problem(s) {unknown}; the suite has {sorted(by_name)}")
    return [by_name[name] for name in sorted(set(selection))]


def main(out: Path, selection: str | list[str], models: list[str], suite_root: Path, seed: int) -> list[dict]:
    prov = Provenance.start(step="pcgbench.prompts", config={"problems": selection, "models": models}, seed=seed)
    problems = select_problems(suite.load_suite(suite_root), selection)
    records = export_prompts(problems, models, out)
    logger.info("selected %d problems (%s) x %d models", len(problems), ", ".join(p.name for p in problems),
                len(models))
    prov.finish([out])
    return records


if __name__ == "__main__":
    from workflow_scripts.common import configure_logging

    smk = snakemake  # noqa: F821 -- injected by Snakemake's script: directive
    configure_logging(smk.log[0])
    main(Path(smk.output.prompts), smk.params.problems, list(smk.params.models), suite.DATA_ROOT, smk.params.seed)
