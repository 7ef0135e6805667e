"""Sharded evaluation (shards.py, evaluation.evaluate_shard and evaluation.merge): the plan covers every model and
problem once, each shard asks for its model's node, and merged shards give what one unsharded evaluation gives."""

import json

import pandas as pd
import pytest

from tests.conftest import REPO_ROOT, run_snakemake
from workflow_scripts.measure import suite
from workflow_scripts.pcgbench import evaluation, shards
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.pareval_format import prompt_record

EXEC_MODELS = ["serial", "omp", "mpi", "mpi+omp", "kokkos", "cuda", "hip"]


@pytest.mark.parametrize("by_model,per_shard", [(False, 0), (True, 0), (True, 1), (True, 3), (False, 2)])
def test_the_plan_puts_every_model_and_problem_in_exactly_one_shard(by_model, per_shard):
    problems = ["a", "b", "c", "d", "e"]
    plan = shards.plan(EXEC_MODELS, problems, by_model=by_model, problems_per_shard=per_shard)
    owners = [(m, p) for s in plan for m in EXEC_MODELS for p in problems if s.holds(m, p)]
    assert sorted(owners) == sorted((m, p) for m in EXEC_MODELS for p in problems)
    assert len({s.name for s in plan}) == len(plan)
    expected = (len(EXEC_MODELS) if by_model else 1) * (-(-len(problems) // per_shard) if per_shard else 1)
    assert len(plan) == expected


def test_shard_names_say_model_and_problem_group():
    plan = shards.plan(["serial", "cuda"], ["a", "b", "c"], by_model=True, problems_per_shard=2)
    assert [s.name for s in plan] == ["serial.0", "serial.1", "cuda.0", "cuda.1"]
    assert plan[1].problems == ("c",) and plan[1].exec_models == ("serial",)
    assert [s.name for s in shards.plan(["serial"], ["a"], by_model=False, problems_per_shard=0)] == ["all"]
    with pytest.raises(ValueError, match="no PCGBench shard 'omp'.*serial.0"):
        shards.find(plan, "omp")
    with pytest.raises(ValueError, match="problems_per_shard must be >= 0"):
        shards.plan(["serial"], ["a"], by_model=True, problems_per_shard=-1)


def pcgbench_config(**cluster):
    return {"problems": ["reduce_average", "transform_relu"], "models": ["serial", "omp", "cuda", "hip"],
            "shards": {"by_model": True, "problems_per_shard": 1}, "translation": {"pairs": ["serial->omp"]},
            "cluster": {"gpu_models": ["cuda", "hip"], **cluster}}  # fmt: skip


class Wildcards:
    def __init__(self, shard):
        self.shard = shard


def test_gpu_shards_ask_for_a_gpu_on_the_gpu_partition_and_the_others_do_not():
    config = pcgbench_config(cpu={"slurm_partition": "cpus", "cpus_per_task": 64, "runtime": 600},
                             gpu={"slurm_partition": "gpus", "gpu": 1, "cpus_per_task": 8, "runtime": 300})  # fmt: skip
    resources = shards.cluster_resources(config, {"mem_mb": 4000, "timing_slot": 1})
    request = {name: {key: f(Wildcards(name), 1) for key, f in resources.items()}
               for name in ("serial.0", "omp.1", "cuda.0", "hip.1")}  # fmt: skip
    for name in ("cuda.0", "hip.1"):
        assert request[name] == {"slurm_partition": "gpus", "gpu": 1, "cpus_per_task": 8, "runtime": 300,
                                 "mem_mb": 4000, "timing_slot": 1}  # fmt: skip
    for name in ("serial.0", "omp.1"):
        assert request[name] == {"slurm_partition": "cpus", "gpu": 0, "cpus_per_task": 64, "runtime": 600,
                                 "mem_mb": 4000, "timing_slot": 1}  # fmt: skip
    assert resources["runtime"](Wildcards("cuda.1"), 3) == 900  # a retry asks for more time, as the profile's rules


def test_the_translation_tasks_shards_are_its_target_models_named_as_the_generation_tasks():
    config = pcgbench_config(cpu={}, gpu={"gpu": 1})
    generation = {s.name: s for s in shards.plan_for(config)}
    translation = shards.plan_for(config, "translation")
    assert [s.name for s in translation] == ["omp.0", "omp.1"]
    assert all(generation[s.name] == s for s in translation)


def test_one_shard_writes_the_generators_outputs_and_several_write_a_folder_each():
    """Where the plan is one shard (the tiny config) its jobs write in the generator's folder and its evaluation
    writes the generator's outputs (no merge job); with several, each job writes a folder of its own."""
    several = shards.layout(pcgbench_config(cpu={}, gpu={"gpu": 1}))
    one = shards.layout(pcgbench_config(cpu={}, gpu={"gpu": 1}) | {"shards": {"by_model": False,
                                                                             "problems_per_shard": 0}})  # fmt: skip
    assert one.one and one.names == ("all",) and not several.one and len(several.names) == 8
    assert one.folder("pcgbench/{generator}") == "pcgbench/{generator}"
    assert several.folder("pcgbench/{generator}") == "pcgbench/{generator}/shards/{shard}"
    assert (one.tag("evaluate_{generator}"), several.tag("evaluate_{generator}")) == (
        "evaluate_{generator}", "evaluate_{generator}_{shard}")  # fmt: skip
    assert one.of(object()) == "all" and several.of(Wildcards("hip.1")) == "hip.1"
    assert one.outputs(shard={"results": "s"}, whole={"results": "w", "metrics": "m"}) == {"results": "w",
                                                                                           "metrics": "m"}
    assert several.outputs(shard={"results": "s"}, whole={"results": "w"}) == {"results": "s"}
    assert one.file("r/pcgbench/reference", "all", "results.parquet") == "r/pcgbench/reference/results.parquet"
    assert several.file("r/pcgbench/reference", "cuda.0", "x") == "r/pcgbench/reference/shards/cuda.0/x"
    # On one machine the whole translation runs on one node: its resources are those of the plan's only shard.
    resources = shards.cluster_resources(pcgbench_config(cpu={"runtime": 60}, gpu={"gpu": 1, "runtime": 30}) | {
        "shards": {"by_model": False, "problems_per_shard": 0}}, {}, "translation")  # fmt: skip
    assert resources["runtime"](object(), 1) == 60


def test_the_tiny_config_has_no_merge_jobs_and_the_paper_config_has():
    merges = {"pcgbench_merge", "pcgbench_translation_merge", "pcgbench_reference_speedups"}
    for configfile, expected in (("config/config.yaml", set()), ("config/paper.yaml", merges)):
        listed = run_snakemake(REPO_ROOT, "--list-rules", f"--configfile={configfile}", cores=1, timeout=120,
                               check=True)  # fmt: skip
        assert merges & set(listed.stdout.split()) == expected, configfile


def test_kinds_that_name_different_requests_are_refused():
    with pytest.raises(ValueError, match=r"pcgbench.cluster.gpu lacks \['cpus_per_task'\]"):
        shards.cluster_resources(pcgbench_config(cpu={"cpus_per_task": 64}, gpu={"gpu": 1}), {})


def config(cache_dir):
    return EvaluateConfig(cache_dir=cache_dir, reps=3, warmup=0, run_timeout_s=30.0, cpu_limit_s=20, ks=(1,))


@pytest.fixture(scope="module")
def generations(tmp_path_factory):
    """Two problems x serial and OpenMP: the reference and a broken mutant of each, a prompt of another interface
    (not built: prompt_mismatch) and a record of a problem the suite lacks (no_driver)."""
    records = []
    for name in ("reduce_average", "transform_relu"):
        for exec_model in ("serial", "omp"):
            record = prompt_record(suite.get_problem(name), exec_model)
            record["outputs"] = [suite.reference_body(suite.get_problem(name), exec_model), "#include <nowhere>\n"]
            records.append(record)
    head, _, signature = records[0]["prompt"].rpartition("\n")
    mismatched = dict(records[0], prompt=head + "\n" + signature.replace("(", "(long extra, ", 1))
    unknown = dict(records[0], name="99_reduce_not_here")
    path = tmp_path_factory.mktemp("shards") / "gen.json"
    path.write_text(json.dumps(records + [mismatched, unknown]))
    return path


def test_merged_shards_equal_one_unsharded_evaluation(tmp_path, cache_dir, generations):
    cfg = config(cache_dir)
    whole = evaluation.evaluate_generations(generations, tmp_path / "whole", cfg, generator="gen")
    plan = shards.plan(["serial", "omp"], ["reduce_average", "transform_relu"], by_model=True, problems_per_shard=1)
    for shard in plan:
        evaluation.evaluate_shard(generations, tmp_path / "shards" / shard.name, cfg, "gen", shard)
    merged = evaluation.merge(generations, [tmp_path / "shards" / s.name for s in plan], tmp_path / "merged", cfg, "gen")

    one, many = (pd.read_parquet(tmp_path / d / "results.parquet") for d in ("whole", "merged"))
    key = ["sample_id", "n_resources"]
    assert list(one.columns) == list(many.columns)
    pd.testing.assert_frame_equal(one[key + ["verdict", "detail"]], many[key + ["verdict", "detail"]])
    assert sorted(one.drop_duplicates(["sample_id", "verdict"])["verdict"]) == ["build_error"] * 4 + ["ok"] * 4 + ["prompt_mismatch"] * 2
    timed = many[many["verdict"] == "ok"]
    assert len(timed) == len(one[one["verdict"] == "ok"]) and (timed["speedup"] > 0).all()
    for part in ("by_model", "pareval"):  # the counts agree; speedups are timings of other runs
        for exec_model in ("serial", "omp"):
            for metric in ("pass@1", "build@1"):
                assert merged[part]["gen"][exec_model][metric] == whole[part]["gen"][exec_model][metric]
    assert merged["verdict_counts"] == whole["verdict_counts"]
    assert merged["samples"] == whole["samples"]
    for status in ("prompt_mismatch", "no_driver"):
        assert merged[status] == whole[status]


def test_a_merge_refuses_shards_of_another_plan(tmp_path, cache_dir, generations):
    cfg = config(cache_dir)
    serial = shards.Shard("serial", ("serial",), ("reduce_average", "transform_relu"))
    evaluation.evaluate_shard(generations, tmp_path / "serial", cfg, "gen", serial)
    with pytest.raises(ValueError, match="4 samples of .* are in no shard"):
        evaluation.merge(generations, [tmp_path / "serial"], tmp_path / "merged", cfg, "gen")
    with pytest.raises(ValueError, match="evaluated in two shards"):
        evaluation.merge(generations, [tmp_path / "serial", tmp_path / "serial"], tmp_path / "merged", cfg, "gen")
    assert not (tmp_path / "merged" / "results.parquet").exists()


def test_a_shard_without_samples_writes_empty_results(tmp_path, cache_dir, generations):
    shard = shards.Shard("kokkos", ("kokkos",), ("reduce_average",))
    rows = evaluation.evaluate_shard(generations, tmp_path / "kokkos", config(cache_dir), "gen", shard)
    assert rows.empty and pd.read_parquet(tmp_path / "kokkos" / "results.parquet").empty
    assert json.loads((tmp_path / "kokkos" / evaluation.SHARD_SKIPPED).read_text()) == {}

