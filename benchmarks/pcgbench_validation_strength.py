"""The validation-strength score of every PCGBench problem: trivial bodies killed by the driver's validation.

    .venv/bin/python benchmarks/pcgbench_validation_strength.py [--models serial,omp] [--problems a,b]
        [--validations 10] [--seed 1234] [--jobs 2] [--csv T.csv]

For each (problem, exec_model) it builds the family of trivial bodies of workflow_scripts/pcgbench/validation_strength.py
(constants, the size and its parity, the first or last element, nothing done, the serial reference on part of its
input or with part of its output left as on entry), runs each validate-only (the small size, then `--validations`
inputs at the timed size, as many as a run of the evaluation checks there) and prints one row per (problem, exec_model):
killed / generated, and the survivors by name with the verdict of every body in the CSV. Then the totals per model.
Exit status 1 if any trivial body survives (or cannot be built or judged); a survivor names the generator or
validator to fix, or, where the body is a correct answer by the problem's definition, an entry of CORRECT_ANSWERS.
Built bodies are kept in --cache-dir (by content), so a second invocation mostly runs them.

Measured on 2 cores shared with other jobs (2026-12-07, seed 1234): every trivial body killed in every model run,
serial 501/501 over the 68 problems (198 s with the bodies built; 11.5 min from cold), omp 501/501 (536 s), kokkos
202/202 (238 s), mpi 501/501 (915 s), mpi+omp 501/501 (948 s). What it found in the generators before they changed:
benchmarks/HISTORY.md.
"""

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.common.project_files import PROJECT_ROOT  # noqa: E402
from workflow_scripts.measure import BuildCache, BuildConfig, load_suite  # noqa: E402
from workflow_scripts.pcgbench import validation_strength as vs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="serial", help=f"comma-separated, of {','.join(vs.EXEC_MODELS)}")
    parser.add_argument("--problems", default="", help="comma-separated names (default: all)")
    parser.add_argument("--validations", type=int, default=vs.DEFAULT_VALIDATIONS)
    parser.add_argument("--seed", type=int, default=vs.DEFAULT_SEED)
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    parser.add_argument("--cache-dir", default=str(PROJECT_ROOT / ".cache" / "pcgbench_validation_strength"))
    parser.add_argument("--csv", default="", help="also write one row per body here")
    args = parser.parse_args()
    exec_models = args.models.split(",")
    unknown = set(exec_models) - set(vs.EXEC_MODELS)
    if unknown:
        parser.error(f"--models: {sorted(unknown)} not among {vs.EXEC_MODELS}")
    problems = load_suite()
    if args.problems:
        wanted = args.problems.split(",")
        missing = set(wanted) - {p.name for p in problems}
        if missing:
            parser.error(f"--problems: no problem named {sorted(missing)}")
        problems = [p for p in problems if p.name in wanted]
    cache = BuildCache(BuildConfig(cache_dir=Path(args.cache_dir), jobs=args.jobs))
    print(f"validation strength: {len(problems)} problems x {exec_models}, small size then {args.validations} inputs at "
          f"the timed size, seed {args.seed}")
    print(f"{'problem':34s} {'model':8s} {'killed':>9s}  survivors")
    rows, totals, failed = [], {m: [0, 0] for m in exec_models}, False
    started = time.perf_counter()
    for problem in problems:
        for exec_model in exec_models:
            try:
                [score] = vs.check_validation_strength([problem], [exec_model], cache=cache,
                                                       validations=args.validations, seed=args.seed)  # fmt: skip
            except RuntimeError as err:
                print(f"{problem.name:34s} {exec_model:8s} {'ERROR':>9s}  {err}")
                failed = True
                continue
            totals[exec_model][0] += score.killed
            totals[exec_model][1] += score.generated
            failed |= bool(score.survivors)
            print(f"{problem.name:34s} {exec_model:8s} {score.killed:4d}/{score.generated:<4d}  "
                  f"{', '.join(score.survivors) or '-'}", flush=True)
            rows += [{"problem": problem.name, "model": exec_model, "body": name, "verdict": verdict,
                      "counted": (problem.name, name) not in vs.CORRECT_ANSWERS, "detail": score.details[name]}
                     for name, verdict in sorted(score.verdicts.items())]  # fmt: skip
    for exec_model, (killed, generated) in totals.items():
        print(f"{'all problems':34s} {exec_model:8s} {killed:4d}/{generated:<4d}")
    print(f"{time.perf_counter() - started:.0f} s")
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=["problem", "model", "body", "verdict", "counted", "detail"])
            writer.writeheader()
            writer.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
