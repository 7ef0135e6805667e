"""PCGBench's wall time at the paper's scale, per shard and in total, from per-sample costs measured here.

    .venv/bin/python benchmarks/pcgbench_projection.py [--problems one_per_type] [--models serial,omp,mpi]
        [--timeout-fraction 0.05] [--efficiency 0] [--cpu-nodes 16] [--gpu-nodes 4] [--suggest]
        [--from-json results/pcgbench/benchmarks/projection.json] [--out PATH]

1. Measures, with the harness itself (no stubs), on this machine (2 cores, shared: the timings are indicative):
   - the serial reference of every problem of the config (the "scan"): its build (BuildCache.build_all, a cold
     sample cache on a warm machine cache: headers and drivers built first), a run (evaluation.run_one, the
     config's reps, warm-up, validations) at the timed size and at a second size (twice it, at most the paper
     size; half of it where the timed run takes --double-below-s or more). Each part of the run (the sample's
     calls, the baseline's calls, the rest: input generation, checks, start-up) grows as n^e, e measured between
     the two sizes, from the larger to the paper size (projection.extrapolate_run). The --paper-runs cheapest
     predicted under --paper-budget-s are measured there instead; the median of measured / predicted over them (at
     least 1) calibrates the other extrapolations. The table says which, per problem;
   - for --problems (one per problem type) and --models (serial, omp, mpi; any other CPU model on demand): the
     sample's build, its ThreadSanitizer build and race check (run.check_races, OpenMP models, at the timed size),
     a run at 1 thread or rank, the stress validations (OpenMP models: the same run with them, less it), and the
     sweep's runs at this machine's max_cores (2) as the evaluation makes them; an MPI run at 2 ranks less the run
     at 1 is the launch cost of a rank;
   - a CUDA build (nvcc compiles here; nothing runs: no GPU) of --gpu-build-problems problems.
   --from-json takes these measurements from an earlier output instead; where a problem's paper size has changed
   since, its run there is extrapolated again from the stored runs and exponents (projection.rescale_scan).
2. Projects every shard of shards.plan_for(the config's pcgbench) for every generator (pcgbench.generators:
   their real outputs from generators.generate, identical ones built and run once; pcgbench.language_models:
   `samples` distinct samples per prompt, --timeout-fraction of them timing out) and the translation task (the
   language models' 143 tasks; the self-test generators' translations are programs their generation evaluation
   built and ran: cached builds, shared runs, no cost), and the suite's reference check (one job per shard):
   projection.paper_costs and projection.project_jobs say how.
3. Prints the slowest shard jobs against their node kind's runtime (pcgbench.cluster), per generator and per
   execution model, the totals (node-hours per kind, wall time on --cpu-nodes / --gpu-nodes nodes), the
   sensitivity to the time-out fraction and the efficiency, and with --suggest the largest problems_per_shard at
   which every job fits. Exit status 1 when a shard's job does not fit its runtime.

Assumptions (printed with the numbers): a configuration at n threads or ranks takes the 1-resource run's time
(--efficiency 0, an upper bound; with E > 0 the sample's calls take 1/(n E) of it, the serial baseline's calls and
the rest nothing less); an MPI configuration adds (ranks - 1) x the measured launch cost of a rank; every language
model sample is a distinct program that passes the sweep or times out (a wrong answer would end it sooner); a
sample of any model is no faster at 1 thread or rank than the serial reference; CUDA and HIP runs are not measured
(no GPU) and are assumed to take the serial reference's run at the paper size (their baseline is that serial code).

Measured on the 2-core shared machine on 2026-12-06 (load 1.3 -> 1.7; 330 s of measurement), config/paper.yaml, the
defaults:
- per sample, cold sample cache: build serial 0.19 s (median of 68 problems), omp 0.20 s + its ThreadSanitizer
  build 0.25 s + race check 0.24 s, mpi 0.64 s, cuda 2.6 s (nvcc, build-only); the sweep at 2 cores, timed size:
  serial 0.43 s, omp 0.52 s, mpi 1.20 s (medians of 12 problems); omp's 1-thread run is the serial one's, mpi's 1.06
  x it + 0.29 s; the stress validations cost 9.7 calls of the sample;
- the serial reference's run at the paper size, ParEval's sizes (its 60 problems; --from-json, extrapolated again):
  0.001 s (scan_max_subarray, 122x below its timed size: the start-up shrinks with it, an underestimate) to 2.9 s
  (dense_la_axpy); the suite's own 8 problems, at the sizes of ParEval's problems of their type, are as short;
  exponents 1.0 (reductions, transforms) to 3.0 (gemm, solve) and 3.6-4.0 (sparse LU, solve);
- projected for config/paper.yaml (problems_per_shard 10, 12 h runtime, run_timeout_s 600), --from-json: 644 CPU
  shards (1253 jobs), 620 node-hours (196 / 1893 with 0% / 20% of the language models' samples timing out; 607 at
  efficiency 0.5), longest job 3.4 h (mpi+omp; 9.3 h with 20% time-outs); 182 GPU shards (350 jobs), 59 node-hours
  (runs assumed: no GPU); on 16 CPU and 4 GPU nodes about 39 h and 15 h of wall time; no reference runs past
  run_timeout_s. Per model, CPU node-hours: serial 25, omp 264, mpi 81, mpi+omp 195, kokkos 56. The time-outs
  dominate: a sample that times out costs max(120 s, 10 x the reference's run) per run, and an OpenMP one also
  run_timeout_s in its race check.
One run; the least certain numbers are the extrapolations of single problems (two sizes, a loaded machine). The
figures at the earlier paper sizes (2-8000x ParEval's): benchmarks/HISTORY.md.
"""

