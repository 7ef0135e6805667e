"""What an honest sample's processes do between their calls, against the bounds the judge holds them to.

    .venv/bin/python benchmarks/prepare_cpu.py [--problems a,b,...] [--models serial,omp,mpi,mpi+omp,kokkos]
                                               [--cache-dir DIR]

Between the calls of a judged run the sample's processes only prepare the inputs the judge names (drivers/judge.hpp):
no clock of a call runs there. Two bounds keep work of the sample out of that time (measure/run.py):
- threads: a process may have no thread beyond its runtime's (those at its first READY) and the OpenMP team a call
  was given (`extra_threads` must be 0);
- CPU: its CPU time between the calls may exceed the judge's own generation of the same inputs by at most
  run.PREPARE_CPU_FACTOR, plus run.PREPARE_CPU_SLACK_S.
This script runs every reference (the suite's problems, or `--problems`, in each model it has) once under the
evaluation's protocol and the config's defaults (the sweep of thread counts the evaluation uses for OpenMP, 2 ranks for
MPI) and prints, per model, the references' verdicts, the most extra threads, and the distribution of prepare CPU /
generation CPU over the references whose generation took more than 10 ms, with the largest (below that, the largest
prepare CPU time, which the slack covers), so that the bounds can be set with their margin; it exits 1 when a reference breaks a
bound. CPU times, not wall times: load slows both sides alike, and the ratio holds on a loaded machine.
Measured 2026-12-07 on the 2-core machine: see run.PREPARE_CPU_FACTOR.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from workflow_scripts.measure import (  # noqa: E402
    OK,
    BuildCache,
    BuildConfig,
    BuildRequest,
    MeasureConfig,
    Problem,
    load_suite,
    reference_body,
    run_program,
)

MODELS = ("serial", "omp", "mpi", "mpi+omp", "kokkos")
# The resource configuration of each model's run: the evaluation's smallest multi-threaded and multi-rank ones.
SMALL_S = 0.01
SHAPES = {"serial": {}, "omp": {"threads": 1, "more_threads": (2,)}, "mpi": {"ranks": 2},
          "mpi+omp": {"ranks": 2, "threads": 1}, "kokkos": {"threads": 2}}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", default="", help="comma-separated problem names (default: the whole suite)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--cache-dir", default=str(PROJECT_ROOT / ".cache" / "prepare_cpu"))
    args = parser.parse_args()
    models = args.models.split(",")
    if unknown := set(models) - set(MODELS):
        parser.error(f"--models: {sorted(unknown)} not among {MODELS}")
    problems = load_suite()
    if args.problems:
        wanted = args.problems.split(",")
        if missing := set(wanted) - {p.name for p in problems}:
            parser.error(f"--problems: no problem named {sorted(missing)}")
        problems = [p for p in problems if p.name in wanted]
    requests = [suite_request for problem in problems for model in models
                if (suite_request := reference_request(problem, model)) is not None]  # fmt: skip
    started = time.perf_counter()
    builds = BuildCache(BuildConfig(cache_dir=Path(args.cache_dir), jobs=2)).build_all(requests)
    print(f"{len(requests)} references built in {time.perf_counter() - started:.0f} s")
    cfg = MeasureConfig()
    by_model: dict[str, list[tuple[str, str, float, int, float, float]]] = {model: [] for model in models}
    broke = False
    for request, build in zip(requests, builds, strict=True):
        name = f"{request.problem.name} {request.exec_model}"
        if not build.ok or build.finding is not None:
            print(f"{name}: not built or refused: {(build.log or str(build.finding))[-300:]}")
            broke = True
            continue
        run = run_program(request.problem, request.exec_model, build.exe, cfg.protocol(**SHAPES[request.exec_model]),
                          cfg.limits())  # fmt: skip
        if not run.driver_results:
            print(f"{name}: {run.verdict}: {run.detail[:300]}")
            broke = True
            continue
        result = run.driver_results[0]
        ratio = result.prepare_cpu_s / result.generate_cpu_s if result.generate_cpu_s > 0 else float("inf")
        by_model[request.exec_model].append((request.problem.name, run.verdict, ratio, result.extra_threads,
                                        result.generate_cpu_s, result.prepare_cpu_s))
        if run.verdict != OK:
            print(f"{name}: {run.verdict}: {run.detail[:300]}")
            broke = True
    # Where the judge's generation took under SMALL_S the ratio says little (fixed costs: a copy, the runtime's threads
    # waking); the slack covers those, and their largest prepare CPU time is shown instead.
    print(f"{'model':8s} {'refs':>4s} {'ok':>4s} {'extra threads':>13s} {'prepare/generate CPU: median':>29s} "
          f"{'p90':>6s} {'max':>6s}  {'largest (generation > 10 ms)':30s} {'largest prepare s, smaller':>26s}")
    for model, rows in by_model.items():
        if not rows:
            continue
        ratios = sorted(r[2] for r in rows if r[4] > SMALL_S)
        worst = max((r for r in rows if r[4] > SMALL_S), key=lambda r: r[2])
        small = max((r[5] for r in rows if r[4] <= SMALL_S), default=0.0)
        p90 = ratios[int(0.9 * (len(ratios) - 1))]
        print(f"{model:8s} {len(rows):4d} {sum(r[1] == OK for r in rows):4d} {max(r[3] for r in rows):13d} "
              f"{statistics.median(ratios):29.2f} {p90:6.2f} {ratios[-1]:6.2f}  {worst[0]:30s} {small:26.3f}")
    print(f"{time.perf_counter() - started:.0f} s in all")
    return 1 if broke else 0


def reference_request(problem: Problem, model: str) -> BuildRequest | None:
    """The build of `problem`'s reference in `model`, or None where it has none."""
    try:
        return BuildRequest(problem, model, reference_body(problem, model))
    except (FileNotFoundError, ValueError):
        return None


if __name__ == "__main__":
    sys.exit(main())
