"""How long PCGBench's evaluation takes at the paper's scale: every shard's jobs, from measured per-sample costs.

benchmarks/pcgbench_projection.py measures, with the harness itself, what one sample costs on this machine (its
build, its race check, its runs at the timed size) and how each problem's run grows with its size; this module
turns those numbers into the paper config's jobs and checks them against what each job asks SLURM for:

    costs = paper_costs(measured, problem_types, models, max_cores=64, calls_per_config=7)
    populations = {("gpt_4", GENERATION): language_model_population(tasks, samples=20, timeout_fraction=0.05), ...}
    jobs = project_jobs(shards.plan_for(pcgbench), populations, costs, limits, gpu_models=["cuda", "hip"])
    [job for job in jobs if not fits(job, runtime_s)]

A shard of one generator is two jobs, rule pcgbench_build (every sample compiled, `build_threads` at a time) and
rule pcgbench_evaluate (the OpenMP samples' ThreadSanitizer builds, the race checks, the sweep's runs); each gets the
runtime of its node kind (pcgbench.cluster). The suite's reference check (rule pcgbench_reference_speedups_shard)
is one job per shard, builds and runs together. What a sample costs depends on how it ends (`outcome`):

    ok          build + race check + every run of the sweep, each no longer than its time limit
    timeout     build + the race check's limit (OpenMP models: run_timeout_s) + the first run's limit
    first_run   build + race check + the first run (a wrong answer, a crash, a killed allocation stop the sweep)
    race        build + race check (race_detected: nothing is timed)
    build_only  build (build_error, no_parallelism, tampering: never run)

A run's time limit is the evaluation's (EvaluateConfig.limits): max(timeout_floor_s, timeout_factor x the
reference's run there), or run_timeout_s where the reference's own run did not finish in run_timeout_s, and for
the reference's runs themselves. A run longer than its limit costs the limit and ends the sweep.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import statistics

from workflow_scripts.measure import OPENMP_EXEC_MODELS, RACE_CHECKED_EXEC_MODELS, resource_sweep
from workflow_scripts.pcgbench import shards as shards_module
from workflow_scripts.pcgbench.evaluation import runs_of_sweep

# How a sample ends, as far as its cost goes (module docstring).
OK, TIMEOUT, FIRST_RUN, RACE, BUILD_ONLY = "ok", "timeout", "first_run", "race", "build_only"
CHECK = "check"  # the suite's reference check: builds and runs, no race check (reference_check.py)
OUTCOME_OF_VERDICT = {"ok": OK, "timeout": TIMEOUT, "wrong_answer": FIRST_RUN, "crash": FIRST_RUN,
                      "killed_resource_limit": FIRST_RUN, "resource_overuse": FIRST_RUN, "race_detected": RACE,
                      "build_error": BUILD_ONLY, "no_parallelism": BUILD_ONLY, "tampering": BUILD_ONLY}  # fmt: skip
GENERATION, TRANSLATION, REFERENCE_CHECK = "generation", "translation", "reference_speedups"
MPI_EXEC_MODELS = ("mpi", "mpi+omp")  # a launch cost per rank
# A model measured nowhere takes the costs of the one named here (kokkos: threads like OpenMP; MPI+OpenMP: OpenMP's
# race check and stress validations, and MPI's launch cost per rank where MPI was measured).
FALLBACK_EXEC_MODEL = {"kokkos": "omp", "mpi+omp": "omp", "omp": "serial", "mpi": "serial"}
MIN_EXPONENT, MAX_EXPONENT = 1.0, 4.0  # a run grows at least linearly with its size; more than n^4 is noise


@dataclasses.dataclass(frozen=True, kw_only=True)
class SampleCost:
    """One sample of one (problem, execution model) at the paper's scale, seconds: what a passing sample (the
    reference) spends."""

    build_s: float  # compile + link + inspection, one compiler process
    runs_s: tuple[float, ...]  # each run of the sweep (evaluation.runs_of_sweep at the paper's max_cores)
    race_checked: bool = False  # RACE_CHECKED_EXEC_MODELS with measure.race_check
    race_build_s: float = 0.0  # its ThreadSanitizer build (in the evaluate job)
    race_check_s: float = 0.0  # the race check's run (at the small or timed size, never the paper size)
    runs_measured: bool = True  # False: the runs are an assumption (GPU models: no GPU here)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Limits:
    """The evaluation's time limits and build parallelism (sections measure and pcgbench.evaluate, the rules' threads)."""

    run_timeout_s: float  # a run's limit with no reference time: the reference's own runs, every race check
    timeout_floor_s: float
    timeout_factor: float
    build_threads: int = 2  # compiler processes of a build or evaluate job (threads: 2 in rules/pcgbench.smk)

    def run_limits(self, reference_runs_s: tuple[float, ...], *, reference: bool) -> tuple[float, ...]:
        """Each run's wall-clock limit for a sample whose reference runs take `reference_runs_s` (`reference`: the
        reference generator's own samples, limited by run_timeout_s)."""
        if reference:
            return tuple(self.run_timeout_s for _ in reference_runs_s)
        return tuple(self.run_timeout_s if r > self.run_timeout_s else max(self.timeout_floor_s, self.timeout_factor * r)
                     for r in reference_runs_s)  # fmt: skip


