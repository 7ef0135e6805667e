"""PCGBench command line.

    python -m workflow_scripts.pcgbench export-prompts OUT.json [--models serial,omp,...] [--problems a,b]
                                                        [--numbering pareval]
        write the suite's prompts in ParEval's format (all problems x all 7 execution models by default;
        --numbering pareval: under ParEval's numbered names, e.g. 27_reduce_average)
    python -m workflow_scripts.pcgbench evaluate GENERATIONS.json --out DIR [--max-cores N] [--reps N] ...
        build, run (sandboxed), validate and time every output; writes DIR/results.parquet, DIR/metrics.json
        (and metrics.csv); an interrupted evaluation resumes from DIR/samples.jsonl. GENERATIONS.json may be
        a file written for ParEval's own prompts (data/pcgbench/README.md)
    python -m workflow_scripts.pcgbench check-references [--models omp] [--problems a,b] [--sweep] [--csv T.csv]
        build every reference, validate it and time it against the serial baseline (reference_speedups.py);
        exit status 1 if any reference fails
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from workflow_scripts.common.config import schema_defaults
from workflow_scripts.pcgbench.pareval_format import NUMBERINGS, export_prompts
from workflow_scripts.pcgbench.suite import DATA_ROOT, EXECUTION_MODELS, load_suite


def _selected(args: argparse.Namespace) -> tuple[list, list[str]]:
    """The problems and execution models that --problems and --models name (all of each by default)."""
    problems = load_suite(Path(args.data))
    if args.problems:
        wanted = args.problems.split(",")
        missing = sorted(set(wanted) - {p.name for p in problems})
        if missing:
            raise SystemExit(f"--problems: unknown problem(s) {missing}")
        problems = [p for p in problems if p.name in wanted]
    models = args.models.split(",") if args.models else list(EXECUTION_MODELS)
    return problems, models


def _export_prompts(args: argparse.Namespace) -> int:
    problems, models = _selected(args)
    records = export_prompts(problems, models, Path(args.out), numbering=args.numbering)
    print(f"wrote {len(records)} prompts ({len(problems)} problems x {len(models)} models) to {args.out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from workflow_scripts.pcgbench.evaluate import EvaluateConfig
    from workflow_scripts.pcgbench.evaluate import main as evaluate_main

    cfg = EvaluateConfig(max_cores=args.max_cores, warmup=args.warmup, reps=args.reps, size=args.size,
                         seed=args.seed, ks=tuple(int(k) for k in args.ks.split(",")), jobs=args.jobs,
                         run_timeout_s=args.run_timeout_s, timeout_floor_s=args.timeout_floor_s,
                         timeout_factor=args.timeout_factor,
                         compile_timeout_s=args.compile_timeout_s, share_identical_runs=not args.run_every_sample,
                         race_check=not args.no_race_check, cache_dir=Path(args.cache_dir), suite_root=Path(args.data))
    reference = Path(args.reference_results) if args.reference_results else None
    metrics = evaluate_main(Path(args.generations), Path(args.out), cfg, generator=args.generator,
                            reference_results=reference)
    for model, reason in metrics["skipped_models"].items():
        print(f"skipped {model}: {reason}")
    for status in ("no_driver", "prompt_mismatch", "malformed"):
        for record in metrics.get(status, []):
            print(f"not scored, {status}: {record['record']} ({record['model']}): {record['reason']}")
    for generator, counts in metrics["verdict_counts"].items():
        print(f"{generator}: " + ", ".join(f"{verdict} {count}" for verdict, count in sorted(counts.items())))
    print(f"wrote {Path(args.out) / 'results.parquet'} and {Path(args.out) / 'metrics.json'}")
    return 0


def _check_references(args: argparse.Namespace) -> int:
    from workflow_scripts.pcgbench import reference_speedups

    problems, models = _selected(args)
    cfg = reference_speedups.CheckConfig(max_cores=args.max_cores, warmup=args.warmup, reps=args.reps,
                                         size=args.size, seed=args.seed, jobs=args.jobs,
                                         fixed=None if args.sweep else (args.ranks, args.threads))
    rows = reference_speedups.check_references(problems, models, cfg, Path(args.build_dir),
                                               progress=lambda row: print(reference_speedups.format_row(row),
                                                                          flush=True))
    summary = reference_speedups.summarise(rows)
    if args.csv:
        reference_speedups.write_table(rows, Path(args.csv))
    for model, counts in summary["counts"].items():
        print(f"{model:8s} " + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())))
    target = summary["target"]
    if target["problems_timed"]:
        print(f"median {target['model']} speedup on {target['threads']} threads: {target['median_speedup']:.2f} "
              f"over {target['problems_timed']} problems (target {target['speedup']}x)")
    print(f"{len(problems) * len(models)} (problem, model) pairs, {len(summary['failed'])} failed runs")
    return 1 if summary["failed"] else 0


def main(argv: list[str] | None = None) -> int:
    harness = schema_defaults("pcgbench.evaluate")  # the defaults of the workflow's evaluation (config schema)
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.pcgbench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export-prompts", help="write all prompts in ParEval's JSON format")
    export.add_argument("out", help="output JSON file")
    export.add_argument("--models", default="", help="comma-separated execution models (default: all 7)")
    export.add_argument("--problems", default="", help="comma-separated problem names (default: all)")
    export.add_argument("--data", default=str(DATA_ROOT), help="problem set root (default: data/pcgbench)")
    export.add_argument("--numbering", default="suite", choices=NUMBERINGS,
                        help="record names: the suite's folders, or ParEval's numbered names (default: %(default)s)")
    export.set_defaults(func=_export_prompts)
    check = sub.add_parser("check-references", help="build and run every reference; print speedups")
    check.add_argument("--models", default="", help="comma-separated execution models (default: all 7)")
    check.add_argument("--problems", default="", help="comma-separated problem names (default: all)")
    check.add_argument("--data", default=str(DATA_ROOT), help="problem set root (default: data/pcgbench)")
    check.add_argument("--build-dir", default=str(DATA_ROOT.parents[1] / ".cache" / "pcgbench_drivers"),
                       help="driver object cache")
    check.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    check.add_argument("--threads", type=int, default=2, help="threads for omp, mpi+omp, kokkos (without --sweep)")
    check.add_argument("--ranks", type=int, default=2, help="ranks for mpi, mpi+omp (without --sweep)")
    check.add_argument("--sweep", action="store_true",
                       help="time every configuration of the harness's sweep up to --max-cores instead")
    check.add_argument("--max-cores", type=int, default=harness["max_cores"],
                       help="largest resource count of --sweep (default: %(default)s)")
    check.add_argument("--size", default=harness["size"], choices=["timed", "paper"],
                       help="problem size to time (default: %(default)s)")
    check.add_argument("--seed", type=int, default=1)
    check.add_argument("--warmup", type=int, default=harness["warmup"], help="(default: %(default)s)")
    check.add_argument("--reps", type=int, default=harness["reps"], help="(default: %(default)s)")
    check.add_argument("--csv", default="", help="also write the table (reference_speedups.csv columns) here")
    check.set_defaults(func=_check_references)
    evaluate = sub.add_parser("evaluate", help="evaluate a ParEval generations file (sandboxed build, run, time)")
    evaluate.add_argument("generations", help="generations JSON (ParEval format)")
    evaluate.add_argument("--out", required=True, help="output folder (results.parquet, metrics.json)")
    evaluate.add_argument("--generator", default=None, help="name in the results (default: the file's stem)")
    evaluate.add_argument("--max-cores", type=int, default=harness["max_cores"],
                          help="resource sweep up to this many cores (default: %(default)s)")
    evaluate.add_argument("--warmup", type=int, default=harness["warmup"],
                          help="untimed calls per run (default: %(default)s)")
    evaluate.add_argument("--reps", type=int, default=harness["reps"], help="timed calls per run (default: %(default)s)")
    evaluate.add_argument("--size", default=harness["size"], choices=["timed", "paper"],
                          help="problem size to time (default: %(default)s)")
    evaluate.add_argument("--seed", type=int, default=schema_defaults("")["seed"],
                          help="input generation seed (default: %(default)s)")
    evaluate.add_argument("--ks", default=",".join(map(str, harness["ks"])),
                          help="comma-separated k of the @k metrics (default: %(default)s)")
    evaluate.add_argument("--jobs", type=int, default=2, help="parallel compiles")
    evaluate.add_argument("--run-timeout-s", type=float, default=harness["run_timeout_s"],
                          help="wall-clock limit of one run (without --reference-results; default: %(default)s)")
    evaluate.add_argument("--timeout-floor-s", type=float, default=harness["timeout_floor_s"],
                          help="see --timeout-factor (default: %(default)s)")
    evaluate.add_argument("--timeout-factor", type=float, default=harness["timeout_factor"],
                          help="with --reference-results: limit = max(floor, factor x the reference's run time) "
                               "(default: %(default)s)")
    evaluate.add_argument("--reference-results", default=None, help="the reference generator's results.parquet")
    evaluate.add_argument("--compile-timeout-s", type=float, default=harness["compile_timeout_s"],
                          help="wall-clock limit of one compile (default: %(default)s)")
    evaluate.add_argument("--cache-dir", default=harness["cache_dir"], help="build cache folder (default: %(default)s)")
    evaluate.add_argument("--data", default=str(DATA_ROOT), help="problem set root (default: data/pcgbench)")
    evaluate.add_argument("--run-every-sample", action="store_true",
                          help="run identical samples separately (default: run each distinct program once)")
    evaluate.add_argument("--no-race-check", action="store_true",
                          help="do not run OpenMP samples' ThreadSanitizer builds (default: a race found there is "
                               "the verdict race_detected)")
    evaluate.set_defaults(func=_evaluate)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
