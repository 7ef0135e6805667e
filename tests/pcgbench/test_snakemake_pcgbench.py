"""Integration: `snakemake pcgbench` on a tiny config in a temporary copy of the repository, with the translation
task (serial->omp, the self-test generators: their translation outputs are the programs their generation evaluation
ran, so they take its runs)."""

import json

import pandas as pd
import pytest

from tests.conftest import run_snakemake

TINY = """
pcgbench:
  problems: [reduce_average]
  models: [serial, omp]
  generators: [reference, serial, mutants]
  language_models: []   # the harness alone; the default's real model is tested in tests/generate
  samples: 1
  mutants: [missing_include, off_by_one, huge_allocation]
  mutant_problems: [reduce_average]
  translation: {enabled: true, pairs: [serial->omp], mutants: [missing_include, off_by_one, huge_allocation],
                mutant_problems: [reduce_average]}
  evaluate: {max_cores: 2, ks: [1]}
measure: {warmup: 0, reps: 2, run_timeout_s: 60, timeout_floor_s: 3}
"""


@pytest.mark.integration
def test_snakemake_pcgbench_target(workflow_dir):
    work = workflow_dir
    (work / "tiny.yaml").write_text(TINY)
    proc = run_snakemake(work, "--configfile=tiny.yaml", "pcgbench", timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((work / "results/pcgbench/summary.json").read_text())
    assert summary["self_test_agreement"] == 1.0, json.dumps(summary["self_test"], indent=1)[:3000]
    assert summary["generators"]["reference"]["by_model"]["omp"]["pass@1"] == 1.0
    assert summary["generators"]["serial"]["by_model"]["omp"]["pass@1"] == 0.0  # no_parallelism
    results = pd.read_parquet(work / "results/pcgbench/mutants/results.parquet")
    assert {"build_error", "wrong_answer", "killed_resource_limit"} <= set(results["verdict"])
    for figure in ("pass_at_1.png", "speedup_by_type.png", "pass_at_1_heatmap.png", "translation_vs_generation.png"):
        assert (work / "results/pcgbench/figures" / figure).stat().st_size > 1000
    translation = summary["translation"]
    assert translation["self_test_agreement"] == 1.0, json.dumps(translation["self_test"], indent=1)[:3000]
    assert translation["versus_generation"]["reference"]["serial->omp"] == {
        "target_model": "omp", "problems": 1, "generation_pass@1": 1.0, "translation_pass@1": 1.0,
        "translation_minus_generation": 0.0}  # fmt: skip
    assert translation["generators"]["serial"]["verdict_counts"] == {"serial->omp": {"no_parallelism": 1}}
    for generator in ("reference", "mutants"):  # the generation evaluation's programs: not run again
        shared = pd.read_parquet(work / f"results/pcgbench/translation/{generator}/results.parquet")["run_shared_from"]
        assert shared.notna().all(), generator
    # A re-run has nothing to do.
    again = run_snakemake(work, "--configfile=tiny.yaml", "pcgbench", "pcgbench_translation", "-n", timeout=120)
    assert "Nothing to be done" in again.stdout + again.stderr
    # One rule per figure: a deleted figure is redrawn by its own rule, and nothing else runs.
    (work / "results/pcgbench/figures/speedup_by_type.png").unlink()
    plan = run_snakemake(work, "--configfile=tiny.yaml", "pcgbench", "-n", "--quiet", "rules", timeout=120)
    planned = {line.split()[0] for line in plan.stdout.splitlines() if line.startswith("pcgbench")}
    assert planned == {"pcgbench_figure_speedup_by_type", "pcgbench"}, plan.stdout
