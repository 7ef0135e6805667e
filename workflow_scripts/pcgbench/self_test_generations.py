"""Step pcgbench_self_test_generations (and its translation twin): a self-test generator's generations file, the
prompts file's records with its outputs filled in (generators.generate), and `<generations>.expected.json`, the
verdict each output is expected to get."""

import logging
from pathlib import Path

from workflow_scripts.common import Provenance, write_json
from workflow_scripts.pcgbench.generators import generate
from workflow_scripts.pcgbench.pareval_format import load_generations

logger = logging.getLogger(__name__)


def main(prompts: Path, generations: Path, expected: Path, generator: str, *, samples: int, mutants: list[str],
         mutant_problems: str | list[str], seed: int, race_check: bool = True) -> None:  # fmt: skip
    """Fill the prompts file's records with `generator`'s outputs; write them and the expected verdicts."""
    prov = Provenance.start(step=f"pcgbench.generators.{generator}",
                            config={"samples": samples, "mutants": list(mutants), "mutant_problems": mutant_problems,
                                    "race_check": race_check}, seed=seed)  # fmt: skip
    records, verdicts = generate(load_generations(prompts), generator, samples=samples, mutants=mutants,
                                 mutant_problems=mutant_problems, race_check=race_check)
    write_json(generations, records)
    write_json(expected, verdicts)
    logger.info("%s: %d prompts, %d outputs", generator, len(records), len(verdicts))
    prov.finish([generations, expected], prompts=str(prompts))


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(Path(smk.input.prompts), Path(smk.output.generations), Path(smk.output.expected), smk.wildcards.generator,
         samples=smk.params.samples, mutants=list(smk.params.mutants), mutant_problems=smk.params.mutant_problems,
         seed=smk.params.seed, race_check=smk.params.race_check)
