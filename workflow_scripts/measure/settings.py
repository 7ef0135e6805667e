"""The measurement engine's settings, and the checks a built program passes before it is timed: one home for how
generated code is built, run and timed, whichever study runs it.

MeasureConfig is config section `measure`: the run protocol (warm-up, repetitions, validations, stress validations,
priority, size, the input seed), the sandbox's limits and the time-limit rule (max(timeout_floor_s, timeout_factor x
the reference's run time), else run_timeout_s), the build settings (jobs, compile_timeout_s, cache_dir) and the race
check. Every study that runs generated code takes one, and makes its SandboxLimits, RunProtocol and BuildConfig with
`limits`, `protocol` and `build_config`, so a setting means the same thing everywhere:

    PCGBench's evaluation (pcgbench/evaluation.py EvaluateConfig)   the section as configured, with pcgbench.evaluate's
                                                                    keys of the evaluation (sweep, metrics)
    PCGBench's reference check (reference_check.py)                the same, without race checks (references are trusted)
    PCGBench's re-scoring of ParEval's outputs (pareval_released)  pcgbench.pareval_released.measure's overrides on top
    HPC-Coder's performance change (hpccoder/perfchange.py)        its own timeout_factor on top
    RLPF's reward (rlpf/reward.py)                                 rlpf.reward.measure's overrides on top (`overridden`)

`vet` is what a built program meets before its timed runs (a failed build, what tampering.py found, a body that
does not use its model, the race check), in the order the evaluation and the RLPF reward both take.

    cfg = MeasureConfig(reps=3, run_timeout_s=20, cache_dir=Path("results/pcgbench/build_cache"))
    cfg = cfg.overridden({"reps": 10}, key="rlpf.reward.measure")       # an unknown key stops, named
    [build] = BuildCache(cfg.build_config()).build_all([BuildRequest(problem=problem, exec_model="omp", body=body)])
    vetting = vet(problem, "omp", build, cfg, body=body)
    if vetting.verdict is None:
        run = run_program(problem, "omp", build.exe, cfg.protocol(threads=2), cfg.limits())
"""

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from workflow_scripts.common.config import schema_default, schema_section, section_errors
from workflow_scripts.measure import suite, toolchains
from workflow_scripts.measure.build_cache import BuildConfig, BuildResult
from workflow_scripts.measure.run import PROTOCOL, RaceCheck, RunProtocol, check_races
from workflow_scripts.measure.sandbox import SandboxLimits, can_raise_priority
from workflow_scripts.measure.verdicts import BUILD_ERROR, NO_PARALLELISM, RACE_DETECTED

SECTION = "measure"  # the config section MeasureConfig reads


