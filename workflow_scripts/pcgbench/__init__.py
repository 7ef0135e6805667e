"""PCGBench: the parallel code generation benchmark (problem suite, evaluation harness, metrics).

This package is a study of its own and the library every other study uses to build and run generated code.
Other packages import from here only (`from workflow_scripts.pcgbench import run_program`), never a module
inside it: tests/pcgbench_harness/test_api.py holds them to `__all__`. What they get:

- building: BuildCache, BuildConfig, BuildRequest, BuildResult (build.py: content-addressed, compiled in the
  sandbox);
- running one built program under a named protocol and limits: RunProtocol, PROTOCOL, run_program, ProgramRun,
  check_races, RaceCheck (run.py), SandboxLimits, check_sandbox, check_tools and the sandbox's own failures,
  SandboxUnavailable and SandboxFailure, which are never a verdict on a sample, and the raised priority of a timed
  run, can_raise_priority and priority_argv (sandbox.py); the resource configurations a model is timed at,
  resource_sweep, placement_env, summarise_times (timing.py);
- the verdict vocabulary: OK, BUILD_ERROR, WRONG_ANSWER, ... VERDICTS, and a reference's BUILD_ONLY and
  UNAVAILABLE (verdicts.py);
- the harness's settings, EvaluateConfig (config section pcgbench.evaluate: limits, run protocol, time-limit
  rule, builds), and the checks a built program passes before it is timed, vet (harness.py); the evaluation's
  estimators, compute_metrics (metrics.py); the evaluation itself, `evaluate` (a generations file, one shard of it
  and the shards' merge, a list of samples, one sample's runs), and a sample, Sample (samples.py);
- generations files: load_generations, validate_records, and a problem's prompt record and ParEval names,
  prompt_record, problem_name, numbered_names (pareval_format.py); translation prompts: is_translation,
  model_prompt, and the pairs, parse_pair, pareval_pairs (translation.py); ParEval's results files, its outputs
  with its own verdicts (`pareval_results`: load_results, the released ones in data/pareval_released/), and
  `agreement` (agreement.main scores one here and holds each verdict against ParEval's, with a cause);
- the problem suite, `suite` (problems, prompts, reference bodies), and the configured selection of it,
  select_problems (prompts.py); `toolchains` (which models build and run here, compilers, flags, race-check builds)
  and `driver_program` (a driver's source, build, command line and output); the self-test generators, `generators`,
  their names, SELF_TEST_GENERATORS, and the suite's files for a rule, suite_files and prompt_set_file (paths.py);
- the study's own planning and acceptance check, which its benchmarks run: `shards` (an evaluation split into
  cluster jobs), `projection` (those jobs' runtimes at the paper's scale, from measured costs) and
  `reference_speedups` (every reference built, validated and timed).

    from workflow_scripts.pcgbench import BuildCache, BuildConfig, BuildRequest, RunProtocol, SandboxLimits, run_program

    cache = BuildCache(BuildConfig(cache_dir=Path("results/pcgbench/build_cache")))
    [build] = cache.build_all([BuildRequest(problem=problem, model="omp", body=body)])
    if build.ok:
        run = run_program(problem, "omp", build.exe, RunProtocol(warmup=1, reps=3, validations=3, seed=1234,
                                                                 threads=2), SandboxLimits(wall_s=20.0))
        run.verdict, run.times_s, run.baseline_times_s
    # An OpenMP sample's race check: its ThreadSanitizer build, run once (run.check_races)
    [tsan] = cache.build_all([BuildRequest(problem=problem, model="omp", body=body, sanitizer=toolchains.TSAN)])
    check_races(problem, "omp", tsan, seed=1234, limits=SandboxLimits(wall_s=60.0)).status

The package's own modules import each other directly (`from workflow_scripts.pcgbench.build import ...`),
never this file, which imports them all.
"""

from workflow_scripts.pcgbench import (
    agreement,
    driver_program,
    evaluate,
    generators,
    pareval_results,
    projection,
    reference_speedups,
    shards,
    suite,
    toolchains,
    validation_strength,
)
from workflow_scripts.pcgbench.build import BuildCache, BuildConfig, BuildRequest, BuildResult
from workflow_scripts.pcgbench.harness import EvaluateConfig, vet
from workflow_scripts.pcgbench.metrics import compute_metrics
from workflow_scripts.pcgbench.pareval_format import (
    load_generations,
    numbered_names,
    problem_name,
    prompt_record,
    validate_records,
)
from workflow_scripts.pcgbench.paths import SELF_TEST_GENERATORS, prompt_set_file, suite_files
from workflow_scripts.pcgbench.prompts import select_problems
from workflow_scripts.pcgbench.run import (
    PROTOCOL,
    ProgramRun,
    RaceCheck,
    RunProtocol,
    check_races,
    run_program,
)
from workflow_scripts.pcgbench.samples import Sample
from workflow_scripts.pcgbench.sandbox import (
    SandboxFailure,
    SandboxLimits,
    SandboxUnavailable,
    can_raise_priority,
    check_sandbox,
    check_tools,
    priority_argv,
)
from workflow_scripts.pcgbench.timing import placement_env, resource_sweep, summarise_times
from workflow_scripts.pcgbench.translation import is_translation, model_prompt, pareval_pairs, parse_pair
from workflow_scripts.pcgbench.verdicts import (
    BUILD_ERROR,
    BUILD_ONLY,
    CRASH,
    KILLED_RESOURCE_LIMIT,
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
    # building
    "BuildCache", "BuildConfig", "BuildRequest", "BuildResult",
    # running one program
    "RunProtocol", "PROTOCOL", "ProgramRun", "run_program", "SandboxLimits", "check_races", "RaceCheck", "check_tools",
    "can_raise_priority", "priority_argv", "resource_sweep", "placement_env", "summarise_times",
    # the sandbox's own failures (never a verdict on a sample)
    "check_sandbox", "SandboxUnavailable", "SandboxFailure",
    # verdicts
    "BUILD_ERROR", "NO_PARALLELISM", "VERDICT_TIMEOUT", "CRASH", "KILLED_RESOURCE_LIMIT", "WRONG_ANSWER", "OK",
    "PROMPT_MISMATCH", "RACE_DETECTED", "TAMPERING", "RESOURCE_OVERUSE", "VERDICTS",
    # what a reference can be here that no sample is (reference_speedups.py)
    "BUILD_ONLY", "UNAVAILABLE",
    # the evaluation's settings and estimators, the evaluation itself and its samples
    "EvaluateConfig", "vet", "compute_metrics", "evaluate", "Sample",
    # generations files, ParEval's names and translation prompts
    "load_generations", "validate_records", "prompt_record", "problem_name", "numbered_names", "is_translation",
    "model_prompt", "parse_pair", "pareval_pairs",
    # ParEval's results files (its released outputs with its verdicts) and per-sample agreement with them
    "pareval_results", "agreement",
    # the problem suite, its self-test generators and the files rules name
    "suite", "select_problems", "toolchains", "driver_program", "generators", "SELF_TEST_GENERATORS", "suite_files",
    "prompt_set_file",
    # the study's shards, their projected runtimes, the reference check and the validation-strength check (its
    # benchmarks run them)
    "shards", "projection", "reference_speedups", "validation_strength",
]  # fmt: skip
