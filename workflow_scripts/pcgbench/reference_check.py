"""Build, validate and time every reference solution of the selected problems: the suite's own acceptance check.

For each (problem, execution model) the reference body is compiled as a sample and linked with the cached
driver; the driver validates it at the small and the timed size, then times it against the serial baseline in
the same run (its judge: drivers/judge.hpp), once per resource configuration of the harness's sweep (timing.resource_sweep: threads
1, 2, ... up to max_cores for omp and kokkos, ranks for mpi, both for mpi+omp). References are trusted code,
but they are measured exactly as samples are (run.run_program: the sandbox, the run secret, fresh checked inputs
for every timed call, the CPU-time check, the thread placement), so that a speedup in this table and one in the
evaluation mean the same thing, and they are built as samples are (build.BuildCache: compiled in the sandbox,
cached by content, in the harness's build cache). A row's status is the evaluation's verdict on the reference
(verdicts.py: ok, wrong_answer, build_error, crash, timeout, ...). Models that cannot run here are rows with
status `build_only` (compiled: CUDA without a GPU) or `unavailable` (no toolchain: HIP without hipcc), with the
reason; never failures.

Outputs (rules pcgbench_reference_speedups_shard and pcgbench_reference_speedups, step reference_speedups.py):
    results/pcgbench/reference_speedups.csv    one row per (problem, model, ranks, threads): status, valid,
                                               speedup over the serial baseline (median of the repetitions,
                                               with min, max and interquartile range), the median times
    results/pcgbench/reference_speedups.json   counts per model and status, median speedup per model and
                                               resource count, and the suite's target: the median OpenMP
                                               speedup on 2 threads, >= 1.3x
Both are written by check_selection in one process (a plan of one shard), or from check_shard's rows of each
shard (shards.py) by merge. The same code serves `python -m workflow_scripts.pcgbench check-references` (every
problem and model, printed) and benchmarks/pcgbench_reference_speedups.py (the OpenMP table over all 60 problems).
Speedups measured on a shared, loaded machine are indicative only; the JSON names the host that measured.
"""

import csv
import dataclasses
import json
import logging
import socket
import statistics
from concurrent.futures import Future
from pathlib import Path

from workflow_scripts.common import Progress, Provenance, write_json
from workflow_scripts.common.io import atomic_path
from workflow_scripts.measure import (
    BUILD_ERROR,
    BUILD_ONLY,
    OK,
    PROBLEMS_ROOT,
    UNAVAILABLE,
    VERDICTS,
    WRONG_ANSWER,
    BuildCache,
    BuildRequest,
    BuildResult,
    Problem,
    ResourceConfig,
    SandboxUnavailable,
    build_status,
    ensure_kokkos,
    get_problem,
    load_suite,
    reference_body,
    resource_sweep,
    run_program,
    summarise_times,
    toolchain_status,
)
from workflow_scripts.pcgbench.evaluation import EvaluateConfig
from workflow_scripts.pcgbench.selection import select_problems
from workflow_scripts.pcgbench.shards import Shard

logger = logging.getLogger(__name__)

# A row's status is a verdict (verdicts.py), or BUILD_ONLY or UNAVAILABLE. Every verdict but OK is a failure, in
# the order a (problem, exec_model) pair is counted by its worst row (summarise): a wrong answer, a build error, then
# how its run failed.
FAILURES = (WRONG_ANSWER, BUILD_ERROR, *(v for v in VERDICTS if v not in (WRONG_ANSWER, BUILD_ERROR, OK)))

# The suite's own target: the OpenMP references beat the serial baseline by >= 1.3x on 2 threads on the
# median problem, at the timed size.
TARGET_EXEC_MODEL, TARGET_THREADS, TARGET_SPEEDUP = "omp", 2, 1.3

COLUMNS = ("problem", "problem_type", "model", "ranks", "threads", "status", "valid", "speedup_median",
           "speedup_min", "speedup_max", "speedup_iqr", "time_median_s", "time_iqr_s", "baseline_median_s",
           "detail")  # fmt: skip


