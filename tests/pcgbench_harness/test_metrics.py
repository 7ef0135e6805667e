"""The unbiased best-of-k estimators against brute-force enumeration of every k-subset."""

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.pcgbench.metrics import compute_metrics, expected_max_at_k, pass_at_k, sample_table


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
