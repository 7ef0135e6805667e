"""The config is validated before any job runs; a bad config is rejected with the key named."""

import os
import re
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from tests.conftest import run_snakemake
from workflow_scripts.common.config import explain_config_errors

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "config" / "schema" / "config.schema.yaml"


def load(name):
    return yaml.safe_load((REPO / "config" / name).read_text())


@pytest.mark.parametrize("names", [["config.yaml"], ["config.yaml", "paper.yaml"]], ids=["tiny", "paper"])
def test_shipped_configs_are_valid(names):
    """paper.yaml is read over config.yaml (`--configfile config/paper.yaml`), as the workflow reads it."""
    config = {}
    for name in names:
        update_config(config, load(name))
    assert explain_config_errors(config, SCHEMA) == []


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"seed": "one"}, "config key 'seed': 'one' is not of type 'integer'"),
        ({"seed": -3}, "config key 'seed': -3 is less than the minimum of 0 (allowed: type integer, >= 0)"),
        ({"sede": 1}, "unknown key 'sede'"),
        ({"jorge": {"no_such_key": 1}}, "unknown key 'jorge.no_such_key'"),
    ],
)
def test_bad_values_are_named(patch, expected):
    config = load("config.yaml") | patch
    problems = explain_config_errors(config, SCHEMA)
    assert any(expected in line for line in problems), problems


def test_unknown_study_key_lists_the_known_keys():
    config = load("config.yaml") | {"monitoring": {"bogus": True}}
    (line,) = [p for p in explain_config_errors(config, SCHEMA) if "bogus" in p]
    assert "known keys:" in line


def test_bad_config_stops_before_any_job(tmp_path, workflow_dir):
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(load("config.yaml") | {"seed": -1, "extra_key": 2}))
    result = run_snakemake(workflow_dir, "-n", "--configfile", str(bad), cores=1, timeout=120)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "invalid configuration" in output
    assert "config key 'seed'" in output and "unknown key 'extra_key'" in output
    assert "Job stats" not in output


@pytest.mark.parametrize("configfile", ["config/config.yaml", "config/paper.yaml"])
def test_dry_run_builds_the_whole_dag(configfile, workflow_dir):
    # How long it takes is measured by benchmarks/dag_build_time.py, not here. In a copy of the checkout, so
    # that a checkout where `make run` has already made everything plans the whole DAG and its results/ and
    # .snakemake/ stay untouched.
    env = {name: value for name, value in os.environ.items() if name != "OPENAI_API_KEY"}
    result = run_snakemake(workflow_dir, "all", "-n", f"--configfile={configfile}", cores=1, timeout=120, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    output = result.stdout + result.stderr
    assert "This was a dry-run" in output
    # The paper config's checkpoints, data and clones are named while planning, each with its config key.
    missing = [line.strip() for line in output.splitlines() if " does not exist (" in line or "is not set (" in line]
    if configfile == "config/paper.yaml":
        assert "input(s) that do not exist yet" in output
        assert {line.split(":")[0] for line in missing} >= {
            "generate.models.codellama_7b.path", "hpccoder.model.init_from", "jorge.tasks.image.npz_path",
            "corpus.sources[13].url", "generate.models.gpt_4.api_key_env"}  # fmt: skip
    else:
        assert missing == [] and "do not exist yet" not in output


def test_slurm_profile_sizes_only_rules_that_exist():
    """A renamed rule would silently lose its cluster resources (GPUs, --exclusive for timing)."""
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    result = run_snakemake(REPO, "--list-rules", "--configfile=config/paper.yaml", cores=1, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    rules = set(result.stdout.split())
    assert set(profile["set-resources"]) - rules == set()
    assert {"hpccoder_pretrain", "rlpf_rl", "jorge_train"} <= set(profile["set-resources"])
    # PCGBench's shards take their requests from config pcgbench.cluster, by execution model: a profile entry
    # would give every shard the same node.
    shard_rules = {"pcgbench_build", "pcgbench_evaluate", "pcgbench_reference_speedups_shard",
                   "pcgbench_translation_build", "pcgbench_translation_evaluate"}  # fmt: skip
    assert shard_rules <= rules and shard_rules & set(profile["set-resources"]) == set()


def test_paper_config_routes_gpu_shards_to_the_gpu_partition_and_the_others_to_cpu_nodes():
    """PCGBench's shards ask for what their execution model needs (config pcgbench.cluster), as the plan says."""
    shards = ("cuda.0", "hip.6", "omp.0", "mpi+omp.3", "serial.6")
    targets = [f"results-paper/pcgbench/reference/shards/{s}/results.parquet" for s in shards]
    result = run_snakemake(REPO, "-n", "-F", *targets, "--configfile=config/paper.yaml", cores=1, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    requests = {}
    for block in result.stdout.split("\nrule ")[1:]:
        if not block.startswith("pcgbench_evaluate:"):
            continue
        shard = re.search(r"shard=(\S+)", block).group(1)
        requests[shard] = dict(re.findall(r"(\w+)=('[^']*'|[^,\s]+)", re.search(r"resources: (.*)", block).group(1)))
    assert sorted(requests) == sorted(shards)
    for shard, request in requests.items():
        gpu = shard.split(".")[0] in ("cuda", "hip")
        assert request["gpu"] == ("1" if gpu else "0"), (shard, request)
        assert request["slurm_partition"] == ("SET_YOUR_GPU_PARTITION" if gpu else "SET_YOUR_CPU_PARTITION")
        assert request["timing_slot"] == "1" and request["slurm_extra"] == "'--exclusive'"
