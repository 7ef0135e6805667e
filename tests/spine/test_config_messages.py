"""What a user's config or cluster set-up gets told: a misspelt key is answered with the key it was meant to be,
and the SLURM settings still left as SET_YOUR_* placeholders are named (while planning) and stop a submission
(before its first job), only when SLURM resources are in use: the tiny local run never hears of them."""

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from snakemake.resources import Resources

from tests.conftest import run_snakemake
from workflow_scripts.common.config import (
    SCHEMA_PATH,
    explain_config_errors,
    load_config,
    slurm_placeholders,
    slurm_placeholders_of_jobs,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("patch", "expected"), [
    (lambda c: c.update(sede=1), "config: unknown key 'sede' (known keys: corpus, deterministic, "),
    (lambda c: c.update(sede=1), "; did you mean 'seed'?"),
    (lambda c: c["pcgbench"].update(problemz=[]), "; did you mean 'pcgbench.problems'?"),
    (lambda c: c["jorge"].update(devcie="cpu", lrr=1), "; did you mean 'jorge.device' for 'jorge.devcie'?"),
])  # fmt: skip
def test_a_misspelt_key_gets_did_you_mean(patch, expected):
    config = load_config(REPO / "config" / "config.yaml")
    patch(config)
    [line] = explain_config_errors(config, SCHEMA_PATH)
    assert expected in line


def test_a_key_like_no_known_one_gets_no_guess():
    config = load_config(REPO / "config" / "config.yaml")
    config["jorge"]["zzzzzz"] = 1
    [line] = explain_config_errors(config, SCHEMA_PATH)
    assert "unknown key 'jorge.zzzzzz'" in line and "did you mean" not in line


def settings(default: dict | None, per_rule: dict) -> SimpleNamespace:
    """Snakemake's workflow.resource_settings, as a profile's default-resources and set-resources make them."""
    return SimpleNamespace(default_resources=Resources.from_mapping(default) if default is not None else None,
                           overwrite_resources={rule: Resources.from_mapping(r) for rule, r in per_rule.items()})


def test_each_placeholder_is_named_with_where_it_is_set():
    config = {"pcgbench": {"cluster": {"gpu": {"slurm_partition": "SET_YOUR_GPU_PARTITION", "gpu": 1}}}}
    given = settings({"slurm_account": "SET_YOUR_ACCOUNT", "cpus_per_task": 1},
                     {"b_rule": {"slurm_partition": "SET_YOUR_GPU_PARTITION"},
                      "a_rule": {"slurm_partition": "SET_YOUR_GPU_PARTITION", "gpu": 1}})  # fmt: skip
    assert slurm_placeholders(given, config) == [
        "slurm_account = SET_YOUR_ACCOUNT (default-resources)",
        "slurm_partition = SET_YOUR_GPU_PARTITION (set-resources of a_rule, b_rule; "
        "config pcgbench.cluster.gpu.slurm_partition)"]
    jobs = [("b_rule", {"slurm_partition": "SET_YOUR_GPU_PARTITION", "_cores": 1}),
            ("a_rule", {"slurm_partition": "gpu", "slurm_account": "SET_YOUR_ACCOUNT"}),
            ("b_rule", {"slurm_partition": "SET_YOUR_GPU_PARTITION"})]  # fmt: skip
    assert slurm_placeholders_of_jobs(jobs) == ["slurm_account = SET_YOUR_ACCOUNT (jobs of a_rule)",
                                                "slurm_partition = SET_YOUR_GPU_PARTITION (jobs of b_rule)"]


def test_without_slurm_resources_the_placeholders_are_left_alone():
    """The local profile sets no slurm_* resource; config/paper.yaml's pcgbench.cluster holds placeholders that a
    local dry run of the paper config must not complain about."""
    paper = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")
    assert slurm_placeholders(settings(None, {}), paper) == []
    assert slurm_placeholders(settings({"mem_mb": 1000}, {"x": {"runtime": 5}}), paper) == []
    set_for_the_site = settings({"slurm_account": "proj1", "slurm_partition": "cpu"}, {})
    site = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml",
                       overrides={"pcgbench": {"cluster": {"cpu": {"slurm_partition": "cpu"},
                                                           "gpu": {"slurm_partition": "gpu"}}}})  # fmt: skip
    assert slurm_placeholders(set_for_the_site, site) == []


def test_the_slurm_profile_stops_naming_its_placeholders(workflow_dir):
    """As shipped, profiles/slurm holds SET_YOUR_* values. Its default-resources apply to every job, so a dry run
    stops, naming every placeholder. With those set (here on the command line, as tests/cluster's live SLURM test
    does), the set-resources ones of rules the plan may not hold are a warning, and a submission stops before its
    first job naming those its jobs ask for (no sbatch is reached; nothing is written). The default profile's dry
    run says nothing of them."""
    planned = run_snakemake(workflow_dir, "-n", "--profile", "profiles/slurm", "--", "jorge", cores=None, timeout=300)
    output = planned.stdout + planned.stderr
    assert planned.returncode != 0 and "Job stats" not in output and "Traceback" not in output
    named = output[output.index("SLURM settings still hold their placeholders:"):]
    assert "slurm_account = SET_YOUR_ACCOUNT (default-resources)" in named
    assert "slurm_partition = SET_YOUR_GPU_PARTITION (set-resources of generate_samples, " in named
    assert "delete the slurm_account line" in named and "none could be submitted" in named

    submitted = run_snakemake(workflow_dir, "--profile", "profiles/slurm", "--default-resources",
                              "slurm_partition=cpu", "mem_mb=1000", "--", "jorge", cores=None, timeout=300)  # fmt: skip
    output = submitted.stdout + submitted.stderr
    assert submitted.returncode != 0 and "Traceback" not in output
    assert "slurm_account =" not in output and "slurm_partition = SET_YOUR_GPU_PARTITION (set-resources" in output
    stopped = output[output.index("SLURM settings of the jobs to submit are still placeholders:"):]
    assert stopped.splitlines()[1].strip() == ("slurm_partition = SET_YOUR_GPU_PARTITION "
                                               "(jobs of jorge_sgd_grid, jorge_step_cost, jorge_train)")  # fmt: skip
    assert not (workflow_dir / "results").exists()

    local = run_snakemake(workflow_dir, "-n", "jorge", cores=1, timeout=300)
    assert local.returncode == 0 and "SET_YOUR" not in local.stdout + local.stderr


def test_the_profile_and_paper_config_mark_every_site_value_alike():
    """The check finds placeholders by their SET_YOUR_ prefix: every site-specific value the SLURM profile and
    config/paper.yaml ship has it."""
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    values = [profile["default-resources"]["slurm_account"], profile["default-resources"]["slurm_partition"],
              *(r["slurm_partition"] for r in profile["set-resources"].values() if "slurm_partition" in r)]
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    values += [node["slurm_partition"] for node in paper["pcgbench"]["cluster"].values()]
    assert values and all(value.startswith("SET_YOUR_") for value in values)
