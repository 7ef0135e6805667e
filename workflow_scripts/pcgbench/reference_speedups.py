"""Steps pcgbench_reference_speedups_shard and pcgbench_reference_speedups: the suite's reference check
(reference_check.py) as the rules run it. A shard's references checked on the node its models need
(reference_check.check_shard), or, where the plan is that one shard, the whole check with its table and summary
(check_selection); with several shards, rule pcgbench_reference_speedups writes the table and summary from their
rows (merge)."""

from pathlib import Path

from workflow_scripts.pcgbench.reference_check import check_selection, check_shard, merge
from workflow_scripts.pcgbench.shards import Shard


def main(*, evaluate: dict, seed: int, shard: Shard | None = None, jobs: int | None = None, rows: Path | None = None,
         table: Path | None = None, summary: Path | None = None, shard_rows: list[Path] | None = None,
         selection: str | list[str] | None = None, exec_models: list[str] | None = None) -> None:  # fmt: skip
    """With `shard`: its rows into `rows`, or, given `table` (the plan's only shard), the table and summary.
    Without: the table and summary of the configured `selection` x `exec_models` from the shards' `shard_rows`.
    `evaluate`: the evaluation's settings (sections measure and pcgbench.evaluate); `jobs`: the compilers at once."""
    if shard is not None and table is not None:  # rule pcgbench_reference_speedups_shard, the only one
        check_selection(table, summary, selection=list(shard.problems), exec_models=list(shard.exec_models),
                        evaluate=evaluate, seed=seed, jobs=jobs)  # fmt: skip
    elif shard is not None:  # rule pcgbench_reference_speedups_shard, one of several
        check_shard(rows, shard, evaluate=evaluate, seed=seed, jobs=jobs)
    else:  # rule pcgbench_reference_speedups
        merge(table, summary, shard_rows, selection=selection, exec_models=exec_models, evaluate=evaluate, seed=seed)


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    given = {name: Path(smk.output[name]) for name in ("rows", "table", "summary") if smk.output.get(name)}
    if smk.params.get("shard"):
        main(evaluate=dict(smk.params.evaluate), seed=smk.params.seed, shard=Shard(**smk.params.shard),
             jobs=smk.threads, **given)  # fmt: skip
    else:
        main(evaluate=dict(smk.params.evaluate), seed=smk.params.seed, shard_rows=list(map(Path, smk.input.shards)),
             selection=smk.params.problems, exec_models=list(smk.params.models), **given)  # fmt: skip