@dataclasses.dataclass(kw_only=True)
class CheckConfig(EvaluateConfig):
    """How references are run and timed: the evaluation's settings (sections measure and pcgbench.evaluate: the evaluation's protocol less
    its stress validations, its limits with the wall-clock limit run_timeout_s, its builds), and which resource
    configurations. References are trusted code: where the config is read, race_check is off."""

    fixed: tuple[int, int] | None = None  # (ranks, threads): run only this configuration instead of the sweep
                                          # (ranks for mpi and mpi+omp, threads for omp, mpi+omp and kokkos)

    def configurations(self, exec_model: str) -> list[ResourceConfig]:
        if self.fixed is None:
            return resource_sweep(exec_model, self.max_cores)
        ranks, threads = self.fixed
        return [ResourceConfig(ranks if exec_model in ("mpi", "mpi+omp") else 1,
                               threads if exec_model in ("omp", "mpi+omp", "kokkos") else 1)]


def _row(problem: Problem, exec_model: str, status: str, detail: str = "", config: ResourceConfig | None = None,
         **timing) -> dict:  # fmt: skip
    row = {column: None for column in COLUMNS}
    row.update(problem=problem.name, problem_type=problem.problem_type, model=exec_model, status=status,
               valid={OK: True, WRONG_ANSWER: False}.get(status), detail=detail.replace("\n", " ")[:500],
               ranks=config.ranks if config else None, threads=config.threads if config else None, **timing)
    return row


def _builds(pairs: list[tuple[Problem, str]], build_dir: Path,
            cfg: CheckConfig) -> list[tuple[Path | None, dict | None]]:  # fmt: skip
    """For each pair, (executable, None) when its reference can run here, else (None, the row saying why not).
    References compile as samples do (build.BuildCache: in the sandbox, cached by content), with the harness's
    build settings (jobs, compile_timeout_s)."""
    status = {exec_model: build_status(exec_model) for _, exec_model in pairs}
    requests = [BuildRequest(problem=p, exec_model=m, body=reference_body(p, m)) for p, m in pairs if status[m][0]]
    outcomes = []
    with BuildCache(cfg.build_config(cache_dir=build_dir)).building(requests) as futures:
        built = iter(futures)
        for problem, exec_model in pairs:
            ok, why = status[exec_model]
            outcomes.append(_built(problem, exec_model, next(built)) if ok else (None, _row(problem, exec_model, UNAVAILABLE, why)))
    return outcomes


def _built(problem: Problem, exec_model: str, build: Future[BuildResult]) -> tuple[Path | None, dict | None]:
    try:
        result = build.result()
    except SandboxUnavailable:  # the sandbox failed, not the reference: never a verdict
        raise
    except RuntimeError as err:  # its driver did not compile (driver_program.build_driver): a suite bug, the pair's
        return None, _row(problem, exec_model, BUILD_ERROR, str(err)[-400:])
    if not result.ok:
        return None, _row(problem, exec_model, BUILD_ERROR, result.log[-400:])
    if result.finding is not None:  # the harness would never run it as a sample: neither does the check
        return None, _row(problem, exec_model, result.finding.verdict, result.finding.detail)
    runnable, why = toolchain_status(exec_model)
    return (result.exe, None) if runnable else (None, _row(problem, exec_model, BUILD_ONLY, why))


def _run(problem: Problem, exec_model: str, exe: Path, config: ResourceConfig, cfg: CheckConfig) -> dict:
    protocol = cfg.protocol(ranks=config.ranks, threads=config.threads, stress=False)
    run = run_program(problem, exec_model, exe, protocol, cfg.limits())
    if run.verdict != OK:  # a wrong answer's detail is the validator's; another failure's says what it was
        detail = run.detail if run.verdict == WRONG_ANSWER else f"{run.verdict}: {run.detail}"[:500]
        return _row(problem, exec_model, run.verdict, detail, config)
    baseline = statistics.median(run.baseline_times_s)
    spread = summarise_times([baseline / t for t in run.times_s])  # unit-agnostic: median, IQR, min, max
    times = summarise_times(run.times_s)
    return _row(problem, exec_model, OK, "", config, speedup_median=spread.median_s, speedup_min=spread.min_s,
                speedup_max=spread.max_s, speedup_iqr=spread.iqr_s, time_median_s=times.median_s,
                time_iqr_s=times.iqr_s, baseline_median_s=baseline)


