"""Feature windows never look past a run's start; the split never trains on the future; models and analysis."""

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.monitoring.analysis import (
    error_table,
    grouped_permutation_importance,
    important,
    verdicts,
)
from workflow_scripts.monitoring.features import FeatureConfig, build_features, window_bounds
from workflow_scripts.monitoring.models import (
    PerformanceModelConfig,
    fit_models,
    last_run_baseline,
    near_constant_features,
    rolling_median_baseline,
    time_ordered_split,
)
from workflow_scripts.monitoring.summary import importance_vs_truth


def tiny_canonical(start_s: float):
    """Two nodes in two groups, a 60 s grid; counter 'clock' equals its own sample time; huge values after start."""
    times = np.arange(0, 4000, 60.0)
    rows = []
    for t in times:
        for node in (0, 1):
            spike = 1e9 if t >= start_s else 0.0  # anything a window sees at or after the start is obvious
            rows.append({"time_s": t, "component_id": node, "clock": t + spike, "node_value": 10.0 * (node + 1)})
    samples = pd.DataFrame(rows)
    topology = pd.DataFrame({"component_id": [0, 1], "router_id": [0, 1], "group_id": [0, 1]})
    runs = pd.DataFrame({"job_id": [1], "app": ["a"], "start_s": [start_s], "end_s": [start_s + 100],
                         "run_time_s": [100.0]})  # fmt: skip
    placement = pd.DataFrame({"job_id": [1], "component_id": [0]})
    return samples, topology, runs, placement


@pytest.mark.parametrize("start_s", [3000.0, 3030.0])  # on a sample time and between two
def test_feature_windows_end_strictly_before_the_start(start_s):
    features, meta = build_features(*tiny_canonical(start_s), FeatureConfig(windows_s=[600, 1200]))
    row = features.iloc[0]
    for window in (600, 1200):
        included = [t for t in np.arange(0, 4000, 60.0) if start_s - window <= t < start_s]
        assert row[f"clock__job__{window}s"] == pytest.approx(np.mean(included))
        assert row[f"clock__system__{window}s"] < start_s  # the spike at and after the start is never seen
    assert row["node_value__job__600s"] == 10.0 and row["node_value__groups__600s"] == 10.0
    assert row["node_value__system__600s"] == 15.0
    assert meta["clock__job__600s"] == {"kind": "counter", "counter": "clock", "scope": "job", "window_s": 600}


def test_window_bounds_exclude_the_start_sample():
    times = np.array([0.0, 60.0, 120.0, 180.0])
    assert window_bounds(times, 180.0, 120.0) == (1, 3)  # 60 and 120; 180 is the start itself
    assert window_bounds(times, 30.0, 60.0) == (0, 1)


def test_feature_config_rejects_bad_values():
    with pytest.raises(ValueError, match="windows_s"):
        FeatureConfig(windows_s=[0])
    with pytest.raises(ValueError, match="scopes"):
        FeatureConfig(scopes=["rack"])


def test_time_ordered_split_never_trains_on_the_future(small_data):
    runs = small_data.runs
    train, test, cutoff = time_ordered_split(runs, 0.7)
    assert runs.loc[train, "end_s"].max() <= cutoff <= runs.loc[test, "start_s"].min()
    straddling = (runs["start_s"] < cutoff) & (runs["end_s"] > cutoff)
    assert not (train & straddling.to_numpy()).any() and not (test & straddling.to_numpy()).any()
    assert 0.55 < train.mean() < 0.75


def test_last_run_baseline_uses_only_finished_runs():
    runs = pd.DataFrame({"app": ["a", "a", "a", "b"], "start_s": [0.0, 50.0, 200.0, 60.0],
                         "end_s": [100.0, 150.0, 260.0, 70.0], "run_time_s": [100.0, 100.0, 60.0, 10.0]})  # fmt: skip
    predicted = last_run_baseline(runs)
    # Run 2 starts at 50 while run 1 is still going (ends 100): nothing finished yet.
    assert np.isnan(predicted[0]) and np.isnan(predicted[1]) and predicted[2] == 100.0 and np.isnan(predicted[3])


