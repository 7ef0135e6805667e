"""Partial regeneration, end to end: run two studies with Snakemake in a temporary copy of the repository,
then check what a second `snakemake -n` plans after touching files, changing one parameter, deleting a figure.

The studies are shrunk through a test config so that the whole module takes a couple of minutes.
"""

import os
from pathlib import Path

import pytest
import yaml

from tests.conftest import copy_workflow, run_snakemake

pytestmark = pytest.mark.integration

# A whole study and one step of another (an analytic projection: quick, and no shared inputs).
TARGETS = ["monitoring", "results/disttrain/tensor3d/projection.json"]
FIGURE = "results/monitoring/figures/top_features.png"

# Smaller than the tiny default: this test checks planning, not the studies' numbers.
SHRINK = {
    "monitoring": {"synthetic": {"days": 14, "change_point_day": 6}, "analysis": {"permutation_repeats": 3}},
}


CONFIG = "--configfile=test_config.yaml"


def planned_jobs(workdir: Path, *targets: str) -> dict[str, int]:
    """Rule name -> job count that `snakemake -n` plans (empty when nothing is to be done)."""
    output = run_snakemake(workdir, CONFIG, "-n", *targets, "--quiet", "rules", timeout=900, check=True).stdout  # --quiet takes several values
    lines = output.splitlines()
    if not any(line.startswith("job") and "count" in line for line in lines):
        return {}
    start = next(i for i, line in enumerate(lines) if line.startswith("job") and "count" in line) + 2
    jobs = {}
    for line in lines[start:]:
        name, _, count = line.partition(" ")
        if name == "total" or not count.strip():
            break
        jobs[name] = int(count)
    return jobs


def write_test_config(workdir: Path, extra: dict | None = None) -> None:
    def merge(base, patch):
        for key, value in patch.items():
            base[key] = merge(base.get(key, {}), value) if isinstance(value, dict) else value
        return base

    config = merge({}, SHRINK)
    merge(config, extra or {})
    (workdir / "test_config.yaml").write_text(yaml.safe_dump(config))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("workflow")
    copy_workflow(workdir)
    write_test_config(workdir)
    run_snakemake(workdir, CONFIG, *TARGETS, timeout=900, check=True)
    return workdir


def test_complete_run_plans_nothing(finished_run):
    assert planned_jobs(finished_run, *TARGETS) == {}
    assert (finished_run / "results/monitoring/summary.json").is_file()
    assert (finished_run / TARGETS[1]).is_file()


def test_touching_or_checking_out_unchanged_files_plans_nothing(finished_run):
    # A `git checkout` rewrites source files with new modification times; so does touch.
    for folder in ("rules", "workflow_scripts", "config", "data", "profiles"):
        for path in (finished_run / folder).rglob("*"):
            if path.is_file():
                os.utime(path)
    (finished_run / "Snakefile").touch()
    assert planned_jobs(finished_run, *TARGETS) == {}


def test_changed_parameter_plans_only_the_affected_jobs(finished_run):
    write_test_config(finished_run, {"monitoring": {"models": {"gbm": {"max_iter": 50}}}})
    try:
        jobs = planned_jobs(finished_run, *TARGETS)
    finally:
        write_test_config(finished_run)
    assert jobs, "a changed model parameter must rerun the models"
    assert "monitoring_models" in jobs
    # Nothing upstream of the models (data, features) and nothing of the other study.
    assert all(rule.startswith("monitoring") for rule in jobs), jobs
    assert not {"monitoring_data", "monitoring_features"} & set(jobs), jobs


def test_deleted_figure_regenerates_only_that_figure(finished_run):
    (finished_run / FIGURE).unlink()
    jobs = planned_jobs(finished_run, *TARGETS)
    jobs.pop("monitoring")  # the target rule itself (it has no output) is always planned with its inputs
    assert jobs == {"monitoring_figure_top_features": 1}
    run_snakemake(finished_run, CONFIG, FIGURE, timeout=900, check=True)
    assert (finished_run / FIGURE).is_file()
    assert planned_jobs(finished_run, *TARGETS) == {}