import argparse
import dataclasses
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workflow_scripts.common import write_json  # noqa: E402
from workflow_scripts.common.config import load_config  # noqa: E402
from workflow_scripts.measure import (  # noqa: E402
    BuildCache,
    BuildConfig,
    BuildRequest,
    check_races,
    check_sandbox,
    driver_program,
    resource_sweep,
    suite,
    toolchains,
)
from workflow_scripts.pcgbench import (  # noqa: E402
    EvaluateConfig,
    Sample,
    evaluation,
    evaluation_settings,
    generators,
    pareval_pairs,
    parse_pair,
    prompt_record,
    select_problems,
    shards,
)
from workflow_scripts.pcgbench import projection as pj  # noqa: E402

BUILD_THREADS = 2  # threads: 2 of rules pcgbench_build and pcgbench_evaluate: compiler processes at once
PARALLEL_RANKS_PAREVAL = 512  # ParEval's MPI runs: 512 ranks over several nodes
HOUR_S = 3600.0


# ---------------------------------------------------------------------------------------------------------
# Measurement (the harness's own build, race check and runs)


def timed(fn, *args, **kwargs):
    started = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, time.perf_counter() - started


def build(cache: BuildCache, problem, exec_model: str, sanitizer: str | None = None):
    """(BuildResult, seconds) of one reference body as a sample: compile, link, inspection; one compiler process."""
    request = BuildRequest(problem=problem, exec_model=exec_model, body=suite.reference_body(problem, exec_model), sanitizer=sanitizer)
    (result,), seconds = timed(cache.build_all, [request])
    if not result.ok:
        raise RuntimeError(f"{problem.name}/{exec_model}{'/' + sanitizer if sanitizer else ''}: the reference does not "
                           f"build: {result.log[-400:]}")
    return result, seconds


def run(problem, exec_model: str, exe: Path, configs, cfg: EvaluateConfig, stress: bool) -> dict:
    """One sandboxed run (evaluation.run_one) of the reference as a sample: its wall, sample and baseline calls."""
    sample = Sample(generator="reference", problem=problem, exec_model=exec_model, sample_index=0,
                    body=suite.reference_body(problem, exec_model))  # fmt: skip
    verdict, detail, timing = evaluation.run_one(sample, exe, list(configs), cfg, None, stress=stress)[0]
    if verdict != "ok":
        raise RuntimeError(f"{problem.name}/{exec_model} at {problem.sizes[cfg.size]}: {verdict}: {detail[:300]}")
    return {"wall_s": timing["run_wall_s"], "sample_s": timing["time_median_s"],
            "baseline_s": timing["baseline_time_median_s"]}  # fmt: skip


def warm_machine_cache(cache: BuildCache, pairs) -> float:
    """Build the standard headers and drivers the timed builds need (the machine's cache), as a long-lived node has
    them: the timed builds are then the samples' own."""
    started = time.perf_counter()
    for problem, exec_model, sanitizer in pairs:
        toolchains.standard_header_dir(exec_model, sanitizer)
        driver_program.build_driver(problem, exec_model, cache.drivers)
    return time.perf_counter() - started


def scan_problem(problem, cache: BuildCache, cfg: EvaluateConfig, double_below_s: float) -> tuple[dict, Path]:
    """The serial reference's build and its run at the timed size and at a second size: twice the timed size (at
    most the paper size) when the timed run is shorter than `double_below_s` (longer calls time better and are closer
    to the paper size), else half of it. How its run grows with the size gives its run at the paper size, extrapolated
    from the larger of the two (calibrate_at_paper may measure it there)."""
    sizes = problem.sizes
    n_timed, n_paper = sizes["timed"], sizes.get("paper", sizes["timed"])
    result, build_s = build(cache, problem, "serial")
    config = resource_sweep("serial", 1)
    timed_run = run(problem, "serial", result.exe, config, cfg, stress=False)
    n_second = min(2 * n_timed, n_paper) if timed_run["wall_s"] < double_below_s and n_paper > n_timed else n_timed // 2
    n_second = max(sizes["small"] + 1, n_second)
    second_run = run(dataclasses.replace(problem, sizes={**sizes, "timed": n_second}), "serial", result.exe, config, cfg,
                     stress=False)  # fmt: skip
    (n_small, small), (n_large, large) = sorted([(n_timed, timed_run), (n_second, second_run)], key=lambda r: r[0])
    calls = cfg.validations + cfg.warmup + cfg.reps
    predicted, exponents = pj.extrapolate_run(large, small, size_ratio=n_large / n_small, paper_ratio=n_paper / n_large,
                                              calls=calls)  # fmt: skip
    # The exponent of the whole run from the timed size, as its parts add up to at the paper size
    exponent = math.log(predicted / timed_run["wall_s"]) / math.log(n_paper / n_timed) if n_paper != n_timed else 1.0
    record = {"problem_type": problem.problem_type, "n_timed": n_timed, "n_second": n_second, "n_paper": n_paper,
              "build_s": build_s, "wall_timed_s": timed_run["wall_s"], "sample_timed_s": timed_run["sample_s"],
              "baseline_timed_s": timed_run["baseline_s"], "wall_second_s": second_run["wall_s"],
              "sample_second_s": second_run["sample_s"], "baseline_second_s": second_run["baseline_s"],
              "exponent": exponent, "exponents": exponents, "predicted_paper_s": predicted, "wall_paper_s": predicted,
              "method": f"from {n_large}: " + ", ".join(f"{k} n^{e:.2f}" for k, e in exponents.items()),
              "scale": predicted / timed_run["wall_s"]}  # fmt: skip
    return record, result.exe


