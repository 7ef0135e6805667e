"""Change points on synthetic series with known answers: edge steps, two steps, none, a drift, outliers."""

import numpy as np
import pytest

from workflow_scripts.monitoring.analysis import AnalysisConfig, change_points, clip_outliers, split_gains

HOURS_12 = 12 * 3600.0
CFG = AnalysisConfig(change_point_permutations=199)


def series(levels, noise_sd=0.03, seed=0, trend=0.0):
    """Run times of len(levels) runs, 12 h apart: exp(level + trend * i / n + noise)."""
    rng = np.random.default_rng(seed)
    n = len(levels)
    log = np.asarray(levels, dtype=float) + trend * np.arange(n) / n + noise_sd * rng.standard_normal(n)
    return np.arange(n) * HOURS_12, log


def find(times, log, seed=1):
    return change_points(times, log, CFG, np.random.default_rng(seed))


def main_steps(found, count):
    """The `count` steps of largest effect, in time order."""
    return sorted(sorted(found["steps"], key=lambda s: -abs(s["effect"]))[:count], key=lambda s: s["index"])


@pytest.mark.parametrize(("before", "n", "effect"), [
    (30, 200, 0.20),    # a 20 % rise with 15 % of the runs before it
    (170, 200, 0.20),   # ... and with 15 % after it
    (25, 168, -0.195),  # the field case: a 19.5 % drop with 25 of 168 runs before it, on a 2 % drift
    (100, 200, 0.06),   # a small shift in the middle
])  # fmt: skip
def test_a_step_is_found_where_it_was_planted(before, n, effect):
    levels = np.where(np.arange(n) < before, 0.0, np.log1p(effect))
    times, log = series(levels, trend=0.02 if n == 168 else 0.0, seed=before)
    found = find(times, log)
    (step,) = main_steps(found, 1)
    assert step["index"] == before
    assert step["effect"] == pytest.approx(effect, abs=0.03)
    assert step["p_value"] <= 0.01
    assert step["time_s"] == pytest.approx((before - 0.5) * HOURS_12)
    assert all(abs(other["effect"]) < 0.04 for other in found["steps"] if other is not step)


def test_two_steps_are_both_found():
    levels = np.select([np.arange(200) < 70, np.arange(200) < 140], [0.0, np.log(1.15)], np.log(0.9))
    found = find(*series(levels, seed=3))
    first, second = main_steps(found, 2)
    assert (first["index"], second["index"]) == (70, 140)
    assert first["effect"] == pytest.approx(0.15, abs=0.03)
    assert second["effect"] == pytest.approx(0.9 / 1.15 - 1, abs=0.03)
    assert second["runs_before"] == 70 and second["runs_after"] == 60  # measured between the neighbouring segments


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_step_on_noise_and_the_candidate_says_so(seed):
    found = find(*series(np.zeros(200), seed=seed))
    assert found["steps"] == [] and found["drifts"] == []
    assert found["candidate"]["significant"] is False and found["candidate"]["p_value"] > 0.05


def test_noise_alone_rarely_gives_a_step():
    hits = [bool(find(*series(np.zeros(120), seed=100 + k), seed=k)["steps"]) for k in range(20)]
    assert np.mean(hits) <= 0.25  # the first split is tested at 5 %; a few more tests follow when it is kept


def test_a_slow_drift_is_a_drift_not_steps():
    times, log = series(np.zeros(200), trend=np.log(1.15), seed=5)
    found = find(times, log)
    assert found["steps"] == []
    (drift,) = found["drifts"]
    assert drift["effect"] == pytest.approx(0.15, abs=0.04) and drift["p_value"] <= 0.01 and drift["runs"] == 200


def test_outliers_make_no_step_and_do_not_hide_one():
    times, log = series(np.zeros(200), seed=6)
    log[[20, 90, 91, 150]] += np.log(3)  # slow runs: a node failure, a congested day
    assert find(times, log)["steps"] == []
    times, log = series(np.where(np.arange(200) < 100, 0.0, np.log(1.2)), seed=7)
    log[[20, 150]] += np.log(3)
    log[60] -= np.log(3)
    (step,) = main_steps(find(times, log), 1)
    assert step["index"] == 100 and step["effect"] == pytest.approx(0.2, abs=0.03)


def test_clipping_keeps_steps_and_pulls_in_lone_outliers():
    values = np.r_[np.zeros(10), np.ones(10)] + 0.01 * np.random.default_rng(0).standard_normal(20)
    values[5] = 5.0
    clipped = clip_outliers(values, 4)
    assert abs(clipped[5]) < 0.2 and np.allclose(clipped[12:], values[12:], atol=0.05)


def test_split_gain_is_the_drop_in_squared_error_and_respects_the_minimum_segment():
    times = np.arange(12.0)
    values = np.r_[np.zeros(6), np.ones(6)]
    gains = split_gains(values, times, min_segment=3)
    assert np.argmax(gains) + 1 == 6
    assert np.isneginf(gains[:2]).all() and np.isneginf(gains[-2:]).all()
    # The gain equals the residual sum of squares of a line minus that of a line plus the step.
    x_line = np.column_stack([np.ones(12), times])
    sse_line = np.sum((values - x_line @ np.linalg.lstsq(x_line, values, rcond=None)[0]) ** 2)
    assert gains[5] == pytest.approx(sse_line)  # the line plus the step fits exactly
    assert find(np.arange(6.0), np.zeros(6))["candidate"] is None  # too short for five runs a side
