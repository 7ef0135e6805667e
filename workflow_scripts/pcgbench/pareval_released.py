"""The re-scoring of ParEval's released LLM outputs as a study of the workflow: one job per (released file, shard)
scores that file's outputs with this harness and holds each verdict against ParEval's own (agreement.py).

    snakemake pcgbench_pareval_released     # results/pcgbench/pareval_released/

Inputs: the released files with ParEval's verdicts (data/pareval_released/<task>/<generator>.json.xz, read by
pareval_results.load_results), named in config section `pcgbench.pareval_released` as `<task>/<generator>`
(`files`). The config scores either `outputs: all` (every judged output of the CPU execution models listed in
`models`; config/paper.yaml) or a fixed list of outputs, each named by file, execution model, record and output
index (config/config.yaml: a dozen, stratified by model, task, execution model and ParEval's verdict, chosen to
build and run in a few seconds each). The same jobs run both: the fixed list is a filter on the same plan.

Shards: shards.plan over the config's `models` and every problem of the suite, with `pcgbench.pareval_released
.shards` (by execution model and, past problems_per_shard, by problem): one shard, "all", in the tiny config. A
job writes, in results/pcgbench/pareval_released/<task>/<generator>/ (one shard) or .../shards/<shard>/ (several):

    agreement.csv, agreement.json     agreement.main's (one row per sample; the confusion and causes); a shard that
                                      holds none of the file's outputs writes them empty
    samples.jsonl, results.parquet, metrics.json, refused.json   the evaluation's own files (when it ran any)

pareval_table.py reads every job's agreement.csv. The settings are the evaluation's (sections `measure` and
pcgbench.evaluate) with `pcgbench.pareval_released.measure`'s keys over them (default size: paper, ParEval's problem
sizes, so that a difference in verdict is not one of input size).

    main(released=Path("data/pareval_released/translation/gpt-4_temp0.2.json.xz"), out_dir=Path("DIR"),
         evaluate={}, section={...}, shard="all", seed=0)
"""

import logging
from pathlib import Path

import pandas as pd

from workflow_scripts.pcgbench import agreement, shards
from workflow_scripts.pcgbench.pareval_released_plan import ParEvalReleasedConfig, evaluation_config, plan

logger = logging.getLogger(__name__)


def main(*, released: Path, out_dir: Path, evaluate: dict, section: dict, shard: str, seed: int,
         file: str | None = None) -> pd.DataFrame:  # fmt: skip
    """Score one released file's outputs of one shard (its models and problems; of the fixed sample only, where
    the config gives one) into `out_dir`; returns the agreement table (agreement.main)."""
    cfg = ParEvalReleasedConfig.from_config(section)
    file = file or f"{Path(released).parent.name}/{Path(released).name.removesuffix('.json.xz')}"
    chosen = shards.find(plan(cfg), shard)
    keys = cfg.keys(file)
    logger.info("%s, shard %s (%s; %d problems): %s", file, chosen.name, ", ".join(chosen.exec_models),
                len(chosen.problems), "every output" if keys is None else f"{len(keys)} fixed outputs")  # fmt: skip
    return agreement.main(Path(released), Path(out_dir), evaluation_config(evaluate, cfg.measure, seed),
                          exec_models=list(chosen.exec_models), problems=set(chosen.problems), keys=keys, empty_ok=True)


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(released=Path(smk.input.released), out_dir=Path(smk.output.agreement).parent,
         evaluate={**smk.params.evaluate, "jobs": smk.threads},  # compiles at once: the job's threads
         section=smk.params.section, shard=smk.params.shard, seed=smk.params.seed,
         file=f"{smk.wildcards.task}/{smk.wildcards.generator}")  # fmt: skip
