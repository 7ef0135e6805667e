"""Evaluate generations: build (cached, parallel), sandboxed runs, validation, timing sweeps, metrics.

Input: a generations file in ParEval's format (records with name, parallelism_model, outputs, ...), or a
translation file (ParEval's translation task: the same records with translation_src_model and the other
translation fields, translation.py; each output a sample of its target model, its rows carrying `task` and
`source_model`, its metrics per pair under `by_translation`).
Outputs, in DIR:
    samples.jsonl       the per-sample rows, appended as each sample finishes (the resume log)
    results.parquet     one row per sample x resource configuration: verdict, times, spread, build log excerpt
    metrics.json        pass@k, build@k, speedup_n@k, efficiency_n@k, _max variants, expected speedup
    metrics.csv         the same as a long table
An interrupted evaluation resumes: samples already in samples.jsonl are not built or run again.
Identical programs (same problem, execution model and body: common when a model samples at low temperature)
are built and run once; the other samples get copies of that program's rows, marked in `run_shared_from`
(the sample whose runs they are); so are programs another evaluation ran under the same settings, given as
`share_runs_from` (runs_of_another_evaluation: the self-test generators' translations, which are the programs
their generation evaluation ran). pass@k is unchanged for a program whose verdict does not vary from run to
run; for a racy one the copies count as one trial, not several (`share_identical_runs: false` runs each).
Samples run in the file's order, each as soon as its builds are done, while later ones still build (only where
the runs are raised above the compilers: MeasureConfig.overlaps_builds_and_runs). Execution models whose toolchain is missing
here (no mpirun, no GPU for CUDA/HIP, ...) are reported before any work starts and skipped; metrics.json lists
them with the reason.

    python -m workflow_scripts.pcgbench evaluate GENERATIONS.json --out DIR     (evaluate_generations)
or, from Snakemake (rules/pcgbench_tasks.smk): rule pcgbench_evaluate (step evaluate.py) evaluates one shard of a
generator's samples (evaluate_shard; shards.py: by execution model and problem, each on the node its model needs),
rule pcgbench_merge (step merge.py) writes the generator's outputs from its shards (merge), as evaluate_generations
writes them. Where the plan is one shard (the tiny config) rule pcgbench_evaluate runs evaluate_generations on it,
and there is no merge.

Every run is one call of the package's run_program (run.py, in the sandbox); an OpenMP sample's thread counts
at one rank count are one run (runs_of_sweep), the others one run per resource configuration. Verdicts (verdicts.py):
prompt_mismatch (the record's prompt declares another interface than the problem its name names: reported
per output, not built, not in the metrics; see pareval_format.py; `malformed` records, text UTF-8 cannot hold,
are reported the same way), build_error, tampering and resource_overuse (what the sample's object defines or
calls beyond its function: tampering.py; checked after a successful build, and it is not run; at run time, a
result line without the run's nonce or times that do not fit the wall time measured outside is tampering, and CPU
time above the cores given is resource_overuse: run.py), no_parallelism (the body does not use the execution model its prompt asked for; checked after
a successful build, and it is not run), race_detected (OpenMP and MPI+OpenMP samples, with `race_check` on: the sample's
ThreadSanitizer build, run once before any timed run at a size where every thread works, reported a data race;
run.check_races),
timeout, crash,
killed_resource_limit, wrong_answer, ok. A sample's verdict is that of the first run that failed (the sweep
stops there), or ok when all passed. The `race_check` column says what the race check found
("clean", "race", "inconclusive: why", or empty where none ran).
"""


