"""The re-measured ParEval table (workflow_scripts/pcgbench/pareval_table.py) on hand-made agreement rows: pass@1
and build@1 as means over prompts, the stricter-by-design verdicts counted as ParEval would, the failures by stage,
the intervals (Wilson with n = prompts below ten prompts, a seeded bootstrap over prompts above), ParEval's published
value weighted by the prompts of each problem type, and the orders the claims read."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.pcgbench import pareval_table
from workflow_scripts.pcgbench.agreement import COLUMNS


def sample(record: str, index: int, pcgbench: str, pareval: str, *, exec_model: str = "omp", problem: str = "reduce_average",
           generator: str = "gpt-4_temp0.2", source: str | None = "serial", cause: str = "") -> dict:  # fmt: skip
    category = {"build_error": "did_not_build", "ok": "valid"}.get(pcgbench, "built_invalid")
    return {"generator": generator, "record": record, "output_index": index, "model": exec_model, "source_model": source,
            "problem": problem, "pareval": pareval, "pareval_runs": "", "pcgbench": pcgbench,
            "pcgbench_category": category, "agree": category == pareval, "cause": cause, "cause_family": "",
            "evidence": "", "race_check": "", "sample_id": f"{record}{index}"}  # fmt: skip


# Two prompts: A (4 samples: ok, ok, race_detected, build_error), B (2 samples: wrong_answer, timeout).
HAND = [
    sample("27_reduce_average", 0, "ok", "valid"),
    sample("27_reduce_average", 1, "ok", "valid"),
    sample("27_reduce_average", 2, "race_detected", "valid", cause="race_detected"),
    sample("27_reduce_average", 3, "build_error", "did_not_build"),
    sample("28_reduce_smallest_odd_number", 0, "wrong_answer", "valid", problem="reduce_smallest_odd",
           cause="answer_check"),
    sample("28_reduce_smallest_odd_number", 1, "timeout", "built_invalid", problem="reduce_smallest_odd"),
]  # fmt: skip


@pytest.fixture
def hand_csv(tmp_path):
    path = tmp_path / "agreement.csv"
    pd.DataFrame(HAND, columns=COLUMNS).to_csv(path, index=False)
    return path


def test_a_cell_is_a_mean_over_prompts_with_the_stricter_verdicts_counted_apart(hand_csv):
    rows = pareval_table.read_agreements([hand_csv])
    assert set(rows["task"]) == {"translation"} and set(rows["problem_type"]) == {"reduce"}
    cell = pareval_table.cell_row(rows, resamples=200, seed=0)
    assert (cell["prompts"], cell["samples"], cell["prompt_mismatch"]) == (2, 6, 0)
    assert cell["pcgbench_pass@1"] == pytest.approx((2 / 4 + 0 / 2) / 2)  # 0.25, not 2 of 6 samples
    assert cell["pcgbench_as_pareval_pass@1"] == pytest.approx((3 / 4 + 0) / 2)  # the race counted as a pass
    assert cell["pcgbench_build@1"] == pytest.approx((3 / 4 + 2 / 2) / 2)
    assert cell["pareval_pass@1"] == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert cell["pareval_build@1"] == pytest.approx((3 / 4 + 1) / 2)
    assert {stage: cell[f"failed_{stage}"] for stage in pareval_table.STAGES} == {
        "build": 1, "run": 0, "answer": 1, "race": 1, "time": 1, "vetting": 0}  # fmt: skip
    assert cell["agree"] == 4 and cell["ci_method"] == "wilson_prompts"
    low, high = pareval_table.wilson_interval(0.25, 2)
    assert (cell["pcgbench_pass@1_low"], cell["pcgbench_pass@1_high"]) == pytest.approx((low, high))
    assert cell["pcgbench_pass@1_low"] < 0.25 < cell["pcgbench_pass@1_high"]


def test_a_prompt_mismatch_is_counted_apart_and_never_scored(hand_csv):
    rows = pareval_table.read_agreements([hand_csv])
    extra = pd.DataFrame([sample("29_reduce_sum_of_min_of_pairs", 0, "prompt_mismatch", "valid",
                                 problem="reduce_sum_of_min_pairs")])  # fmt: skip
    extra["task"], extra["problem_type"] = "translation", "reduce"
    cell = pareval_table.cell_row(pd.concat([rows, extra], ignore_index=True), resamples=200, seed=0)
    assert (cell["prompts"], cell["samples"], cell["prompt_mismatch"]) == (2, 6, 1)
    assert cell["pcgbench_pass@1"] == pytest.approx(0.25)


@pytest.mark.parametrize(("p", "n", "low", "high"), [
    (0.0, 10, 0.0, 0.2775),     # 0 of 10: the textbook Wilson bound
    (1.0, 10, 0.7225, 1.0),
    (0.5, 1, 0.0546, 0.9454),   # one prompt: nearly the whole range
    (0.25, 100, 0.1755, 0.3430),
])  # fmt: skip
def test_wilson_interval(p, n, low, high):
    got = pareval_table.wilson_interval(p, n)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_the_interval_is_wilson_below_ten_prompts_and_a_seeded_bootstrap_from_ten():
    few = pareval_table.prompt_mean_interval([1.0, 0.0, 0.5], resamples=500, seed=1)
    assert few[2] == "wilson_prompts" and few[:2] == pytest.approx(pareval_table.wilson_interval(0.5, 3))
    shares = np.linspace(0, 1, 12)
    once = pareval_table.prompt_mean_interval(shares, resamples=2000, seed=3)
    assert once == pareval_table.prompt_mean_interval(shares, resamples=2000, seed=3)  # seeded
    assert once[2] == "bootstrap_prompts" and once[0] < shares.mean() < once[1]
    # the bootstrap of a mean over 12 prompts: about 1.96 standard errors each side
    se = shares.std(ddof=0) / math.sqrt(len(shares))
    assert once[1] - once[0] == pytest.approx(2 * 1.96 * se, rel=0.15)
    same = pareval_table.prompt_mean_interval([0.4] * 12, resamples=500, seed=0)
    assert same[:2] == pytest.approx((0.4, 0.4))
    assert math.isnan(pareval_table.prompt_mean_interval([], resamples=10, seed=0)[0])


def test_the_published_value_weights_problem_types_by_their_prompts():
    metrics = pd.DataFrame({"execution model": ["omp", "omp", "mpi"], "problem type": ["fft", "sort", "fft"],
                            "pass@1": [1.0, 0.0, 0.3]})  # fmt: skip
    weights = {("omp", "fft"): 3, ("omp", "sort"): 1}
    assert pareval_table.published_value(metrics, weights, "omp", "pass@1") == pytest.approx(0.75)
    assert pareval_table.published_value(metrics, weights, "omp", "pass@1", "sort") == 0.0
    assert math.isnan(pareval_table.published_value(metrics, weights, "kokkos", "pass@1"))


def test_main_writes_the_table_beside_paravals_published_values(hand_csv, tmp_path):
    summary = pareval_table.main(agreements=[hand_csv], out_dir=tmp_path / "out", every_output=False, resamples=200)
    table = pd.read_csv(tmp_path / "out/table.csv")
    [row] = table.to_dict(orient="records")
    assert (row["task"], row["model"], row["execution_model"], row["source_model"]) == ("translation", "GPT-4", "omp",
                                                                                       "serial")  # fmt: skip
    # ParEval's serial->omp translation pass@1 of GPT-4 over its 54 prompts (its per-type values, weighted)
    assert row["published_pass@1"] == pytest.approx(0.740, abs=0.001)
    assert row["pcgbench_pass@1"] == pytest.approx(0.25) and not row["every_output"]
    markdown = (tmp_path / "out/table.md").read_text()
    assert "| translation (serial->omp) | GPT-4 | omp | 2 | 6 | 0.74 | 0.62 | 0.25 [" in markdown
    assert "not an estimate of the model's" in markdown
    assert "<table>" in (tmp_path / "out/table.html").read_text()
    assert summary["scale"] == {"every_output": False, "samples": 6, "files": ["translation/gpt-4_temp0.2"],
                                "min_prompts_per_cell": 2, "ci_level": 0.95}  # fmt: skip
    assert summary["agreement"]["causes"] == {"race_detected": 1, "answer_check": 1}
    causes = json.loads((tmp_path / "out/causes.json").read_text())
    assert {(c["cause"], c["count"], c["language_model"]) for c in causes["causes"]} == {
        ("race_detected", 1, "GPT-4"), ("answer_check", 1, "GPT-4")}  # fmt: skip
    [typed] = json.loads((tmp_path / "out/by_problem_type.json").read_text())
    assert typed["problem_type"] == "reduce" and typed["samples"] == 6


def test_concordance_counts_pairs_ordered_as_the_reference_ties_half():
    reference = {"serial": 0.6, "omp": 0.4, "mpi": 0.2, "kokkos": 0.2}
    assert pareval_table.concordance({"serial": 0.9, "omp": 0.5, "mpi": 0.1}, reference) == (3, 3.0)
    assert pareval_table.concordance({"serial": 0.1, "omp": 0.5, "mpi": 0.5}, reference) == (3, 0.5)
    # kokkos and mpi tie in the reference: that pair has no order to keep
    assert pareval_table.concordance({"mpi": 0.1, "kokkos": 0.9}, reference) == (0, 0.0)


def test_orderings_and_translation_against_generation():
    table = pd.DataFrame([
        {"task": "generation", "model": "M", "execution_model": "serial", "pcgbench_pass@1": 0.8, "published_pass@1": 0.6},
        {"task": "generation", "model": "M", "execution_model": "omp", "pcgbench_pass@1": 0.3, "published_pass@1": 0.4},
        {"task": "translation", "model": "M", "execution_model": "omp", "pcgbench_pass@1": 0.5, "published_pass@1": 0.7},
        {"task": "translation", "model": "N", "execution_model": "omp", "pcgbench_pass@1": 0.6, "published_pass@1": 0.5},
    ])  # fmt: skip
    found = pareval_table.orderings(table)
    assert found["execution_models"]["pairs"] == 1 and found["execution_models"]["concordant_fraction"] == 1.0
    assert found["models"]["pairs"] == 1 and found["models"]["concordant_fraction"] == 0.0  # N above M here
    versus = found["translation_vs_generation"]
    assert versus["pairs"] == 1 and versus["mean_difference"] == pytest.approx(0.2)
    assert versus["published_mean_difference"] == pytest.approx(0.3)


def test_no_sample_is_an_error_naming_the_config_section(tmp_path):
    empty = tmp_path / "agreement.csv"
    pd.DataFrame([], columns=COLUMNS).to_csv(empty, index=False)
    with pytest.raises(ValueError, match="pcgbench.pareval_released selects none"):
        pareval_table.main(agreements=[empty], out_dir=tmp_path / "out", every_output=True)
