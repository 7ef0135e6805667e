"""Performance-change task: edits of real PCGBench kernels, pair labels, leave-one-problem-out scoring;
code-completion metrics from harness rows."""

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.lm import completion, perfchange
from workflow_scripts.lm.perfchange import apply_edit, leave_one_problem_out, make_pairs, make_versions
from workflow_scripts.pcgbench import suite


@pytest.fixture(scope="module")
def kernels():
    return {p.name: p for p in suite.load_suite()}


def test_edits_of_a_real_kernel(kernels):
    problem = kernels["geometry_smallest_triangle"]
    original = suite.reference_body(problem, "omp")
    assert "schedule(dynamic, 1)" in original
    removed = apply_edit(original, "pragma_removed")
    assert "#pragma" not in removed and removed.count("for (") == original.count("for (")
    static = apply_edit(original, "schedule_static")
    assert "schedule(static)" in static and "schedule(dynamic" not in static and "reduction(min : best)" in static
    one = apply_edit(original, "one_thread")
    assert "#pragma omp parallel for" in one and one.rstrip().count("num_threads(1)") == 1
    # The edited pragma still reads `parallel for ...` with num_threads after the other clauses.
    assert "parallel for schedule(dynamic, 1) reduction(min : best) num_threads(1)" in one


def test_versions_skip_edits_that_change_nothing(kernels):
    versions = make_versions([kernels["geometry_smallest_triangle"]], list(perfchange.EDITS))
    # Its pragma already has schedule(dynamic, 1): that edit is a no-op and is not a version.
    assert list(versions["version"]) == ["original", "pragma_removed", "schedule_static", "one_thread"]
    assert versions["body"].is_unique


def test_pairs_are_labelled_in_both_directions_and_failed_versions_left_out():
    versions = pd.DataFrame([
        {"problem": "p", "version": "original", "body": "a", "verdict": "ok", "time_median_s": 1.0},
        {"problem": "p", "version": "pragma_removed", "body": "b", "verdict": "ok", "time_median_s": 2.0},
        {"problem": "p", "version": "schedule_static", "body": "c", "verdict": "ok", "time_median_s": 1.02},
        {"problem": "p", "version": "one_thread", "body": "d", "verdict": "wrong_answer", "time_median_s": np.nan},
    ])  # fmt: skip
    pairs = make_pairs(versions, slower_margin=0.05)
    labels = {(r.edit, r.direction): r.label for r in pairs.itertuples()}
    assert labels == {("pragma_removed", "edit"): 1, ("pragma_removed", "undo"): 0,
                      ("schedule_static", "edit"): 0, ("schedule_static", "undo"): 0}  # 2% is within the margin  # fmt: skip


def test_leave_one_problem_out_never_trains_on_the_test_problem():
    # Feature 0 tells the label apart in every problem but "c", where it is inverted: a classifier
    # that saw "c" while predicting it would get it right; the held-out one gets it wrong.
    features = np.array([[1.0], [-1.0], [1.0], [-1.0], [1.0], [-1.0], [-1.0], [1.0]])
    labels = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    groups = np.array(["a", "a", "b", "b", "d", "d", "c", "c"])
    predicted = leave_one_problem_out(features, labels, groups, c=10.0, seed=0)
    assert list(predicted[groups != "c"]) == [1, 0, 1, 0, 1, 0]
    assert list(predicted[groups == "c"]) == [0, 1]
    # The majority is taken from the other problems only.
    assert list(perfchange.majority_predictions(np.array([1, 1, 0, 0]), np.array(["a", "b", "c", "d"]))) == [0, 0, 1, 1]


def test_completion_metrics_from_harness_rows():
    rows = pd.DataFrame([
        # two samples per prompt; serial: one builds and passes; omp: none builds; mpi rows are ignored
        {"sample_id": "s0", "generator": "hpccoder", "model": "serial", "problem": "p", "problem_type": "t", "sample_index": 0,
         "verdict": "ok", "n_resources": 1, "speedup": 1.0},
        {"sample_id": "s1", "generator": "hpccoder", "model": "serial", "problem": "p", "problem_type": "t", "sample_index": 1,
         "verdict": "build_error", "n_resources": None, "speedup": None},
        {"sample_id": "o0", "generator": "hpccoder", "model": "omp", "problem": "p", "problem_type": "t", "sample_index": 0,
         "verdict": "build_error", "n_resources": None, "speedup": None},
        {"sample_id": "o1", "generator": "hpccoder", "model": "omp", "problem": "p", "problem_type": "t", "sample_index": 1,
         "verdict": "build_error", "n_resources": None, "speedup": None},
        {"sample_id": "m0", "generator": "hpccoder", "model": "mpi", "problem": "p", "problem_type": "t", "sample_index": 0,
         "verdict": "ok", "n_resources": 1, "speedup": 1.0},
    ])  # fmt: skip
    metrics = completion.completion_metrics(rows, ["serial", "omp"], ks=[1, 2])
    assert set(metrics["models"]) == {"serial", "omp"}
    serial, omp = metrics["models"]["serial"], metrics["models"]["omp"]
    assert serial["pass@1"] == pytest.approx(0.5) and serial["pass@2"] == pytest.approx(1.0) and serial["build@1"] == pytest.approx(0.5)
    assert omp["build@2"] == 0.0 and omp["verdicts"] == {"build_error": 2}
    with pytest.raises(ValueError, match="no sample of the models"):
        completion.completion_metrics(rows, ["cuda"], ks=[1])
