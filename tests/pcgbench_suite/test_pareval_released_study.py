"""The re-scoring of ParEval's released outputs as a workflow study (workflow_scripts/pcgbench/pareval_released.py,
rules pcgbench_pareval_released*): its config section's errors name the field, its defaults are the schema's, the
tiny config scores a fixed stratified sample in one job per file and the paper config every output in shards of the
same plan, a shard with none of a file's outputs writes an empty agreement, and the rules are wired (a dry run)."""

import copy
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_snakemake
from workflow_scripts.common.config import (
    SCHEMA_PATH,
    explain_config_errors,
    fill_defaults,
    load_config,
    schema_section,
)
from workflow_scripts.pcgbench import pareval_released, pareval_released_plan
from workflow_scripts.pcgbench.pareval_released_plan import ParEvalReleasedConfig

REPO = Path(__file__).resolve().parents[2]


def defaults(**changes) -> dict:
    """The section as the Snakefile fills it from the schema alone, with `changes`."""
    return {**fill_defaults({}, schema_section("pcgbench.pareval_released")), **changes}


@pytest.fixture(scope="module")
def tiny() -> dict:
    return load_config(REPO / "config" / "config.yaml")


@pytest.mark.parametrize(("patch", "expected"), [
    (lambda s: s["outputs"][0].update(model="cuda"), "config key 'pcgbench.pareval_released.outputs': "),
    (lambda s: s.update(files=["translation/gpt-5"]), "config key 'pcgbench.pareval_released.files.0': 'translation/gpt-5' is not one of"),
    (lambda s: s.update(sampel=3), "unknown key 'pcgbench.pareval_released.sampel'"),
    (lambda s: s.update(models=["hip"]), "config key 'pcgbench.pareval_released.models.0': 'hip' is not one of"),
    (lambda s: s["shards"].update(problems_per_shard=-1), "config key 'pcgbench.pareval_released.shards.problems_per_shard'"),
    (lambda s: s.update(bootstrap_resamples=5), "config key 'pcgbench.pareval_released.bootstrap_resamples': 5 is less than"),
])  # fmt: skip
def test_a_bad_section_is_one_line_naming_the_field(tiny, patch, expected):
    config = copy.deepcopy(tiny)
    config["pcgbench"]["pareval_released"].setdefault("shards", {})
    patch(config["pcgbench"]["pareval_released"])
    lines = explain_config_errors(config, SCHEMA_PATH)
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert expected in lines[0], lines


@pytest.mark.parametrize(("outputs", "expected"), [
    ([{"file": "translation/gpt-3.5_temp0.2", "model": "omp", "record": "27_reduce_average", "output": 0}],
     r"pcgbench.pareval_released.outputs\[0\].file: 'translation/gpt-3.5_temp0.2' is not among pcgbench.pareval_released.files"),
    ([{"file": "translation/gpt-4_temp0.2", "model": "serial", "record": "27_reduce_average", "output": 0}],
     r"pcgbench.pareval_released.outputs\[0\].model: 'serial' is not among pcgbench.pareval_released.models"),
])  # fmt: skip
def test_an_output_outside_the_files_or_models_scored_is_refused(outputs, expected):
    section = defaults(files=["translation/gpt-4_temp0.2"], models=["omp"], outputs=outputs)
    with pytest.raises(ValueError, match=expected):
        ParEvalReleasedConfig.from_config(section)


def test_the_schema_defaults_make_a_config_of_every_released_file():
    built = ParEvalReleasedConfig.from_config(defaults())
    assert built.outputs == "all" and built.models == ("serial", "omp", "mpi", "mpi+omp", "kokkos")
    assert built.measure == {"size": "paper"} and len(built.files) == 8  # every released file with verdicts
    for name in built.files:
        assert pareval_released_plan.released_path(name).is_file(), name


