"""The measurement engine: generated code built, run in the sandbox, checked, timed and given a verdict.

Every study that measures code uses it: PCGBench's evaluation and reference check, RLPF's reward, HPC-Coder's
performance-change timings. It imports only `workflow_scripts.common`. Code outside this package imports the
names below from here (`from workflow_scripts.measure import run_program`), never a module inside it;
tests/measure/test_api.py holds every package, benchmark and rule to that.

    settings = MeasureConfig(**config["measure"], seed=config["seed"])   # config section `measure`
    cache = BuildCache(settings.build_config())
    [build] = cache.build_all([BuildRequest(problem=problem, exec_model="omp", body=body)])
    vetting = vet(problem, "omp", build, settings, body=body)           # build, tampering, race check
    if vetting.verdict is None:
        run = run_program(problem, "omp", build.exe, settings.protocol(threads=2), settings.limits())
        run.verdict, run.times_s, run.baseline_times_s

What each name is (the module it lives in):

suite.py         the problems a program is measured on (data/pcgbench/: problem header, driver, references)
  Problem, load_suite, get_problem    one problem as data; all of them; one by name
  prompt, reference_body, serial_baseline_body, sample_source   a prompt; a reference body; the baseline's; a
                                      sample's translation unit
  uses_exec_model                     whether a body uses its execution model (and why not)
  EXECUTION_MODELS, PROBLEM_TYPES, OPENMP_EXEC_MODELS, SIGNATURE_FAMILY, PROBLEMS_ROOT, check_exec_model
                                      the vocabulary of execution models and problem types; the data's folder
build_cache.py   BuildCache, BuildConfig, BuildRequest, BuildResult   content-addressed builds in the sandbox
run.py           RunProtocol, PROTOCOL, ProgramRun, run_program       one built program run, checked and timed
                 check_races, RaceCheck                               its ThreadSanitizer build run once
sandbox.py       SandboxLimits, check_sandbox, check_tools            the sandbox's limits and self-checks (a run's
                                                                      control group: run_cgroup.py, internal)
                 SandboxUnavailable, SandboxFailure                   the sandbox's own failures (never a verdict)
                 can_raise_priority, priority_argv                    a timed run's raised priority
timing.py        ResourceConfig, resource_sweep, placement_env, summarise_times   resource configurations, placement,
                                                                      medians with their spread
settings.py      MeasureConfig, vet, Vetting                          the settings (config section `measure`);
                                                                      the checks before any timed run
verdicts.py      OK, BUILD_ERROR, WRONG_ANSWER, ..., VERDICTS; BUILD_ONLY, UNAVAILABLE, MALFORMED   the verdict
                                      vocabulary every study shares
toolchains.py    toolchain_status, build_status, race_check_status, driver_exec_model, TSAN, RACE_CHECKED_EXEC_MODELS
                                      which models build and run here; the race-check build
kokkos.py        ensure_kokkos, kokkos_ready, kokkos_prefix, KOKKOS_VERSION   the cached Kokkos build
machine_cache.py machine_cache_dir    the machine's cache (driver objects, judges, Kokkos, headers)

Inside the package the modules import each other directly (`from workflow_scripts.measure.run import ...`),
never this file, which imports them all.
"""

from workflow_scripts.measure.build_cache import BuildCache, BuildConfig, BuildRequest, BuildResult
from workflow_scripts.measure.kokkos import KOKKOS_VERSION, ensure_kokkos, kokkos_prefix, kokkos_ready
from workflow_scripts.measure.machine_cache import machine_cache_dir
from workflow_scripts.measure.run import (
    PROTOCOL,
    ProgramRun,
    RaceCheck,
    RunProtocol,
    check_races,
    run_program,
)
from workflow_scripts.measure.sandbox import (
    SandboxFailure,
    SandboxLimits,
    SandboxUnavailable,
    can_raise_priority,
    check_sandbox,
    check_tools,
    priority_argv,
)
from workflow_scripts.measure.settings import MeasureConfig, Vetting, vet
from workflow_scripts.measure.suite import (
    DATA_ROOT as PROBLEMS_ROOT,
)
from workflow_scripts.measure.suite import (
    EXECUTION_MODELS,
    OPENMP_EXEC_MODELS,
    PROBLEM_TYPES,
    SIGNATURE_FAMILY,
    Problem,
    check_exec_model,
    get_problem,
    load_suite,
    prompt,
    reference_body,
    sample_source,
    serial_baseline_body,
    uses_exec_model,
)
from workflow_scripts.measure.timing import ResourceConfig, placement_env, resource_sweep, summarise_times
from workflow_scripts.measure.toolchains import (
    RACE_CHECKED_EXEC_MODELS,
    TSAN,
    build_status,
    driver_exec_model,
    race_check_status,
    toolchain_status,
)
from workflow_scripts.measure.verdicts import (
    BUILD_ERROR,
    BUILD_ONLY,
    CRASH,
    KILLED_RESOURCE_LIMIT,
    MALFORMED,
    NO_PARALLELISM,
    OK,
    PROMPT_MISMATCH,
    RACE_DETECTED,
    RESOURCE_OVERUSE,
    TAMPERING,
    UNAVAILABLE,
    VERDICT_TIMEOUT,
    VERDICTS,
    WRONG_ANSWER,
)

__all__ = [
    # problems
    "Problem", "load_suite", "get_problem", "prompt", "reference_body", "serial_baseline_body", "sample_source",
    "uses_exec_model", "EXECUTION_MODELS", "PROBLEM_TYPES", "OPENMP_EXEC_MODELS", "SIGNATURE_FAMILY", "PROBLEMS_ROOT",
    "check_exec_model",
    # building
    "BuildCache", "BuildConfig", "BuildRequest", "BuildResult",
    # running one program
    "RunProtocol", "PROTOCOL", "ProgramRun", "run_program", "check_races", "RaceCheck",
    # the sandbox
    "SandboxLimits", "check_sandbox", "check_tools", "SandboxUnavailable", "SandboxFailure", "can_raise_priority",
    "priority_argv",
    # timing
    "ResourceConfig", "resource_sweep", "placement_env", "summarise_times",
    # settings and the checks before a timed run
    "MeasureConfig", "vet", "Vetting",
    # verdicts
    "OK", "BUILD_ERROR", "WRONG_ANSWER", "CRASH", "VERDICT_TIMEOUT", "KILLED_RESOURCE_LIMIT", "NO_PARALLELISM",
    "RACE_DETECTED", "PROMPT_MISMATCH", "TAMPERING", "RESOURCE_OVERUSE", "VERDICTS", "BUILD_ONLY", "UNAVAILABLE",
    "MALFORMED",
    # toolchains, Kokkos, the machine's cache, drivers
    "toolchain_status", "build_status", "race_check_status", "driver_exec_model", "TSAN", "RACE_CHECKED_EXEC_MODELS",
    "ensure_kokkos", "kokkos_ready", "kokkos_prefix", "KOKKOS_VERSION", "machine_cache_dir",
]  # fmt: skip