def calibrate_at_paper(problem, record: dict, exe: Path, cfg: EvaluateConfig) -> None:
    """Run the serial reference at the paper size: its measured run replaces the extrapolation (and tells how far
    extrapolations fall short: projection.extrapolation_calibration)."""
    paper_run = run(problem, "serial", exe, resource_sweep("serial", 1), dataclasses.replace(cfg, size="paper"),
                    stress=False)  # fmt: skip
    record.update(method=pj.PAPER_MEASURED, wall_paper_s=paper_run["wall_s"],
                  scale=paper_run["wall_s"] / record["wall_timed_s"])  # fmt: skip


def measure_exec_model(problem, exec_model: str, cache: BuildCache, cfg: EvaluateConfig, cores: int) -> dict:
    """A model's sample of `problem`: build, race check (OpenMP models), the 1-resource run, the stress validations,
    and the sweep at this machine's cores as the evaluation runs it."""
    result, build_s = build(cache, problem, exec_model)
    record = {"build_s": build_s}
    if exec_model in toolchains.RACE_CHECKED_EXEC_MODELS and cfg.race_check:
        race_build, record["race_build_s"] = build(cache, problem, exec_model, toolchains.TSAN)
        check, record["race_check_s"] = timed(check_races, problem, exec_model, race_build, seed=cfg.seed,
                                              limits=cfg.limits(), nice=cfg.run_nice)  # fmt: skip
        record["race_check"] = check.status  # body None: at the timed size, the larger of the two
    sweep = resource_sweep(exec_model, cores)
    one = run(problem, exec_model, result.exe, sweep[:1], cfg, stress=False)
    record.update(wall_1_s=one["wall_s"], sample_1_s=one["sample_s"], baseline_1_s=one["baseline_s"])
    if exec_model in suite.OPENMP_EXEC_MODELS and cfg.stress_validations:
        stressed = run(problem, exec_model, result.exe, sweep[:1], cfg, stress=True)
        record["stress_s"] = max(0.0, stressed["wall_s"] - one["wall_s"])
    record["runs_here"] = []
    for i, configs in enumerate(evaluation.runs_of_sweep(exec_model, sweep)):
        measured = run(problem, exec_model, result.exe, configs, cfg, stress=i == 0)
        record["runs_here"].append({"configs": [[c.ranks, c.threads] for c in configs], "wall_s": measured["wall_s"]})
        if exec_model in pj.MPI_EXEC_MODELS and configs[0].ranks == 2 and "mpi_launch_s" not in record:
            record["mpi_launch_s"] = max(0.0, measured["wall_s"] - one["wall_s"])
    record["sweep_here_s"] = sum(r["wall_s"] for r in record["runs_here"])
    return record