import concurrent.futures
import dataclasses
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Progress, Provenance, write_json
from workflow_scripts.common.config import schema_default
from workflow_scripts.common.io import atomic_path
from workflow_scripts.measure import (
    CRASH,
    OK,
    OPENMP_EXEC_MODELS,
    PROMPT_MISMATCH,
    TSAN,
    BuildCache,
    BuildRequest,
    BuildResult,
    MeasureConfig,
    ResourceConfig,
    SandboxUnavailable,
    check_sandbox,
    resource_sweep,
    run_program,
    summarise_times,
    uses_exec_model,
    vet,
)
from workflow_scripts.pcgbench.metrics import compute_metrics, metrics_long_table
from workflow_scripts.pcgbench.pareval_format import MALFORMED as MALFORMED_RECORD
from workflow_scripts.pcgbench.samples import Sample, load_samples, toolchain_report
from workflow_scripts.pcgbench.shards import Shard

logger = logging.getLogger(__name__)



@dataclasses.dataclass(kw_only=True)
class EvaluateConfig(MeasureConfig):
    """PCGBench's evaluation: how each program is measured (config section `measure`, MeasureConfig) and how the
    evaluation sweeps and scores (config section `pcgbench.evaluate`); the rules give both (paths.evaluation_settings)."""

    # N of the resource sweep: threads 1..N, ranks 1..N, ranks x threads <= N
    max_cores: int = schema_default("pcgbench.evaluate.max_cores")
    ks: tuple[int, ...] = schema_default("pcgbench.evaluate.ks")  # k of the @k metrics
    # run an identical program once and give its rows to every copy
    share_identical_runs: bool = schema_default("pcgbench.evaluate.share_identical_runs")
    # n at which the ParEval-definition speedup_n@k / efficiency_n@k are read, per execution model
    pareval_resources: dict = schema_default("pcgbench.evaluate.pareval_resources")

    def __post_init__(self) -> None:
        super().__post_init__()
        self.ks = tuple(self.ks)
        if not self.max_cores > 0:
            raise ValueError(f"pcgbench.evaluate.max_cores must be > 0, got {self.max_cores!r}")
        if not self.ks or min(self.ks) < 1:
            raise ValueError(f"pcgbench.evaluate.ks must be a non-empty list of integers >= 1, got {self.ks}")


RESUME_LOG = "samples.jsonl"
DETAIL_CHARS = 600  # how much of a failure's detail (a run's story, a build log) a row keeps


# ---------------------------------------------------------------------------------------------------------
# One sample


def _row(sample: Sample, build: BuildResult | None, verdict: str, detail: str, config: ResourceConfig | None = None,
         race_check: str | None = None, **timing) -> dict:  # fmt: skip
    row = {
        "sample_id": sample.sample_id,
        "program_id": sample.program_id,
        "run_shared_from": None,
        "generator": sample.generator,
        "model": sample.exec_model,
        "task": sample.task,  # generation or translation (translation.py)
        "source_model": sample.source_exec_model,  # a translation's source model (its pair: source_model->model)
        "problem": sample.problem.name,
        "problem_type": sample.problem.problem_type,
        "sample_index": sample.sample_index,
        "verdict": verdict,
        "detail": detail[:DETAIL_CHARS],
        "build_log": build.log if build else "",
        "build_cached": bool(build.cached) if build else False,
        "compile_s": build.compile_s if build else 0.0,
        "ranks": config.ranks if config else None,
        "threads": config.threads if config else None,
        "n_resources": config.n_resources if config else None,
        "race_check": race_check,
    }
    for name in ("time_median_s", "time_iqr_s", "time_min_s", "time_max_s", "reps", "baseline_time_median_s",
                 "baseline_time_iqr_s", "speedup", "efficiency", "run_wall_s"):  # fmt: skip
        row[name] = timing.get(name)
    return row


def runs_of_sweep(exec_model: str, configs: list[ResourceConfig]) -> list[list[ResourceConfig]]:
    """The sweep's configurations grouped into runs: an OpenMP model's thread counts at one rank count share one
    process (the driver's --threads-sweep: its inputs, their baseline answers and its pages are made once, not
    once per thread count); every other configuration is a run of its own."""
    runs: list[list[ResourceConfig]] = []
    for config in configs:
        if exec_model in OPENMP_EXEC_MODELS and runs and runs[-1][0].ranks == config.ranks:
            runs[-1].append(config)
        else:
            runs.append([config])
    return runs