def sample_seconds(cost: SampleCost, outcome: str, limits: Limits, *, reference: bool = False) -> tuple[float, float]:
    """(build job seconds, evaluate job seconds) one sample ending in `outcome` adds (module docstring). Builds run
    limits.build_threads at a time: a sample adds its build's share."""
    build = cost.build_s / limits.build_threads
    if outcome == BUILD_ONLY:
        return build, 0.0
    race_build = cost.race_build_s / limits.build_threads if cost.race_checked and outcome != CHECK else 0.0
    race = cost.race_check_s if cost.race_checked and outcome != CHECK else 0.0
    run_limits = limits.run_limits(cost.runs_s, reference=reference or outcome == CHECK)
    if outcome == RACE:
        return build, race_build + race
    if outcome == TIMEOUT:
        # An endless sample reaches the race check's limit first (OpenMP models), then its first run's.
        race_limit = limits.run_timeout_s if cost.race_checked else 0.0
        return build, race_build + race_limit + run_limits[0]
    if outcome not in (OK, FIRST_RUN, CHECK):
        raise ValueError(f"unknown outcome {outcome!r}; known: {OK}, {TIMEOUT}, {FIRST_RUN}, {RACE}, {BUILD_ONLY}, {CHECK}")
    spent = 0.0
    for run, limit in zip(cost.runs_s[:1] if outcome == FIRST_RUN else cost.runs_s, run_limits, strict=False):
        spent += min(run, limit)
        if run > limit:
            break  # timed out: the sweep stops there
    return build, race_build + race + spent


# ---------------------------------------------------------------------------------------------------------
# Who is evaluated: per (problem, exec_model), how many distinct programs end how

Population = dict[tuple[str, str], list[tuple[str, float]]]  # (problem, exec_model) -> [(outcome, programs)]


def language_model_population(tasks: dict[tuple[str, str], int], *, samples: int,
                              timeout_fraction: float) -> Population:  # fmt: skip
    """A language model's samples: `samples` per task ((problem, exec_model) -> prompts), each a distinct program (no
    shared runs assumed), `timeout_fraction` of them running into their time limit and the others passing every
    run (an upper bound: a wrong answer stops the sweep at its first run)."""
    if not 0.0 <= timeout_fraction <= 1.0:
        raise ValueError(f"timeout_fraction must be in [0, 1], got {timeout_fraction}")
    return {key: [(OK, n * samples * (1 - timeout_fraction)), (TIMEOUT, n * samples * timeout_fraction)]
            for key, n in tasks.items()}  # fmt: skip


def check_population(tasks: dict[tuple[str, str], int]) -> Population:
    """The suite's reference check: one reference per (problem, exec_model)."""
    return {key: [(CHECK, 1.0)] for key in tasks}


def self_test_population(expected: list[dict], bodies: list[str]) -> Population:
    """A self-test generator's programs (generators.generate: its expected verdicts and, in the same order, the
    bodies): identical bodies of one (problem, exec_model) are one program (built once, run once: share_identical_runs)."""
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for row, body in zip(expected, bodies, strict=True):
        seen.setdefault((row["problem"], row["model"]), {}).setdefault(body, OUTCOME_OF_VERDICT[row["expected_verdict"]])
    population: Population = {}
    for key, programs in seen.items():
        counts: dict[str, float] = {}
        for outcome in programs.values():
            counts[outcome] = counts.get(outcome, 0.0) + 1.0
        population[key] = sorted(counts.items())
    return population


# ---------------------------------------------------------------------------------------------------------
# Jobs