def measure(pcgbench: dict, seed: int, args) -> dict:
    cores = os.cpu_count() or 1
    started, load_start = time.perf_counter(), os.getloadavg()[0]
    settings = {k: v for k, v in pcgbench["evaluate"].items() if k != "cache_dir"}
    work = Path(tempfile.mkdtemp(prefix="pcgbench_projection_"))
    try:
        # The paper's protocol (reps, warm-up, validations, stress validations, race check, priority) at this
        # machine's cores; the size is the timed one (scaled, or measured at the paper size where cheap).
        cfg = EvaluateConfig(**{**settings, "max_cores": cores, "size": "timed", "run_timeout_s": args.run_limit_s,
                                "seed": seed, "jobs": 1, "cache_dir": work / "cache"})  # fmt: skip
        check_sandbox()
        cache = BuildCache(BuildConfig(cache_dir=cfg.cache_dir, jobs=1, compile_timeout_s=cfg.compile_timeout_s))
        every = select_problems(suite.load_suite(), pcgbench["problems"])
        chosen = select_problems(suite.load_suite(), args.problems if args.problems in ("all", "one_per_type")
                                 else args.problems.split(","))  # fmt: skip
        exec_models = [m for m in args.models.split(",") if m != "serial" and m not in pj_gpu(pcgbench)]
        runnable = [m for m in exec_models if toolchains.toolchain_status(m)[0]]
        gpu = [m for m in pj_gpu(pcgbench) if m in pcgbench["models"] and toolchains.build_status(m)[0]]
        gpu_problems = chosen[: args.gpu_build_problems]
        pairs = [(p, "serial", None) for p in every] + [(p, m, None) for p in chosen for m in runnable]
        pairs += [(p, m, toolchains.TSAN) for p in chosen for m in runnable if m in toolchains.RACE_CHECKED_EXEC_MODELS]
        pairs += [(p, m, None) for p in gpu_problems for m in gpu]
        warm_s = warm_machine_cache(cache, pairs)
        print(f"warm machine cache (headers, drivers): {warm_s:.0f} s", flush=True)
        measured = {"scan": {}, "models": {m: {} for m in runnable}, "gpu_builds": {m: {} for m in gpu}, "failed": {}}
        exes = {}
        for problem in every:
            try:
                measured["scan"][problem.name], exes[problem.name] = scan_problem(problem, cache, cfg, args.double_below_s)
            except RuntimeError as err:
                measured["failed"][f"{problem.name}/serial"] = str(err)
        # The cheapest predicted runs at the paper size are measured there: they calibrate the extrapolations.
        cheap = sorted((s["predicted_paper_s"], p.name, p) for p in every if (s := measured["scan"].get(p.name))
                       and s["n_paper"] != s["n_timed"] and s["predicted_paper_s"] <= args.paper_budget_s)  # fmt: skip
        for _, name, problem in cheap[: args.paper_runs]:
            try:
                calibrate_at_paper(problem, measured["scan"][name], exes[name], cfg)
            except RuntimeError as err:
                measured["failed"][f"{name}/serial at the paper size"] = str(err)
        measured["models"]["serial"] = {name: {"build_s": s["build_s"], "wall_1_s": s["wall_timed_s"],
                                               "sample_1_s": s["sample_timed_s"], "baseline_1_s": s["baseline_timed_s"],
                                               "sweep_here_s": s["wall_timed_s"]}
                                        for name, s in measured["scan"].items()}  # fmt: skip
        print(f"serial scan of {len(every)} problems: {time.perf_counter() - started:.0f} s", flush=True)
        for exec_model in runnable:
            for problem in chosen:
                try:
                    measured["models"][exec_model][problem.name] = measure_exec_model(problem, exec_model, cache, cfg, cores)
                except RuntimeError as err:
                    measured["failed"][f"{problem.name}/{exec_model}"] = str(err)
            print(f"{exec_model} on {len(chosen)} problems: {time.perf_counter() - started:.0f} s", flush=True)
        for exec_model in gpu:
            for problem in gpu_problems:
                measured["gpu_builds"][exec_model][problem.name] = build(cache, problem, exec_model)[1]
        measured.update(
            machine={"cores": cores, "load_average_start": load_start, "load_average_end": os.getloadavg()[0],
                     "nvcc": shutil.which("nvcc") is not None, "mpirun": shutil.which("mpirun") is not None,
                     "note": f"{cores}-core shared machine: timings indicative"},
            settings={"problems": args.problems, "models_measured": ["serial", *runnable], "gpu_built": gpu,
                      "not_runnable_here": {m: toolchains.toolchain_status(m)[1] for m in exec_models if m not in runnable},
                      "reps": cfg.reps, "warmup": cfg.warmup, "validations": cfg.validations,
                      "stress_validations": cfg.stress_validations, "stress_threads": cfg.stress_threads,
                      "max_cores_here": cores, "paper_budget_s": args.paper_budget_s, "double_below_s": args.double_below_s,
                      "paper_runs": args.paper_runs},
            warm_machine_cache_s=warm_s, measurement_wall_s=time.perf_counter() - started)  # fmt: skip
        return measured
    finally:
        shutil.rmtree(work, ignore_errors=True)


def pj_gpu(pcgbench: dict) -> list[str]:
    return list(pcgbench["cluster"]["gpu_models"])


# ---------------------------------------------------------------------------------------------------------
# Projection


def populations(pcgbench: dict, problems, timeout_fraction: float) -> dict:
    """(generator, task) -> projection.Population for every evaluation of the config, and the reference check."""
    exec_models, samples = pcgbench["models"], pcgbench["samples"]
    tasks = {(p.name, m): 1 for p in problems for m in exec_models}
    out = {("reference_check", pj.REFERENCE_CHECK): pj.check_population(tasks)}
    records = [prompt_record(p, m) for p in problems for m in exec_models]
    for generator in pcgbench["generators"]:
        filled, expected = generators.generate(records, generator, samples=samples, mutants=pcgbench["mutants"],
                                               mutant_problems=pcgbench["mutant_problems"],
                                               race_check=pcgbench["evaluate"]["race_check"])  # fmt: skip
        bodies = [body for record in filled for body in record["outputs"]]
        out[(generator, pj.GENERATION)] = pj.self_test_population(expected, bodies)
    pairs = [parse_pair(name) for name in pcgbench["translation"]["pairs"]]
    translation_tasks: dict[tuple[str, str], int] = {}
    for problem in problems:
        for source, target in pareval_pairs(problem):
            if (source, target) in pairs and target in exec_models:
                translation_tasks[(problem.name, target)] = translation_tasks.get((problem.name, target), 0) + 1
    for name in pcgbench["language_models"]:
        out[(name, pj.GENERATION)] = pj.language_model_population(tasks, samples=samples,
                                                                  timeout_fraction=timeout_fraction)  # fmt: skip
        out[(name, pj.TRANSLATION)] = pj.language_model_population(translation_tasks, samples=samples,
                                                                   timeout_fraction=timeout_fraction)  # fmt: skip
    return out, sum(translation_tasks.values())


