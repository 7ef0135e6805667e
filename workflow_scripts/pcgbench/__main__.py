"""PCGBench command line.

    python -m workflow_scripts.pcgbench export-prompts OUT.json [--models serial,omp,...] [--problems a,b]
                                                        [--numbering pareval]
        write the suite's prompts in ParEval's format (all problems x all 7 execution models by default;
        --numbering pareval: under ParEval's numbered names, e.g. 27_reduce_average)
    python -m workflow_scripts.pcgbench export-prompts OUT.json --task translation [--pairs 'serial->omp,...']
                                                        [--problems a,b] [--numbering pareval]
        write the suite's translation prompts in ParEval's translation format (translation-prompts.json): every
        (problem, source, target) pair ParEval has (serial->omp, serial->mpi, cuda->kokkos: 143 tasks), the source
        implementation being the suite's reference body (translation.py). `evaluate` scores a file of them (or
        ParEval's own) like any other: each output as a sample of the target model, metrics per pair
    python -m workflow_scripts.pcgbench evaluate GENERATIONS.json --out DIR [--max-cores N] [--reps N] ...
        build, run (sandboxed), validate and time every output; writes DIR/results.parquet, DIR/metrics.json
        (and metrics.csv); an interrupted evaluation resumes from DIR/samples.jsonl. GENERATIONS.json may be
        a file written for ParEval's own prompts (data/pcgbench/README.md)
    python -m workflow_scripts.pcgbench check-references [--models omp] [--problems a,b] [--sweep] [--csv T.csv]
        build every reference, validate it and time it against the serial baseline (reference_check.py);
        exit status 1 if any reference fails

A mistake in the input (a bad option value, a malformed generations file, an unknown problem or model, a folder
one cannot write to, a missing tool) prints one line, "error: ...", naming the file, record and field or the
option, and what to do, and exits with status 2 before anything is written; --debug adds its traceback. A bug's
traceback is always shown. The input is read and checked before the machine is (its sandbox, race check and build
cache), so a mistake in it is reported as such. A command writes only its outputs (--out, with the folders above
it; OUT and --csv, whose folder must exist) and caches: the per-user cache
($XDG_CACHE_HOME/pcgbench, else ~/.cache/pcgbench; --cache-dir, --build-dir) and the machine's build cache of
precompiled headers, driver objects and Kokkos ($PCGBENCH_MACHINE_CACHE; machine_cache.py), never the folder it
is run from.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from workflow_scripts.common.config import schema_defaults
from workflow_scripts.measure import EXECUTION_MODELS, PROBLEMS_ROOT, load_suite
from workflow_scripts.pcgbench.pareval_format import NUMBERINGS, GenerationsError, export_prompts
from workflow_scripts.pcgbench.paths import user_cache_dir

logger = logging.getLogger("workflow_scripts.pcgbench")

CHECK_RUN_TIMEOUT_S = 600  # check-references: wall-clock limit of one reference's run (the workflow's: run_timeout_s)


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse's parser, except that a bad option value prints one line, as every other mistake does, instead of
    the whole usage above it (19 lines for `evaluate`, which push the line that says what is wrong out of sight)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (`{self.prog} --help` lists the options)\n")


class UsageError(Exception):
    """A mistake in what the command was given (an argument, a file, a folder, a missing tool), as opposed to a
    bug: main() prints its message, which names what is wrong and how to fix it, as one line (no traceback)."""


# What main() reports as one line: the user's mistakes and what the machine lacks. Any other exception is a bug
# and keeps its traceback.
def _user_errors() -> tuple[type[BaseException], ...]:
    from workflow_scripts.measure import SandboxUnavailable  # the sandbox's tools are missing here

    return UsageError, GenerationsError, SandboxUnavailable


def _positive(kind: type) -> Callable[[str], int | float]:
    """An argparse type: a number of `kind` > 0 (argparse names the option in its message)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _ks(text: str) -> tuple[int, ...]:
    """--ks: comma-separated integers >= 1."""
    try:
        ks = tuple(int(k) for k in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, e.g. 1,5,10; got {text!r}") from None
    if min(ks) < 1:
        raise argparse.ArgumentTypeError(f"every k must be >= 1, got {text!r}")
    return ks


def _names(text: str, known: list[str], flag: str, what: str, where: str = "") -> list[str]:
    """The comma-separated names of `text`, each one of `known`; an unknown one is a UsageError naming the
    closest known names (and all of them when they are few, else `where` they are listed)."""
    names = [name for name in text.split(",") if name]
    unknown = [name for name in names if name not in known]
    if unknown:
        hints = [f"{name!r}" + (f" (closest: {', '.join(close)})" if (close := difflib.get_close_matches(name, known))
                                else "") for name in unknown]  # fmt: skip
        listed = f"expected among: {', '.join(known)}" if len(known) <= 10 else f"{len(known)} are known ({where})"
        raise UsageError(f"{flag}: unknown {what} {', '.join(hints)}; {listed}")
    return names


def _suite(data: str) -> list:
    """The problems under --data, or a UsageError when it holds none."""
    root = Path(data)
    if not root.is_dir():
        raise UsageError(f"--data {data}: no such folder (the problem set's root: a folder of <problem>/problem.yaml)")
    problems = load_suite(root)
    if not problems:
        raise UsageError(f"--data {data}: no problem here (expected folders holding a problem.yaml)")
    return problems


def _selected(args: argparse.Namespace) -> tuple[list, list[str]]:
    """The problems and execution models that --problems and --models name (all of each by default)."""
    problems = _suite(args.data)
    if args.problems:
        wanted = _names(args.problems, [p.name for p in problems], "--problems", "problem(s)",
                        where=f"the folders of {args.data}")
        problems = [p for p in problems if p.name in wanted]
    exec_models = (_names(args.models, list(EXECUTION_MODELS), "--models", "execution model(s)") if args.models
                   else list(EXECUTION_MODELS))  # fmt: skip
    return problems, exec_models


def _writable_folder(path: Path, flag: str) -> None:
    """Refuse, before anything is written, a folder that is a file or that cannot be created or written to."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag} {path}: exists and is not a folder; give a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"{flag} {path}: {existing} is not a folder")
    # Tried, not judged from the mode bits: root passes os.access everywhere, yet not on a read-only mount or in
    # /sys. The trial folder is removed at once, so a refused command leaves the folder as it was.
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".pcgbench-write-test-", dir=existing))
    except OSError as err:
        raise UsageError(f"{flag} {path}: cannot write in {existing} ({err.strerror}); give another folder") from err


def _writable_file(path: Path, flag: str) -> None:
    """Refuse a file name that is a folder or whose folder is missing (the command makes no folder for a file: a
    mistyped path would otherwise leave a new folder tree behind) or not writable."""
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"{flag} {path}: no folder {path.parent}; create it first, or give a file in an existing folder")
    _writable_folder(path.parent, flag)


def _machine_cache() -> None:
    """The machine's build cache (driver objects, precompiled headers, Kokkos: machine_cache.py) is usable, or
    a UsageError saying why (its checks raise RuntimeError, e.g. a folder the confined compiler cannot enter)."""
    from workflow_scripts.measure import machine_cache_dir

    try:
        machine_cache_dir()
    except RuntimeError as err:
        raise UsageError(str(err)) from err


def _announce_first_builds(generations: Path, data: Path) -> None:
    """Log, before the wait, what the machine's build cache still lacks for this file and builds first: the
    standard headers' precompiled forms (once per machine and compiler), the driver objects (once per problem and
    execution model; measured on 2 shared cores: one problem's two drivers added 3 s to a 4.5 s evaluation), and
    Kokkos (several minutes, once per machine). Between "builds [0/N] started" and the first finished build
    nothing else is logged, and on a cold cache that wait is the longest of a small evaluation."""
    from workflow_scripts.measure import (
        KOKKOS_VERSION,
        driver_exec_model,
        kokkos_prefix,
        kokkos_ready,
        machine_cache_dir,
        toolchain_status,
    )
    from workflow_scripts.pcgbench.pareval_format import load_generations, problem_name

    records = load_generations(generations)
    cache = machine_cache_dir()
    exec_models = {r["parallelism_model"] for r in records if toolchain_status(r["parallelism_model"])[0]}
    drivers = {(problem_name(r, data), driver_exec_model(r["parallelism_model"])) for r in records
               if r["parallelism_model"] in exec_models and r["outputs"]}  # fmt: skip
    # A driver is missing when its folder holds no object; one built for other driver sources or another checkout
    # (its name is a hash of its sources and flags, which name the problem set's path) is compiled beside it too,
    # which this count cannot see without precompiling the headers first.
    missing = sum(not any((cache / "drivers" / name / exec_model.replace("+", "_")).glob("driver-*.o"))
                  for name, exec_model in drivers)  # fmt: skip
    first = []
    if exec_models and not any((cache / "std_headers").glob("*/done")):
        first.append("precompile the standard headers (a few seconds per compiler)")
    if missing:
        first.append(f"compile {missing} driver object(s) (1-4 s each)")
    if "kokkos" in exec_models and not kokkos_ready(kokkos_prefix()):
        first.append(f"build Kokkos {KOKKOS_VERSION} into {kokkos_prefix()} (downloads its sources "
                     "with pip, then cmake and make: several minutes)")
    if first:
        logger.info("the machine build cache %s is missing what this file needs; before the first sample is built, "
                    "the evaluation will %s. Done once, later evaluations reuse them", cache, "; ".join(first))


def _export_prompts(args: argparse.Namespace) -> int:
    problems, exec_models = _selected(args)
    _writable_file(Path(args.out), "OUT")
    if args.task == "translation":
        from workflow_scripts.pcgbench import translation

        if args.models:
            raise UsageError("--models: a translation task is named by its pair; give --pairs instead (e.g. "
                             f"--pairs 'serial->omp'; ParEval's: {','.join(translation.PAIR_NAMES)})")
        pairs = (_names(args.pairs, list(translation.PAIR_NAMES), "--pairs", "translation pair(s)") if args.pairs
                 else list(translation.PAIR_NAMES))  # fmt: skip
        records = translation.export_translation_prompts(problems, Path(args.out), pairs=pairs,
                                                         numbering=args.numbering, root=Path(args.data))  # fmt: skip
        print(f"wrote {len(records)} translation prompts ({', '.join(pairs)}; {len(problems)} problems, those "
              f"ParEval has each pair for) to {args.out}")
        return 0
    if args.pairs:
        raise UsageError("--pairs names translation pairs: add --task translation")
    records = export_prompts(problems, exec_models, Path(args.out), numbering=args.numbering)
    print(f"wrote {len(records)} prompts ({len(problems)} problems x {len(exec_models)} models) to {args.out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from workflow_scripts.measure import race_check_status
    from workflow_scripts.pcgbench.evaluation import EvaluateConfig, evaluate_generations
    from workflow_scripts.pcgbench.samples import load_samples

    # Everything the command was given is checked before anything is written, and before the machine is: the
    # generations file is read and matched to the suite here (evaluate_generations reads it again), so a mistake
    # in it is reported as one, not as a tool this machine lacks.
    _suite(args.data)
    # Its records' refusals are logged once, when evaluate_generations reads it again: quiet here.
    reader = logging.getLogger("workflow_scripts.pcgbench.pareval_format")
    level, reader.level = reader.level, logging.ERROR
    try:
        load_samples(Path(args.generations), args.generator or Path(args.generations).stem, Path(args.data))
    finally:
        reader.setLevel(level)
    out, cache_dir = Path(args.out), Path(args.cache_dir)
    _writable_folder(out, "--out")
    _writable_folder(cache_dir, "--cache-dir")
    reference = Path(args.reference_results) if args.reference_results else None
    if reference is not None and not reference.is_file():
        raise UsageError(f"--reference-results {reference}: no such file (the reference generator's results.parquet, "
                         "written by an evaluation of the reference solutions)")
    # The machine, once the input is known to be right.
    if not args.no_race_check and not (status := race_check_status())[0]:
        raise UsageError(f"the race check cannot run here: {status[1]}; install it, or pass --no-race-check (racy "
                         "OpenMP samples may then pass validation by luck)")
    _machine_cache()
    _announce_first_builds(Path(args.generations), Path(args.data))
    try:
        cfg = EvaluateConfig(max_cores=args.max_cores, warmup=args.warmup, reps=args.reps, size=args.size,
                             seed=args.seed, ks=args.ks, jobs=args.jobs, run_timeout_s=args.run_timeout_s,
                             timeout_floor_s=args.timeout_floor_s, timeout_factor=args.timeout_factor,
                             compile_timeout_s=args.compile_timeout_s, share_identical_runs=not args.run_every_sample,
                             race_check=not args.no_race_check, cache_dir=cache_dir, suite_root=Path(args.data))
    except ValueError as err:  # EvaluateConfig names the setting (its config key) and the allowed values
        raise UsageError(str(err)) from err
    metrics = evaluate_generations(Path(args.generations), out, cfg, generator=args.generator,
                                   reference_results=reference)
    for exec_model, reason in metrics["skipped_models"].items():
        print(f"skipped {exec_model}: {reason}")
    for status in ("no_driver", "prompt_mismatch", "malformed"):
        for record in metrics.get(status, []):
            print(f"not scored, {status}: {record['record']} ({record['model']}): {record['reason']}")
    for generator, counts in metrics["verdict_counts"].items():
        print(f"{generator}: " + ", ".join(f"{verdict} {count}" for verdict, count in sorted(counts.items())))
    print(f"wrote {out / 'results.parquet'} and {out / 'metrics.json'}")
    return 0


def _check_references(args: argparse.Namespace) -> int:
    from workflow_scripts.pcgbench import reference_check

    problems, exec_models = _selected(args)
    _writable_folder(Path(args.build_dir), "--build-dir")
    if args.csv:
        _writable_file(Path(args.csv), "--csv")
    _machine_cache()
    try:
        # The harness's settings with the command's own: its seed (--seed), a run's limit CHECK_RUN_TIMEOUT_S (a
        # reference at the paper size runs long) with CPU time up to that on each core a run is given, and no race
        # check (references are trusted).
        cores = args.max_cores if args.sweep else args.ranks * args.threads
        cfg = reference_check.CheckConfig(max_cores=args.max_cores, warmup=args.warmup, reps=args.reps,
                                          size=args.size, seed=args.seed, jobs=args.jobs,
                                          run_timeout_s=CHECK_RUN_TIMEOUT_S, cpu_limit_s=CHECK_RUN_TIMEOUT_S * cores,
                                          race_check=False, fixed=None if args.sweep else (args.ranks, args.threads))
    except ValueError as err:
        raise UsageError(str(err)) from err
    rows = reference_check.check_references(problems, exec_models, cfg, Path(args.build_dir),
                                            progress=lambda row: print(reference_check.format_row(row), flush=True))
    summary = reference_check.summarise(rows)
    if args.csv:
        reference_check.write_table(rows, Path(args.csv))
    for exec_model, counts in summary["counts"].items():
        print(f"{exec_model:8s} " + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())))
    target = summary["target"]
    if target["problems_timed"]:
        print(f"median {target['model']} speedup on {target['threads']} threads: {target['median_speedup']:.2f} "
              f"over {target['problems_timed']} problems (target {target['speedup']}x)")
    print(f"{len(problems) * len(exec_models)} (problem, model) pairs, {len(summary['failed'])} failed runs")
    return 1 if summary["failed"] else 0


def build_parser() -> argparse.ArgumentParser:
    harness = schema_defaults("measure") | schema_defaults("pcgbench.evaluate")  # the workflow's evaluation defaults (config schema)
    cache = user_cache_dir()
    positive_int, positive_float = _positive(int), _positive(float)
    # Options every subcommand takes (after its name, where users type them).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true",
                        help="show the traceback of an error in the input too (a bug's is always shown)")
    parser = OneLineErrorParser(prog="python -m workflow_scripts.pcgbench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export-prompts", parents=[common],
                            help="write all prompts (or, with --task translation, the translation prompts) in "
                                 "ParEval's JSON format")
    export.add_argument("out", help="output JSON file")
    export.add_argument("--models", default="", help="comma-separated execution models (default: all 7)")
    export.add_argument("--problems", default="", help="comma-separated problem names (default: all)")
    export.add_argument("--data", default=str(PROBLEMS_ROOT), help="problem set root (default: data/pcgbench)")
    export.add_argument("--numbering", default="suite", choices=NUMBERINGS,
                        help="record names: the suite's folders, or ParEval's numbered names (default: %(default)s)")
    export.add_argument("--task", default="generation", choices=("generation", "translation"),
                        help="generation prompts, or translation prompts in ParEval's translation format "
                             "(translation-prompts.json: the source model's working code, then the target's prompt; "
                             "default: %(default)s)")
    export.add_argument("--pairs", default="",
                        help="with --task translation: comma-separated pairs among serial->omp, serial->mpi, "
                             "cuda->kokkos, quoted for the shell (--pairs 'serial->omp'; default: all three)")
    export.set_defaults(func=_export_prompts)
    check = sub.add_parser("check-references", parents=[common],
                           help="build and run every reference; print speedups")
    check.add_argument("--models", default="", help="comma-separated execution models (default: all 7)")
    check.add_argument("--problems", default="", help="comma-separated problem names (default: all)")
    check.add_argument("--data", default=str(PROBLEMS_ROOT), help="problem set root (default: data/pcgbench)")
    check.add_argument("--build-dir", default=str(cache / "drivers"),
                       help="driver object cache (default: %(default)s: $XDG_CACHE_HOME/pcgbench, else "
                            "~/.cache/pcgbench)")
    check.add_argument("--jobs", type=positive_int, default=harness["jobs"], help="parallel compiles (default: %(default)s)")
    check.add_argument("--threads", type=positive_int, default=2,
                       help="threads for omp, mpi+omp, kokkos (without --sweep; default: %(default)s)")
    check.add_argument("--ranks", type=positive_int, default=2,
                       help="ranks for mpi, mpi+omp (without --sweep; default: %(default)s)")
    check.add_argument("--sweep", action="store_true",
                       help="time every configuration of the harness's sweep up to --max-cores instead")
    check.add_argument("--max-cores", type=positive_int, default=harness["max_cores"],
                       help="largest resource count of --sweep (default: %(default)s)")
    check.add_argument("--size", default=harness["size"], choices=["timed", "paper"],
                       help="problem size to time (default: %(default)s)")
    check.add_argument("--seed", type=int, default=1, help="(default: %(default)s)")
    check.add_argument("--warmup", type=int, default=harness["warmup"], help="(default: %(default)s)")
    check.add_argument("--reps", type=positive_int, default=harness["reps"], help="(default: %(default)s)")
    check.add_argument("--csv", default="", help="also write the table (reference_speedups.csv columns) here")
    check.set_defaults(func=_check_references)
    evaluate = sub.add_parser("evaluate", parents=[common],
                              help="evaluate a ParEval generations file (sandboxed build, run, time)")
    evaluate.add_argument("generations", help="generations JSON (ParEval format)")
    evaluate.add_argument("--out", required=True,
                          help="output folder (results.parquet, metrics.json, and samples.jsonl, from which an "
                               "interrupted evaluation resumes). Besides it the command writes only to --cache-dir "
                               "and to the machine's build cache of driver objects, precompiled headers and Kokkos "
                               "($PCGBENCH_MACHINE_CACHE, default: pcgbench-cache-<uid> in the system's temporary "
                               "folder, which the confined compiler can enter)")
    evaluate.add_argument("--generator", default=None, help="name in the results (default: the file's stem)")
    evaluate.add_argument("--max-cores", type=positive_int, default=harness["max_cores"],
                          help="resource sweep up to this many cores (default: %(default)s)")
    evaluate.add_argument("--warmup", type=int, default=harness["warmup"],
                          help="untimed calls per run (default: %(default)s)")
    evaluate.add_argument("--reps", type=positive_int, default=harness["reps"],
                          help="timed calls per run (default: %(default)s)")
    evaluate.add_argument("--size", default=harness["size"], choices=["timed", "paper"],
                          help="problem size to time (default: %(default)s)")
    evaluate.add_argument("--seed", type=int, default=schema_defaults("")["seed"],
                          help="input generation seed (default: %(default)s)")
    evaluate.add_argument("--ks", type=_ks, default=tuple(harness["ks"]),
                          help="comma-separated k of the @k metrics (default: "
                               f"{','.join(map(str, harness['ks']))})")
    evaluate.add_argument("--jobs", type=positive_int, default=harness["jobs"], help="parallel compiles (default: %(default)s)")
    evaluate.add_argument("--run-timeout-s", type=positive_float, default=harness["run_timeout_s"],
                          help="wall-clock limit of one run (without --reference-results; default: %(default)s)")
    evaluate.add_argument("--timeout-floor-s", type=positive_float, default=harness["timeout_floor_s"],
                          help="see --timeout-factor (default: %(default)s)")
    evaluate.add_argument("--timeout-factor", type=positive_float, default=harness["timeout_factor"],
                          help="with --reference-results: limit = max(floor, factor x the reference's run time) "
                               "(default: %(default)s)")
    evaluate.add_argument("--reference-results", default=None, help="the reference generator's results.parquet")
    evaluate.add_argument("--compile-timeout-s", type=positive_float, default=harness["compile_timeout_s"],
                          help="wall-clock limit of one compile (default: %(default)s)")
    evaluate.add_argument("--cache-dir", default=str(cache / "build_cache"),
                          help="build cache of the samples' objects and executables, kept between runs (default: "
                               "%(default)s: $XDG_CACHE_HOME/pcgbench, else ~/.cache/pcgbench)")
    evaluate.add_argument("--data", default=str(PROBLEMS_ROOT), help="problem set root (default: data/pcgbench)")
    evaluate.add_argument("--run-every-sample", action="store_true",
                          help="run identical samples separately (default: run each distinct program once)")
    evaluate.add_argument("--no-race-check", action="store_true",
                          help="do not run OpenMP samples' ThreadSanitizer builds (default: a race found there is "
                               "the verdict race_detected)")
    evaluate.set_defaults(func=_evaluate)
    agree = sub.add_parser("agreement", parents=[common],
                           help="score a ParEval results file (its released outputs with its verdicts) here and "
                                "write DIR/agreement.csv: per sample ParEval's verdict, this harness's, and the cause "
                                "of any difference; prints the confusion table")  # fmt: skip
    # Imported here, not at the top: its imports (pandas, the evaluation) are not light.
    from workflow_scripts.pcgbench import agreement

    agreement.add_arguments(agree)
    agree.set_defaults(func=_agreement)
    return parser


def _agreement(args: argparse.Namespace) -> int:
    from workflow_scripts.pcgbench import agreement

    try:
        return agreement.run(args)
    except ValueError as err:  # a bad --outputs or --models value, a file that is not ParEval's results format
        raise UsageError(str(err)) from err


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; its exit status. A mistake in the input (UsageError, GenerationsError, a sandbox
    that cannot run here) prints one line, `error: ...`, and returns 2 (with --debug: raises, traceback and all)."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except _user_errors() as err:
        if args.debug:
            raise
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