@dataclasses.dataclass(frozen=True, kw_only=True)
class Job:
    """One generator's shard: its build job and its evaluate job (one job for the reference check), seconds."""

    generator: str
    task: str  # GENERATION, TRANSLATION or REFERENCE_CHECK
    shard: str
    kind: str  # node kind: cpu or gpu (shards.node_kind)
    exec_models: tuple[str, ...]
    build_s: float
    evaluate_s: float
    programs: float
    runs_measured: bool = True  # False where runs are assumed (GPU models)

    @property
    def one_job(self) -> bool:
        return self.task == REFERENCE_CHECK

    @property
    def total_s(self) -> float:
        return self.build_s + self.evaluate_s

    @property
    def longest_job_s(self) -> float:
        """What one SLURM job of this shard takes at most: build and evaluate are separate jobs."""
        return self.total_s if self.one_job else max(self.build_s, self.evaluate_s)


def project_jobs(shard_list: list[shards_module.Shard], populations: dict[tuple[str, str], Population],
                 costs: dict[tuple[str, str], SampleCost], limits: Limits, *, gpu_exec_models: list[str],
                 reference_generators: tuple[str, ...] = ("reference",)) -> list[Job]:  # fmt: skip
    """Every (generator, task) x shard of `populations` as a Job (shards with nothing of a population are left out)."""
    jobs = []
    for (generator, task), population in populations.items():
        for shard in shard_list:
            build_s = evaluate_s = programs = 0.0
            measured = True
            for key in ((p, m) for m in shard.exec_models for p in shard.problems if (p, m) in population):
                cost = costs[key]
                measured &= cost.runs_measured
                for outcome, count in population[key]:
                    build, evaluate = sample_seconds(cost, outcome, limits, reference=generator in reference_generators)
                    build_s, evaluate_s, programs = build_s + count * build, evaluate_s + count * evaluate, programs + count
            if programs:
                jobs.append(Job(generator=generator, task=task, shard=shard.name, exec_models=shard.exec_models,
                                kind=shards_module.node_kind(shard, gpu_exec_models), build_s=build_s,
                                evaluate_s=evaluate_s, programs=programs, runs_measured=measured))  # fmt: skip
    return jobs


def fits(job: Job, runtime_s: float) -> bool:
    """Whether each SLURM job of the shard ends within its node kind's runtime."""
    return job.longest_job_s <= runtime_s


def largest_fitting_shard_size(exec_models: list[str], problems: list[str], populations: dict[tuple[str, str], Population],
                               costs: dict[tuple[str, str], SampleCost], limits: Limits, *, gpu_exec_models: list[str],
                               runtime_s: dict[str, float]) -> int | None:  # fmt: skip
    """The largest pcgbench.shards.problems_per_shard (by_model) at which every job fits its node kind's runtime
    (`runtime_s` by kind), or None when even one problem per shard does not."""
    for size in range(len(problems), 0, -1):
        plan = shards_module.plan(exec_models, problems, by_model=True, problems_per_shard=size)
        jobs = project_jobs(plan, populations, costs, limits, gpu_exec_models=gpu_exec_models)
        if all(fits(job, runtime_s[job.kind]) for job in jobs):
            return size
    return None


def references_over_limit(costs: dict[tuple[str, str], SampleCost], limits: Limits) -> list[tuple[str, str, float]]:
    """(problem, exec_model, seconds) of the references whose run of the sweep (its longest) passes run_timeout_s at the
    paper's size: the reference fails there (a timeout), and every sample's run there is cut at run_timeout_s."""
    return sorted((p, m, max(c.runs_s)) for (p, m), c in costs.items() if max(c.runs_s) > limits.run_timeout_s)


def makespan_s(durations_s: list[float], nodes: int) -> float:
    """Wall time of `durations_s` on `nodes` nodes, longest first, each to the least loaded node (LPT: within 4/3
    of the best schedule). Dependencies between jobs are not modelled."""
    if nodes < 1:
        raise ValueError(f"nodes must be >= 1, got {nodes}")
    loads = [0.0] * nodes
    for duration in sorted(durations_s, reverse=True):
        heapq.heapreplace(loads, loads[0] + duration)
    return max(loads)


# ---------------------------------------------------------------------------------------------------------
# From measured costs at the timed size to costs at the paper's size


