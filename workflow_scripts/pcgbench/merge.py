"""Step pcgbench_merge (and its translation twin): a generator's shards, evaluated as separate jobs, merged into one
evaluation's results.parquet, metrics.json and metrics.csv (evaluation.merge)."""

from pathlib import Path

from workflow_scripts.common import snakemake_step
from workflow_scripts.pcgbench.evaluation import EvaluateConfig, merge

if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    config = EvaluateConfig(**{**smk.params.evaluate, "seed": smk.params.seed, "jobs": smk.threads})
    merge(Path(smk.input.generations), [Path(p).parent for p in smk.input.shards], Path(smk.output.results).parent,
          config, smk.wildcards.generator)  # fmt: skip
