"""Select the configured subset of the suite and write its prompts (ParEval format, empty outputs).

Input: the problem set (data/pcgbench). Output: results/pcgbench/prompts.json, one record per
(problem, execution model); or, given translation pairs, results/pcgbench/translation/prompts.json, one
translation record per (problem, pair) that ParEval has (translation.py). The selection is `all`, `one_per_type`
(the first problem by name of each problem type present) or an explicit list of problem names (selection.py).

Run from Snakemake (rules pcgbench_prompts, pcgbench_translation_prompts) or:
    python -m workflow_scripts.pcgbench export-prompts OUT.json --models serial,omp --problems reduce_average
    python -m workflow_scripts.pcgbench export-prompts OUT.json --task translation --pairs 'serial->omp'
"""


import logging
from pathlib import Path

from workflow_scripts.common import Provenance
from workflow_scripts.measure import PROBLEMS_ROOT, load_suite
from workflow_scripts.pcgbench import translation
from workflow_scripts.pcgbench.pareval_format import export_prompts
from workflow_scripts.pcgbench.selection import select_problems

logger = logging.getLogger(__name__)


def main(out: Path, selection: str | list[str], exec_models: list[str], suite_root: Path, seed: int,
         pairs: list[str] | None = None) -> list[dict]:  # fmt: skip
    """The generation prompts of the selected problems x `exec_models`; with `pairs` ("serial->omp", ...), their
    translation prompts instead (`exec_models` unused)."""
    config = {"problems": selection, "models": exec_models} if pairs is None else {"problems": selection, "pairs": pairs}
    prov = Provenance.start(step="pcgbench.prompts" if pairs is None else "pcgbench.translation_prompts",
                            config=config, seed=seed)  # fmt: skip
    problems = select_problems(load_suite(suite_root), selection)
    if pairs is None:
        records = export_prompts(problems, exec_models, out)
    else:
        if not any(translation.parse_pair(pair) in translation.pareval_pairs(p, suite_root) for p in problems
                   for pair in pairs):  # fmt: skip
            raise ValueError(f"pcgbench.translation.pairs {pairs}: ParEval has no translation task of these pairs for "
                             f"any of the selected problems ({', '.join(p.name for p in problems)}); select problems "
                             "ParEval has (data/pcgbench/pareval.yaml) or set pcgbench.translation.enabled: false")
        records = translation.export_translation_prompts(problems, out, pairs=pairs, root=suite_root)
    logger.info("selected %d problems (%s) x %s", len(problems), ", ".join(p.name for p in problems),
                f"{len(exec_models)} models" if pairs is None else f"translation pairs {', '.join(pairs)}")
    prov.finish([out])
    return records


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    pairs = smk.params.get("pairs")
    main(Path(smk.output.prompts), smk.params.problems, list(smk.params.get("models") or []), PROBLEMS_ROOT,
         smk.params.seed, pairs=list(pairs) if pairs is not None else None)