def exponent(small_s: float, large_s: float, size_ratio: float) -> float:
    """e of t ~ n^e from times at two sizes `size_ratio` apart, within [MIN_EXPONENT, MAX_EXPONENT]."""
    if large_s <= 0:
        return MIN_EXPONENT
    if small_s <= 0:
        return MAX_EXPONENT
    return min(MAX_EXPONENT, max(MIN_EXPONENT, math.log(large_s / small_s) / math.log(size_ratio)))


def run_parts(run: dict[str, float], calls: int) -> dict[str, float]:
    """A run's wall split into its sample's calls, its baseline's calls (`calls` each: validations, warm-up, timed)
    and the rest (input generation, checks, start-up)."""
    sample, baseline = calls * run["sample_s"], calls * run["baseline_s"]
    return {"sample": sample, "baseline": baseline, "rest": max(0.0, run["wall_s"] - sample - baseline)}


def extrapolate_run(large: dict[str, float], small: dict[str, float], *, size_ratio: float, paper_ratio: float,
                    calls: int) -> tuple[float, dict[str, float]]:  # fmt: skip
    """A run's wall at `paper_ratio` x the size of run `large`, from it and run `small` at 1 / `size_ratio` of its size
    (wall_s, sample_s and baseline_s: a call's median): each part of the run (run_parts) grows with its own exponent,
    so that a part too short to time well (a 1 ms call) weighs as little as it costs. Returns (seconds, exponents)."""
    big, little = run_parts(large, calls), run_parts(small, calls)
    exponents = {part: exponent(little[part], big[part], size_ratio) for part in big}
    return grow_parts(big, exponents, paper_ratio), exponents


def grow_parts(parts: dict[str, float], exponents: dict[str, float], ratio: float) -> float:
    """A run's wall at `ratio` x its size, each of its parts (run_parts) grown as n^(its exponent)."""
    return sum(parts[part] * ratio ** exponents[part] for part in parts)


def rescale_scan(scan: dict, paper_sizes: dict[str, int], *, calls: int) -> dict:
    """The serial scan (benchmarks/pcgbench_projection.py) at the paper sizes `paper_sizes` where they differ from the
    sizes it was measured for (a scan stored before the suite's paper sizes changed): such an entry's run at its new
    paper size is extrapolated again from its stored runs, each part with its stored exponent, from the measured size
    nearer the new one in log size (the new size may lie below both, between them or above both, and an exponent
    clamped to MIN_EXPONENT does not join the two runs). A run measured at the old paper size is no longer one at the
    paper size: it is kept as `old_paper` and calibrates nothing (extrapolation_calibration). Other entries come
    back as they are."""
    rescaled = {}
    for name, entry in scan.items():
        n_paper = paper_sizes.get(name, entry["n_paper"])
        if n_paper == entry["n_paper"]:
            rescaled[name] = entry
            continue
        runs = {entry["n_timed"]: {"wall_s": entry["wall_timed_s"], "sample_s": entry["sample_timed_s"],
                                   "baseline_s": entry["baseline_timed_s"]},
                entry["n_second"]: {"wall_s": entry["wall_second_s"], "sample_s": entry["sample_second_s"],
                                    "baseline_s": entry["baseline_second_s"]}}  # fmt: skip
        n_from = min(runs, key=lambda n: (abs(math.log(n_paper / n)), -n))  # the nearer; a tie: the larger
        predicted = grow_parts(run_parts(runs[n_from], calls), entry["exponents"], n_paper / n_from)
        from_timed = n_paper / entry["n_timed"]  # the whole run's exponent from the timed size, as scan_problem has it
        whole = math.log(predicted / entry["wall_timed_s"]) / math.log(from_timed) if from_timed != 1 else 1.0
        rescaled[name] = {
            **entry, "n_paper": n_paper, "predicted_paper_s": predicted, "wall_paper_s": predicted, "exponent": whole,
            "scale": predicted / entry["wall_timed_s"],
            "method": f"rescaled from {n_from}: " + ", ".join(f"{k} n^{e:.2f}" for k, e in entry["exponents"].items()),
            "old_paper": {"n_paper": entry["n_paper"], "wall_paper_s": entry["wall_paper_s"], "method": entry["method"]},
        }  # fmt: skip
    return rescaled


