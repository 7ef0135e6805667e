"""An app with too few runs for the models is left out of them, with the reason; its baselines and change
points are still computed, and the study runs to the end (the field case: a site's table where MILC has
38 runs, all before the time-ordered cutoff)."""

import numpy as np
import pandas as pd
import pytest

from tests.monitoring.conftest import SITE_APPS, SITE_REAL, write_site_runtimes
from workflow_scripts.monitoring.analysis import AnalysisConfig, analyse, left_out_of_models
from workflow_scripts.monitoring.features import FeatureConfig, build_features
from workflow_scripts.monitoring.loaders import RealDataConfig, load_runtimes
from workflow_scripts.monitoring.models import PerformanceModelConfig, fit_models, time_ordered_split
from workflow_scripts.monitoring.summary import summarise

FAST_MODELS = PerformanceModelConfig(gbm={"max_iter": 30}, mlp={"hidden_layers": [8], "max_iter": 60})
META = {"hour_of_day": {"kind": "time", "counter": "time", "scope": "system", "window_s": 0}}


def three_apps(c_runs: int) -> pd.DataFrame:
    """Apps a and b run every 100 s from 0 to 9,900 s; c runs `c_runs` times from 0 on, 300 s apart, taking
    100 s and 110 s in turn (so its last-run baseline is off by 10/110 and 10/100 in turn)."""
    rows = [{"app": app, "start_s": 100.0 * i + offset, "run_time_s": 50.0 + (i % 7)}
            for app, offset in (("a", 0.0), ("b", 10.0)) for i in range(100)]  # fmt: skip
    rows += [{"app": "c", "start_s": 300.0 * i + 20, "run_time_s": 100.0 + 10 * (i % 2)} for i in range(c_runs)]
    runs = pd.DataFrame(rows).sort_values("start_s", kind="stable").reset_index(drop=True)
    runs["end_s"] = runs["start_s"] + runs["run_time_s"] / 10  # every run ends before the next of its app starts
    runs["job_id"] = [f"j{i}" for i in range(len(runs))]
    runs["hour_of_day"] = (runs["start_s"] / 3600) % 24
    return runs


def test_an_app_without_test_runs_is_left_out_with_its_reason_and_baselines():
    runs = three_apps(c_runs=20)  # c's runs end at 5,720 s, before the cutoff: 20 training and 0 test runs
    predictions, bundle = fit_models(runs, META, FAST_MODELS, seed=1)
    assert bundle["left_out"] == {"c": {"reason": "app c: 20 training and 0 test runs; the models need >= 20 and >= 5",
                                        "n_runs": 20, "n_train": 20, "n_test": 0}}  # fmt: skip
    assert set(predictions["app"]) == {"a", "b"} and set(bundle["per_app"]) == set(bundle["loao"]) == {"a", "b"}
    # The split of the others is the whole table's split: leaving c out moves nothing for them.
    train, test, _ = time_ordered_split(runs, FAST_MODELS.train_fraction)
    others = (runs["app"] != "c").to_numpy()
    assert bundle["train_job_ids"] == runs.loc[train & others, "job_id"].tolist()
    assert bundle["test_job_ids"] == runs.loc[test & others, "job_id"].tolist()
    assert set(bundle["app_scale_s"]) == {"a", "b"}
    # Baselines on every run of c after its first: the last run predicts 100 s for the 110 s runs (odd i) and
    # 110 s for the 100 s runs.
    found = left_out_of_models(bundle)["c"]
    assert found["baselines"]["last_run"]["n"] == 19
    expected = np.mean([10 / 110 if i % 2 else 10 / 100 for i in range(1, 20)])
    assert found["baselines"]["last_run"]["mape"] == pytest.approx(expected)
    assert found["baselines"]["rolling_median"]["n"] == 19 and 0 < found["baselines"]["rolling_median"]["mape"] < 0.1


def test_too_few_test_runs_alone_also_leaves_an_app_out():
    # c runs to 7,820 s: 23 training runs, 4 after the cutoff (6,710 s); with 28 runs it has 5 and is modelled.
    _, bundle = fit_models(three_apps(c_runs=27), META, FAST_MODELS, seed=1)
    assert bundle["left_out"]["c"]["reason"] == "app c: 23 training and 4 test runs; the models need >= 20 and >= 5"
    _, bundle = fit_models(three_apps(c_runs=28), META, FAST_MODELS, seed=1)
    assert bundle["left_out"] == {} and set(bundle["per_app"]) == {"a", "b", "c"}


def test_fewer_than_two_modelled_apps_stop_with_every_reason_and_the_fix():
    runs = three_apps(c_runs=20)
    with pytest.raises(ValueError) as caught:
        fit_models(runs[runs["app"] != "b"], META, FAST_MODELS, seed=1)
    message = str(caught.value)
    assert message.startswith("app c: 20 training and 0 test runs; the models need >= 20 and >= 5. Fewer than two")
    assert "monitoring.models.train_fraction" in message


@pytest.fixture(scope="module")
def site_study(tmp_path_factory):
    """The field case through data, features, models, analysis and summary, in process."""
    path = tmp_path_factory.mktemp("site") / "site_runtimes.csv"
    planted = write_site_runtimes(path)
    samples, topology, runs, placement = load_runtimes(RealDataConfig(run_table=str(path), **SITE_REAL))
    features, meta = build_features(samples, topology, runs, placement, FeatureConfig())
    predictions, bundle = fit_models(features, meta, FAST_MODELS, seed=1)
    analysis = analyse(features, meta, predictions, bundle, AnalysisConfig(permutation_repeats=3,
                                                                           change_point_permutations=99), seed=1)  # fmt: skip
    return planted, runs, summarise(analysis, {"source": "runtimes", "apps": None})


def test_the_field_case_runs_to_the_end_with_milc_left_out(site_study):
    _, runs, summary = site_study
    assert runs["app"].value_counts().to_dict() == {app: spec[1] for app, spec in SITE_APPS.items()}
    assert summary["left_out_of_models"]["MILC"] == summary["left_out_of_models"]["MILC"] | {
        "reason": "app MILC: 38 training and 0 test runs; the models need >= 20 and >= 5",
        "n_runs": 38, "n_train": 38, "n_test": 0}  # fmt: skip
    assert set(summary["left_out_of_models"]) == {"MILC"} and summary["modelled_apps"] == ["AMG", "UMT", "miniVite"]
    baselines = summary["left_out_of_models"]["MILC"]["baselines"]
    assert baselines["last_run"]["n"] == 37 and 0 < baselines["last_run"]["mape"] < 0.1  # 3 % noise, one 11 % step
    assert set(summary["mape"]["per_app"]["gbm"]) == {"AMG", "UMT", "miniVite", "all"}
    assert set(summary["loao_mape"]) == {"AMG", "UMT", "miniVite"}


def test_the_field_case_finds_the_amg_step_on_its_day_and_milc_s_step(site_study):
    planted, _, summary = site_study
    for app in ("AMG", "MILC"):
        (planted_s, change), = planted[app]
        step = max(summary["change_points"][app]["steps"], key=lambda s: abs(s["effect"]))
        assert step["time_s"] == planted_s  # between the same two runs
        assert step["effect"] == pytest.approx(change, abs=0.03) and step["p_value"] <= 0.02
    amg = max(summary["change_points"]["AMG"]["steps"], key=lambda s: abs(s["effect"]))
    assert amg["index"] == 25 and amg["date"][:10] == pd.Timestamp(planted["AMG"][0][0], unit="s").strftime("%Y-%m-%d")