def check_references(problems: list[Problem], exec_models: list[str], cfg: CheckConfig, build_dir: Path,
                     progress=None) -> list[dict]:  # fmt: skip
    """Rows (see COLUMNS) for every problem x model, in that order, built in the build cache `build_dir`
    (build.BuildCache). Compiles run `cfg.jobs` at a time; runs one at a time, so no two timings share the cores.
    `progress(row)` is called as each row is made."""
    if "kokkos" in exec_models and build_status("kokkos")[0]:
        ensure_kokkos()  # once, before the compile workers start
    rows: list[dict] = []
    pairs = [(p, m) for p in problems for m in exec_models]
    built = _builds(pairs, Path(build_dir), cfg)
    timed = Progress("timed references", total=len(pairs), unit="reference", logger=logger)
    for (problem, exec_model), (exe, row) in zip(pairs, built, strict=True):
        new = [row] if exe is None else [_run(problem, exec_model, exe, c, cfg) for c in cfg.configurations(exec_model)]
        for row in new:
            if progress:
                progress(row)
            if row["status"] in FAILURES:
                logger.error("reference %s/%s: %s %s", problem.name, exec_model, row["status"], row["detail"])
        rows += new
        timed.advance()
    timed.finish()
    return rows


def summarise(rows: list[dict]) -> dict:
    """Counts per model and status, median speedups per (model, ranks x threads), and the OpenMP target."""
    counts: dict[str, dict[str, int]] = {}
    problems_per_exec_model: dict[str, set] = {}
    for row in rows:
        # A pair counts once, by its worst row (a reference valid at 1 thread but not at 2 is a failure).
        problems_per_exec_model.setdefault(row["model"], set()).add(row["problem"])
    for exec_model in problems_per_exec_model:
        for problem in sorted(problems_per_exec_model[exec_model]):
            statuses = [r["status"] for r in rows if r["model"] == exec_model and r["problem"] == problem]
            worst = next((s for s in (*FAILURES, UNAVAILABLE, BUILD_ONLY) if s in statuses), OK)
            counts.setdefault(exec_model, {}).setdefault(worst, 0)
            counts[exec_model][worst] += 1
    speedups: dict[str, dict[str, dict]] = {}
    for row in rows:
        if row["status"] != OK:
            continue
        key = f"{row['ranks']}x{row['threads']}"
        speedups.setdefault(row["model"], {}).setdefault(key, []).append(row["speedup_median"])
    by_exec_model = {exec_model: {key: {"median_speedup": statistics.median(v), "problems": len(v)} for key, v in keyed.items()}
                     for exec_model, keyed in speedups.items()}  # fmt: skip
    target_rows = [r for r in rows if r["model"] == TARGET_EXEC_MODEL and r["threads"] == TARGET_THREADS]
    target_valid = sorted((r for r in target_rows if r["status"] == OK), key=lambda r: r["speedup_median"])
    median = statistics.median(r["speedup_median"] for r in target_valid) if target_valid else None
    failed = [{k: r[k] for k in ("problem", "model", "ranks", "threads", "status", "detail")}
              for r in rows if r["status"] in FAILURES]  # fmt: skip
    return {
        "counts": counts,
        "failed": failed,
        "all_references_pass": not failed,
        "median_speedup": by_exec_model,
        "target": {
            "model": TARGET_EXEC_MODEL, "threads": TARGET_THREADS, "speedup": TARGET_SPEEDUP,
            "problems_timed": len(target_valid), "problems_selected": len({r["problem"] for r in target_rows}),
            "median_speedup": median, "met": None if median is None else median >= TARGET_SPEEDUP,
            "lowest": [(r["problem"], round(r["speedup_median"], 3)) for r in target_valid[:5]],
            "highest": [(r["problem"], round(r["speedup_median"], 3)) for r in target_valid[-3:]],
        },
    }  # fmt: skip


def _cell(value) -> str:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)  # 6 digits: well beyond timing noise


def write_table(rows: list[dict], path: Path) -> None:
    with atomic_path(path, suffix=".csv") as tmp, open(tmp, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row[k]) for k in COLUMNS})


def format_row(row: dict) -> str:
    """One human-readable line of the table (the CLI and the benchmark print these)."""
    head = f"{row['problem']:34s} {row['model']:8s}"
    if row["status"] != OK:
        return f"{head} {row['status'].upper()} {row['detail']}"
    return (f"{head} ok     speedup {row['speedup_median']:6.2f} (min {row['speedup_min']:.2f}, "
            f"max {row['speedup_max']:.2f}, IQR {row['speedup_iqr']:.2f}; ranks {row['ranks']} x threads "
            f"{row['threads']})")  # fmt: skip


def _check_config(evaluate: dict, seed: int, jobs: int | None) -> CheckConfig:
    """The evaluation's settings (sections measure and pcgbench.evaluate) with the config's seed and the job's
    compilers (None: the section's jobs); no race check (trusted code)."""
    given = {"seed": seed, "race_check": False} | ({"jobs": jobs} if jobs is not None else {})
    return CheckConfig(**evaluate | given)