def config_seconds(wall_1_s: float, sample_1_s: float, n_resources: int, *, calls: int, efficiency: float) -> float:
    """One configuration of the sweep at `n_resources` threads or ranks, from the run at 1 (`wall_1_s`, its sample's
    call `sample_1_s`). With efficiency 0, the 1-resource time (an upper bound); else the sample's `calls` calls
    (validations, warm-up and timed) take sample_1_s / (n x efficiency) and the rest (the serial baseline's calls,
    input generation, checks, start-up) is unchanged."""
    if efficiency <= 0 or n_resources * efficiency <= 1:
        return wall_1_s
    parallel = min(calls * sample_1_s, wall_1_s)
    return wall_1_s - parallel * (1 - 1 / (n_resources * efficiency))


PAPER_MEASURED = "paper (measured)"  # a scan entry's method when its run was measured at the paper size


def extrapolation_calibration(scan: dict) -> float:
    """How much longer a run measured at the paper size took than its extrapolation from the two smaller sizes
    predicted (median over the problems measured there, at least 1: first touches of gigabytes of pages, caches
    outgrown), applied to every extrapolated run; 1 when none was measured there."""
    ratios = [s["wall_paper_s"] / s["predicted_paper_s"] for s in scan.values()
              if s.get("method") == PAPER_MEASURED and s["predicted_paper_s"] > 0]  # fmt: skip
    return max(1.0, statistics.median(ratios)) if ratios else 1.0


def paper_scale(entry: dict, calibration: float) -> float:
    """A scan entry's run at the paper size over its run at the timed size (an extrapolated one calibrated)."""
    return entry["scale"] if entry.get("method") == PAPER_MEASURED else entry["scale"] * calibration


@dataclasses.dataclass(frozen=True)
class Overhead:
    """How a model's 1-resource run differs from the serial reference's at the same size."""

    ratio: float  # its sample's call over the serial one's (at least 1)
    fixed_s: float  # what its run takes beyond the serial run x ratio: mpirun's start, per-call overheads (not scaled)
    stress_per_call: float  # OpenMP models: the stress validations, in calls of its sample


def exec_model_overhead(rows: dict[str, dict], scan: dict[str, dict]) -> Overhead:
    """A model's Overhead over its measured problems (`rows`, measured at the timed size as the serial `scan`):
    ratio and stress pooled (sums over the problems: long calls, where fixed per-call costs vanish, weigh most, as
    they do at the paper size), the fixed part a median."""
    measured = [q for q in rows if q in scan]
    if not measured:
        raise ValueError(f"no problem measured both in the model and the serial scan: {sorted(rows)}")
    serial_calls = sum(scan[q]["sample_timed_s"] for q in measured)
    ratio = max(1.0, sum(rows[q]["sample_1_s"] for q in measured) / serial_calls) if serial_calls > 0 else 1.0
    fixed_s = statistics.median(max(0.0, rows[q]["wall_1_s"] - scan[q]["wall_timed_s"] * ratio) for q in measured)
    calls = sum(rows[q]["sample_1_s"] for q in measured)
    stress = sum(rows[q].get("stress_s", 0.0) for q in measured) / calls if calls > 0 else 0.0
    return Overhead(ratio=ratio, fixed_s=fixed_s, stress_per_call=stress)


