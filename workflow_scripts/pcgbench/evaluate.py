"""Step pcgbench_evaluate (and its translation twin): one shard of a generator's samples evaluated into the shard's
folder (evaluation.evaluate_shard), or, where the plan is that one shard, the generator's whole evaluation, metrics
included (evaluation.evaluate_generations). The merge of several shards is merge.py's step."""

from pathlib import Path

from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_generations, evaluate_shard
from workflow_scripts.pcgbench.shards import Shard


def main(generations: Path, out_dir: Path, cfg: EvaluateConfig, generator: str, shard: Shard, *, whole: bool,
         reference_results: Path | None = None, share_runs_from: Path | None = None) -> None:  # fmt: skip
    """Evaluate `shard` of `generator`'s generations file into out_dir: with `whole` (the plan's only shard) the
    evaluation's outputs, metrics included, else the shard's rows for merge.py. `reference_results`: the reference
    generator's results.parquet (the runs' time limits); `share_runs_from`: another evaluation's results.parquet,
    whose programs are not run again."""
    if whole:
        evaluate_generations(generations, out_dir, cfg, generator, reference_results=reference_results,
                             share_runs_from=share_runs_from, shard=shard)  # fmt: skip
    else:
        evaluate_shard(generations, out_dir, cfg, generator, shard, reference_results=reference_results,
                       share_runs_from=share_runs_from)  # fmt: skip


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    config = EvaluateConfig(**{**smk.params.evaluate, "seed": smk.params.seed, "jobs": smk.threads})
    main(Path(smk.input.generations), Path(smk.output.results).parent, config, smk.wildcards.generator,
         Shard(**smk.params.shard), whole=bool(smk.output.get("metrics")),
         reference_results=Path(smk.input.reference) if smk.input.get("reference") else None,
         share_runs_from=Path(smk.input.share_runs) if smk.input.get("share_runs") else None)  # fmt: skip
