"""The report's diagnosis: do faster candidates exist, and how often were RL's groups flat, per task set."""

import pandas as pd
import pytest

from workflow_scripts.rlpf.report import diagnosis


def test_diagnosis_counts_faster_candidates_and_flat_groups():
    candidates = pd.DataFrame({
        "task_id": ["openmp/a", "openmp/a", "openmp/b", "openmp/b", "serial/a", "serial/a"],
        "task_set": ["openmp", "openmp", "openmp", "openmp", "serial", "serial"],
        "completion": ["serial\n", "#pragma omp parallel for\n", "serial\n", "#pragma omp parallel for\n",
                       "serial\n", "#pragma omp simd\n"],
        "verdict": ["ok", "ok", "ok", "wrong_answer", "ok", "ok"],
        "speedup": [1.0, 1.5, 1.0, None, 1.0, 0.5],
        "reward": [0.0, 0.405, 0.0, -0.6, 0.0, -0.25],
    })  # fmt: skip
    rl_curve = {"reward_calls": [
        {"groups_by_task_set": {"openmp": 2}, "constant_groups_by_task_set": {"openmp": 1}},
        {"groups_by_task_set": {"openmp": 1, "serial": 1}, "constant_groups_by_task_set": {"openmp": 0, "serial": 1}},
    ]}  # fmt: skip
    d = diagnosis(candidates, rl_curve, {})
    assert d["openmp"]["train_tasks"] == 2 and d["openmp"]["train_tasks_with_a_faster_candidate"] == 1
    assert d["serial"]["train_tasks_with_a_faster_candidate"] == 0
    assert d["openmp"]["measured_correct_candidates"] == 1  # the all-serial program is not timed
    assert d["openmp"]["rl_constant_group_fraction"] == pytest.approx(1 / 3)
    assert d["serial"]["rl_constant_group_fraction"] == 1.0
