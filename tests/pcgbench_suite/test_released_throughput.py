"""benchmarks/pareval_released_throughput.py's own logic, on hand-made rows: the slice's draw (seeded, round robin
over task and execution model, every problem once before any twice), the slice's records (outputs of one record key
together), and the keys and agreement counts by which the two harnesses' verdicts are compared. Nothing is built or
run here: the benchmark itself is run by hand, on an idle machine."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("pareval_released_throughput",
                                                  BENCHMARKS / "pareval_released_throughput.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def entry(bench, task: str, exec_model: str, problem: str, index: int, llm: str = "m", **verdict):
    record = {"name": problem, "problem_type": "t", "language": "cpp", "parallelism_model": exec_model, "prompt": "p"}
    if task == "translation":
        record |= {"translation_src_model": "serial", "translation_dst_model": exec_model, "translation_prompt": "tp"}
    output = {"generated_output": f"body {problem} {exec_model} {index}", "did_build": True, "are_all_valid": False,
              **verdict}  # fmt: skip
    return bench.Entry(llm=llm, task=task, record=record, output=output, output_index=index)


@pytest.fixture
def pool(bench):
    # three strata of unequal size: translation/omp 2 problems x 3, generation/serial 3 x 2, generation/mpi 1 x 2
    return ([entry(bench, "translation", "omp", f"p{p}", i) for p in range(2) for i in range(3)]
            + [entry(bench, "generation", "serial", f"q{p}", i) for p in range(3) for i in range(2)]
            + [entry(bench, "generation", "mpi", "r0", i) for i in range(2)])  # fmt: skip


def test_the_draw_is_seeded_and_mixes_strata_and_problems(bench, pool):
    drawn = bench.draw_slice(pool, 7, seed=46)
    assert drawn == bench.draw_slice(pool, 7, seed=46)
    assert any(bench.draw_slice(pool, 7, seed=s) != drawn for s in range(1, 20))
    by_stratum = pd.Series([(e.task, e.exec_model) for e in drawn]).value_counts()
    assert sorted(by_stratum) == [2, 2, 3]  # round robin: no stratum more than one ahead of another
    for stratum in by_stratum.index:
        problems = [e.problem for e in drawn if (e.task, e.exec_model) == stratum]
        distinct = len({e.problem for e in pool if (e.task, e.exec_model) == stratum})
        # every problem of the stratum once before any twice
        assert len(set(problems[:distinct])) == min(distinct, len(problems))
    assert len(set(map(id, drawn))) == 7


def test_the_draw_takes_everything_when_the_pool_is_smaller(bench, pool):
    assert sorted(map(id, bench.draw_slice(pool, 100, seed=0))) == sorted(map(id, pool))
    assert bench.draw_slice([], 5, seed=0) == []


def test_slice_records_join_one_record_key_and_keys_match_both_harnesses(bench):
    entries = [entry(bench, "translation", "omp", "p0", 4, llm="a"), entry(bench, "generation", "omp", "p0", 1),
               entry(bench, "translation", "omp", "p0", 9, llm="b", are_all_valid=True)]  # fmt: skip
    records, keys = bench.slice_records(entries)
    assert keys == ["p0/omp<-serial#0", "p0/omp#0", "p0/omp<-serial#1"]
    assert [len(r["outputs"]) for r in records] == [2, 1]  # the two translations share a record
    assert bench.as_generations(records)[0]["outputs"] == ["body p0 omp 4", "body p0 omp 9"]
    # ParEval's results of that file: the outputs replaced by its verdicts, in order
    results = [{**records[0], "outputs": [{"did_build": False, "are_all_valid": False},
                                          {"did_build": True, "did_all_run": True, "are_all_valid": True}]},
               {**records[1], "outputs": [{"did_build": True, "did_all_run": False, "are_all_valid": False}]}]
    categories, verdicts = bench.pareval_run_verdicts(results)
    assert categories == {"p0/omp<-serial#0": "did_not_build", "p0/omp<-serial#1": "valid", "p0/omp#0": "built_invalid"}
    assert verdicts["p0/omp#0"] == "did not run"
    # this harness's agreement.csv as read back (keep_default_na=False: a generation's source model is "")
    table = pd.DataFrame({"record": ["p0", "p0", "p0"], "model": ["omp"] * 3, "source_model": ["serial", "", "serial"],
                          "output_index": [0, 0, 1], "pcgbench": ["build_error", "crash", "race_detected"],
                          "pcgbench_category": ["did_not_build", "built_invalid", "built_invalid"]})  # fmt: skip
    ours, our_verdicts = bench.harness_verdicts(table)
    assert our_verdicts["p0/omp<-serial#1"] == "race_detected"
    assert bench.agreement_count(ours, categories) == (2, 3)


def test_agreement_counts_only_samples_both_scored(bench):
    a = {"x#0": "valid", "x#1": "built_invalid", "x#2": bench.NOT_RUN, "x#3": "valid"}
    b = {"x#0": "valid", "x#1": "valid", "x#2": "valid"}
    assert bench.agreement_count(a, b) == (1, 2)
    assert bench.agreement_count({}, b) == (0, 0)


def test_pareval_runs_at_this_harness_thread_and_rank_counts(bench):
    from workflow_scripts.measure import resource_sweep

    configs = bench.pareval_launch_configs(list(bench.CPU_EXEC_MODELS), 2, kokkos_version=30401)
    for exec_model in bench.CPU_EXEC_MODELS:
        ours = [(c.ranks, c.threads) for c in resource_sweep(exec_model, 2)]
        theirs = [(p.get("num_procs", 1), p.get("num_threads", 1)) for p in configs[exec_model]["params"]]
        assert theirs == ours, exec_model
    # Kokkos before 3.7 reads --kokkos-threads; ParEval's own flag otherwise
    assert "--kokkos-threads={num_threads}" in configs["kokkos"]["format"]
    assert "--kokkos-num-threads=" in bench.pareval_launch_configs(["kokkos"], 2, kokkos_version=40100)["kokkos"]["format"]
