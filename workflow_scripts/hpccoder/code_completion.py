"""HPC-Coder task 1: code completion on PCGBench's serial and OpenMP prompts, scored by the harness.

The completions are sampled from the HPC-Coder model by the generate stage (rules/generate.smk,
`generate.models.<generator>` pointing at results/hpccoder/model) and built, run in the sandbox,
validated and timed by the PCGBench harness (rules/pcgbench.smk, `results/pcgbench/<generator>/`).
This step keeps the execution models the HPC-Coder paper evaluates (serial and OpenMP by default)
and computes build@k and pass@k with the harness's estimators (workflow_scripts/pcgbench/metrics.py).

Input: the harness's per-sample results table (`results.parquet`).
Output: a metrics JSON: per execution model, prompts, samples, build@k, pass@k, and verdict counts.

Run: `snakemake results/hpccoder/completion/metrics.json` (rules/hpccoder.smk), or call `main(...)`.
"""

import logging
from pathlib import Path
from typing import Any

import pandas as pd

from workflow_scripts.common import Provenance, write_json
from workflow_scripts.pcgbench import compute_metrics

logger = logging.getLogger(__name__)


def completion_metrics(results: pd.DataFrame, models: list[str], ks: list[int]) -> dict[str, Any]:
    """build@k and pass@k per execution model, from the harness's rows of the wanted models."""
    kept = results[results["model"].isin(models)]
    missing = sorted(set(models) - set(kept["model"]))
    if kept.empty:
        raise ValueError(f"the harness results hold no sample of the models {models} (have: {sorted(results['model'].unique())})")
    metrics = compute_metrics(kept, ks=ks)
    per_model = {}
    for generator, by_model in metrics["by_model"].items():
        for model, values in by_model.items():
            verdicts = kept[(kept["generator"] == generator) & (kept["model"] == model)].drop_duplicates("sample_id")
            per_model[model] = {
                "prompts": values["prompts"],
                "samples": values["samples"],
                **{key: value for key, value in values.items() if key.startswith(("build@", "pass@"))},
                "verdicts": verdicts["verdict"].value_counts().sort_index().to_dict(),
            }
    return {"generator": sorted(kept["generator"].unique()), "models": per_model, "ks": list(ks), "models_missing": missing}


def main(results_path: str | Path, metrics_path: str | Path, models: list[str], ks: list[int], seed: int) -> dict[str, Any]:
    prov = Provenance.start(step="hpccoder.completion", config={"models": models, "ks": ks}, seed=seed)
    metrics = completion_metrics(pd.read_parquet(results_path), models, ks)
    write_json(metrics_path, metrics)
    prov.finish([metrics_path], harness_results=str(results_path))
    for model, values in metrics["models"].items():
        logger.info("completion %s: %s", model, {k: v for k, v in values.items() if "@" in k})
    return metrics


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.input.results, smk.output.metrics, smk.params.models, smk.params.ks, smk.params.seed)