def project(measured: dict, pcgbench: dict, problems, *, timeout_fraction: float, efficiency: float,
            gpu_run_factor: float) -> tuple[list[pj.Job], dict]:  # fmt: skip
    ev = pcgbench["evaluate"]
    costs = pj.paper_costs(measured, {p.name: p.problem_type for p in problems}, pcgbench["models"],
                           max_cores=ev["max_cores"], calls_per_config=ev["validations"] + ev["warmup"] + ev["reps"],
                           efficiency=efficiency, race_check=ev["race_check"],
                           stress_validations=ev["stress_validations"], gpu_exec_models=tuple(pj_gpu(pcgbench)),
                           gpu_run_factor=gpu_run_factor)  # fmt: skip
    limits = pj.Limits(run_timeout_s=ev["run_timeout_s"], timeout_floor_s=ev["timeout_floor_s"],
                       timeout_factor=ev["timeout_factor"], build_threads=BUILD_THREADS)  # fmt: skip
    pops, _ = populations(pcgbench, problems, timeout_fraction)
    jobs = pj.project_jobs(shards.plan_for(pcgbench), pops, costs, limits, gpu_exec_models=pj_gpu(pcgbench))
    return jobs, {"costs": costs, "limits": limits, "populations": pops}


def shard_sizes(pcgbench: dict, problems, inputs: dict, runtimes: dict[str, float], sizes: list[int]) -> dict:
    """Per problems_per_shard: the shards (all generators), the longest job, how many do not fit; at the smallest
    size, the (problem, exec_model) pairs whose jobs do not fit even alone."""
    table, alone = [], {}
    for size in sizes:
        plan = shards.plan(pcgbench["models"], [p.name for p in problems], by_model=True, problems_per_shard=size)
        jobs = pj.project_jobs(plan, inputs["populations"], inputs["costs"], inputs["limits"], gpu_exec_models=pj_gpu(pcgbench))
        bad = [j for j in jobs if not pj.fits(j, runtimes[j.kind])]
        table.append({"problems_per_shard": size, "shards": len(jobs), "not_fitting": len(bad),
                      "longest_job_hours": max(j.longest_job_s for j in jobs) / HOUR_S})  # fmt: skip
        if size == 1:
            by_name = {s.name: s for s in plan}
            for job in bad:
                key = f"{by_name[job.shard].problems[0]}/{job.exec_models[0]}" + ("" if job.runs_measured else " (assumed)")
                alone[key] = max(alone.get(key, 0.0), job.longest_job_s / HOUR_S)
    return {"table": table, "not_fitting_alone_hours": dict(sorted(alone.items(), key=lambda kv: -kv[1]))}


def runtime_s(pcgbench: dict, configfile: str) -> dict[str, float]:
    """Each node kind's job runtime in seconds; a config without one stops here, before minutes of measuring."""
    missing = [kind for kind in ("cpu", "gpu") if "runtime" not in pcgbench["cluster"][kind]]
    if missing:
        sys.exit(f"{configfile}: pcgbench.cluster.{missing[0]}.runtime (minutes) is not set; a projection checks "
                 "every shard's jobs against it: set it, or use --configfile config/paper.yaml")
    return {kind: 60.0 * pcgbench["cluster"][kind]["runtime"] for kind in ("cpu", "gpu")}


def totals(jobs: list[pj.Job], inputs: dict, runtimes: dict[str, float], nodes: dict[str, int]) -> dict:
    out = {"references_over_run_timeout": len(pj.references_over_limit(inputs["costs"], inputs["limits"]))}
    for kind in ("cpu", "gpu"):
        mine = [j for j in jobs if j.kind == kind]
        durations = [j.total_s for j in mine]
        out[kind] = {"shards": len(mine), "slurm_jobs": sum(1 if j.one_job else 2 for j in mine),
                     "node_hours": sum(durations) / HOUR_S, "nodes": nodes[kind],
                     "wall_hours": pj.makespan_s(durations, nodes[kind]) / HOUR_S if durations else 0.0,
                     "longest_job_hours": max((j.longest_job_s for j in mine), default=0.0) / HOUR_S,
                     "not_fitting": sum(not pj.fits(j, runtimes[kind]) for j in mine)}  # fmt: skip
    return out


def hours(seconds: float) -> str:
    return f"{seconds / HOUR_S:8.2f}"