def run_one(sample: Sample, exe: Path, configs: list[ResourceConfig], cfg: EvaluateConfig,
            reference_wall_s: float | None = None, stress: bool = True) -> list[tuple[str, str, dict]]:  # fmt: skip
    """One sandboxed run at one or more resource configurations of one rank count (runs_of_sweep): per
    configuration (verdict, detail, a row's timing fields). The speedup is the baseline's median repetition over
    the sample's at that configuration; run_wall_s is the whole run's. `stress`: with the stress validations."""
    first, *more = configs
    protocol = cfg.protocol(ranks=first.ranks, threads=first.threads, stress=stress,
                            more_threads=tuple(c.threads for c in more))  # fmt: skip
    run = run_program(sample.problem, sample.exec_model, exe, protocol, cfg.limits(reference_wall_s))
    if run.verdict != OK:
        return [(run.verdict, run.detail, {"run_wall_s": run.wall_s})] * len(configs)
    outcomes = []
    for config in configs:
        times_s, baseline_times_s = run.by_threads[config.threads]
        times, baseline = summarise_times(times_s), summarise_times(baseline_times_s)
        speedup = baseline.median_s / times.median_s if times.median_s > 0 else float("inf")
        outcomes.append((OK, "", dict(run_wall_s=run.wall_s, time_median_s=times.median_s, time_iqr_s=times.iqr_s,
                                      time_min_s=times.min_s, time_max_s=times.max_s, reps=times.reps,
                                      baseline_time_median_s=baseline.median_s, baseline_time_iqr_s=baseline.iqr_s,
                                      speedup=speedup, efficiency=speedup / config.n_resources)))  # fmt: skip
    return outcomes


def evaluate_sample(sample: Sample, build: BuildResult, cfg: EvaluateConfig,
                    reference_walls: dict[tuple, float] | None = None,
                    race_build: BuildResult | None = None) -> list[dict]:  # fmt: skip
    """All rows of one sample: one per resource configuration run (one row if it never ran).

    `reference_walls` maps (problem, exec_model, ranks, threads) to the reference solution's run time there,
    which sets the run's time limit (see EvaluateConfig.limits). `race_build`, the sample's ThreadSanitizer
    build, is run first: a race found there is the verdict, and nothing is timed.
    """
    vetting = vet(sample.problem, sample.exec_model, build, cfg, body=sample.body, race_build=race_build,
                  needs_parallelism=True)  # fmt: skip
    race_check = vetting.race_check.column() if vetting.race_check is not None else None
    if vetting.verdict is not None:
        return [_row(sample, build, vetting.verdict, vetting.detail, race_check=race_check)]
    rows = []
    for i, configs in enumerate(runs_of_sweep(sample.exec_model, resource_sweep(sample.exec_model, cfg.max_cores))):
        # A run's limit follows the reference's run of the same configurations (each of its rows has that run's wall).
        walls = [(reference_walls or {}).get((sample.problem.name, sample.exec_model, c.ranks, c.threads)) for c in configs]
        reference_wall_s = max((w for w in walls if w is not None), default=None)
        outcomes = run_one(sample, build.exe, configs, cfg, reference_wall_s, stress=i == 0)
        for config, (verdict, detail, timing) in zip(configs, outcomes, strict=True):
            rows.append(_row(sample, build, verdict, detail, config, race_check=race_check, **timing))
        if outcomes[0][0] != OK:
            break  # the sample has failed; more configurations would only spend time
    final = next((r["verdict"] for r in rows if r["verdict"] != OK), OK)
    for row in rows:
        row["verdict"] = final  # a sample has one verdict; `detail` keeps each run's own story
    return rows


