"""The unbiased best-of-k estimators against brute-force enumeration of every k-subset."""

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.pcgbench.metrics import (
    compute_metrics,
    expected_max_at_k,
    metrics_long_table,
    pass_at_k,
    sample_table,
    translation_versus_generation,
)


def brute_force_max(values, k):
    subsets = list(itertools.combinations(values, k))
    return sum(max(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("trial", range(40))
def test_expected_max_matches_enumeration(trial):
    rng = random.Random(trial)
    n = rng.randint(1, 9)
    # Ties on purpose: values drawn from a small set, zeros for failures.
    values = [rng.choice([0.0, 0.0, 0.5, 1.0, 1.7, 2.0, rng.random() * 4]) for _ in range(n)]
    for k in range(1, n + 1):  # includes k = n
        assert expected_max_at_k(values, k) == pytest.approx(brute_force_max(values, k), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n,c", [(1, 0), (1, 1), (5, 0), (5, 2), (5, 5), (10, 3), (20, 1)])
def test_pass_at_k_matches_comb_and_enumeration(n, c):
    indicators = [1.0] * c + [0.0] * (n - c)
    for k in range(1, n + 1):
        expected = 1 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)
        assert pass_at_k(n, c, k) == pytest.approx(brute_force_max(indicators, k), abs=1e-12)


def test_known_values_and_bad_arguments():
    assert expected_max_at_k([1.0, 3.0, 2.0], 1) == pytest.approx(2.0)
    assert expected_max_at_k([1.0, 3.0, 2.0], 3) == 3.0
    assert expected_max_at_k([2.0, 2.0], 1) == 2.0
    with pytest.raises(ValueError, match="k=3"):
        expected_max_at_k([1.0, 2.0], 3)
    with pytest.raises(ValueError, match="c=4"):
        pass_at_k(3, 4, 1)


def make_results(rng, problems=3, samples=4):
    rows = []
    for p in range(problems):
        for s in range(samples):
            verdict = rng.choice(["ok", "ok", "wrong_answer", "build_error"])
            if verdict == "build_error":
                rows.append(dict(generator="g", model="omp", problem=f"p{p}", problem_type=f"t{p % 2}",
                                 sample_index=s, verdict=verdict, n_resources=np.nan, speedup=np.nan))
                continue
            for n in (1, 2):
                rows.append(dict(generator="g", model="omp", problem=f"p{p}", problem_type=f"t{p % 2}",
                                 sample_index=s, verdict=verdict, n_resources=n, speedup=rng.random() * 2 * n))
    return pd.DataFrame(rows)


def test_group_metrics_equal_brute_force_over_prompts():
    rng = random.Random(7)
    results = make_results(rng)
    metrics = compute_metrics(results, ks=[1, 2, 4, 5])
    omp = metrics["by_model"]["g"]["omp"]
    assert "pass@5" not in omp  # only 4 samples per prompt
    samples = sample_table(results)
    for k in (1, 2, 4):
        for metric, column in [("pass", "correct"), ("build", "built"), ("speedup_2", "speedup_2"),
                               ("efficiency_2", "efficiency_2"), ("speedup_max", "speedup_max")]:
            per_prompt = [brute_force_max(g[column].astype(float).tolist(), k) for _, g in samples.groupby("problem")]
            assert omp[f"{metric}@{k}"] == pytest.approx(np.mean(per_prompt)), (metric, k)
    # Failures count 0; the conditioned mean uses correct samples only.
    assert omp["expected_speedup"] == pytest.approx(samples["speedup_max"].mean())
    correct = samples[samples["correct"]]
    assert omp["expected_speedup_given_correct"] == pytest.approx(correct["speedup_max"].mean())
    assert set(metrics["by_model_and_type"]["g"]["omp"]) == {"t0", "t1"}


def test_efficiency_divides_by_resource_count_and_failures_score_zero():
    results = pd.DataFrame([
        dict(generator="g", model="omp", problem="p", problem_type="t", sample_index=0, verdict="ok",
             n_resources=2, speedup=1.5),
        dict(generator="g", model="omp", problem="p", problem_type="t", sample_index=1, verdict="wrong_answer",
             n_resources=2, speedup=9.0),
    ])
    omp = compute_metrics(results, ks=[1, 2])["by_model"]["g"]["omp"]
    assert omp["efficiency_2@1"] == pytest.approx((0.75 + 0.0) / 2)
    assert omp["speedup_2@2"] == pytest.approx(1.5)
    assert omp["pass@1"] == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------------------
# ParEval's definitions, side by side


def _row(problem, index, verdict, n=None, time=None, baseline=None, exec_model="omp"):
    return dict(generator="g", model=exec_model, problem=problem, problem_type="t", sample_index=index, verdict=verdict,
                n_resources=n, speedup=(baseline / time) if time else np.nan, time_median_s=time,
                baseline_time_median_s=baseline)


def test_pareval_definitions_drop_failures_and_prompts_without_a_valid_sample():
    rows = pd.DataFrame([
        # p0: two valid samples (baselines measured 1.0 and 0.8: T* = 0.8) and one failure
        _row("p0", 0, "ok", 1, 1.0, 1.0), _row("p0", 0, "ok", 2, 0.5, 1.0),
        _row("p0", 1, "ok", 1, 2.0, 0.8), _row("p0", 1, "ok", 2, 1.6, 0.8),
        _row("p0", 2, "wrong_answer", 1),
        # p1: nothing valid: dropped from ParEval's means, counted 0 in ours
        _row("p1", 0, "build_error"), _row("p1", 1, "wrong_answer", 1), _row("p1", 2, "crash", 1),
    ])
    metrics = compute_metrics(rows, ks=[1, 2], pareval_resources={"omp": 2})
    pareval = metrics["pareval"]["g"]["omp"]
    assert pareval["n"] == 2 and pareval["prompts"] == 2 and pareval["prompts_with_valid_sample"] == 1
    at_2 = [0.8 / 0.5, 0.8 / 1.6]  # T*/T at n = 2 of p0's valid samples
    assert pareval["speedup_n@1"] == pytest.approx(np.mean(at_2))
    assert pareval["speedup_n@2"] == pytest.approx(max(at_2))
    assert pareval["efficiency_n@1"] == pytest.approx(np.mean(at_2) / 2)
    best = [max(0.8 / 1.0, 0.8 / 0.5), max(0.8 / 2.0, 0.8 / 1.6)]
    assert pareval["speedup_max@1"] == pytest.approx(np.mean(best))
    best_efficiency = [max(0.8 / 1.0, 0.8 / 0.5 / 2), max(0.8 / 2.0, 0.8 / 1.6 / 2)]
    assert pareval["efficiency_max@1"] == pytest.approx(np.mean(best_efficiency))
    # pass@k is the same definition: p0 2 of 3 correct, p1 none
    assert pareval["pass@1"] == pytest.approx(metrics["by_model"]["g"]["omp"]["pass@1"]) == pytest.approx(2 / 3 / 2)
    # Ours counts p1 (and p0's failure) as 0 and uses each run's own baseline: lower here.
    assert metrics["by_model"]["g"]["omp"]["speedup_2@1"] < pareval["speedup_n@1"]


def test_pareval_fewer_valid_than_k_takes_the_best_and_unreached_n_is_not_measured():
    rows = pd.DataFrame([_row("p0", 0, "ok", 1, 1.0, 1.0), _row("p0", 1, "ok", 1, 0.5, 1.0),
                         _row("p0", 2, "timeout", 1)])
    pareval = compute_metrics(rows, ks=[3], pareval_resources={"omp": 4})["pareval"]["g"]["omp"]
    assert "speedup_n@3" not in pareval and "n = 4" in pareval["note"]
    assert pareval["speedup_max@3"] == pytest.approx(2.0)  # 2 valid samples < k = 3: the best of them


def test_prompt_mismatch_rows_are_in_no_metric():
    rows = pd.DataFrame([_row("p0", 0, "ok", 1, 1.0, 1.0), _row("p0", 1, "prompt_mismatch"),
                         _row("p1", 0, "prompt_mismatch")])
    metrics = compute_metrics(rows, ks=[1], pareval_resources={"omp": 1})
    assert metrics["by_model"]["g"]["omp"]["prompts"] == 1 and metrics["by_model"]["g"]["omp"]["pass@1"] == 1.0
    assert compute_metrics(rows[rows["verdict"] == "prompt_mismatch"], ks=[1])["by_model"] == {}


def test_translation_samples_are_scored_per_pair_and_read_beside_generation_on_the_same_problems():
    generation = pd.DataFrame([_row("p0", 0, "ok", 1, 1.0, 1.0), _row("p1", 0, "wrong_answer", 1)])
    translated = pd.DataFrame([dict(_row("p0", 0, "wrong_answer", 1), source_model="serial"),
                               dict(_row("p2", 0, "ok", 1, 1.0, 1.0), source_model="serial")])  # fmt: skip
    # One file of both tasks: generation samples by model, translation samples by pair, never mixed.
    metrics = compute_metrics(pd.concat([generation, translated]), ks=[1], pareval_resources={"omp": 1})
    assert metrics["by_model"]["g"]["omp"]["pass@1"] == 0.5 and metrics["by_model"]["g"]["omp"]["prompts"] == 2
    assert metrics["by_translation"]["g"]["serial->omp"]["pass@1"] == 0.5
    assert list(metrics["pareval"]["g"]) == ["omp", "serial->omp"]
    assert metrics["verdicts_by_translation"] == {"g": {"serial->omp": {"ok": 1, "wrong_answer": 1}}}
    assert set(metrics_long_table(metrics)["model"]) == {"omp", "serial->omp"}
    # Beside each other only on p0, the one problem with samples of both tasks.
    assert translation_versus_generation(generation, translated) == {"g": {"serial->omp": {
        "target_model": "omp", "problems": 1, "generation_pass@1": 1.0, "translation_pass@1": 0.0,
        "translation_minus_generation": -1.0}}}  # fmt: skip