def print_measurements(measured: dict, pcgbench: dict) -> None:
    machine = measured["machine"]
    print(f"\n== Measured here ({machine['note']}; load {machine['load_average_start']:.1f} -> "
          f"{machine['load_average_end']:.1f}; {measured['measurement_wall_s']:.0f} s in all)")
    settings = measured["settings"]
    print(f"protocol: reps {settings['reps']}, warm-up {settings['warmup']}, validations {settings['validations']}, "
          f"stress validations {settings['stress_validations']} x {settings['stress_threads']} threads, race check; "
          f"sweep at max_cores {settings['max_cores_here']}; builds with one compiler process, cold sample cache, "
          f"warm machine cache ({measured['warm_machine_cache_s']:.0f} s to warm)")  # fmt: skip
    print("\nSerial scan: the serial reference's run at the timed size, and how it grows to the paper size")
    calibration = pj.extrapolation_calibration(measured["scan"])
    print(f"(a run's sample calls, baseline calls and the rest each grow as n^e between the timed size and twice it (half "
          f"of it where the timed run is long), from the larger; exp: the whole run's from the timed size; an extrapolated "
          f"run is then x {calibration:.2f}, the median of measured / predicted over the problems measured at the paper size)")
    print(f"{'problem':32s} {'timed n':>9s} {'paper n':>10s} {'exp':>5s} {'build s':>8s} {'run t s':>8s} "
          f"{'predicted s':>11s} {'paper run s':>11s}  method")
    for name, s in measured["scan"].items():
        print(f"{name:32s} {s['n_timed']:9d} {s['n_paper']:10d} {s['exponent']:5.2f} {s['build_s']:8.2f} "
              f"{s['wall_timed_s']:8.2f} {s['predicted_paper_s']:11.1f} "
              f"{s['wall_timed_s'] * pj.paper_scale(s, calibration):11.1f}  {s['method']}")
    print(f"\nPer sample, timed size (build: compile + link + inspection; W1: run at 1 thread/rank; sweep here: the "
          f"evaluation's runs at {settings['max_cores_here']} cores)")
    print(f"{'model':8s} {'problem':32s} {'build s':>8s} {'tsan s':>7s} {'race s':>7s} {'W1 s':>7s} {'stress s':>8s} "
          f"{'launch s':>8s} {'sweep here s':>12s}")
    for exec_model, rows in measured["models"].items():
        if exec_model == "serial":
            continue
        for name, r in rows.items():
            print(f"{exec_model:8s} {name:32s} {r['build_s']:8.2f} {r.get('race_build_s', 0):7.2f} "
                  f"{r.get('race_check_s', 0):7.2f} {r['wall_1_s']:7.2f} {r.get('stress_s', 0):8.2f} "
                  f"{r.get('mpi_launch_s', 0):8.2f} {r['sweep_here_s']:12.2f}")
    for exec_model, rows in measured["models"].items():
        if rows:
            print(f"  {exec_model:8s} median build {statistics.median(r['build_s'] for r in rows.values()):.2f} s/sample "
                  f"over {len(rows)} problems; median sweep here {statistics.median(r['sweep_here_s'] for r in rows.values()):.2f} s")
    for exec_model, rows in measured["models"].items():
        if rows and exec_model != "serial":
            o = pj.exec_model_overhead(rows, measured["scan"])
            print(f"  {exec_model:8s} 1-resource run vs serial: sample call x {o.ratio:.2f} (pooled), + {o.fixed_s:.2f} s fixed "
                  f"(median){f', stress validations = {o.stress_per_call:.1f} sample calls' if o.stress_per_call else ''}")
    for exec_model, rows in measured.get("gpu_builds", {}).items():
        if rows:
            print(f"  {exec_model:8s} build (nvcc, build-only: no GPU) median {statistics.median(rows.values()):.2f} s/sample "
                  f"over {len(rows)} problems; runs not measured (no GPU)")
    for exec_model, why in settings["not_runnable_here"].items():
        print(f"  {exec_model}: not measured here ({why})")
    for what, why in measured["failed"].items():
        print(f"  FAILED {what}: {why}")