@pytest.fixture(scope="module")
def fitted(small_data):
    features, meta = build_features(small_data.samples, small_data.topology, small_data.runs, small_data.placement,
                                    FeatureConfig(windows_s=[3600]))  # fmt: skip
    # A stuck counter (one value in every run), as real LDMS exports have: dropped, never ranked.
    features = features.assign(stuck__job__3600s=7.0)
    meta = meta | {"stuck__job__3600s": {"kind": "counter", "counter": "stuck", "scope": "job", "window_s": 3600}}
    cfg = PerformanceModelConfig(gbm={"max_iter": 60}, mlp={"hidden_layers": [16], "max_iter": 150})
    predictions, bundle = fit_models(features, meta, cfg, seed=3)
    return features, meta, predictions, bundle


def test_models_predict_only_test_runs_with_every_family(fitted):
    features, _, predictions, bundle = fitted
    assert set(predictions["job_id"]) == set(bundle["test_job_ids"])
    assert not set(bundle["train_job_ids"]) & set(bundle["test_job_ids"])
    assert set(map(tuple, predictions[["family", "model"]].drop_duplicates().to_numpy())) == {
        ("per_app", "gbm"), ("per_app", "mlp"), ("per_app", "linear"), ("per_app", "last_run"), ("per_app", "rolling_median"),
        ("agnostic", "gbm"), ("agnostic", "mlp"), ("loao", "gbm"), ("loao", "mlp"), ("control", "gbm")}  # fmt: skip
    assert np.isfinite(predictions["predicted_s"]).all()
    assert bundle["dropped_features"] == {"stuck__job__3600s": 1.0}
    assert "stuck__job__3600s" not in bundle["feature_columns"]
    # The network-bound app is predicted from its pre-start congestion better than by its last run.
    net = predictions[predictions["app"] == "netapp"]
    ape = (net["predicted_s"] - net["run_time_s"]).abs() / net["run_time_s"]
    assert ape[net["model"] == "gbm"][net["family"] == "per_app"].mean() < ape[net["model"] == "last_run"].mean()


def test_model_config_rejects_bad_values():
    with pytest.raises(ValueError, match="train_fraction"):
        PerformanceModelConfig(train_fraction=0.99)
    with pytest.raises(ValueError, match="learning_rate"):
        PerformanceModelConfig(gbm={"learning_rate": 0})


def test_grouped_importance_finds_the_real_driver():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 3))

    class Linear:
        def predict(self, data):
            return 0.5 * data[:, 0] + 0.5 * data[:, 1]  # columns 0 and 1 are two windows of one counter

    y = Linear().predict(x)
    result = grouped_permutation_importance(Linear(), x, y, {"driver": [0, 1], "noise": [2]}, 5, rng)
    assert result["driver"]["mean"] > 0.5 and result["noise"]["mean"] == 0.0
    assert important(result, 0.01) == ["driver"]


def test_importance_vs_truth_ranks_and_correlates():
    roles = {"d1": "driver", "d2": "driver", "p": "proxy", "x": "distractor", "y": "distractor", "z": "non_causal"}
    measured = {"d1": 0.3, "d2": 0.1, "p": 0.5, "x": 0.01, "y": 0.0, "z": 0.02}
    result = importance_vs_truth({k: {"mean": v} for k, v in measured.items()}, roles, {"d1": 0.4, "d2": 0.05})
    assert result["drivers_above_distractors"] and result["rank"]["d1"] == 1 and "p" not in result["rank"]
    assert result["rho"] > 0.7
    swapped = importance_vs_truth({k: {"mean": v} for k, v in measured.items()}, roles, {"d1": 0.05, "d2": 0.4})
    assert swapped["rho"] < result["rho"]


def test_counter_clusters_join_redundant_counters_only():
    from workflow_scripts.monitoring.analysis import counter_clusters

    rng = np.random.default_rng(2)
    load = rng.uniform(0.1, 0.8, 400)
    x = np.column_stack([load / (1 - load), 3 * load + 0.01 * rng.standard_normal(400), rng.standard_normal(400), load])
    columns = ["stall__job__60s", "flits__job__60s", "temp__job__60s", "n_nodes"]
    meta = {"stall__job__60s": {"kind": "counter", "counter": "stall"}, "flits__job__60s": {"kind": "counter", "counter": "flits"},
            "temp__job__60s": {"kind": "counter", "counter": "temp"}, "n_nodes": {"kind": "placement", "counter": "placement"}}  # fmt: skip
    clusters = counter_clusters(x, columns, meta, 0.7)
    assert sorted(map(sorted, clusters.values())) == [["flits", "stall"], ["placement"], ["temp"]]