@dataclasses.dataclass(kw_only=True)
class MeasureConfig:
    """How generated code is built, run and timed (config section `measure`)."""

    # untimed calls before the timed ones, in every run
    warmup: int = schema_default("measure.warmup")
    # timed calls of the sample (and of the serial baseline) per run
    reps: int = schema_default("measure.reps")
    # times every run validates the timed size, on other inputs (a race shows in some only)
    validations: int = schema_default("measure.validations")
    # OpenMP models: the timed input validated again, stress_validations times, with stress_threads threads per
    # rank, more than the cores (a race whose threads a competing load serialises at the timed threads shows
    # there; 0: none). In a sample's first run of the sweep only: the thread count is the same in every run, so a
    # second round would repeat the same validations at the same threads.
    stress_validations: int = schema_default("measure.stress_validations")
    stress_threads: int = schema_default("measure.stress_threads")
    # which of the problem's sizes is validated last and timed ("timed" or "paper")
    size: str = schema_default("measure.size")
    seed: int = schema_default("seed")  # input generation
    jobs: int = schema_default("measure.jobs")  # parallel compiler processes
    compile_timeout_s: float = schema_default("measure.compile_timeout_s")
    # wall-clock limit of one run when no reference run time is known there
    run_timeout_s: float = schema_default("measure.run_timeout_s")
    # with a reference run time: limit = max(floor, factor x reference's time)
    timeout_floor_s: float = schema_default("measure.timeout_floor_s")
    timeout_factor: float = schema_default("measure.timeout_factor")
    cpu_limit_s: int = schema_default("measure.cpu_limit_s")  # RLIMIT_CPU per process
    # RLIMIT_AS per process, and the whole run's resident memory where it has a control group (run_cgroup.py)
    memory_mb: int = schema_default("measure.memory_mb")
    file_size_mb: int = schema_default("measure.file_size_mb")  # RLIMIT_FSIZE
    # RLIMIT_NPROC for the sandbox user (threads count too)
    max_processes: int = schema_default("measure.max_processes")
    output_bytes: int = schema_default("measure.output_bytes")  # cap on captured stdout / stderr
    # scheduling priority of the sandboxed runs (< 0 needs root; 0 = the harness's own)
    run_nice: int = schema_default("measure.run_nice")
    # OpenMP and MPI+OpenMP samples: a ThreadSanitizer build runs once before the timed runs; a race is the verdict
    race_check: bool = schema_default("measure.race_check")
    cache_dir: Path = schema_default("measure.cache_dir")
    suite_root: Path = suite.DATA_ROOT

    def __post_init__(self) -> None:
        self.cache_dir, self.suite_root = Path(self.cache_dir), Path(self.suite_root)
        for name in ("reps", "validations", "stress_threads", "jobs", "compile_timeout_s", "run_timeout_s",
                     "timeout_floor_s", "timeout_factor", "cpu_limit_s", "memory_mb", "file_size_mb", "max_processes",
                     "output_bytes"):  # fmt: skip
            if not getattr(self, name) > 0:
                raise ValueError(f"{SECTION}.{name} must be > 0, got {getattr(self, name)!r}")
        if not -20 <= self.run_nice <= 0:
            raise ValueError(f"{SECTION}.run_nice must be in -20..0, got {self.run_nice}")
        for name in ("warmup", "stress_validations"):
            if getattr(self, name) < 0:
                raise ValueError(f"{SECTION}.{name} must be >= 0, got {getattr(self, name)}")
        if self.size not in ("timed", "paper"):
            raise ValueError(f"{SECTION}.size must be 'timed' or 'paper', got {self.size!r}")
        if self.race_check:
            ok, why = toolchains.race_check_status()
            if not ok:
                raise ValueError(f"{SECTION}.race_check is on, but {why}; install it, or set race_check: "
                                 "false (racy OpenMP samples may then pass validation by luck on a loaded machine)")

    def overridden(self, overrides: Mapping, *, key: str) -> "MeasureConfig":
        """This config with `overrides` on top: keys of the section `measure`, given at config key `key` (RLPF's
        rlpf.reward.measure). An unknown key or a value the schema refuses stops with its full key."""
        known = schema_section(SECTION)["properties"]
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise ValueError(f"{key}.{unknown[0]}: not a key of {SECTION}, whose settings {key} overrides "
                             f"(known keys: {', '.join(sorted(known))})")
        problems = section_errors(SECTION, dict(overrides), key=key)
        if problems:
            raise ValueError("; ".join(problems))
        return dataclasses.replace(self, **overrides)

    def fingerprint(self) -> str:
        """What changes a sample's result: a resume log written under another fingerprint is not reused. Every
        field but those that change no result (a subclass's too: PCGBench's sweep and run sharing count)."""
        fields = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("jobs", "ks", "pareval_resources", "cache_dir", "suite_root")}
        fields["protocol"] = PROTOCOL
        return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def build_config(self, cache_dir: Path | None = None) -> BuildConfig:
        """The build cache's settings: `jobs` compilers, each stopped at compile_timeout_s; in cache_dir unless
        another folder is given (RLPF keeps its builds beside its measurements)."""
        return BuildConfig(cache_dir=cache_dir or self.cache_dir, jobs=self.jobs, compile_timeout_s=self.compile_timeout_s)

    def limits(self, reference_wall_s: float | None = None) -> SandboxLimits:
        """Sandbox limits of one run. Its wall-clock limit is max(floor, factor x the reference solution's run
        time at the same configuration) when that is known, else run_timeout_s (the reference's own runs, and
        callers with no reference time: the RLPF reward, a race check)."""
        wall_s = self.run_timeout_s
        if reference_wall_s is not None:
            wall_s = max(self.timeout_floor_s, self.timeout_factor * reference_wall_s)
        return SandboxLimits(wall_s=wall_s, cpu_limit_s=self.cpu_limit_s, memory_mb=self.memory_mb,
                             file_size_mb=self.file_size_mb, max_processes=self.max_processes,
                             output_bytes=self.output_bytes)  # fmt: skip

    def protocol(self, *, ranks: int = 1, threads: int = 1, stress: bool = True, more_threads: tuple[int, ...] = (),
                 extra_env: Mapping[str, str] | None = None) -> RunProtocol:  # fmt: skip
        """The run protocol of one resource configuration, or of several thread counts at one rank count in one
        run (`more_threads`: OpenMP models), placement and priority as timing.py explains; without `stress`, no
        stress validations. `extra_env` is added to the driver's environment. A judged
        call's own limit is the time-limit rule's, per call: max(timeout_floor_s, timeout_factor x the baseline's
        time on an input of its size)."""
        return RunProtocol(warmup=self.warmup, reps=self.reps, validations=self.validations, seed=self.seed,
                           size=self.size, ranks=ranks, threads=threads, nice=self.run_nice,
                           stress_validations=self.stress_validations if stress else 0,
                           stress_threads=self.stress_threads, more_threads=more_threads,
                           call_floor_s=self.timeout_floor_s, call_factor=self.timeout_factor,
                           extra_env=dict(extra_env or {}))  # fmt: skip

    def overlaps_builds_and_runs(self) -> bool:
        """Whether a program may run while later programs still build. Only when its runs are raised above the
        compilers (run_nice < 0, root mode: can_raise_priority): a timed run's threads then hold their cores, and a
        compiler gets only what the run leaves idle (a single-threaded run's other core, the judge's baseline calls
        of an OpenMP run; a compiler's session weighs about 1/87 of a run's at nice -20). At the harness's own
        priority the compilers would share the run's cores, so every build finishes before the first run."""
        return self.run_nice < 0 and can_raise_priority()

    def race_checked(self, exec_model: str) -> bool:
        """Whether a program of `exec_model` gets a race-check build (BuildRequest.sanitizer = toolchains.TSAN) run first."""
        return self.race_check and exec_model in toolchains.RACE_CHECKED_EXEC_MODELS


