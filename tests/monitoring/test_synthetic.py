"""The generator's ground truth matches what it planted in the data."""

import numpy as np
import pandas as pd
import pytest

from tests.monitoring.conftest import small_config
from workflow_scripts.monitoring.dataset_schema import check_tables, counter_columns
from workflow_scripts.monitoring.synthetic import COUNTER_ROLES, generate


def test_tables_fit_the_canonical_schema(small_data):
    check_tables(small_data.samples, small_data.topology, small_data.runs, small_data.placement)
    assert set(counter_columns(small_data.samples)) == set(COUNTER_ROLES)
    assert len(small_data.topology) == 8
    # Each run is placed on exactly its app's node count.
    nodes = small_data.placement.groupby("job_id").size()
    expected = small_data.runs.set_index("job_id")["app"].map({"netapp": 4, "ioapp": 4, "quiet": 2})
    pd.testing.assert_series_equal(nodes.sort_index(), expected.sort_index(), check_names=False)


def test_truth_lists_exactly_the_planted_drivers(small_data):
    apps = small_data.truth["apps"]
    assert set(apps["netapp"]["drivers"]) == {"rtr_stalled_cycles_per_s"}
    assert set(apps["ioapp"]["drivers"]) == {"fs_wait_ms_per_s"}
    assert apps["quiet"]["drivers"] == {}
    assert apps["netapp"]["drivers"]["rtr_stalled_cycles_per_s"] > 0.05
    assert apps["netapp"]["planted_effect_log"]["fs_wait_ms_per_s"] == 0.0


def test_insensitive_app_varies_only_by_its_noise(small_data):
    runs = small_data.runs
    quiet = np.log(runs.loc[runs["app"] == "quiet", "run_time_s"] / 300.0)
    assert abs(quiet.std() - 0.05) < 0.015  # the planted log-normal noise, nothing else
    sensitive = np.log(runs.loc[runs["app"] == "netapp", "run_time_s"])
    assert sensitive.std() > 3 * 0.02


def test_best_achievable_mape_is_the_noise_floor(small_data):
    # E|1 - exp(-e)| for e ~ N(0, s) is about s * sqrt(2/pi) for small s.
    for app, spec in small_data.truth["apps"].items():
        floor = spec["noise_log_sd"] * np.sqrt(2 / np.pi)
        assert spec["best_achievable_mape"] == pytest.approx(floor, rel=0.35), app


def test_change_point_raises_congestion_not_offered_load(small_data):
    samples, cp = small_data.samples, small_data.truth["change_point"]
    assert cp["time_s"] == pytest.approx(small_config().start_epoch_s + 4 * 86400)
    before, after = samples[samples["time_s"] <= cp["time_s"]], samples[samples["time_s"] > cp["time_s"]]
    stall_ratio = after["rtr_stalled_cycles_per_s"].mean() / before["rtr_stalled_cycles_per_s"].mean()
    load_ratio = after["rtr_flits_per_s"].mean() / before["rtr_flits_per_s"].mean()
    assert stall_ratio > 1.5 * load_ratio  # capacity, not traffic, changed


def test_stalls_grow_nonlinearly_with_load(small_data):
    s = small_data.samples
    load, stalls = s["rtr_flits_per_s"].to_numpy(), s["rtr_stalled_cycles_per_s"].to_numpy()
    low, high = load < np.quantile(load, 0.3), load > np.quantile(load, 0.7)
    # u/(1-u) is convex: stalls per unit of load are higher when the load is high.
    assert np.median(stalls[high] / load[high]) > 1.3 * np.median(stalls[low] / load[low])


def test_same_seed_same_data_other_seed_other_data():
    a, b, c = generate(small_config(days=3, change_point_day=1), 1), generate(small_config(days=3, change_point_day=1), 1), \
        generate(small_config(days=3, change_point_day=1), 2)  # fmt: skip
    pd.testing.assert_frame_equal(a.samples, b.samples)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    assert not a.samples["rtr_stalled_cycles_per_s"].equals(c.samples["rtr_stalled_cycles_per_s"])


@pytest.mark.parametrize(("override", "field"), [
    ({"change_point_day": 20}, "change_point_day"),
    ({"capacity_drop": 0.95}, "capacity_drop"),
    ({"groups": 0}, "groups"),
    ({"apps": [{"name": "x", "base_time_s": 1, "nodes": 1, "net_sensitivity": 0, "io_sensitivity": 0, "noise_sd": 0}]}, "apps"),
    ({"start_date": "2024-13-01"}, "month"),
])  # fmt: skip
def test_bad_config_names_the_field(override, field):
    with pytest.raises(ValueError, match=field):
        small_config(**override)