def test_same_seed_same_predictions(small_data, fitted):
    features, meta, predictions, _ = fitted
    cfg = PerformanceModelConfig(gbm={"max_iter": 60}, mlp={"hidden_layers": [16], "max_iter": 150})
    again, _ = fit_models(features, meta, cfg, seed=3)
    pd.testing.assert_frame_equal(predictions, again)


def test_rolling_median_uses_only_runs_finished_before_the_start():
    runs = pd.DataFrame({"app": ["a"] * 5, "start_s": [0.0, 10, 20, 30, 31], "end_s": [5.0, 15, 25, 35, 36],
                         "run_time_s": [5.0, 1.0, 3.0, 100.0, 7.0]})  # fmt: skip
    predicted = rolling_median_baseline(runs, window=3)
    assert np.isnan(predicted[0])
    assert predicted[1:].tolist() == [5.0, 3.0, 3.0, 3.0]  # the 100 s run has not ended when runs 4 and 5 start


def test_near_constant_features_are_named_with_their_share():
    x = np.column_stack([np.ones(20), np.r_[np.zeros(19), 1.0], np.arange(20.0), np.full(20, np.nan)])
    dropped = near_constant_features(x, ["const", "almost", "varies", "missing"], max_share=0.95)
    assert dropped == {"const": 1.0, "almost": 0.95, "missing": 1.0}


def test_too_few_runs_names_the_keys_that_fix_it():
    runs = pd.DataFrame({"job_id": range(40), "app": ["a", "b"] * 20, "start_s": np.arange(40) * 100.0,
                         "end_s": np.arange(40) * 100.0 + 50, "run_time_s": 50.0 + np.arange(40) % 3,
                         "hour_of_day": np.arange(40) % 24 * 1.0})  # fmt: skip
    meta = {"hour_of_day": {"kind": "time", "counter": "time", "scope": "system", "window_s": 0}}
    with pytest.raises(ValueError) as caught:
        fit_models(runs, meta, PerformanceModelConfig(), seed=1)
    message = str(caught.value)
    assert "monitoring.models.train_fraction" in message
    # Each app alone would be left out of the models; with neither left, the study stops naming both.
    assert message.startswith("app a: 14 training and 6 test runs; the models need >= 20 and >= 5; app b: 14 training")
    assert "runs_per_app_per_day" in message.split("synthetic data:")[1]  # the synthetic key only as the synthetic fix
    with pytest.raises(ValueError, match="only one app.*monitoring.real.apps"):
        fit_models(runs[runs["app"] == "a"], meta, PerformanceModelConfig(), seed=1)


def test_pooled_r2_is_within_apps_and_verdicts_compare_with_baselines():
    rng = np.random.default_rng(0)
    rows = []
    for app, scale in (("small", 10.0), ("large", 1000.0)):
        truth = scale * np.exp(0.1 * rng.standard_normal(60))
        for model, family, predicted in (("gbm", "per_app", truth * np.exp(0.01 * rng.standard_normal(60))),
                                         ("linear", "per_app", np.full(60, scale)),
                                         ("last_run", "per_app", np.full(60, scale)),
                                         ("rolling_median", "per_app", np.full(60, scale)),
                                         ("gbm", "control", np.full(60, scale))):  # fmt: skip
            rows.append(pd.DataFrame({"job_id": [f"{app}{i}" for i in range(60)], "app": app, "family": family,
                                      "model": model, "run_time_s": truth, "predicted_s": predicted}))  # fmt: skip
    predictions = pd.concat(rows, ignore_index=True)
    errors = error_table(predictions)
    # A constant per-app guess explains nothing within apps, whatever the apps' scales.
    assert errors["per_app"]["linear"]["all"]["r2"] is None
    assert errors["per_app"]["linear"]["all"]["r2_log_within_app"] == pytest.approx(-0.0, abs=0.05)
    assert errors["per_app"]["gbm"]["all"]["r2_log_within_app"] > 0.95
    found = verdicts(predictions)
    assert all(v["better"] for v in found["per_app/gbm"].values())
    assert not any(v["better"] for v in found["per_app/linear"].values())
    assert found["per_app/linear"]["large"]["verdict"].startswith("NOT better than the baselines")
