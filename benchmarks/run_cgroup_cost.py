"""What a control group per run (workflow_scripts/measure/run_cgroup.py) costs a sandboxed run.

    .venv/bin/python benchmarks/run_cgroup_cost.py [--runs 60]

Runs `true` through the sandbox `--runs` times with the run's control group and as many times without it (the
harness's code with RunCgroup.make answering None, as where no group can be made), alternating, and prints the
median wall time of each with its interquartile range and the difference of the medians: the layer's cost per run
(making the group, the `sh` that joins it, reading the usage and removing it). Root mode only (elsewhere there
is no group to time). An engine benchmark: it reaches into the engine's modules (tests/measure/test_api.py).
Measured 2026-12-07 on the 2-core machine: see run_cgroup.py's docstring.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.measure import run_cgroup  # noqa: E402
from workflow_scripts.measure.sandbox import SandboxLimits, run_sandboxed  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    if run_cgroup.memory_hierarchy() is None:
        sys.exit("no control group per run here (rootless mode or no writable cgroup v1 memory hierarchy): nothing to time")
    limits = SandboxLimits(wall_s=30.0)
    make = run_cgroup.RunCgroup.__dict__["make"]
    without = classmethod(lambda cls, **_: None)
    times: dict[str, list[float]] = {"with": [], "without": []}
    run_sandboxed(["true"], limits=limits)  # the sandbox's self-check, once, outside the timings
    for _ in range(args.runs):
        for name, maker in (("with", make), ("without", without)):
            run_cgroup.RunCgroup.make = maker
            started = time.perf_counter()
            run_sandboxed(["true"], limits=limits)
            times[name].append(time.perf_counter() - started)
    run_cgroup.RunCgroup.make = make
    print(f"sandboxed `true`, {args.runs} runs each, alternating (load average {os.getloadavg()[0]:.2f}):")
    for name, values in times.items():
        q1, _, q3 = statistics.quantiles(values, n=4)
        print(f"  {name:8s} the run's control group: median {1e3 * statistics.median(values):6.1f} ms "
              f"(IQR {1e3 * q1:.1f}-{1e3 * q3:.1f})")
    cost = statistics.median(times["with"]) - statistics.median(times["without"])
    print(f"  cost of the layer: {1e3 * cost:.1f} ms a run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