@dataclasses.dataclass(frozen=True)
class Vetting:
    """What a built program met before its timed runs (vet)."""

    verdict: str | None  # its verdict when it must not be timed; None: time it
    detail: str  # why not: the compiler's log, what tampering.py found, the race's report ("" when timed)
    race_check: RaceCheck | None = None  # what its race check found; None where none ran


def vet(problem: suite.Problem, exec_model: str, build: BuildResult, cfg: MeasureConfig, *, body: str,
        race_build: BuildResult | None = None, needs_parallelism: bool = False) -> Vetting:  # fmt: skip
    """A built program's checks before any timed run, in order, the first that fails giving the verdict: its build
    (build_error); what tampering.py found in its object (tampering, resource_overuse: never run); with
    `needs_parallelism`, a body that does not use its execution model (no_parallelism); its race-check build
    (`race_build`, cfg.race_checked), run once at the size its `body` allows (run.check_races): a reported race is
    race_detected, an inconclusive check no verdict."""
    if not build.ok:
        return Vetting(verdict=BUILD_ERROR, detail=build.log)
    if build.finding is not None:
        return Vetting(verdict=build.finding.verdict, detail=build.finding.detail)
    if needs_parallelism:
        uses, why = suite.uses_exec_model(exec_model, body)
        if not uses:
            return Vetting(verdict=NO_PARALLELISM, detail=why)
    if race_build is None:
        return Vetting(verdict=None, detail="")
    call_limit = (cfg.timeout_floor_s, cfg.timeout_factor) if cfg.timeout_factor > 0 else None  # the judged runs'
    check = check_races(problem, exec_model, race_build, seed=cfg.seed, limits=cfg.limits(), nice=cfg.run_nice, body=body,
                        call_limit=call_limit)  # fmt: skip
    if check.status == "race":
        return Vetting(verdict=RACE_DETECTED, detail=check.detail, race_check=check)
    return Vetting(verdict=None, detail="", race_check=check)
