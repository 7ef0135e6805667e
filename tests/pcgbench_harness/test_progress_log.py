"""Integration: a long step's rule log shows its progress with a rate and a time estimate.

Runs `pcgbench_build` (the compiles, tens of thousands at paper scale) through Snakemake on a tiny config in
a temporary copy of the repository, then reads results/pcgbench/logs/build_mutants.log.
"""

import re

import pytest

from tests.conftest import run_snakemake

# Three distinct sources: the start line, the first estimate after one build, and the closing line.
TINY = """
pcgbench:
  problems: [reduce_average]
  models: [serial]
  generators: [mutants]
  samples: 1
  mutants: [missing_include, off_by_one, huge_allocation]
  mutant_problems: [reduce_average]
"""

ESTIMATE = re.compile(r"builds \[(\d+)/3\] \d+\.\d (?:build/s|s/build), elapsed \S+, ~\S+ left")


@pytest.mark.integration
def test_build_rule_log_shows_progress_with_time_left(workflow_dir):
    work = workflow_dir
    (work / "tiny.yaml").write_text(TINY)
    proc = run_snakemake(work, "results/pcgbench/mutants/builds.json", "--configfile=tiny.yaml", timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (work / "results/pcgbench/logs/build_mutants.log").read_text()
    assert "builds [0/3] started" in log, log
    estimates = [int(m.group(1)) for m in ESTIMATE.finditer(log)]
    assert estimates and all(1 <= done < 3 for done in estimates), log
    assert re.search(r"builds \[3/3\] finished in \S+, \d+\.\d (?:build/s|s/build)", log), log
