"""Speedup of every PCGBench OpenMP reference over the serial baseline, on 2 threads, at the timed size.

    .venv/bin/python benchmarks/pcgbench_reference_speedups.py [--threads 2] [--reps 5] [--problems a,b] [--csv T.csv]

Builds each problem's OpenMP reference, validates it (small and timed sizes) and times it against the serial
baseline in the same run (workflow_scripts/pcgbench/reference_check.py, the code behind the workflow's
results/pcgbench/reference_speedups.csv and `python -m workflow_scripts.pcgbench check-references`). Prints
one row per problem, slowest first: median speedup of the repetitions, their min-max and IQR; then the median
over problems against the suite's target of >= 1.3x. Exit status 1 if a reference fails or the target is missed.
Take the numbers on an idle machine: other processes on the cores distort 2-thread timings the most.
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.common.project_files import PROJECT_ROOT  # noqa: E402
from workflow_scripts.measure import OK, load_suite  # noqa: E402
from workflow_scripts.pcgbench import reference_check as rs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=rs.TARGET_THREADS)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--problems", default="", help="comma-separated names (default: all)")
    parser.add_argument("--build-dir", default=str(PROJECT_ROOT / ".cache" / "pcgbench_drivers"))
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    parser.add_argument("--csv", default="", help="also write the table here")
    args = parser.parse_args()
    problems = load_suite()
    if args.problems:
        problems = [p for p in problems if p.name in args.problems.split(",")]
    # The harness's settings with the benchmark's own: a 10-minute run limit with its CPU time on each thread, no
    # race check (references are trusted).
    cfg = rs.CheckConfig(warmup=args.warmup, reps=args.reps, seed=args.seed, jobs=args.jobs, run_timeout_s=600,
                         cpu_limit_s=600 * args.threads, race_check=False, fixed=(1, args.threads))
    rows = rs.check_references(problems, [rs.TARGET_EXEC_MODEL], cfg, Path(args.build_dir))
    if args.csv:
        rs.write_table(rows, Path(args.csv))
    print(f"OpenMP references vs the serial baseline, {args.threads} threads, timed size, {args.reps} reps, "
          f"load average at the end {os.getloadavg()[0]:.1f}")
    print(f"{'problem':34s} {'type':10s} {'speedup':>8s} {'min':>6s} {'max':>6s} {'IQR':>6s}")
    ordered = sorted(rows, key=lambda r: (r["status"] != OK, r["speedup_median"] or 0.0))
    for row in ordered:
        if row["status"] != OK:
            print(f"{row['problem']:34s} {row['problem_type']:10s} {row['status'].upper()} {row['detail']}")
            continue
        print(f"{row['problem']:34s} {row['problem_type']:10s} {row['speedup_median']:8.2f} "
              f"{row['speedup_min']:6.2f} {row['speedup_max']:6.2f} {row['speedup_iqr']:6.2f}")
    summary = rs.summarise(rows)
    target = summary["target"]
    if args.threads == rs.TARGET_THREADS and target["median_speedup"] is not None:
        verdict = "met" if target["met"] else "MISSED"
        print(f"median over {target['problems_timed']} problems: {target['median_speedup']:.2f}x "
              f"(target >= {rs.TARGET_SPEEDUP}x: {verdict}); failures: {len(summary['failed'])}")
    return 1 if summary["failed"] or target["met"] is False else 0


if __name__ == "__main__":
    sys.exit(main())