def _check(problems: list[Problem], exec_models: list[str], cfg: CheckConfig, evaluate: dict) -> list[dict]:
    # The harness's build cache: references are built there as samples are, and the evaluation that follows finds
    # their drivers built (in the machine's cache: build.BuildCache).
    build_dir = Path(evaluate["cache_dir"])
    logger.info("checking the references of %d problems x %s (sweep up to %d cores, size %s, %d reps)",
                len(problems), exec_models, cfg.max_cores, cfg.size, cfg.reps)  # fmt: skip
    return check_references(problems, exec_models, cfg, build_dir, progress=lambda row: logger.info(format_row(row)))


def _write(rows: list[dict], problems: list[str], exec_models: list[str], cfg: CheckConfig, hosts: list[str],
           table: Path, summary_path: Path) -> dict:  # fmt: skip
    summary = summarise(rows) | {
        "problems": problems, "models": exec_models, "size": cfg.size, "reps": cfg.reps, "seed": cfg.seed,
        "measured_on": hosts[0] if len(set(hosts)) == 1 else sorted(set(hosts)),
        "note": "speedup = median serial-baseline time / reference time, measured in the same run; on a "
                "shared small CPU these are indicative only",
    }  # fmt: skip
    target = summary["target"]
    logger.info("median %s speedup on %d threads: %s (target %.1fx) over %d problems; failures: %d",
                TARGET_EXEC_MODEL, TARGET_THREADS, target["median_speedup"], TARGET_SPEEDUP, target["problems_timed"],
                len(summary["failed"]))
    write_table(rows, table)
    write_json(summary_path, summary)
    return summary


def check_selection(table: Path, summary_path: Path, *, selection: str | list[str], exec_models: list[str],
                    evaluate: dict, seed: int, jobs: int | None = None, suite_root: Path = PROBLEMS_ROOT) -> dict:  # fmt: skip
    """The configured problems and models, timed with the harness's settings, in one process."""
    cfg = _check_config(evaluate, seed, jobs)
    prov = Provenance.start(step="pcgbench.reference_speedups", seed=seed,
                            config={"problems": selection, "models": exec_models, **dataclasses.asdict(cfg)})
    problems = select_problems(load_suite(suite_root), selection)
    rows = _check(problems, exec_models, cfg, evaluate)
    summary = _write(rows, [p.name for p in problems], exec_models, cfg, [socket.gethostname()], table, summary_path)
    prov.finish([table, summary_path])
    return summary


def check_shard(rows_path: Path, shard: Shard, *, evaluate: dict, seed: int, jobs: int | None = None) -> list[dict]:
    """One shard's references (its problems x models, shards.py), on the node its models need: their rows and
    the host that timed them, for merge."""
    cfg = _check_config(evaluate, seed, jobs)
    prov = Provenance.start(step="pcgbench.reference_speedups_shard", seed=seed,
                            config={"shard": dataclasses.asdict(shard), **dataclasses.asdict(cfg)})  # fmt: skip
    rows = _check([get_problem(name) for name in shard.problems], list(shard.exec_models), cfg, evaluate)
    write_json(rows_path, {"shard": shard.name, "measured_on": socket.gethostname(), "rows": rows})
    prov.finish([rows_path])
    return rows


def merge(table: Path, summary_path: Path, shard_rows: list[Path], *, selection: str | list[str],
          exec_models: list[str], evaluate: dict, seed: int) -> dict:  # fmt: skip
    """The table and summary of check_selection from the shards' rows (check_shard), in its order: problem, then
    model."""
    cfg = _check_config(evaluate, seed, 1)
    prov = Provenance.start(step="pcgbench.reference_speedups_merge", seed=seed,
                            config={"problems": selection, "models": exec_models, **dataclasses.asdict(cfg)})
    problems = [p.name for p in select_problems(load_suite(), selection)]
    parts = [json.loads(Path(path).read_text()) for path in shard_rows]
    rows = [row for part in parts for row in part["rows"]]
    rows.sort(key=lambda r: (problems.index(r["problem"]), exec_models.index(r["model"])))  # stable: sweep order kept
    summary = _write(rows, problems, exec_models, cfg, [part["measured_on"] for part in parts], table, summary_path)
    prov.finish([table, summary_path], shards=[str(p) for p in shard_rows])
    return summary

