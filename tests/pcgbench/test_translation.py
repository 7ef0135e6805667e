"""The translation task's self-test (translation.py, generators.py, evaluation.py): the reference generator's
answers to translation prompts (the target model's reference body) pass, the mutants' fail with their expected
verdicts, results and metrics carry the pair, and an output that is a program the generation evaluation ran takes
its rows instead of being run again (share_runs_from)."""

import json

import pandas as pd

from workflow_scripts.pcgbench import generators, translation
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.evaluation import evaluate_generations as evaluate
from workflow_scripts.pcgbench.pareval_format import export_prompts, load_generations
from workflow_scripts.pcgbench.summary import self_test

MUTANTS = ["missing_include", "off_by_one", "huge_allocation"]  # build_error, wrong_answer, killed_resource_limit


def _generations(prompts, path, generator, **kwargs):
    records, expected = generators.generate(load_generations(prompts), generator, samples=1, race_check=False,
                                            **{"mutants": [], **kwargs})  # fmt: skip
    path.write_text(json.dumps(records))
    return expected


def test_reference_translations_pass_mutants_fail_and_runs_are_shared(tmp_path, cache_dir, problem):
    cfg = EvaluateConfig(cache_dir=cache_dir, reps=1, warmup=0, validations=1, stress_validations=0, max_cores=2,
                         run_timeout_s=60.0, ks=(1,), race_check=False)  # fmt: skip
    # The generation evaluation of the reference's OpenMP body, then its translation from serial.
    export_prompts([problem], ["omp"], tmp_path / "prompts.json")
    _generations(tmp_path / "prompts.json", tmp_path / "reference.json", "reference")
    evaluate(tmp_path / "reference.json", tmp_path / "generation", cfg, generator="reference")
    records = translation.export_translation_prompts([problem], tmp_path / "translation.json", pairs=["serial->omp"])
    assert [(r["translation_src_model"], r["parallelism_model"]) for r in records] == [("serial", "omp")]
    expected = _generations(tmp_path / "translation.json", tmp_path / "t_reference.json", "reference")
    metrics = evaluate(tmp_path / "t_reference.json", tmp_path / "t_reference", cfg, generator="reference",
                       share_runs_from=tmp_path / "generation" / "results.parquet")  # fmt: skip
    assert metrics["by_translation"]["reference"]["serial->omp"]["pass@1"] == 1.0
    assert metrics["by_model"] == {} and "serial->omp" in metrics["pareval"]["reference"]
    assert metrics["verdicts_by_translation"] == {"reference": {"serial->omp": {"ok": 1}}}
    rows = pd.read_parquet(tmp_path / "t_reference" / "results.parquet")
    assert set(zip(rows["task"], rows["source_model"], rows["model"], strict=True)) == {("translation", "serial", "omp")}
    assert rows["run_shared_from"].notna().all()  # the generation evaluation's runs, not run again
    assert self_test(rows, expected)["agreement"] == 1.0
    # Mutants of the translation outputs fail with the verdicts they are made for.
    expected = _generations(tmp_path / "translation.json", tmp_path / "t_mutants.json", "mutants", mutants=MUTANTS)
    metrics = evaluate(tmp_path / "t_mutants.json", tmp_path / "t_mutants", cfg, generator="mutants",
                       reference_results=tmp_path / "generation" / "results.parquet")  # fmt: skip
    assert metrics["by_translation"]["mutants"]["serial->omp"]["pass@1"] == 0.0
    result = self_test(pd.read_parquet(tmp_path / "t_mutants" / "results.parquet"), expected)
    assert (result["agreement"], result["samples"]) == (1.0, len(MUTANTS)), result["disagreements"]