def evaluate_built(sample: Sample, build: concurrent.futures.Future, race_build: concurrent.futures.Future | None,
                   cfg: EvaluateConfig, reference_walls: dict[tuple, float] | None) -> list[dict]:  # fmt: skip
    """evaluate_sample once the sample's builds (futures of BuildCache.building) are done: a build's exception is
    raised here, within judged_safely."""
    return evaluate_sample(sample, build.result(), cfg, reference_walls, race_build.result() if race_build else None)


def judged_safely(sample: Sample, judge: Callable[..., list[dict]], *args) -> list[dict]:
    """judge(*args)'s rows, or, when building, inspecting, running or reading the sample raised, one row with that sample's
    verdict (CRASH: what it left could not be read) and the exception as its detail: no sample stops an evaluation.
    The sandbox's own failures (SandboxUnavailable, SandboxFailure) still stop it: they are never a sample's verdict."""
    try:
        return judge(*args)
    except SandboxUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 (anything a sample's bytes can raise in a parser)
        logger.warning("%s: the harness could not judge this sample", sample.sample_id, exc_info=True)
        return [_row(sample, None, CRASH, f"the harness could not read what this sample built or printed: "
                     f"{type(err).__name__}: {err}")]  # fmt: skip


# ---------------------------------------------------------------------------------------------------------
# Many samples, resumable


def read_resume_log(path: Path, fingerprint: str) -> dict[str, list[dict]]:
    """Finished samples' rows by sample id; a torn last line (killed mid-write) is ignored, and so are
    samples evaluated under other settings (another fingerprint: reps, sweep, limits, seed, ...)."""
    done: dict[str, list[dict]] = {}
    if not path.exists():
        return done
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            logger.warning("%s: ignoring a torn line (an interrupted run)", path)
            continue
        if record.get("fingerprint") == fingerprint:
            done[record["sample_id"]] = record["rows"]
    return done


def reference_run_times(results_path: Path | None) -> dict[tuple, float]:
    """(problem, exec_model, ranks, threads) -> the slowest passing reference run there, from its results.parquet."""
    if results_path is None:
        return {}
    rows = pd.read_parquet(results_path)
    rows = rows[(rows["verdict"] == OK) & rows["run_wall_s"].notna()]
    walls = rows.groupby(["problem", "model", "ranks", "threads"])["run_wall_s"].max()
    return {(p, m, int(r), int(t)): float(w) for (p, m, r, t), w in walls.items()}


def shared_rows(sample: Sample, rows: list[dict]) -> list[dict]:
    """The rows of an identical program's runs, given to `sample` (nothing of it was built or run again)."""
    return [dict(row, sample_id=sample.sample_id, generator=sample.generator, sample_index=sample.sample_index,
                 task=sample.task, source_model=sample.source_exec_model, build_cached=True, compile_s=0.0,
                 run_shared_from=row.get("run_shared_from") or row["sample_id"])
            for row in rows]  # fmt: skip


def runs_of_another_evaluation(results_path: Path | None, fingerprint: str) -> dict[str, list[dict]]:
    """{program_id: rows} of the programs another evaluation ran under the same settings: its resume log (samples.jsonl
    beside its results.parquet) read with this evaluation's fingerprint, so rows measured under other settings are
    not taken. A sample here of the same program (problem, execution model, body) takes those rows, marked in
    run_shared_from, instead of being built and run again, as identical samples within one evaluation do: the
    translation evaluation of a generator whose outputs are programs its generation evaluation ran (the self-test
    generators: a reference body is the same program whatever the prompt asked)."""
    if results_path is None:
        return {}
    log = Path(results_path).parent / RESUME_LOG
    done = read_resume_log(log, fingerprint)
    if not done:
        logger.info("%s holds no sample evaluated under these settings: no runs to share", log)
    measured: dict[str, list[dict]] = {}
    for rows in done.values():
        measured.setdefault(rows[0]["program_id"], rows)
    return measured


def evaluate_samples(samples: list[Sample], out_dir: Path, cfg: EvaluateConfig,
                     reference_walls: dict[tuple, float] | None = None,
                     measured_elsewhere: dict[str, list[dict]] | None = None) -> tuple[pd.DataFrame, dict[str, str]]:  # fmt: skip
    """Evaluate `samples` (resuming from out_dir/samples.jsonl); returns the rows and the skipped models. With
    share_identical_runs, a sample of a program in `measured_elsewhere` (runs_of_another_evaluation) takes its rows."""
    out_dir.mkdir(parents=True, exist_ok=True)
    skipped = toolchain_report({s.exec_model for s in samples})
    runnable = [s for s in samples if s.exec_model not in skipped]
    log_path = out_dir / RESUME_LOG
    done = read_resume_log(log_path, cfg.fingerprint())
    pending = [s for s in runnable if s.sample_id not in done]
    # A program is run once when runs are shared (key: program_id), else every sample is (key: sample_id).
    run_key = (lambda s: s.program_id) if cfg.share_identical_runs else (lambda s: s.sample_id)
    # Rows by key of the programs already run (here or before an interruption), for identical samples to take.
    measured = {rows[0]["program_id"]: rows for rows in done.values()} if cfg.share_identical_runs else {}
    if cfg.share_identical_runs and measured_elsewhere:
        measured = {**measured_elsewhere, **measured}
        taken = sum(1 for s in pending if s.program_id in measured_elsewhere)
        logger.info("%d of the %d samples to do are programs another evaluation ran under these settings: they take "
                    "its rows", taken, len(pending))  # fmt: skip
    to_run: dict[str, Sample] = {}  # key -> the first pending sample of a program not run yet
    for sample in pending:
        if run_key(sample) not in measured:
            to_run.setdefault(run_key(sample), sample)
    logger.info("%d samples: %d already evaluated, %d to do (%d programs to run), %d skipped (models %s)",
                len(samples), len(runnable) - len(pending), len(pending), len(to_run), len(samples) - len(runnable),
                sorted(skipped) or "none")  # fmt: skip
    if to_run:
        check_sandbox()  # the sandbox works here (before any sample is built or judged), or stop and say why
    # Per program its build, then (OpenMP models) its race-check build; a body that does not use its model is
    # never run (no_parallelism): it needs no race-check build. Built in the order the programs are run.
    requests, build_index, race_build_index = [], {}, {}
    for key, s in to_run.items():
        build_index[key] = len(requests)
        requests.append(BuildRequest(problem=s.problem, exec_model=s.exec_model, body=s.body))
        if cfg.race_checked(s.exec_model) and uses_exec_model(s.exec_model, s.body)[0]:
            race_build_index[key] = len(requests)
            requests.append(BuildRequest(problem=s.problem, exec_model=s.exec_model, body=s.body, sanitizer=TSAN))
    cache = BuildCache(cfg.build_config())
    progress = Progress("evaluated samples", total=len(pending), unit="sample", logger=logger)
    with (cache.building(requests, overlap=cfg.overlaps_builds_and_runs()) as builds,
          open(log_path, "a", encoding="utf-8") as log):
        for sample in pending:
            key = run_key(sample)
            if to_run.get(key) is sample:
                race_build = builds[race_build_index[key]] if key in race_build_index else None
                rows = measured[key] = judged_safely(sample, evaluate_built, sample, builds[build_index[key]],
                                                     race_build, cfg, reference_walls)  # fmt: skip
            else:
                rows = shared_rows(sample, measured[key])
            done[sample.sample_id] = rows
            log.write(json.dumps({"sample_id": sample.sample_id, "fingerprint": cfg.fingerprint(), "rows": rows}) + "\n")
            log.flush()
            os.fsync(log.fileno())
            logger.info("%s %s %s #%d: %s%s", sample.generator, sample.exec_model, sample.problem.name,
                        sample.sample_index, rows[0]["verdict"],
                        f" (runs of {rows[0]['run_shared_from']})" if rows[0]["run_shared_from"] else "")  # fmt: skip
            progress.advance()
    progress.finish()
    rows = [row for s in runnable for row in done[s.sample_id]]
    return pd.DataFrame(rows), skipped


def write_outputs(rows: pd.DataFrame, skipped: dict[str, str], out_dir: Path, cfg: EvaluateConfig) -> dict:
    """results.parquet, metrics.json, metrics.csv (atomically). Returns the metrics."""
    if rows.empty:
        raise ValueError("no sample could be evaluated: every execution model was skipped "
                         f"({'; '.join(f'{m}: {w}' for m, w in skipped.items())})")
    rows = rows.sort_values(["generator", "model", "problem", "sample_index", "n_resources"], kind="stable")
    with atomic_path(out_dir / "results.parquet") as tmp:
        rows.to_parquet(tmp, index=False)
    metrics = compute_metrics(rows, ks=cfg.ks, pareval_resources=cfg.pareval_resources)
    metrics["skipped_models"] = skipped
    metrics["verdict_counts"] = {
        generator: group.drop_duplicates("sample_id")["verdict"].value_counts().to_dict()
        for generator, group in rows.groupby("generator")
    }
    samples = rows.drop_duplicates("sample_id")
    metrics["samples"] = {"total": len(samples), "distinct_programs": int(samples["program_id"].nunique()),
                          "given_shared_runs": int(samples["run_shared_from"].notna().sum())}  # fmt: skip
    write_json(out_dir / "metrics.json", metrics)
    with atomic_path(out_dir / "metrics.csv") as tmp:
        metrics_long_table(metrics).to_csv(tmp, index=False)
    return metrics


def finish(rows: pd.DataFrame, skipped: dict[str, str], unscored: list, out_dir: Path, cfg: EvaluateConfig) -> dict:
    """The evaluation's outputs from its rows: results.parquet, metrics.json and metrics.csv, with the records that
    were not scored (a prompt_mismatch output gets a row of its own; no_driver and malformed records are listed in
    metrics.json). Returns the metrics."""
    mismatched = [_row(sample, None, PROMPT_MISMATCH, record.reason)
                  for record in unscored if record.status == PROMPT_MISMATCH for sample in record.samples]
    if mismatched:
        rows = pd.concat([rows, pd.DataFrame(mismatched)], ignore_index=True)
    metrics = write_outputs(rows, skipped, out_dir, cfg)
    for status in ("no_driver", PROMPT_MISMATCH, MALFORMED_RECORD):
        records = [{"record": r.record, "model": r.exec_model, "reason": r.reason} for r in unscored if r.status == status]
        if records:
            metrics[status] = records
    if unscored:
        write_json(out_dir / "metrics.json", metrics)
    return metrics


def evaluate_generations(generations: Path, out_dir: Path, cfg: EvaluateConfig, generator: str | None = None,
                         reference_results: Path | None = None, share_runs_from: Path | None = None,
                         shard: Shard | None = None) -> dict:  # fmt: skip
    """Evaluate one generations file into out_dir (see the module docstring). With `reference_results`
    (the reference generator's results.parquet) each run's time limit scales with the reference's. With
    `share_runs_from` (another evaluation's results.parquet) its programs are not run again
    (runs_of_another_evaluation). With `shard` (a plan's only shard) its models and problems only."""
    prov = Provenance.start(step="pcgbench.evaluate", config=dataclasses.asdict(cfg), seed=cfg.seed)
    out_dir = Path(out_dir)
    generator = generator or Path(generations).stem
    samples, unscored = load_samples(Path(generations), generator, cfg.suite_root)
    if shard is not None:
        samples = [s for s in samples if shard.holds(s.exec_model, s.problem.name)]
    rows, skipped = evaluate_samples(samples, out_dir, cfg, reference_run_times(reference_results),
                                     runs_of_another_evaluation(share_runs_from, cfg.fingerprint()))  # fmt: skip
    metrics = finish(rows, skipped, unscored, out_dir, cfg)
    prov.finish([out_dir / "results.parquet", out_dir / "metrics.json", out_dir / "metrics.csv"],
                generations=str(generations), share_runs_from=str(share_runs_from) if share_runs_from else None)
    return metrics


# ---------------------------------------------------------------------------------------------------------
# Shards of one evaluation (shards.py): each evaluated on its own, then merged


SHARD_SKIPPED = "skipped.json"  # a shard's models skipped here, with the reason (its node's toolchain)


def evaluate_shard(generations: Path, out_dir: Path, cfg: EvaluateConfig, generator: str, shard: Shard,
                   reference_results: Path | None = None, share_runs_from: Path | None = None) -> pd.DataFrame:  # fmt: skip
    """Evaluate the samples of one shard (its models and problems) into out_dir: results.parquet (its rows; none
    when the generator has no sample there) and skipped.json, for merge. Resumes as evaluate_generations does
    (samples.jsonl)."""
    prov = Provenance.start(step="pcgbench.evaluate_shard", config=dataclasses.asdict(cfg), seed=cfg.seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    samples, _ = load_samples(Path(generations), generator, cfg.suite_root)
    mine = [s for s in samples if shard.holds(s.exec_model, s.problem.name)]
    logger.info("shard %s of %s: %d of the %d samples", shard.name, generator, len(mine), len(samples))
    rows, skipped = evaluate_samples(mine, out_dir, cfg, reference_run_times(reference_results),
                                     runs_of_another_evaluation(share_runs_from, cfg.fingerprint()))  # fmt: skip
    with atomic_path(out_dir / "results.parquet") as tmp:
        rows.to_parquet(tmp, index=False)
    write_json(out_dir / SHARD_SKIPPED, skipped)
    prov.finish([out_dir / "results.parquet", out_dir / SHARD_SKIPPED], generations=str(generations),
                shard=dataclasses.asdict(shard))  # fmt: skip
    return rows


def merge(generations: Path, shard_dirs: list[Path], out_dir: Path, cfg: EvaluateConfig, generator: str) -> dict:
    """The generator's results.parquet, metrics.json and metrics.csv from its shards' (evaluate_shard), as one
    unsharded evaluation writes them. Every sample of a model not skipped must be in exactly one shard: a shard
    evaluated under another plan (pcgbench.shards changed since) is named, not merged."""
    prov = Provenance.start(step="pcgbench.merge", config=dataclasses.asdict(cfg), seed=cfg.seed)
    out_dir = Path(out_dir)
    samples, unscored = load_samples(Path(generations), generator, cfg.suite_root)
    frames, skipped, owner = [], {}, {}
    for folder in map(Path, shard_dirs):
        frame = pd.read_parquet(folder / "results.parquet")
        skipped |= json.loads((folder / SHARD_SKIPPED).read_text())
        if frame.empty:  # no sample of the generator in this shard (an empty frame has no columns either)
            continue
        for sample_id in frame["sample_id"].unique():
            if sample_id in owner:
                raise ValueError(f"sample {sample_id} was evaluated in two shards, {owner[sample_id]} and {folder}: "
                                 "the shards were planned differently; remove them and run again")
            owner[sample_id] = folder
        frames.append(frame)
    missing = [s.sample_id for s in samples if s.exec_model not in skipped and s.sample_id not in owner]
    if missing:
        raise ValueError(f"{len(missing)} samples of {generations} are in no shard (first: {missing[0]}): the shards "
                         "were planned for other models or problems; remove them and run again")
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    metrics = finish(rows, skipped, unscored, out_dir, cfg)
    prov.finish([out_dir / "results.parquet", out_dir / "metrics.json", out_dir / "metrics.csv"],
                generations=str(generations), shards=[str(d) for d in shard_dirs])
    return metrics