def paper_costs(measured: dict, problem_types: dict[str, str], exec_models: list[str], *, max_cores: int, calls_per_config: int,
                efficiency: float = 0.0, race_check: bool = True, stress_validations: int = 8,
                gpu_exec_models: tuple[str, ...] = ("cuda", "hip"), gpu_run_factor: float = 1.0) -> dict[tuple[str, str], SampleCost]:  # fmt: skip
    """Every (problem, exec_model)'s SampleCost at the paper's scale from `measured` (benchmarks/pcgbench_projection.py):

        scan[problem]           the serial reference at the timed size (wall_timed_s, sample_timed_s: its run and
                                its sample's call) and `scale`, its run at the paper size over that run: measured
                                (method PAPER_MEASURED), or extrapolated and then calibrated (extrapolation_calibration)
        models[model][problem]  build_s, race_build_s, race_check_s, wall_1_s and sample_1_s (a run at 1 thread or
                                rank, timed size), stress_s (OpenMP models: the stress validations), mpi_launch_s
                                (MPI models: the run at 2 ranks less the run at 1)
        gpu_builds[model][problem]  build_s of a GPU model (compiled here; nothing runs)

    A model's 1-resource run at the paper size is the serial reference's x the ratio of their sample calls plus the
    model's fixed overhead (exec_model_overhead, over the problems measured in the model); its stress validations are
    calls of its sample. A problem not scanned takes the largest serial numbers of its type. Builds, race checks and launch costs do not depend on the size: a problem's own, else the
    median over the measured ones. A model measured nowhere takes FALLBACK_EXEC_MODEL's numbers. Each configuration of the
    sweep then takes config_seconds (+ (ranks - 1) x the launch cost of a rank), an OpenMP model's first run the
    stress validations too. GPU models: the build of a measured GPU model (HIP: CUDA's), and a run assumed to take
    gpu_run_factor x the serial reference's run at the paper size (its baseline is that serial code, timed on the
    CPU beside it): not measured."""
    scan, by_exec_model, gpu_builds = measured["scan"], measured["models"], measured.get("gpu_builds", {})
    calibration = extrapolation_calibration(scan)
    costs = {}

    def source(exec_model: str) -> str:
        while not by_exec_model.get(exec_model):
            if exec_model not in FALLBACK_EXEC_MODEL:
                raise ValueError(f"no measurement for {exec_model} nor a model it can take costs from ({FALLBACK_EXEC_MODEL})")
            exec_model = FALLBACK_EXEC_MODEL[exec_model]
        return exec_model

    def peers_of(problem: str, among) -> list[str]:
        return [q for q in among if problem_types.get(q) == problem_types[problem] and q in scan] or [q for q in among if q in scan]

    def serial(problem: str, key: str) -> float:
        """The serial scan's value (`scale`: calibrated); a problem not scanned takes the largest of its type's."""
        value = (lambda e: paper_scale(e, calibration)) if key == "scale" else (lambda e: e[key])
        return value(scan[problem]) if problem in scan else max(value(scan[q]) for q in peers_of(problem, scan))

    for exec_model in exec_models:
        if exec_model in gpu_exec_models:
            builds = gpu_builds.get(exec_model) or gpu_builds.get("cuda") or {}
            if not builds:
                raise ValueError(f"no GPU build measured for {exec_model} (nor cuda): cannot project its builds")
            for problem in problem_types:
                runs = (gpu_run_factor * serial(problem, "wall_timed_s") * serial(problem, "scale"),)
                costs[(problem, exec_model)] = SampleCost(build_s=builds.get(problem, statistics.median(builds.values())),
                                                          runs_s=runs, runs_measured=False)  # fmt: skip
            continue
        rows = by_exec_model[source(exec_model)]
        openmp = exec_model in OPENMP_EXEC_MODELS  # stress validations; the race check: RACE_CHECKED_EXEC_MODELS
        if openmp and not any("stress_s" in r for r in rows.values()):
            rows = by_exec_model[source("omp")]  # the stress validations and race check of an OpenMP model
        launch_rows = by_exec_model["mpi"] if exec_model == "mpi+omp" and by_exec_model.get("mpi") and not by_exec_model.get(exec_model) else rows
        launch_s = statistics.median(r.get("mpi_launch_s", 0.0) for r in launch_rows.values()) if exec_model in MPI_EXEC_MODELS else 0.0

        overhead = exec_model_overhead(rows, scan)
        medians = {key: statistics.median(r.get(key, 0.0) for r in rows.values())
                   for key in ("build_s", "race_build_s", "race_check_s")}  # fmt: skip
        for problem in problem_types:
            wall_t, sample_t, scale = serial(problem, "wall_timed_s"), serial(problem, "sample_timed_s"), serial(problem, "scale")
            wall_1, sample_1 = wall_t * scale * overhead.ratio + overhead.fixed_s, sample_t * scale * overhead.ratio
            runs = []
            for run in runs_of_sweep(exec_model, resource_sweep(exec_model, max_cores)):
                runs.append(sum(config_seconds(wall_1, sample_1, c.n_resources, calls=calls_per_config,
                                               efficiency=efficiency) + (c.ranks - 1) * launch_s for c in run))  # fmt: skip
            if openmp and stress_validations:
                runs[0] += overhead.stress_per_call * sample_1  # in the sweep's first run only
            own = rows.get(problem, {})  # builds, race checks: the problem's own where measured
            costs[(problem, exec_model)] = SampleCost(
                build_s=own.get("build_s", medians["build_s"]), runs_s=tuple(runs), race_checked=exec_model in RACE_CHECKED_EXEC_MODELS and race_check,
                race_build_s=own.get("race_build_s", medians["race_build_s"]) if openmp else 0.0,
                race_check_s=own.get("race_check_s", medians["race_check_s"]) if openmp else 0.0,  # (the same models)
            )  # fmt: skip
    return costs