def test_the_tiny_config_scores_a_fixed_stratified_sample_in_one_job_per_file(tiny):
    section = tiny["pcgbench"]["pareval_released"]
    cfg = ParEvalReleasedConfig.from_config(section)
    assert [s.name for s in pareval_released_plan.plan(cfg)] == ["all"]
    outputs = cfg.outputs
    assert len(outputs) <= 24  # a few seconds each: the default `make run` keeps its budget
    assert {o.file.partition("/")[0] for o in outputs} == {"translation", "generation"}
    assert {o.model for o in outputs} == {"serial", "omp", "mpi", "mpi+omp", "kokkos"}
    assert len({o.file for o in outputs}) >= 3
    # ParEval's three verdicts are each represented (read from the released files)
    from workflow_scripts.pcgbench.pareval_results import load_results

    found = set()
    for file in cfg.files:
        keys = cfg.keys(file)
        for s in load_results(pareval_released_plan.released_path(file)).judged:
            if (s.sample.exec_model, s.record, s.sample.sample_index) in keys:
                found.add(s.pareval.category)
                keys.discard((s.sample.exec_model, s.record, s.sample.sample_index))
        assert not keys, f"{file}: outputs not in the released file: {keys}"
    assert found == {"valid", "built_invalid", "did_not_build"}


def test_the_paper_config_scores_every_output_in_shards_of_the_same_plan():
    paper = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")
    section = paper["pcgbench"]["pareval_released"]
    cfg = ParEvalReleasedConfig.from_config(section)
    assert cfg.outputs == "all" and cfg.keys("translation/gpt-4_temp0.2") is None
    # the tiny config's keys merge under the paper's: every file, and the paper's timed calls
    assert len(cfg.files) == 8 and cfg.measure == {"size": "paper", "reps": 5, "warmup": 1}
    names = [s.name for s in pareval_released_plan.plan(cfg)]
    assert len(names) > 5 and {n.split(".")[0] for n in names} == {"serial", "omp", "mpi", "mpi+omp", "kokkos"}
    pcgbench = {**paper["pcgbench"], "pareval_released": section}
    files = pareval_released_plan.agreement_files(pcgbench, "results-paper")
    # a translation file has no serial or MPI+OpenMP outputs: no job for those shards
    per_exec_model = len(names) // 5
    assert len(files) == 7 * 3 * per_exec_model + 1 * 5 * per_exec_model
    assert not any("translation" in f and ("/serial." in f or "/mpi+omp." in f) for f in files)
    assert "results-paper/pcgbench/pareval_released/translation/gpt-4_temp0.2/shards/omp.0/agreement.csv" in files
    resources = pareval_released_plan.cluster_resources({"cluster": {"cpu": {"mem_mb": 64000, "runtime": 720}}},
                                                   {"mem_mb": 4000, "timing_slot": 1})  # fmt: skip
    assert resources["gpu"] == 0 and resources["timing_slot"] == 1 and resources["runtime"](None, 2) == 1440


def test_a_shard_with_none_of_a_files_outputs_writes_an_empty_agreement(tmp_path):
    # The translation files have no serial outputs: the serial shard of a paper-scale plan scores nothing.
    section = defaults(files=["translation/gpt-4_temp0.2"], models=["serial", "omp"],
                       shards={"by_model": True, "problems_per_shard": 0}, measure={"race_check": False})
    table = pareval_released.main(released=pareval_released_plan.released_path("translation/gpt-4_temp0.2"),
                                  out_dir=tmp_path, evaluate={}, section=section, shard="serial", seed=0)  # fmt: skip
    assert table.empty
    assert pd.read_csv(tmp_path / "agreement.csv").empty
    assert (tmp_path / "agreement.json").is_file()


@pytest.mark.integration
def test_the_rules_are_wired(workflow_dir):
    """A dry run of the study's target on the tiny config: one scoring job per file, the table, both figures, the
    report's tables; and the study is part of `pcgbench`."""
    plan = run_snakemake(workflow_dir, "-n", "pcgbench_pareval_released", "--quiet", "rules", cores=None, timeout=300)
    assert plan.returncode == 0, plan.stderr[-3000:]
    jobs = {line.split()[0]: int(line.split()[1]) for line in plan.stdout.splitlines()
            if line.startswith("pcgbench_pareval_released")}  # fmt: skip
    assert jobs["pcgbench_pareval_released_score"] == 4  # the tiny config's four files, one shard each
    assert {"pcgbench_pareval_released_table", "pcgbench_pareval_released_figure_pass_at_1_vs_pareval",
            "pcgbench_pareval_released_figure_disagreement_causes", "pcgbench_pareval_released_headline_table",
            "pcgbench_pareval_released"} <= set(jobs)  # fmt: skip
    whole = run_snakemake(workflow_dir, "-n", "pcgbench", "--quiet", "rules", cores=None, timeout=300)
    assert whole.returncode == 0 and "pcgbench_pareval_released_table" in whole.stdout, whole.stderr[-3000:]
