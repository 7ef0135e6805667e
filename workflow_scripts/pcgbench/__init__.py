"""PCGBench: the parallel code generation benchmark (problem suite, evaluation harness, metrics).

The harness's public API: build programs from generated bodies (cached by content), and run one built
program in the sandbox under a named protocol and limits. PCGBench's evaluation, the RLPF reward and the
performance-change task all build and run through these, so generated code has one sandboxed run path.

    from workflow_scripts.pcgbench import BuildCache, BuildConfig, BuildRequest, RunProtocol, SandboxLimits, run_program

    cache = BuildCache(BuildConfig(cache_dir=Path("results/pcgbench/build_cache")))
    [build] = cache.build_all([BuildRequest(problem=problem, model="omp", body=body)])
    if build.ok:
        run = run_program(problem, "omp", build.exe, RunProtocol(warmup=1, reps=3, validations=3, seed=1234,
                                                                 threads=2), SandboxLimits(wall_s=20.0))
        run.verdict, run.times_s, run.baseline_times_s
    # An OpenMP sample's race check: its ThreadSanitizer build, run once (run.check_races)
    [tsan] = cache.build_all([BuildRequest(problem=problem, model="omp", body=body, sanitizer=suite.TSAN)])
    check_races(problem, "omp", tsan, seed=1234, limits=SandboxLimits(wall_s=60.0)).status

The problem suite itself is `workflow_scripts.pcgbench.suite`.
"""

from workflow_scripts.pcgbench.build import BuildCache, BuildConfig, BuildRequest, BuildResult
from workflow_scripts.pcgbench.run import (
    PROTOCOL,
    ProgramRun,
    RaceCheck,
    RunProtocol,
    check_races,
    run_program,
)
from workflow_scripts.pcgbench.sandbox import (
    BUILD_ERROR,
    CRASH,
    KILLED_RESOURCE_LIMIT,
    NO_PARALLELISM,
    OK,
    PROMPT_MISMATCH,
    RACE_DETECTED,
    RESOURCE_OVERUSE,
    TAMPERING,
    VERDICT_TIMEOUT,
    VERDICTS,
    WRONG_ANSWER,
    SandboxFailure,
    SandboxLimits,
    SandboxUnavailable,
    check_sandbox,
    check_tools,
)
from workflow_scripts.pcgbench.timing import placement_env, summarise_times

__all__ = [
    # building
    "BuildCache", "BuildConfig", "BuildRequest", "BuildResult",
    # running one program
    "RunProtocol", "PROTOCOL", "ProgramRun", "run_program", "SandboxLimits", "check_races", "RaceCheck", "check_tools", "placement_env", "summarise_times",
    # the sandbox's own failures (never a verdict on a sample)
    "check_sandbox", "SandboxUnavailable", "SandboxFailure",
    # verdicts
    "BUILD_ERROR", "NO_PARALLELISM", "VERDICT_TIMEOUT", "CRASH", "KILLED_RESOURCE_LIMIT", "WRONG_ANSWER", "OK",
    "PROMPT_MISMATCH", "RACE_DETECTED", "TAMPERING", "RESOURCE_OVERUSE",
    "VERDICTS",
]  # fmt: skip
