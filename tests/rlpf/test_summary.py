"""The report's diagnosis: do faster candidates exist, and how often were RL's groups flat, per task set."""

import pandas as pd
import pytest

from workflow_scripts.rlpf.summary import diagnosis


def test_diagnosis_counts_faster_candidates_and_flat_groups():
    candidates = pd.DataFrame({
        "task_id": ["omp/a", "omp/a", "omp/b", "omp/b", "serial/a", "serial/a"],
        "task_set": ["omp", "omp", "omp", "omp", "serial", "serial"],
        "completion": ["serial\n", "#pragma omp parallel for\n", "serial\n", "#pragma omp parallel for\n",
                       "serial\n", "#pragma omp simd\n"],
        "verdict": ["ok", "ok", "ok", "wrong_answer", "ok", "ok"],
        "speedup": [1.0, 1.5, 1.0, None, 1.0, 0.5],
        "reward": [0.0, 0.405, 0.0, -0.6, 0.0, -0.25],
    })  # fmt: skip
    rl_curve = {"reward_calls": [
        {"groups_by_task_set": {"omp": 2}, "constant_groups_by_task_set": {"omp": 1}},
        {"groups_by_task_set": {"omp": 1, "serial": 1}, "constant_groups_by_task_set": {"omp": 0, "serial": 1}},
    ]}  # fmt: skip
    d = diagnosis(candidates, rl_curve, {})
    assert d["omp"]["train_tasks"] == 2 and d["omp"]["train_tasks_with_a_faster_candidate"] == 1
    assert d["serial"]["train_tasks_with_a_faster_candidate"] == 0
    assert d["omp"]["measured_correct_candidates"] == 1  # the all-serial program is not timed
    assert d["omp"]["rl_constant_group_fraction"] == pytest.approx(1 / 3)
    assert d["serial"]["rl_constant_group_fraction"] == 1.0


def test_summary_and_table_without_figures(tmp_path):
    """main writes summary.json and per_kernel.csv from the four evaluations; the figures are their own rules."""
    from workflow_scripts.common import read_json, write_json
    from workflow_scripts.rlpf.held_out import score
    from workflow_scripts.rlpf.summary import MODELS, main

    tasks = [{"task_id": "omp/k1", "task_set": "omp", "kernel": "k1", "split": "held_out"},
             {"task_id": "omp/k2", "task_set": "omp", "kernel": "k2", "split": "train"},
             {"task_id": "omp/k2@r1", "task_set": "omp", "kernel": "k2", "split": "train",
              "origin": "omp/k2", "renaming": [["acc", "total"]]}]  # fmt: skip
    write_json(tmp_path / "tasks.json", {"tasks": tasks})
    paths = {"metrics": {}, "samples": {}}
    for i, model in enumerate(MODELS):
        samples = pd.DataFrame({"model": model, "task_id": "omp/k1", "kernel": "k1", "task_set": "omp",
                                "sample": [0, 1], "completion": ["serial\n", "#pragma omp parallel for\n"],
                                "correct": [True, i > 0], "speedup": [1.0, 1.0 + i]})  # fmt: skip
        paths["samples"][model] = tmp_path / f"{model}.parquet"
        samples.to_parquet(paths["samples"][model])
        paths["metrics"][model] = tmp_path / f"{model}.json"
        write_json(paths["metrics"][model], {"model": model, "task_sets": {"omp": score(samples, 0.05)}})
    # The original's two candidates; its renamed variant's rows: one derived, one measured as written.
    candidates = pd.DataFrame({"task_id": ["omp/k2"] * 2 + ["omp/k2@r1"] * 2, "task_set": "omp",
                               "verdict": "ok", "completion": ["serial\n", "#pragma omp parallel for reduction(+:acc)\n",
                                                               "serial\n", "#pragma omp parallel for reduction(+:total)\n"],
                               "speedup": [1.0, 1.8, 1.0, 1.7], "reward": [0.0, 0.59, 0.0, 0.53],
                               "derived": [False, False, True, False],
                               "variant_of": ["", "", "omp/k2", "omp/k2"]})  # fmt: skip
    candidates.to_parquet(tmp_path / "candidates.parquet")
    curves = {}
    for method in ("sft", "dpo", "rl"):
        curves[method] = tmp_path / f"curve_{method}.json"
        write_json(curves[method], {"log_history": [{"step": 1, "reward": 0.2}] if method == "rl" else []})
    summary = main(metrics_paths=paths["metrics"], samples_paths=paths["samples"], curve_paths=curves,
                   candidates_path=tmp_path / "candidates.parquet", tasks_path=tmp_path / "tasks.json",
                   out_summary=tmp_path / "summary.json", out_table=tmp_path / "per_kernel.csv", seed=0)  # fmt: skip
    assert read_json(tmp_path / "summary.json") == summary
    assert summary["task_sets"]["omp"]["rl"]["expected_speedup"] == pytest.approx((1.0 + 3.0) / 2)
    assert summary["finding"]["omp"].startswith("RL expected speedup 2.000 vs base 0.500: higher")
    assert "samples faster than the baseline 0.500 vs base 0.000: the gain is partly speed" in summary["finding"]["omp"]
    assert "verdict" not in summary  # the study's finding; `verdict` is a measurement's (the samples' column)
    assert summary["diagnosis"]["omp"]["train_tasks_with_a_faster_candidate"] == 1
    assert summary["diagnosis"]["omp"]["train_tasks"] == 1  # a renamed variant is not another kernel
    assert summary["renamed_variants"] == {"training_tasks": 1, "derived_rows": 1, "measured_as_written": 1,
                                           "same_verdict_as_original": 1}  # fmt: skip
    assert "1 renamed variants" in summary["notes"]
    table = pd.read_csv(tmp_path / "per_kernel.csv")
    assert list(table.model) == list(MODELS) and list(table.samples) == [2, 2, 2, 2]
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.parametrize(("rl_faster", "says"), [(0.0, "validity (more correct programs at about baseline speed), "
                                                       "not speed"), (0.25, "partly speed")])
def test_finding_says_whether_the_gain_is_speed_or_validity(rl_faster, says):
    from workflow_scripts.rlpf.summary import finding_text

    def entry(expected, faster):
        return {"task_sets": {"omp": {"expected_speedup": expected, "fraction_faster": faster, "samples": 8,
                                         "tasks": 2}}}  # fmt: skip

    metrics = {"base": entry(0.0, 0.0), "sft": entry(0.5, 0.0), "rl": entry(0.75, rl_faster), "dpo": entry(0.0, 0.0)}
    text = finding_text(metrics, "omp")
    assert text.startswith("RL expected speedup 0.750 vs base 0.000: higher") and says in text
    assert "the gain is" not in finding_text(metrics | {"rl": entry(0.0, 0.0)}, "omp")  # no gain, nothing to explain
