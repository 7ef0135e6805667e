"""The step scripts' main() functions: the real-data path through data -> features, and summaries without truth."""

import json

import pandas as pd
import pytest

from tests.monitoring.test_loaders import HEADER, ldms_rows, write
from workflow_scripts.monitoring import data, features
from workflow_scripts.monitoring.summary import summarise


def test_ldms_source_writes_the_canonical_tables_with_provenance(tmp_path):
    csv = write(tmp_path, "rtr.csv", HEADER + ldms_rows(range(0, 7260, 60), nodes=(1, 2, 3, 4)))
    jobs = write(tmp_path, "jobs.csv", "job_id,app,nodes,start_time,end_time\n"
                 "7,AMG,1-2,2024-01-01T01:00:00Z,2024-01-01T01:10:00Z\n8,MILC,3;4,1704073200,1704073800\n")  # fmt: skip
    out = {name: tmp_path / "out" / f"{name}.parquet" for name in ("samples", "topology", "runs", "placement")}
    real = {"ldms_csv": [str(csv)], "job_table": str(jobs), "gauge_counters": ["mem_used_mb"]}
    data.main(source="ldms", synthetic={}, real=real, samples_path=out["samples"], topology_path=out["topology"],
              runs_path=out["runs"], placement_path=out["placement"], truth_path=tmp_path / "out/truth.json", seed=1)  # fmt: skip
    assert json.loads((tmp_path / "out/truth.json").read_text())["apps"] is None
    assert (tmp_path / "out/runs.parquet.prov.json").exists()
    runs = pd.read_parquet(out["runs"])
    assert runs["app"].tolist() == ["AMG", "MILC"] and runs["run_time_s"].tolist() == [600.0, 600.0]
    features.main(samples_path=out["samples"], topology_path=out["topology"], runs_path=out["runs"],
                  placement_path=out["placement"], features_path=tmp_path / "f.parquet", meta_path=tmp_path / "m.json",
                  cfg=features.FeatureConfig(windows_s=[600]))  # fmt: skip
    frame = pd.read_parquet(tmp_path / "f.parquet").set_index("job_id")
    assert frame.loc[7, "rx_bytes__job__600s"] == pytest.approx(200.0)  # nodes 1 and 2: 100 and 300 B/s


def test_runtimes_source_writes_runs_and_empty_counter_tables(tmp_path):
    table = write(tmp_path, "site.csv", "application,started,jobid,wall\nAMG,2025-02-08_05-01-22,17.0,600\n"
                  "MILC,2025-02-08_06-00-00,18.0,900\n")  # fmt: skip
    out = {name: tmp_path / "out" / f"{name}.parquet" for name in ("samples", "topology", "runs", "placement")}
    real = {"run_table": str(table), "time_format": "%Y-%m-%d_%H-%M-%S", "time_zone": "Europe/Paris",
            "columns": {"app": "application", "start": "started", "job_id": "jobid", "run_time": "wall"}}  # fmt: skip
    data.main(source="runtimes", synthetic={}, real=real, samples_path=out["samples"], topology_path=out["topology"],
              runs_path=out["runs"], placement_path=out["placement"], truth_path=tmp_path / "out/truth.json", seed=1)  # fmt: skip
    assert json.loads((tmp_path / "out/truth.json").read_text())["source"] == "runtimes"
    runs = pd.read_parquet(out["runs"])
    assert runs["job_id"].tolist() == ["17.0", "18.0"] and runs["start_s"].tolist() == [1_738_990_882 - 3600, 1_738_990_800]
    assert pd.read_parquet(out["samples"]).empty and pd.read_parquet(out["placement"]).empty


def test_data_rejects_an_unknown_source(tmp_path):
    with pytest.raises(ValueError, match="monitoring.source 'csv' not allowed"):
        data.main(source="csv", synthetic={}, real={}, samples_path=tmp_path / "s", topology_path=tmp_path / "t",
                  runs_path=tmp_path / "r", placement_path=tmp_path / "p", truth_path=tmp_path / "j", seed=1)  # fmt: skip


def test_summary_without_truth_reports_only_measurements():
    imp = {"c1": {"mean": 0.1, "sd": 0.01}, "c2": {"mean": 0.0, "sd": 0.01}}
    errors = {family: {model: {"a": {"mape": 0.1, "r2": 0.5, "n": 9}, "b": {"mape": 0.2, "r2": 0.4, "n": 9},
                                "all": {"mape": 0.15, "r2": 0.45, "n": 18}} for model in models}
              for family, models in (("per_app", ("gbm", "last_run")), ("loao", ("gbm", "mlp")))}  # fmt: skip
    analysis = {"errors": errors, "importance": {"per_app": {"a": imp, "b": imp}, "control": {"a": imp, "b": imp},
                                                 "per_app_clusters": {"a": imp, "b": imp}},
                "clusters": {"c1": ["c1"], "c2": ["c2"]}, "important_features": {"a": ["c1"], "b": ["c1"]},
                "control_important_features": {"a": [], "b": []},
                "change_points": {"pooled": {"n": 18, "drifts": [], "candidate": None,
                                             "steps": [{"time_s": 86400.0, "p_value": 0.01, "effect": 0.1}]}},
                "split": {"cutoff_s": 0.0, "n_train": 10, "n_test": 8, "app_scale_s": {"a": 1.0, "b": 2.0}},
                "left_out_of_models": {}}  # fmt: skip
    summary = summarise(analysis, {"source": "ldms", "apps": None})
    assert summary["importance_spearman"] is None and summary["checks"] is None
    assert summary["loao_mape"] == {"a": {"gbm": 0.1, "mlp": 0.1}, "b": {"gbm": 0.2, "mlp": 0.2}}
    assert summary["top_counters"]["a"][0] == "c1"
    assert summary["change_points"]["pooled"]["steps"][0]["date"].startswith("1970-01-02")
    assert summary["mode"] == "counters" and summary["needs_counters"] is None
    runtime_only = summarise(analysis, {"source": "runtimes", "apps": None})
    assert runtime_only["mode"] == "runtime_only"
    assert any("dominant counters" in part for part in runtime_only["needs_counters"])


