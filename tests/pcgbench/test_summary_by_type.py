"""The summary's per-(execution model, problem type) table: metrics and the verdict mix of every generator."""

import pandas as pd

from workflow_scripts.common import write_json
from workflow_scripts.pcgbench.summary import main, verdict_mix


def _results():
    # Two samples of one problem were timed at two resource counts (two rows each): each counts once.
    rows = [("s1", "serial", "reduce", "ok"), ("s2", "omp", "reduce", "ok"), ("s2", "omp", "reduce", "ok"),
            ("s3", "omp", "reduce", "build_error"), ("s4", "omp", "sort", "wrong_answer"),
            ("s4", "omp", "sort", "wrong_answer")]  # fmt: skip
    return pd.DataFrame(rows, columns=["sample_id", "model", "problem_type", "verdict"])


def test_verdict_mix_counts_each_sample_once_per_cell():
    assert verdict_mix(_results()) == {"serial": {"reduce": {"ok": 1}},
                                       "omp": {"reduce": {"ok": 1, "build_error": 1}, "sort": {"wrong_answer": 1}}}  # fmt: skip


def test_summary_carries_a_language_models_table_per_model_and_type(tmp_path):
    generator = tmp_path / "smollm2_135m"
    cell = {"pass@1": 0.5, "build@1": 1.0, "speedup_max@1": 1.2, "efficiency_max@1": 0.6}
    metrics = {"by_model": {"smollm2_135m": {"omp": cell}}, "by_model_and_type": {"smollm2_135m": {"omp": {"reduce": cell}}},
               "verdict_counts": {"smollm2_135m": {"ok": 2, "build_error": 1}}}  # fmt: skip
    write_json(generator / "metrics.json", metrics)
    _results().to_parquet(generator / "results.parquet")
    summary = main([generator / "metrics.json"], [generator / "results.parquet"], {}, tmp_path / "summary.json",
                   config={}, seed=1)  # fmt: skip
    entry = summary["generators"]["smollm2_135m"]
    assert entry["by_model_and_type"] == {"omp": {"reduce": {"pass@1": 0.5, "build@1": 1.0, "speedup_max@1": 1.2}}}
    assert entry["verdicts_by_model_and_type"]["omp"]["reduce"] == {"ok": 1, "build_error": 1}
    assert "smollm2_135m" not in summary["self_test"]  # a language model has no expected verdicts


def test_every_verdict_has_its_colour_in_the_verdict_figure():
    from workflow_scripts.measure.verdicts import VERDICTS
    from workflow_scripts.pcgbench.figures import VERDICT_COLOURS

    assert set(VERDICT_COLOURS) == set(VERDICTS)
