"""The claims rule in the workflow: its input covers every summary data/claims.yaml reads, it is part of the
default target, and run by Snakemake it rebuilds the table when a summary changes."""

import csv
import json
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_snakemake
from workflow_scripts.claims import build

pytestmark = pytest.mark.integration


def _dry_run_jobs(workdir: Path, *targets: str) -> dict[str, dict[str, list[str]]]:
    """rule name -> {"input": [...], "output": [...]} of every job `snakemake -n` plans (one job per rule here
    is enough: only the claims rule and the producers of its inputs are looked at)."""
    result = run_snakemake(workdir, "-n", *targets, cores=1, timeout=300, check=True)
    jobs: dict[str, dict[str, list[str]]] = {}
    rule = None
    for line in result.stdout.splitlines():
        if match := re.match(r"^(?:local)?rule (\S+):$", line):
            rule = match.group(1)
            jobs.setdefault(rule, {"input": [], "output": []})
        elif rule and (match := re.match(r"^    (input|output): (.*)$", line)):
            jobs[rule][match.group(1)] += match.group(2).split(", ")
    return jobs


def test_default_target_builds_claims_from_every_summary_the_claims_file_reads(workflow_dir):
    jobs = _dry_run_jobs(workflow_dir)  # the default target
    assert "claims" in jobs, "the default target does not build the claims table"
    claims = build.load_claims(workflow_dir / "data/claims.yaml")
    named = build.summaries_named(claims)
    taken = set(jobs["claims"]["input"])
    studies = {f"results/{claim.study}/summary.json" for claim in claims}
    assert studies <= taken, f"claims name studies that register no summary: {studies - taken}"
    assert not set(named) - taken, f"data/claims.yaml reads summaries the claims rule does not take: {set(named) - taken}"
    produced = {path for name, job in jobs.items() if name != "claims" for path in job["output"]}
    assert set(named) <= produced, f"no rule writes {set(named) - produced}"
    assert {"results/claims.csv", "results/claims.html"} <= set(jobs["claims"]["output"])


def test_rule_rebuilds_the_row_when_a_summary_changes(workflow_dir):
    """Snakemake runs the claims rule alone (other rules not allowed) on synthetic summaries and a small claims
    file; changing one summary reruns it and changes the row's number and verdict."""
    jobs = _dry_run_jobs(workflow_dir, "claims")
    summaries = [path for path in jobs["claims"]["input"] if path.endswith("summary.json")]
    rlpf = "results/rlpf/summary.json"
    assert rlpf in summaries
    claims = {"claims": [{
        "id": "rl_speedup", "study": "rlpf", "claim": "RL raises expected speedup.",
        "paper": {"value": 1.6, "source": "STUDIES.md, RLPF"}, "summary": rlpf,
        "measured": {"key": "task_sets/serial/rl/expected_speedup"},
        "verdict": {"paper_ratio": {"direction": "higher", "reproduced": 0.9, "partly": 0.5}},
    }]}  # fmt: skip
    (workflow_dir / "data/claims.yaml").write_text(yaml.safe_dump(claims))

    def run_with(speedup: float) -> dict[str, str]:
        for path in summaries:
            (workflow_dir / path).parent.mkdir(parents=True, exist_ok=True)
            data = {"task_sets": {"serial": {"rl": {"expected_speedup": speedup}}}} if path == rlpf else {}
            (workflow_dir / path).write_text(json.dumps(data))
        run_snakemake(workflow_dir, "claims", "--allowed-rules", "claims", cores=1, timeout=300, check=True)
        rows = list(csv.DictReader((workflow_dir / "results/claims.csv").open()))
        assert len(rows) == 1
        return rows[0]

    first = run_with(0.8)
    assert (first["measured"], first["verdict"]) == ("0.8", build.PARTLY)
    second = run_with(1.6)
    assert (second["measured"], second["verdict"]) == ("1.6", build.REPRODUCED)
    assert second["history"] == "held in 2 of 2 recorded runs (reproduced 1, partly 1)"
    assert "RL raises expected speedup." in (workflow_dir / "results/claims.html").read_text()