@pytest.mark.parametrize(("change", "needle"), [
    (lambda m: m["models"].update(train_fraction=1.5), "monitoring.models.train_fraction"),
    (lambda m: m.update(source="csv"), "allowed: synthetic, ldms, runtimes"),
    (lambda m: m["real"].update(columns={"start_time": "submit"}), "unknown key 'monitoring.real.columns.start_time'"),
    (lambda m: m["analysis"].update(change_point_alpha=0.9), "monitoring.analysis.change_point_alpha"),
    (lambda m: m["synthetic"]["apps"][0].update(speed=1), "unknown key 'monitoring.synthetic.apps.0.speed'"),
    (lambda m: m["features"].update(scopes=["rack"]), "monitoring.features.scopes.0"),
])  # fmt: skip
def test_schema_names_bad_monitoring_keys(change, needle):
    from pathlib import Path

    from workflow_scripts.common.config import explain_config_errors, load_config

    repo = Path(__file__).resolve().parents[2]
    config = load_config(repo / "config/config.yaml")  # defaults filled in: every key the change touches is there
    assert not [line for line in explain_config_errors(config, repo / "config/schema/config.schema.yaml")
                if "monitoring" in line]  # fmt: skip
    change(config["monitoring"])
    problems = explain_config_errors(config, repo / "config/schema/config.schema.yaml")
    assert any(needle in line for line in problems), problems


def test_real_input_files_only_for_the_ldms_source():
    from workflow_scripts.monitoring.paths import real_input_files

    real = {"ldms_csv": ["a.csv", "b.csv"], "job_table": "jobs.csv", "run_table": None, "topology": None}
    assert real_input_files({"source": "synthetic", "real": real}) == []
    assert real_input_files({"source": "ldms", "real": real}) == ["a.csv", "b.csv", "jobs.csv"]
    assert real_input_files({"source": "runtimes", "real": {"run_table": "runs.csv"}}) == ["runs.csv"]


def test_summary_checks_against_planted_truth():
    roles = {"stall": "driver", "wait": "driver", "nic": "proxy", "temp": "distractor", "login": "non_causal"}
    truth = {"source": "synthetic", "counter_roles": roles,
             "change_point": {"time_s": 10 * 86400.0, "date": "1970-01-11"},
             "apps": {a: {"drivers": {"stall": 0.3, "wait": 0.1}, "planted_effect_log": {"stall": 0.3, "wait": 0.1},
                          "best_achievable_mape": 0.02} for a in ("a", "b")}}  # fmt: skip
    good = {"stall+nic": {"mean": 0.2, "sd": 0.01}, "wait": {"mean": 0.05, "sd": 0.01},
            "temp": {"mean": 0.001, "sd": 0.001}, "login": {"mean": 0.0, "sd": 0.001}}  # fmt: skip
    by_counter = {"stall": {"mean": 0.2, "sd": 0.0}, "nic": {"mean": 0.0, "sd": 0.0}, "wait": {"mean": 0.05, "sd": 0.0},
                  "temp": {"mean": 0.001, "sd": 0.0}, "login": {"mean": 0.0, "sd": 0.0}}  # fmt: skip
    errors = {family: {model: {a: {"mape": 0.05, "r2": 0.5, "n": 9} for a in ("a", "b", "all")} for model in models}
              for family, models in (("per_app", ("gbm", "last_run")), ("loao", ("gbm", "mlp")))}  # fmt: skip
    analysis = {"errors": errors, "clusters": {"stall+nic": ["stall", "nic"], "wait": ["wait"], "temp": ["temp"],
                                               "login": ["login"]},
                "importance": {"per_app": {"a": by_counter, "b": by_counter}, "control": {"a": good, "b": good},
                               "per_app_clusters": {"a": good, "b": good}, "agnostic_clusters": good},
                "important_features": {}, "control_important_features": {"a": [], "b": ["login"]},
                "change_points": {k: {"n": 50, "drifts": [], "candidate": None,
                                      "steps": [{"time_s": 3 * 86400, "p_value": 0.001, "effect": 0.1},
                                                {"time_s": 10.5 * 86400, "p_value": 0.01, "effect": 0.2}]}
                                  for k in ("a", "b", "pooled")},
                "split": {"cutoff_s": 0.0, "n_train": 10, "n_test": 8, "app_scale_s": {"a": 1.0, "b": 2.0}},
                "left_out_of_models": {}}  # fmt: skip
    summary = summarise(analysis, truth)
    checks = {name: check["passed"] for name, check in summary["checks"].items()}
    assert checks == {"drivers_rank_above_distractors": True, "importance_spearman_above_0.7": True,
                      "permuted_label_control_finds_nothing": False, "change_point_within_one_day": True,
                      "loao_reported_per_app": True}  # fmt: skip
    assert summary["importance_spearman"]["per_app"]["a"] > 0.7
    assert summary["change_point_recovery"]["distance_days"]["pooled"] == pytest.approx(0.5)  # the nearest step
    assert any("control (b)" in line and "login" in line for line in summary["recovery_failures"])
    assert any("MAPE 0.050 is 2.5x the best achievable" in line for line in summary["recovery_failures"])
