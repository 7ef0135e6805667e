"""Integration: the long steps' rule logs show their progress with a rate and a time estimate.

Runs `pcgbench_build` (the compiles, tens of thousands at paper scale) and `pcgbench_evaluate` through
Snakemake on a tiny config in a temporary copy of the repository, then reads their logs under
results/pcgbench/logs/.
"""

import re

import pytest

from tests.conftest import run_snakemake

# Three distinct samples: the start line, the first estimate after one, and the closing line.
TINY = """
pcgbench:
  problems: [reduce_average]
  models: [serial]
  generators: [mutants]
  samples: 1
  mutants: [missing_include, off_by_one, huge_allocation]
  mutant_problems: [reduce_average]
"""


def estimates(log: str, what: str, unit: str) -> list[int]:
    """The `done` counts of the lines of `what` that carry a rate, the time elapsed and the time left."""
    line = rf"{what} \[(\d+)/3\] \d+\.\d (?:{unit}/s|s/{unit}), elapsed \S+, ~\S+ left"
    return [int(m.group(1)) for m in re.finditer(line, log)]


@pytest.mark.integration
def test_build_and_evaluate_rule_logs_show_progress_with_time_left(workflow_dir):
    work = workflow_dir
    (work / "tiny.yaml").write_text(TINY)
    proc = run_snakemake(work, "results/pcgbench/mutants/metrics.json", "--configfile=tiny.yaml", timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # One shard (the default pcgbench.shards), so each step's log has all three samples, under the step's name.
    for name, what, unit in (("build_mutants", "builds", "build"),
                             ("evaluate_mutants", "evaluated samples", "sample")):  # fmt: skip
        log = (work / f"results/pcgbench/logs/{name}.log").read_text()
        assert f"{what} [0/3] started" in log, log
        done = estimates(log, what, unit)
        assert done and all(1 <= n < 3 for n in done), log
        assert re.search(rf"{what} \[3/3\] finished in \S+, \d+\.\d (?:{unit}/s|s/{unit})", log), log