def print_projection(jobs, pcgbench, args, runtimes, sensitivity, chosen, suggestion, translation_count, over) -> None:
    ev, plan = pcgbench["evaluate"], shards.plan_for(pcgbench)
    generators_all = pcgbench["generators"] + pcgbench["language_models"]
    print(f"\n== Projection: {args.configfile}: {len({p for s in plan for p in s.problems})} problems x "
          f"{len(pcgbench['models'])} models, {len(plan)} shards per generator (problems_per_shard "
          f"{pcgbench['shards']['problems_per_shard']}), {len(generators_all)} generators ({len(pcgbench['generators'])} "
          f"self-test, {len(pcgbench['language_models'])} language models x {pcgbench['samples']} samples per prompt), "
          f"translation {translation_count} tasks x {len(pcgbench['language_models'])} language models; "
          f"max_cores {ev['max_cores']}, reps {ev['reps']}, size {ev['size']}")  # fmt: skip
    print(f"assumptions: builds {BUILD_THREADS} at a time (threads: 2 of the build/evaluate rules); a configuration "
          + ("takes the 1-thread/rank run's time (upper bound)" if args.efficiency <= 0 else
             f"at n threads/ranks: the sample's calls / (n x {args.efficiency}), the rest as at 1")
          + f"; MPI ranks stay on one node, + measured launch cost per rank; language model samples distinct, "
          f"{100 * args.timeout_fraction:.0f}% time out (limit max({ev['timeout_floor_s']:g} s, {ev['timeout_factor']:g} "
          f"x reference run); OpenMP: + the race check's {ev['run_timeout_s']:g} s), the rest pass every run; CUDA/HIP "
          f"runs not measured (no GPU): assumed {args.gpu_run_factor:g} x the serial reference's run at the paper size; "
          "the self-test generators' translations: cached builds and shared runs, not counted")  # fmt: skip
    print(f"runtime requested: cpu {runtimes['cpu'] / HOUR_S:g} h, gpu {runtimes['gpu'] / HOUR_S:g} h per job "
          "(a shard is a build job and an evaluate job; the reference check one job)")
    print(f"\nSlowest {args.top} shards (hours; 'job' is the longer of the shard's SLURM jobs)")
    print(f"{'generator':24s} {'task':18s} {'shard':10s} {'kind':4s} {'programs':>8s} {'build':>8s} {'evaluate':>8s} "
          f"{'job':>8s} {'runtime':>8s}  fits")
    for job in sorted(jobs, key=lambda j: -j.longest_job_s)[: args.top]:
        note = "" if job.runs_measured else "  (runs assumed: no GPU)"
        print(f"{job.generator:24s} {job.task:18s} {job.shard:10s} {job.kind:4s} {job.programs:8.0f} "
              f"{hours(job.build_s)} {hours(job.evaluate_s)} {hours(job.longest_job_s)} "
              f"{hours(runtimes[job.kind])}  {'yes' if pj.fits(job, runtimes[job.kind]) else 'NO'}{note}")
    for label, key in (("generator", lambda j: f"{j.generator} ({j.task})"), ("execution model", lambda j: "+".join(j.exec_models))):
        print(f"\nPer {label}: shards, node-hours, longest job (h), shards that do not fit")
        groups: dict[str, list[pj.Job]] = {}
        for job in jobs:
            groups.setdefault(key(job), []).append(job)
        for name, mine in groups.items():
            bad = sum(not pj.fits(j, runtimes[j.kind]) for j in mine)
            note = "" if all(j.runs_measured for j in mine) else "  (GPU shards' runs assumed: no GPU here)"
            print(f"  {name:40s} {len(mine):4d} {hours(sum(j.total_s for j in mine))} "
                  f"{hours(max(j.longest_job_s for j in mine))} {bad:4d}{note}")
    total = sensitivity[chosen]
    print("\nTotals")
    for kind in ("cpu", "gpu"):
        t = total[kind]
        print(f"  {kind}: {t['shards']} shards ({t['slurm_jobs']} SLURM jobs), {t['node_hours']:.0f} node-hours, "
              f"longest job {t['longest_job_hours']:.1f} h; on {t['nodes']} {kind.upper()} nodes about "
              f"{t['wall_hours']:.1f} h of wall time (longest first, dependencies aside); {t['not_fitting']} shards do "
              f"not fit {runtimes[kind] / HOUR_S:g} h")  # fmt: skip
    print("\nSensitivity: node-hours cpu / gpu, wall h on the nodes cpu / gpu, shards that do not fit, references over "
          "run_timeout_s")
    for label, t in sensitivity.items():
        print(f"  {label:44s} {t['cpu']['node_hours']:7.0f} / {t['gpu']['node_hours']:5.0f}  {t['cpu']['wall_hours']:6.1f} / "
              f"{t['gpu']['wall_hours']:5.1f}  {t['cpu']['not_fitting'] + t['gpu']['not_fitting']:5d}  "
              f"{t['references_over_run_timeout']:5d}")
    print(f"\nReferences whose run passes run_timeout_s ({ev['run_timeout_s']:g} s) at the paper size ({len(over)}; the "
          "reference times out there, and every sample's run there is cut at run_timeout_s):")
    for kind in pcgbench["models"]:
        mine = [f"{p} {s / 60:.0f} min" for p, m, s in over if m == kind]
        if mine:
            assumed = " (runs assumed: no GPU)" if kind in pj_gpu(pcgbench) else ""
            print(f"  {kind:8s} {len(mine):3d}{assumed}: " + ", ".join(mine))
    ranks = max(c.n_resources for c in resource_sweep("mpi", ev["max_cores"]))
    print(f"\nMPI: the sweep's largest rank count is {ranks} (max_cores, one node: the sandbox has no network, so a "
          f"sample's ranks cannot leave its node) against ParEval's {PARALLEL_RANKS_PAREVAL} ranks "
          f"({PARALLEL_RANKS_PAREVAL // ranks} such nodes); speedup_n@k at n = {PARALLEL_RANKS_PAREVAL} is not measured "
          f"(pareval_resources.mpi = {ev['pareval_resources'].get('mpi')})")  # fmt: skip
    if suggestion is not None:
        size = suggestion["largest_fitting"]
        print("\nproblems_per_shard: shards (all generators), longest job (h), shards that do not fit")
        for row in suggestion["table"]:
            print(f"  {row['problems_per_shard']:3d}  {row['shards']:5d}  {row['longest_job_hours']:7.1f}  {row['not_fitting']:5d}")
        print(f"Suggested problems_per_shard: {size if size is not None else 'none fits'} (now "
              f"{pcgbench['shards']['problems_per_shard']}; the largest at which every shard's jobs fit their runtime)")
        alone = suggestion["not_fitting_alone_hours"]
        if alone:
            print(f"  {len(alone)} (problem, model) pairs take longer than the runtime alone (one problem per shard; "
                  "hours of the longest generator's job): " + ", ".join(f"{k} {h:.1f}" for k, h in alone.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default="config/paper.yaml")
    parser.add_argument("--problems", default="one_per_type", help="measured in every model: one_per_type, all, or names")
    parser.add_argument("--models", default="serial,omp,mpi", help="CPU models measured (others take their costs)")
    parser.add_argument("--gpu-build-problems", type=int, default=3, help="problems whose CUDA build is measured")
    parser.add_argument("--double-below-s", type=float, default=2.0, help="second size 2x timed below this run, else 0.5x")
    parser.add_argument("--paper-budget-s", type=float, default=5.0, help="paper-size runs predicted under this...")
    parser.add_argument("--paper-runs", type=int, default=4, help="...are measured there, the cheapest this many")
    parser.add_argument("--run-limit-s", type=float, default=120.0, help="wall-clock limit of a measuring run")
    parser.add_argument("--timeout-fraction", type=float, default=0.05, help="language model samples that time out")
    parser.add_argument("--efficiency", type=float, default=0.0, help="parallel efficiency (0: 1-resource time, an upper bound)")
    parser.add_argument("--gpu-run-factor", type=float, default=1.0, help="assumed GPU run / serial reference run")
    parser.add_argument("--cpu-nodes", type=int, default=16)
    parser.add_argument("--gpu-nodes", type=int, default=4)
    parser.add_argument("--top", type=int, default=15, help="slowest shards printed")
    parser.add_argument("--suggest", action="store_true", help="the largest problems_per_shard at which all fit")
    parser.add_argument("--from-json", default="", help="reuse this earlier output's measurements")
    parser.add_argument("--out", default=str(REPO / "results/pcgbench/benchmarks/projection.json"))
    args = parser.parse_args()
    config = load_config(*dict.fromkeys([REPO / "config/config.yaml", REPO / args.configfile]))
    # The evaluation's settings are the sections measure and pcgbench.evaluate; the functions here read them as one.
    pcgbench = dict(config["pcgbench"], evaluate=evaluation_settings(config))
    problems = select_problems(suite.load_suite(), pcgbench["problems"])
    runtimes, nodes = runtime_s(pcgbench, args.configfile), {"cpu": args.cpu_nodes, "gpu": args.gpu_nodes}
    if args.from_json:
        measured = json.loads(Path(args.from_json).read_text())["measured"]
        print(f"measurements from {args.from_json} (taken on a {measured['machine']['cores']}-core machine)")
    else:
        print(f"measuring on this {os.cpu_count()}-core machine (shared: timings indicative)", flush=True)
        measured = measure(pcgbench, config["seed"], args)
    # A scan stored at other paper sizes than the suite's now: its runs extrapolated again to the current ones.
    settings = measured["settings"]
    paper_sizes = {p.name: p.sizes.get("paper", p.sizes["timed"]) for p in problems}
    stored = measured["scan"]
    measured["scan"] = pj.rescale_scan(stored, paper_sizes,
                                       calls=settings["validations"] + settings["warmup"] + settings["reps"])  # fmt: skip
    rescaled = [name for name, s in measured["scan"].items() if s["n_paper"] != stored[name]["n_paper"]]
    if rescaled:
        print(f"{len(rescaled)} problems' paper sizes differ from the measured scan's: their runs there are "
              "extrapolated again from the stored runs and exponents")  # fmt: skip
    print_measurements(measured, pcgbench)
    common = dict(efficiency=args.efficiency, gpu_run_factor=args.gpu_run_factor)
    jobs, inputs = project(measured, pcgbench, problems, timeout_fraction=args.timeout_fraction, **common)
    chosen = f"as chosen ({100 * args.timeout_fraction:.0f}% time-outs, efficiency {args.efficiency:g})"
    sensitivity = {chosen: totals(jobs, inputs, runtimes, nodes)}
    for fraction in (0.0, 0.2):
        other, other_inputs = project(measured, pcgbench, problems, timeout_fraction=fraction, **common)
        sensitivity[f"time-outs {100 * fraction:.0f}%"] = totals(other, other_inputs, runtimes, nodes)
    for efficiency in sorted({0.0, 0.5} - {args.efficiency}):
        other, other_inputs = project(measured, pcgbench, problems, timeout_fraction=args.timeout_fraction,
                                      efficiency=efficiency, gpu_run_factor=args.gpu_run_factor)  # fmt: skip
        label = f"efficiency {efficiency:g}" + (" (upper bound)" if efficiency == 0 else "")
        sensitivity[label] = totals(other, other_inputs, runtimes, nodes)
    suggestion = None
    if args.suggest:
        size = pj.largest_fitting_shard_size(pcgbench["models"], [p.name for p in problems], inputs["populations"],
                                             inputs["costs"], inputs["limits"], gpu_exec_models=pj_gpu(pcgbench),
                                             runtime_s=runtimes)  # fmt: skip
        current = pcgbench["shards"]["problems_per_shard"]
        sizes = sorted({1, 2, 3, 5, current} | ({size} if size else set()))
        suggestion = {"largest_fitting": size, **shard_sizes(pcgbench, problems, inputs, runtimes, sizes)}
    _, translation_count = populations(pcgbench, problems, args.timeout_fraction)
    over = pj.references_over_limit(inputs["costs"], inputs["limits"])
    print_projection(jobs, pcgbench, args, runtimes, sensitivity, chosen, suggestion, translation_count, over)
    too_long = [j for j in jobs if not pj.fits(j, runtimes[j.kind])]
    write_json(args.out, {
        "measured": measured,
        "assumptions": {"build_threads": BUILD_THREADS, "timeout_fraction": args.timeout_fraction,
                        "efficiency": args.efficiency, "gpu_run_factor": args.gpu_run_factor, "nodes": nodes,
                        "runtime_s": runtimes},
        "costs": {f"{p}/{m}": dataclasses.asdict(c) for (p, m), c in inputs["costs"].items()},
        # a job's execution models keep the report's key `models`
        "jobs": [dict({"models" if k == "exec_models" else k: v for k, v in dataclasses.asdict(j).items()},
                      total_s=j.total_s, longest_job_s=j.longest_job_s, fits=pj.fits(j, runtimes[j.kind])) for j in jobs],
        "totals": sensitivity, "chosen": chosen, "suggestion": suggestion, "not_fitting": len(too_long),
        "references_over_run_timeout": [{"problem": p, "model": m, "run_s": s} for p, m, s in over],
    })  # fmt: skip
    print(f"\nwrote {args.out}; {len(too_long)} of {len(jobs)} shards do not fit their runtime"
          + (" (exit status 1)" if too_long else ""))
    return 1 if too_long else 0


if __name__ == "__main__":
    sys.exit(main())
